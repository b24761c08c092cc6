#!/bin/sh
# Regenerate the seed corpus fuzz/corpus/<target>/ from the test data the
# suite already has: real log files and records (tests/data/logs), the
# negative samples, the fixture descriptions, the catalog and its messages,
# reports made by tests/server/genreport.py and by the client's own export.
#
#   sh fuzz/tools/mkcorpus.sh BUILD     (make fuzz-corpus)
#
# Seeds are named by their content's SHA-1, as libFuzzer names them, so a
# rerun adds nothing twice. Campaign finds go in with make fuzz-merge.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
B=${1:-build}
C=fuzz/corpus
T=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-corpus.XXXXXX")
trap 'rm -rf "$T"' EXIT

# seed TARGET < bytes
seed() {
	mkdir -p "$C/$1"
	cat >"$T/seed"
	h=$(sha1sum "$T/seed" | cut -c1-40)
	mv "$T/seed" "$C/$1/$h"
}
# seed_lines TARGET FILE MAX: each of the first MAX non-empty lines, one seed each.
seed_lines() {
	grep -v '^$' "$2" | head -n "$3" | while IFS= read -r l; do
		printf '%s\n' "$l" | seed "$1"
	done
}
# seed_head TARGET FILE BYTES
seed_head() { head -c "$3" "$2" | seed "$1"; }

logs=$(ls tests/data/logs/* tests/data/negative/* | grep -v -e '\.expect$' -e README)

# Whole logs: the sniffer, the scanner and the journal exporter's stream.
for f in $logs; do
	seed_head logfmt "$f" 8192
	seed_head scan "$f" 16384
	seed_head mscan "$f" 8192
done
for f in tests/data/logs/*.journal-export tests/data/negative/*.journal-export; do
	seed_head journal_export "$f" 8192
done

# Single records: /dev/kmsg lines, and every line of a WARN-block log.
for f in tests/data/logs/*.kmsg tests/data/negative/*.kmsg; do
	seed_lines kmsg_record "$f" 40
done
for f in tests/data/negative/warn-blocks.dmesg tests/data/logs/opensuse-12.2.dmesg \
	tests/data/logs/debian-6.12-k8s.dmesg; do
	seed_head warnblock "$f" 4096
done

# The catalog: the file itself and each message text the suite renders.
seed catalog_load <data/catalog.json
grep -v '^#' tests/data/messages.tsv | awk -F'\t' 'NF >= 6 { print $NF }' | while IFS= read -r m; do
	printf '%s' "$m" | seed catalog_match
done

# mscan: a count byte, NUL-terminated literals, then a text.
for f in tests/data/logs/debian-6.12-k8s.dmesg tests/data/negative/similar.dmesg; do
	{ printf '\003@kvack.org\000------------[ cut here ]\000Linux version \000'; head -c 4096 "$f"; } |
		seed mscan
done

# Cgroup and process names, from the fixture trees and the hostile strings.
grep -h '^cg ' tests/data/cgroupfs/*.desc | awk '{ print $2 }' | tr '/' '\n' | sort -u |
	grep -v '^$' | head -n 60 | while IFS= read -r n; do printf '%s' "$n" | seed anon; done
grep -v '^#' tests/data/cgroupfs/hostile-strings.txt | head -n 40 | while IFS= read -r n; do
	printf '%s' "$n" | seed anon
	printf '%s' "$n" | seed redact
done

# mountinfo, in the modes the kernel has.
cat <<'EOF' | seed mountinfo
25 30 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:4 - tmpfs tmpfs ro,mode=755
26 25 0:24 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:5 - cgroup2 cgroup2 rw,nsdelegate
27 25 0:25 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:6 - cgroup cgroup rw,xattr,name=systemd
30 25 0:28 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:9 - cgroup cgroup rw,memory
31 25 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct
EOF
cat <<'EOF' | seed mountinfo
26 25 0:24 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:5 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
EOF
cat <<'EOF' | seed mountinfo
19 24 0:18 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
20 19 0:19 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory,cpuset
21 19 0:20 /docker /sys/fs/cgroup/freezer rw,relatime - cgroup freezer rw,freezer
EOF

# Attribute files: the first byte picks the attribute (enum cgfb_attr).
i=0
for v in '1' '9223372036854771712' '268435456' '0' '4294967296' '0' \
	'oom_kill_disable 1\nunder_oom 0\noom_kill 3' '3' '60' 'max' '536870912' '0' '0' \
	'cpu io memory pids' '1' '0' '1' '0' '0' '0' '0' 'FROZEN'; do
	{ printf "\\$(printf '%03o' "$i")"; printf "$v\\n"; } | seed attrs
	i=$((i + 1))
done

# os-release, and a kernel release (the target reads its input as both).
for os in /etc/os-release /usr/lib/os-release; do
	[ -f "$os" ] && seed os_release <"$os"
done
printf 'NAME="SLES"\nVERSION="11.4"\nID="sles"\nVERSION_ID="11.4"\n' | seed os_release
printf 'ID=opensuse\nVERSION_ID=12.2\n' | seed os_release
for r in 6.1.0-28-amd64 3.0.101-108.13-default 5.14.0-427.el9.x86_64 6.15.2-arch1-1; do
	printf '%s' "$r" | seed os_release
done
printf 'BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=0e1c ro quiet systemd.unified_cgroup_hierarchy=0 swapaccount=0\n' |
	seed cmdline
printf 'console=ttyS0 cgroup_no_v1=all cgroup_enable=memory cgroup.memory=nokmem,nosocket\n' | seed cmdline
printf 'root=/dev/sda1 cgroup_disable=memory systemd.legacy_systemd_cgroup_controller=1 swapaccount=1\n' |
	seed cmdline

# The configuration: the packaged file and a few keys set.
seed config <packaging/conf/cgroup-feedback.conf
printf 'endpoint = https://collector.example.org/api/v1/reports\nconsent = ask\nnotify = journal,motd\ntimeout = 30\n' |
	seed config
printf '# loopback\nendpoint = http://127.0.0.1:8080/api/v1/reports\nconsent = auto\nuse-case-file = /etc/uc\n' |
	seed config

# Query and header values.
for q in 7 30 3660 0 4294967297 7abc ' 7' 500 9223372036854775807 '' \
	'application/json' 'application/json; charset=utf-8' 'text/plain'; do
	printf '%s' "$q" | seed query
done

# Reports: schema-valid ones from the server tests' generator, and the
# client's own, with their e-mail form.
python3 tests/server/genreport.py --dir "$T/gen" --count 12 --seed 7 --systems 5 >/dev/null
for f in "$T"/gen/*; do
	seed ingest <"$f"
	seed canon <"$f"
done
printf '{"a":[1,2,{"b":null}],"c":"\\u0000x"}' | seed canon
printf '1' | seed canon

ST=$T/state
mkdir -p "$ST"
printf 'motd-path = %s/motd\nnotify = log\n' "$T" >"$T/conf"
printf 'One KVM guest per cgroup since 2013, on purpose.\n' >"$T/uc"
for k in M8 C1 M3; do
	id=$(python3 tests/client/pending_report.py "$ST" "$k" "corpus-$k")
	"$B/cgroup-feedback" --config "$T/conf" export --state-dir "$ST" --email \
		--use-case-file "$T/uc" -o "$T/$k.eml" "$id" >/dev/null
	seed mail <"$T/$k.eml"
	seed ingest <"$ST/reports/$id.json"
	cat "$T/$k.eml" >>"$T/all.mbox"
done
"$B/cgroup-feedback" --config "$T/conf" export --state-dir "$ST" --mbox "$T/two.mbox" "$id" >/dev/null
seed mail <"$T/two.mbox"
tr -d '\r' <"$T/M8.eml" | seed mail

for d in "$C"/*; do
	echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"
done
