/* The report schema (docs/report.schema.json), checked in C by both the
 * client and the collector. It interprets the JSON Schema 2020-12 keywords
 * the file uses and refuses to load a schema using any other, so the file
 * stays the single definition that python3-jsonschema also checks. */
#ifndef CGFB_SCHEMA_H
#define CGFB_SCHEMA_H

#include <stddef.h>

#include <json-c/json.h>

struct cgfb_schema;

int cgfb_schema_load_buffer(struct cgfb_schema **out, const char *json, size_t len, char *err,
			    size_t errsz);
/* The copy of docs/report.schema.json compiled into the binary. */
int cgfb_schema_load_builtin(struct cgfb_schema **out, char *err, size_t errsz);
void cgfb_schema_free(struct cgfb_schema *s);
/* SHA-256 of the schema text: what a consent is bound to. */
const char *cgfb_schema_sha256(const struct cgfb_schema *s);

/* 0 when doc is valid; otherwise -EINVAL and "<json pointer>: <reason>" in err. */
int cgfb_schema_validate(const struct cgfb_schema *s, json_object *doc, char *err, size_t errsz);
/* The same for a report leaving the client or reaching the collector
 * (#/$defs/sent_report): a report and a consent object, never the null of
 * a report still pending on the machine. */
int cgfb_schema_validate_sent(const struct cgfb_schema *s, json_object *doc, char *err,
			      size_t errsz);

/* Whether value is valid under #/$defs/<def>: 0, -EINVAL, or -ENOENT when
 * the schema has no such definition. The vocabularies a report may use
 * (controllers, knobs, kernel files, distributions, ...) are defined once,
 * in the schema; the client asks it before it writes a value, so that what
 * it sends and what the collector accepts cannot drift apart. Quiet: no
 * reason is given, the caller substitutes its placeholder. */
int cgfb_schema_check_def(const struct cgfb_schema *s, const char *def, json_object *value);
int cgfb_schema_check_word(const struct cgfb_schema *s, const char *def, const char *word);

#endif
