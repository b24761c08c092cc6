#!/usr/bin/python3
"""check_report.py FILE...: validate reports with Debian's python3-jsonschema.

The independent side of the report checks: Draft 2020-12 validation of each
file against docs/report.schema.json, every error listed with its path.
Exit 0 only when every file is valid. Run with /usr/bin/python3, whose
jsonschema (4.10) knows Draft202012Validator.
"""
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                      "report.schema.json")


def main():
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors[:10]:
            print("%s: /%s: %s" % (path, "/".join(str(p) for p in e.absolute_path), e.message))
        if errors:
            bad += 1
        else:
            print("%s: ok" % path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
