#!/bin/sh
# Privacy by construction, end to end: identifying strings planted
# everywhere input enters — kernel records (process names cut inside a UTF-8
# sequence, control bytes, names as controllers, an uncatalogued message, a
# WARN block built under a user's directory), the cgroup tree, os-release,
# /proc/cmdline, the host name, the use case — and none of them reaches a
# report, the exported e-mail, the SMTP conversation, a collector row, the
# digest or the public summary. Then: one install seen on several boots,
# distributions and kernels is one install in the public summary.
. tests/lib.sh
. tests/server/lib.sh
. tests/data/cgroupfs/lib.sh

PLANTED="acme jdoe s3cret 4711 10.1.2.3 db01 wiki.corp"
# The use case's disguised plants (issue 27), as the scan reads them.
PLANTED="$PLANTED hunter2 s3cr3t 00-1a-2b-3c-4d-5e fs01 10.9.8.7 ledger"
# What the hostile fixture tree plants (hostile-strings.txt) counts too.
PLANTED="$PLANTED $(grep -v '^#' tests/data/cgroupfs/hostile-strings.txt | tr '\n' ' ')"

# leaks FILE...: the planted strings found in FILE... (case-insensitive).
# A short one is looked for with the random material taken out: hashes,
# keyed tokens and UUIDs are runs of hex digits, and "4711" or "db01" turn
# up in them by chance about once in twenty runs, while a string copied from
# the machine comes with its neighbours ("(4711)", "db01.acme-corp"), never
# inside such a run. A long one (the planted 64-hex container id) cannot
# turn up by chance and is looked for in the files as they are.
# The files are also read as a reader sees them: JSON escapes and
# quoted-printable decoded, invisible characters (Cf, Mn) dropped, NFKC,
# Cyrillic and Greek look-alikes as the Latin letters they imitate, "[.]"
# as a dot.
normalised() {
	python3 -c 'import quopri, re, sys, unicodedata
look = str.maketrans("\u0430\u0435\u043e\u0440\u0441\u0445\u03bf\u03b1", "aeopcxoa")
for f in sys.argv[1:]:
    t = open(f, "rb").read()
    if b"quoted-printable" in t:
        t = quopri.decodestring(t)
    t = t.decode("utf-8", "replace")
    t = re.sub(r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})",
               lambda m: chr(0x10000 + ((int(m.group(1), 16) - 0xd800) << 10) + int(m.group(2), 16) - 0xdc00), t)
    t = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), t)
    t = "".join(c for c in unicodedata.normalize("NFKC", t) if unicodedata.category(c) not in ("Cf", "Mn"))
    print(t.translate(look).replace("[.]", "."))' "$@"
}
leaks() {
	found=
	{ without_random "$@"; normalised "$@" | without_random; } > "$T_TMP/leaks.txt"
	for s in $PLANTED; do
		if [ "${#s}" -ge 12 ]; then
			grep -qiF -- "$s" "$@" 2>/dev/null && found="$found $s"
		else
			grep -qiF -- "$s" "$T_TMP/leaks.txt" && found="$found $s"
		fi
	done
	echo "$found"
}
check_clean() {  # check_clean WHAT FILE...: the files exist and hold nothing planted
	what=$1; shift
	for f; do
		[ -s "$f" ] || { not_ok "$what: $f is missing or empty"; return; }
	done
	l=$(leaks "$@")
	if [ -z "$l" ]; then ok "nothing planted reaches $what"; else not_ok "$what holds:$l"; fi
}

# In namespaces of their own the host name is planted too, a user jdoe
# exists (NSS reads the bind-mounted passwd) and the hostile tree is
# /sys/fs/cgroup (its cgroup names are secrets of the use case), as on the
# machine of a real administrator.
cp /etc/passwd "$T_TMP/passwd"
echo 'jdoe:x:1234:1234:John Doe:/home/jdoe:/bin/bash' >> "$T_TMP/passwd"
if [ "$(id -u)" -eq 0 ] && unshare -um true 2>/dev/null; then
	HOSTED() {
		unshare -um sh -c 'mount --bind "$0" /etc/passwd && mount --bind "$1" /sys/fs/cgroup &&
			hostname db01.acme-corp.example && shift && exec "$@"' "$T_TMP/passwd" \
			"$T_TMP/fx/root/srv/acme-corp data/cgroup" "$@"
	}
else
	HOSTED() { "$@"; }
	skip "planted host and user names" "needs root and unshare -um"
fi

ST=$T_TMP/state
CONF=$T_TMP/conf
mkdir -p "$ST"
fixture hostile "$T_TMP/fx" || { not_ok "fixture"; finish; exit 1; }
printf 'ID=acme-linux\nVERSION_ID="jdoe-7"\nPRETTY_NAME="ACME Linux for jdoe"\n' > "$T_TMP/os-release"
printf 'BOOT_IMAGE=/boot/vmlinuz-acme root=/dev/mapper/acme-root psi=acme swapaccount=0 cgroup_no_v1=acme_ctl,memory quiet\n' > "$T_TMP/cmdline"
cat > "$T_TMP/uc" <<'EOF'
Our batch nodes pin jobs with memory.limit_in_bytes. Ask jdoe or ssh to 10.1.2.3.
Runbook: https://wiki.corp.example/acme/cgroups and the host db01.acme-corp.example.
Disguised: ops@acme​-corp.example, 𝐝𝐛𝟎𝟏-replica, jdое-admin, MAC 00-1A-2B-3C-4D-5E, \\fs01\payroll, 10[.]9[.]8[.]7,
password is hunter2, Server=db01;User Id=app;Password=s3cr3t; and the cgroup ledger-ACME. system.slice stays.
EOF

# Kernel records in the /dev/kmsg format; \xNN is how the kernel escapes.
i=0
rec() { i=$((i + 1)); printf '%s,%d,%d,-;%s\n' "$1" "$i" "$((i * 1000))" "$2" >> "$T_TMP/kmsg"; }
rec 4 'cgroup: acme-db\xc3 (4711) created nested cgroup for controller "memory" which has incomplete hierarchy support. Nested cgroups may change behavior in the future.'
rec 4 'cgroup: "acme_secret" requires setting use_hierarchy to 1 on the root.'
rec 6 'cpuset.acme_secret is deprecated, use /home/jdoe/acme instead'
rec 4 'acme\x1b[1m (4711): memory.force_empty is deprecated and will be removed.  Let us know if it is needed in your usecase at linux-mm@kvack.org'
rec 4 'acme-db01 (4711): memory.acme_customer_secret broke at /home/jdoe/x 10.1.2.3 for jdoe@acme.example, tell linux-mm@kvack.org'
rec 4 '------------[ cut here ]------------'
rec 4 'WARNING: CPU: 1 PID: 4711 at /srv/linux-builds/jdoe/acme-kernel/mm/memcontrol.c:5001 mem_cgroup_css_alloc+0x1a/0x2b0 [acme_mod]'
rec 4 'Creating hierarchies with use_hierarchy==0 (flat hierarchy) is considered deprecated. If you believe that your setup is correct, we kindly ask you to contact linux-mm@kvack.org and let us know'
rec 4 '---[ end trace 0000000000000000 ]---'
echo 11111111-2222-3333-4444-555555555555 > "$T_TMP/boot"

start_server priv --rate 0 || { not_ok "server starts"; finish; exit 1; }
# A configured proxy is for https alone (a dead port, as below).
printf 'endpoint = %s/api/v1/reports\nnotify = log\nmotd-path = %s/motd\ntimeout = 5\nproxy = http://127.0.0.1:9\n' \
	"$URL" "$T_TMP" > "$CONF"
cfb() { HOSTED "$CGFB" --config "$CONF" "$@"; }

cfb watch --once --kmsg "$T_TMP/kmsg" --state-dir "$ST" --boot-id-file "$T_TMP/boot" \
	--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" \
	--os-release "$T_TMP/os-release" --cmdline "$T_TMP/cmdline" > "$T_TMP/watch.out" 2>&1
expect_eq "watch over the planted records exits 0" "$?" 0
n=$(ls "$ST"/reports/*.json 2>/dev/null | wc -l)
expect_eq "six reports (C1, C2, V1, S2, G1, S1)" "$n" 6
check_clean "the reports on disk" "$ST"/reports/*.json
# One report mailed before any is submitted: its tokens are the mail
# channel's (compared with the collector's below).
id0=$(basename "$(ls "$ST"/reports/*.json | head -n 1)" .json)
cfb export --yes --state-dir "$ST" --redact --use-case-file "$T_TMP/uc" --output "$T_TMP/r0.eml" "$id0" \
	> /dev/null 2>&1
expect_eq "export of a report before any is submitted exits 0" "$?" 0

# Every report, with the planted use case, over HTTP to the collector, but
# two: the one mailed above, refused (each report goes one way: its id in
# the e-mail would find the collector's row, and that row's pseudonym every
# other report of the machine there), and the second, kept for SMTP below.
id1=$(basename "$(ls "$ST"/reports/*.json | sed -n 2p)" .json)
for f in "$ST"/reports/*.json; do
	id=$(basename "$f" .json)
	[ "$id" = "$id1" ] && continue
	# Each entry's own questions: G1 asks only for a purpose.
	key=software
	grep -q '"catalog_id":"G1"' "$f" && key=purpose
	# Through the proxies a host may set for every process (a dead port:
	# a report that went to one would not be stored): a loopback
	# collector is reached directly, the bytes never leave in clear.
	http_proxy=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 \
		cfb submit --state-dir "$ST" --yes --redact --use-case-file "$T_TMP/uc" \
		--answer "$key=batch" "$id" > "$T_TMP/submit.out" 2>&1
	rc=$?
	if [ "$id" = "$id0" ]; then
		check "the mailed report: submit refused (exit 2), each report goes one way" \
			sh -c '[ "$1" = 2 ] && grep -q "was written as an e-mail for [^;]*linux-mm@kvack.org[^;]*; each report goes one way" "$2"' \
			_ "$rc" "$T_TMP/submit.out"
	elif [ "$rc" != 0 ]; then
		not_ok "submit $id"; sed 's/^/# /' "$T_TMP/submit.out"
	fi
done
expect_eq "four stored by the collector, not the mailed one" "$(rows "$DIR/db.sqlite")" 4
expect_eq "...the mailed report's id is in no row" \
	"$(sql "$DIR/db.sqlite" "select count(*) from reports where id = '$id0'")" 0
# And a report sent to the collector is never mailed too.
id3=$(basename "$(ls "$ST"/reports/*.json | sed -n 3p)" .json)
cfb export --yes --state-dir "$ST" --output "$T_TMP/sent.eml" "$id3" > "$T_TMP/export.out" 2>&1
check "a sent report: export refused (exit 2), no e-mail written" \
	sh -c '[ "$1" = 2 ] && [ ! -e "$2" ] && grep -q "went to .*each report goes one way" "$3"' \
	_ "$?" "$T_TMP/sent.eml" "$T_TMP/export.out"
check_clean "the consented reports in the spool" "$ST"/reports/*.json
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for t, in db.execute("select name from sqlite_master where type = \"table\""):
    for row in db.execute("select * from \"%s\"" % t):
        print("\t".join(str(c) for c in row))' "$DIR/db.sqlite" > "$T_TMP/rows.txt"
check_clean "any collector row" "$T_TMP/rows.txt"
# The mailed report shares no token with any report at the collector (its
# own HTTP copy included), while the collector's reports of this machine
# share theirs: the same name gives the same token at one endpoint.
admin /api/v1/digest > /dev/null
cp "$T_TMP/body" "$T_TMP/digest"
check_clean "the digest" "$T_TMP/digest"
fresh_summary > /dev/null
cp "$T_TMP/body" "$T_TMP/summary"
check_clean "the public summary" "$T_TMP/summary"
admin /api/v1/export.mbox > /dev/null
check_clean "the collector's mbox export" "$T_TMP/body"

# A cgroup the report named at warning time and gone by now: its name in a
# use case is still found, since the report carries its token (not only
# the names of the tree as it is). Run outside HOSTED: the host's own
# /sys/fs/cgroup has none of the fixture's names. The name is one whose
# token the kept report carries, computed here with the key.
gone=$(python3 - "$ST/reports/$id1.json" "$ST/secret" <<'PYEOF'
import hashlib, hmac, sys
report = open(sys.argv[1]).read()
mid = open("/etc/machine-id", "rb").read(32)
key = hmac.new(open(sys.argv[2], "rb").read(), b"machine-id\0" + mid, hashlib.sha256).digest()
for name in ("ledger-ACME", "invoices-ACME", "ACME-Corporation-billing", "home-jdoe-projects"):
    if "h:" + hmac.new(key, name.encode(), hashlib.sha256).hexdigest()[:12] in report:
        print(name)
        break
PYEOF
)
printf 'Our jobs ran in %s.\n' "$gone" > "$T_TMP/uc-gone"
"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes --use-case-file "$T_TMP/uc-gone" "$id1" \
	> "$T_TMP/gone.out" 2>&1
check "a cgroup gone since the warning ($gone): named in the use case, refused as a cgroup name (exit 2)" \
	sh -c '[ -n "$1" ] && [ "$2" = 2 ] && grep -q "the use case, line 1, column 17 (byte 17, ${#1} bytes long): cgroup name found" "$3"' \
	_ "$gone" "$?" "$T_TMP/gone.out"
expect_eq "...nothing stored" "$(rows "$DIR/db.sqlite")" 4

# The e-mail channel: a file (the report mailed above, again: the same
# way), and SMTP through the test double.
id=$id0
cfb export --yes --state-dir "$ST" --redact --use-case-file "$T_TMP/uc" --output "$T_TMP/r.eml" "$id" \
	> /dev/null 2>&1
expect_eq "export of a report exits 0" "$?" 0
check_clean "the exported e-mail" "$T_TMP/r.eml"
# The mailed report shares no token with any report at the collector,
# while the collector's reports of this machine share theirs: the same name
# gives the same token at one endpoint.
check "the mailed reports and the collector's share no token; reports at the collector do" \
	python3 - "$DIR/db.sqlite" "$T_TMP/r0.eml" "$T_TMP/r.eml" <<'PYEOF'
import re, sqlite3, sys
tok = re.compile(r"h:[0-9a-f]{12}(?![0-9a-f])")
stored = [set(tok.findall(b if isinstance(b, str) else b.decode()))
          for b, in sqlite3.connect(sys.argv[1]).execute("select body from reports")]
common = set.intersection(*stored) if stored else set()
for f in sys.argv[2:]:
    raw = open(f, encoding="utf-8").read()
    body = raw.split("-----BEGIN CGROUP-FEEDBACK REPORT-----\n")[1].split("\n-----END")[0]
    mailed = set(tok.findall(body.replace("\n", "")))
    if not mailed or mailed & set.union(*stored):
        sys.exit("%s: %d tokens, %d at the collector" % (f, len(mailed), len(mailed & set.union(*stored))))
sys.exit(not common)
PYEOF
make_pki "$T_TMP/pki"
mkdir -p "$T_TMP/smtp"
python3 tests/client/smtp_double.py --port-file "$T_TMP/smtp/port" --dir "$T_TMP/smtp" \
	--cert "$T_TMP/pki/server.pem" --key "$T_TMP/pki/server.key" --lifetime 60 &
SMTP_PID=$!
wait_for 50 test -s "$T_TMP/smtp/port"
printf 'smtp-url = smtp://127.0.0.1:%s
ca-file = %s/pki/ca.pem
mail-from = ops <ops@example.org>
' \
	"$(cat "$T_TMP/smtp/port")" "$T_TMP" >> "$CONF"
id=$id1
cfb export --yes --state-dir "$ST" --redact --use-case-file "$T_TMP/uc" --send "$id" > /dev/null 2>&1
expect_eq "export --send through SMTP exits 0" "$?" 0
check_clean "the SMTP conversation (commands and message)" "$T_TMP"/smtp/msg-*
kill "$SMTP_PID" 2>/dev/null

# consent = auto sends the configured use-case-file alone, redacted with
# nothing kept: a draft planted in the spool (a use case, an answer and a
# kept list that would approve its address) is not read by flush.
id=$(python3 tests/client/pending_report.py "$ST" M8 auto1)
dtext='Draft: mail Pl4ntedDraft@acme-corp.example'
printf '{"use_case": "%s", "answers": {"software": "Pl4ntedAnswer"}, "kept": [{"in": "use_case", "string": "Pl4ntedDraft@acme-corp.example", "text_sha256": "%s"}, "Pl4ntedDraft@acme-corp.example"]}' \
	"$dtext" "$(printf '%s' "$dtext" | sha256sum | cut -d' ' -f1)" > "$ST/reports/$id.draft"
printf 'Configured: ask Pl4ntedConf@acme-corp.example.\n' > "$T_TMP/uc-auto"
{ cat "$CONF"; printf 'consent = auto\nuse-case-file = %s/uc-auto\n' "$T_TMP"; } > "$T_TMP/conf-auto"
HOSTED "$CGFB" --config "$T_TMP/conf-auto" flush --state-dir "$ST" > /dev/null 2>"$T_TMP/flush.err"
check "consent = auto: the collector's row has the configured use case, redacted, nothing of the draft" \
	python3 -c 'import json, sqlite3, sys
body, = sqlite3.connect(sys.argv[1]).execute("select body from reports where id = ?", (sys.argv[2],)).fetchone()
uc = json.loads(body)["use_case"]
assert uc == {"text": "Configured: ask [redacted e-mail address].", "answers": {}}, uc' \
	"$DIR/db.sqlite" "$id"
check "consent = auto: flush's standard error names the replaced finding by place, no planted string" \
	sh -c "grep -q 'the configured use-case-file, line 1, column 17 (byte 17, 29 bytes long): e-mail address found and replaced' '$T_TMP/flush.err' &&
	! grep -q Pl4nted '$T_TMP/flush.err'"

# --- one install, several boots, distributions and kernels ------------------------
# Five machines, each seen on three boots: a distribution upgrade and a
# kernel of another series (setarch --uname-2.6 reports 2.6.x), each report
# sent before the next boot. The upgrade on the same kernel series repeats
# the sent report (counted on it, docs/REPEATS.md); the other series makes
# a report of its own; the public summary counts five installs.
M8='Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
start_server many --rate 0 || { not_ok "second server starts"; finish; exit 1; }
printf 'endpoint = %s/api/v1/reports\nnotify = log\nmotd-path = %s/motd\ntimeout = 5\n' \
	"$URL" "$T_TMP" > "$T_TMP/conf2"
printf '6,1,1000,-;%s\n' "$M8" > "$T_TMP/m8.kmsg"
uname26=
setarch "$(uname -m)" --uname-2.6 true 2>/dev/null && uname26="setarch $(uname -m) --uname-2.6"
for m in 1 2 3 4 5; do
	for b in 1 2 3; do
		printf '%08d-2222-3333-4444-55555555555%d\n' "$m" "$b" > "$T_TMP/boot"
		printf 'ID=debian\nVERSION_ID="%s"\n' "$((10 + b))" > "$T_TMP/os$b"
		run=
		[ "$b" = 3 ] && run=$uname26
		$run "$CGFB" --config "$T_TMP/conf2" watch --once --kmsg "$T_TMP/m8.kmsg" \
			--state-dir "$T_TMP/m$m" --boot-id-file "$T_TMP/boot" \
			--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" \
			--os-release "$T_TMP/os$b" > /dev/null 2>&1
		for f in "$T_TMP/m$m"/reports/*.json; do
			"$CGFB" --config "$T_TMP/conf2" submit --state-dir "$T_TMP/m$m" --yes \
				"$(basename "$f" .json)" > /dev/null 2>&1
		done
	done
done
nrep=5
[ -n "$uname26" ] && nrep=10
expect_eq "$nrep reports from five machines (a new kernel series is news, an upgrade on the same one is not)" \
	"$(rows "$DIR/db.sqlite")" "$nrep"
python3 -c 'import json, sys
rs = [json.load(open(f)) for f in sys.argv[1:]]
print(len({json.dumps(r["system"], sort_keys=True) for r in rs}),
      len({r["consent"]["install"] for r in rs}))' "$T_TMP"/m*/reports/*.json > "$T_TMP/distinct"
nsys=1
[ -n "$uname26" ] && nsys=2
expect_eq "the reports carry $nsys system profiles and five pseudonyms" "$(cat "$T_TMP/distinct")" \
	"$nsys 5"
[ -n "$uname26" ] || skip "a kernel of another series" "setarch --uname-2.6 is not available"
fresh_summary > /dev/null
expect_eq "the public summary counts five installs, not one per boot or kernel" \
	"$(json '(j["total"]["reports"], j["total"]["installs"])')" "($nrep, 5)"

# --- the public summary does not move with one submission -----------------------
# Recomputed on a schedule (here once an hour): comparing it before and
# after one report shows nothing; the ETag lets clients ask cheaply.
start_server sched --rate 0 --summary-interval 3600 || { not_ok "third server starts"; finish; exit 1; }
gen "$T_TMP/gen" 12 5 6 > /dev/null
for n in 0 1 2 3 4 5 6 7 8 9; do post "$T_TMP/gen/$n.json" > /dev/null; done
req GET /api/v1/summary > /dev/null
cp "$T_TMP/body" "$T_TMP/before"
etag=$(tr -d '\r' < "$T_TMP/headers" | sed -n 's/^ETag: //Ip')
check "the summary has an ETag and may be cached until its next recomputation" \
	sh -c '[ -n "$1" ] && tr -d "\r" < "$2" | grep -Eiq "^Cache-Control: public, max-age=[0-9]+"' _ "$etag" "$T_TMP/headers"
expect_eq "the summary computed at start counts none of the reports since" \
	"$(json 'j["total"]["reports"] if not j["total"]["suppressed"] else 0')" 0
expect_eq "one more report stored" "$(post "$T_TMP/gen/11.json")" 201
req GET /api/v1/summary > /dev/null
check "the summary after one more submission is byte for byte the same" cmp -s "$T_TMP/before" "$T_TMP/body"
expect_eq "If-None-Match with its ETag: 304" "$(req GET /api/v1/summary -H "If-None-Match: $etag")" 304
expect_eq "a different ETag: 200" "$(req GET /api/v1/summary -H 'If-None-Match: "x"')" 200

# --- the schema enforces the vocabularies: the collector refuses the rest --------
python3 - "$T_TMP/gen/0.json" "$T_TMP/outside" <<'PYEOF'
import copy, json, os, sys
base = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2], exist_ok=True)
cases = {
    "release": ("system", "kernel", "release", "6.1.0-acmedb01-build"),
    "distribution": ("system", "distribution", "id", "acme-linux"),
    "version": ("system", "distribution", "version_id", "jdoe-7"),
    "cmdline": ("system", "cmdline", "psi", "acme"),
    "knob": ("detection", "fields", "knob", "memory.acme_customer_secret"),
    "controller": ("detection", "fields", "controller", "acme_secret"),
    "kernel_file": ("detection", "fields", "kernel_file", "/home/jdoe/acme/mm/memcontrol.c"),
    "function": ("detection", "fields", "function", "acme_secret_init+0x1a/0x2b0"),
    "endpoint": ("consent", "endpoint", None, "https://jdoe:s3cret@collector.example/api"),
    "install": ("consent", "install", None, "db01.acme-corp.example"),
}
with open(os.path.join(sys.argv[2], "cases"), "w") as idx:
    for name, (a, b, c, v) in cases.items():
        r = copy.deepcopy(base)
        if c is None:
            r[a][b] = v
        else:
            r[a][b][c] = v
        r["report_id"] = r["report_id"][:-4] + "%04x" % len(name)
        with open(os.path.join(sys.argv[2], name + ".json"), "wb") as f:
            f.write(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
        idx.write("%s /%s/%s%s\n" % (name, a, b, "/" + c if c else ""))
PYEOF
while read -r name field; do
	st=$(post "$T_TMP/outside/$name.json")
	got=$(json 'j.get("field") or j.get("message", "")' 2>/dev/null)
	case $st:$got in
	400:"$field"*) ok "a report with a $name outside the vocabulary: 400 naming $field" ;;
	*) not_ok "a report with a $name outside the vocabulary: got $st '$got', want 400 naming $field" ;;
	esac
done < "$T_TMP/outside/cases"

# The pseudonym is per collector: the same machine, another endpoint.
p1=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["consent"]["install"])' \
	"$(ls "$T_TMP"/m1/reports/*.json | head -n 1)")
id=$(basename "$(ls "$ST"/reports/*.json | head -n 1)" .json)
p2=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["consent"]["install"])' \
	"$ST/reports/$id.json")
check "two machines, two pseudonyms" [ "$p1" != "$p2" ]
finish
