#!/bin/sh
# packaging/kernel: the distribution kernel patch that makes 2.6.32-3.x kernels
# print S1 is well-formed, applies to the context it claims, and the warning
# it adds is byte for byte the text the detector's catalog recognises as S1.
#
# No kernel tree is needed: a minimal mm/memcontrol.c is rebuilt from the
# patch's own context and removed lines, padded so the hunk lands exactly on
# the line number its header claims.
. tests/lib.sh

PDIR=$PWD/packaging/kernel
PATCH=$PDIR/0001-memcg-warn-on-deeper-hierarchies-with-use_hierarchy-0.patch
S1_TSV=$(awk -F '\t' '$1 == "S1" { print $6 }' "$DATA/messages.tsv")

check "patch file exists" [ -f "$PATCH" ]
check "quilt series lists the patch (and only existing files)" \
	sh -c 'n=0; for p in $(grep -v "^#" "$1/series"); do [ -f "$1/$p" ] || exit 1; n=$((n+1)); done; [ $n -ge 1 ] && grep -qx "$(basename "$2")" "$1/series"' _ "$PDIR" "$PATCH"
check "no mail-archive munged addresses left" sh -c '! grep -q -e gmane -e "-AT-" "$1"' _ "$PATCH"
check "no line wrapped inside a string literal" \
	sh -c '! grep -E "^\+" "$1" | grep -v "^+++" | awk -F "\"" "NF % 2 == 0 { bad = 1 } END { exit !bad }"' _ "$PATCH"

# git format-patch header, as git am reads it.
(cd "$T_TMP" && git mailinfo msg body < "$PATCH" > info 2>/dev/null)
check "git mailinfo: author" grep -qx 'Author: Michal Hocko' "$T_TMP/info"
check "git mailinfo: e-mail is the real address" grep -qx 'Email: mhocko@suse.cz' "$T_TMP/info"
check "git mailinfo: subject" grep -qx 'Subject: memcg: warn on deeper hierarchies with use_hierarchy==0' "$T_TMP/info"
check "git mailinfo: date" grep -qx 'Date: Tue, 4 Sep 2012 15:55:03 +0200' "$T_TMP/info"
check "format-patch first line" sh -c 'head -n 1 "$1" | grep -Eq "^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$"' _ "$PATCH"
check "Signed-off-by kept" grep -qx 'Signed-off-by: Michal Hocko <mhocko@suse.cz>' "$PATCH"
check "addressed to Tejun Heo and linux-mm" \
	sh -c 'grep -qx "To: Tejun Heo <tj@kernel.org>" "$1" && grep -qx "Cc: linux-mm@kvack.org" "$1"' _ "$PATCH"

# Rebuild the pre-image: filler up to the hunk's start line, then every
# context (' ') and removed ('-') line of the hunk.
TREE=$T_TMP/linux
mkdir -p "$TREE/mm"
start=$(sed -n 's/^@@ -\([0-9]*\),[0-9]* +[0-9]*,[0-9]* @@.*/\1/p' "$PATCH" | head -n 1)
check "one hunk with a line number" [ -n "$start" ]
awk -v start="${start:-1}" '
	BEGIN { for (i = 1; i < start; i++) printf "/* filler line %d */\n", i }
	/^@@ / { inhunk = 1; next }
	/^-- $/ { inhunk = 0 }
	inhunk && /^[ -]/ { print substr($0, 2) }
' "$PATCH" > "$TREE/mm/memcontrol.c"
cp "$TREE/mm/memcontrol.c" "$T_TMP/memcontrol.c.orig"
check "context file has the claimed mem_cgroup_create() lines" \
	grep -q 'mem->use_hierarchy = parent->use_hierarchy;' "$TREE/mm/memcontrol.c"

check "git apply --check --recount" sh -c 'cd "$1" && git apply --check --recount "$2"' _ "$TREE" "$PATCH"
check "git apply --check (hunk counts right without --recount)" \
	sh -c 'cd "$1" && git apply --check "$2"' _ "$TREE" "$PATCH"
(cd "$TREE" && patch -p1 --dry-run < "$PATCH") > "$T_TMP/dry" 2>&1
st=$?
check "patch -p1 --dry-run" [ $st -eq 0 ]
check "patch applies without offset or fuzz" sh -c '! grep -Eq "offset|fuzz|malformed" "$1"' _ "$T_TMP/dry"
if command -v quilt >/dev/null 2>&1; then
	Q=$T_TMP/quilt
	mkdir -p "$Q/mm" && cp "$T_TMP/memcontrol.c.orig" "$Q/mm/memcontrol.c"
	check "quilt push -a with the series file" \
		sh -c 'cd "$1" && QUILT_PATCHES="$2" quilt push -a -q >/dev/null 2>&1' _ "$Q" "$PDIR"
else
	skip "quilt push -a with the series file" "quilt not installed (make deps)"
fi

# Apply for real and pull the warning out of the C source: the adjacent
# string literals of the WARN_ONCE() call, concatenated.
(cd "$TREE" && git apply --recount "$PATCH") 2>"$T_TMP/apply.err"
check "git apply for real" grep -q 'WARN_ONCE' "$TREE/mm/memcontrol.c"
TEXT=$(sed -n '/WARN_ONCE(/,/);/p' "$TREE/mm/memcontrol.c" |
	grep -o '"\([^"\\]\|\\.\)*"' | sed 's/^"//; s/"$//' | tr -d '\n')
check "warning has no C escapes (a literal that needs none)" sh -c '! printf "%s" "$1" | grep -q "\\\\"' _ "$TEXT"
if [ "$TEXT" = "$S1_TSV" ]; then
	ok "warning text is byte-identical to S1 in tests/data/messages.tsv"
else
	not_ok "warning text differs from S1:"; printf '# patch: %s\n# S1:    %s\n' "$TEXT" "$S1_TSV"
fi

# The catalog's regex, read straight from data/catalog.json: it matches the
# text (POSIX ERE, as the detector uses it), and with its tolerances
# (optional "-" of the linux-mm-@ typo, optional period and trailing blanks)
# taken out it spells exactly the text.
REGEX=$(python3 -c '
import json, sys
c = json.load(open("data/catalog.json"))
print(next(e["regex"] for e in c["entries"] if e["id"] == "S1"))')
check "catalog S1 regex matches the text (grep -E)" sh -c 'printf "%s\n" "$1" | grep -Eq -- "$2"' _ "$TEXT" "$REGEX"
SKELETON=$(python3 -c '
import re, sys
r = sys.argv[1]
r = r.removeprefix("^").removesuffix("$").removesuffix("[[:space:]]*").removesuffix("\\.?")
r = r.replace("-?", "")
assert not re.search(r"(?<!\\)[][()?*+{}|^$]", r), r
print(re.sub(r"\\(.)", r"\1", r))' "$REGEX")
if [ "$TEXT" = "$SKELETON" ]; then
	ok "warning text is byte-identical to the literal part of the catalog regex"
else
	not_ok "catalog regex spells another text"; printf '# patch:   %s\n# catalog: %s\n' "$TEXT" "$SKELETON"
fi

# What the kernel prints once the patch is in: a SUSE 3.0 WARN block.
cat > "$T_TMP/dmesg" <<EOF
[  118.223344] ------------[ cut here ]------------
[  118.223350] WARNING: at /usr/src/packages/BUILD/kernel-default-3.0.101/linux-3.0/mm/memcontrol.c:$((start + 3)) mem_cgroup_create+0x3ac/0x510()
[  118.223352] Hardware name: Standard PC (i440FX + PIIX, 1996)
[  118.223353] $TEXT
[  118.223360] Modules linked in: af_packet
[  118.223361] Supported: Yes
[  118.223363] Pid: 4242, comm: libvirtd Tainted: G        W    3.0.101-63-default #1
[  118.223364] Call Trace:
[  118.223370] ---[ end trace a6c54db610fd5bb5 ]---
EOF
"$CGFB" scan --json "$T_TMP/dmesg" > "$T_TMP/scan" 2>"$T_TMP/scan.err"
check "scan exits 0 on the WARN block" [ $? -eq 0 ]
check "scan finds S1 in the patched kernel's WARN" grep -q '"id":"S1"' "$T_TMP/scan"
check "S1 carries the comm from the WARN block" grep -q '"comm":"libvirtd"' "$T_TMP/scan"
check "exactly one detection" [ "$(grep -c '"id"' "$T_TMP/scan")" -eq 1 ]
printf '[    9.000001] %s\n' "$TEXT" > "$T_TMP/plain"
check "scan finds S1 in a plain dmesg line" sh -c '"$1" scan --json "$2" | grep -q "\"id\":\"S1\""' _ "$CGFB" "$T_TMP/plain"

finish
