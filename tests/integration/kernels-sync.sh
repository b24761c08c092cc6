#!/bin/sh
# tools/kernels-sync writes data/kernels.json's published build numbers from a
# distribution's package indices (issue 40: a build number is sent exactly
# only when a list that was read vouches for it). Planted indices: Ubuntu
# kernels of two flavours the shape takes (one with numbers the other
# lacks), one it does not (oem), packages that only look like kernels, a
# plain and an xz-compressed file. It must list exactly the planted numbers
# per flavour, merge or replace as asked, refuse to overwrite the table it
# reads, and leave the committed table as it is when the indices add
# nothing (the committed file is in the tool's own form). Python only:
# well under a second.
# shellcheck shell=sh
. tests/lib.sh

TABLE=data/kernels.json
before=$(sha256sum "$TABLE")
cat > "$T_TMP/a" <<'EOF'
Package: linux-image-9.9.0-3-generic
Version: 9.9.0-3.3

Package: linux-image-unsigned-9.9.0-4-generic
Package: linux-modules-9.9.0-5-generic
Package: linux-image-9.9.0-7-lowlatency
Package: linux-image-9.9.0-3-lowlatency
Package: linux-image-9.9.0-1001-aws
Package: linux-image-9.9.0-11-oem
Package: linux-headers-9.9.0-12-generic
Package: linux-image-generic
Package: linux-image-9.9.0-13-generic-dbgsym
Description: linux-image-9.9.0-14-generic
EOF
printf 'Package: linux-image-9.9.0-9-generic\nPackage: linux-image-9.9.0-4-lowlatency\n' | xz > "$T_TMP/b.xz"

python3 tools/kernels-sync --family ubuntu --replace --out "$T_TMP/r.json" "$T_TMP/a" "$T_TMP/b.xz" \
	> "$T_TMP/r.out" 2>&1
check "--replace: the family's rows are exactly the planted kernels, per flavour, nothing else" \
	python3 - "$T_TMP/r.json" "$T_TMP/r.out" <<'EOP'
import json, sys
t = json.load(open(sys.argv[1]))
u = next(s for s in t["shapes"] if s["family"] == "ubuntu")
got = {(r["upstream"], r.get("flavour"), json.dumps(r["builds"])) for r in u["published"]}
want = {("9.9.0", "^(generic)$", "[[3, 5], [9, 9]]"),
        ("9.9.0", "^(lowlatency)$", "[[3, 4], [7, 7]]"),
        ("9.9.0", "^(aws)$", "[[1001, 1001]]")}
assert got == want, got
out = open(sys.argv[2]).read()
assert "ubuntu 9.9.0-generic: 4 published, added 3-5,9" in out, out
# The other families are as they were.
d = next(s for s in t["shapes"] if s["family"] == "debian")
assert {"upstream": "6.1.0", "builds": [[1, 57]]} in d["published"], d
EOP

printf 'Package: linux-image-9.9.0-5-lowlatency\nPackage: linux-image-9.9.0-9-lowlatency\n' > "$T_TMP/c"
python3 tools/kernels-sync --family ubuntu --table "$T_TMP/r.json" --out "$T_TMP/m.json" "$T_TMP/c" \
	> "$T_TMP/m.out" 2>&1
check "merge: the numbers listed stay, the new ones are added and said" \
	sh -c 'grep -q "{\"upstream\": \"9.9.0\", \"flavour\": \"^(lowlatency)\$\", \"builds\": \[\[3, 5\], \[7, 7\], \[9, 9\]\]}" "$1" &&
	grep -q "{\"upstream\": \"9.9.0\", \"flavour\": \"^(generic)\$\", \"builds\": \[\[3, 5\], \[9, 9\]\]}" "$1" &&
	grep -qx "ubuntu 9.9.0-lowlatency: 5 published, added 5,9" "$2"' _ "$T_TMP/m.json" "$T_TMP/m.out"
printf 'Package: linux-image-9.9.0-7-generic\n' > "$T_TMP/c"
check "... flavours with the same numbers share one row" \
	sh -c 'python3 tools/kernels-sync --family ubuntu --table "$1" --out "$2" "$3" > /dev/null &&
	grep -q "{\"upstream\": \"9.9.0\", \"flavour\": \"^(generic|lowlatency)\$\", \"builds\": \[\[3, 5\], \[7, 7\], \[9, 9\]\]}" "$2"' \
	_ "$T_TMP/m.json" "$T_TMP/m2.json" "$T_TMP/c"

printf 'Package: linux-image-6.1.0-28-amd64\nPackage: linux-image-5.10.0-1-cloud-amd64\n' > "$T_TMP/deb"
python3 tools/kernels-sync --family debian --out "$T_TMP/same.json" "$T_TMP/deb" > "$T_TMP/same.out" 2>&1
check "indices that add nothing: the committed table comes out byte for byte, nothing printed" \
	sh -c 'cmp -s "$1" "$2" && [ ! -s "$3" ]' _ "$TABLE" "$T_TMP/same.json" "$T_TMP/same.out"

check "--out may not be the table it reads" \
	sh -c '! python3 tools/kernels-sync --family debian --out "$1" "$2" 2> /dev/null' _ "$TABLE" "$T_TMP/deb"
check "indices naming no kernel of the family: refused, said so" \
	sh -c '! python3 tools/kernels-sync --family debian --out "$1/x.json" "$1/a" 2> "$1/err" &&
	grep -q "name no debian kernel image" "$1/err" && [ ! -e "$1/x.json" ]' _ "$T_TMP"
check "data/kernels.json untouched" [ "$before" = "$(sha256sum "$TABLE")" ]
finish
