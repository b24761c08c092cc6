#!/bin/sh
# check: what depends on cgroup v1, on fixture roots (tests/data/readiness/,
# built by the snapshot tests' mkfixture.py) where every rule of
# data/readiness.json is planted, a unified root where nothing is, and this
# machine. Exit codes, --target, --json against its schema, what cannot be
# read.
. tests/lib.sh

PY=python3
RULES=data/readiness.json

# root NAME DESC: a fixture root in $T_TMP/NAME/root with its mountinfo.
root() {
	python3 tests/data/cgroupfs/mkfixture.py "tests/data/readiness/$2.desc" "$T_TMP/$1" > /dev/null &&
		mkdir -p "$T_TMP/$1/root/proc/sys/kernel" "$T_TMP/$1/root/boot" "$T_TMP/$1/root/var/lib/dpkg"
}
# run NAME [ARGS...]: check of NAME's root, output in $T_TMP/NAME.out, status in $st.
run() {
	n=$1
	shift
	"$CGFB" check --root "$T_TMP/$n/root" --mountinfo "$T_TMP/$n/mountinfo" "$@" \
		> "$T_TMP/$n.out" 2> "$T_TMP/$n.err"
	st=$?
}
# valid FILE: the JSON document against docs/check.schema.json.
valid() {
	$PY - "$1" docs/check.schema.json <<'EOP'
import json, sys
import jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
EOP
}
# rules_found FILE: the rule ids of a JSON document's findings, sorted, one a line.
rules_found() {
	$PY -c 'import json, sys; print("\n".join(sorted({f["rule"] for f in json.load(open(sys.argv[1]))["findings"]})))' "$1"
}
dpkg_status() {
	printf 'Package: systemd\nStatus: install ok installed\nVersion: %s\n\n' "$2" > "$T_TMP/$1/root/var/lib/dpkg/status"
}
DEB13_CONFIG='CONFIG_MEMCG=y\n# CONFIG_MEMCG_V1 is not set\n# CONFIG_CPUSETS_V1 is not set\n'

# --- legacy: every rule planted ---------------------------------------------
root legacy legacy || exit 2
L=$T_TMP/legacy/root
echo "BOOT_IMAGE=/vmlinuz-5.4.0 ro quiet systemd.unified_cgroup_hierarchy=0 systemd.legacy_systemd_cgroup_controller=1 SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1 swapaccount=0 cgroup_no_v1=net_prio cgroup_enable=memory" > "$L/proc/cmdline"
echo 5.4.0-150-generic > "$L/proc/sys/kernel/osrelease"
printf "$DEB13_CONFIG" > "$L/boot/config-6.12.48+deb13-amd64"
printf 'CONFIG_MEMCG=y\n' > "$L/boot/config-5.4.0-150-generic"       # before either option
printf 'CONFIG_MEMCG=y\nCONFIG_MEMCG_V1=y\nCONFIG_CPUSETS_V1=y\n' > "$L/boot/config-6.12.9-custom"
dpkg_status legacy 256.7-1
# Container runtimes: each setting once, beside what must not match (a
# commented line, the v2 key, LXC's own non-controller keys).
mkdir -p "$L/var/lib/lxc/web" "$L/etc/docker" "$L/etc/containerd" "$L/var/lib/kubelet" "$L/etc/default"
printf 'lxc.uts.name = web\nlxc.cgroup.dir = lxc.payload\n# lxc.cgroup.cpuset.cpus = 0\nlxc.cgroup2.memory.max = 512M\n  lxc.cgroup.memory.limit_in_bytes = 536870912\n' > "$L/var/lib/lxc/web/config"
printf '{\n  "exec-opts": ["native.cgroupdriver=cgroupfs"],\n  "log-driver": "journald"\n}\n' > "$L/etc/docker/daemon.json"
printf '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n  # SystemdCgroup = true\n  SystemdCgroup = false\n' > "$L/etc/containerd/config.toml"
printf 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: cgroupfs\n' > "$L/var/lib/kubelet/config.yaml"
printf 'KUBELET_EXTRA_ARGS="--node-ip=10.0.0.5 --fail-cgroupv1=false"\n' > "$L/etc/default/kubelet"

run legacy --json
check "legacy: exit 1 (findings that break)" [ "$st" -eq 1 ]
check "legacy: the document is valid by docs/check.schema.json" valid "$T_TMP/legacy.out"
# Every rule but the hybrid mode's, which excludes legacy, and the kubelet
# flag written wrong (tests/data/readiness/hosts/) is found.
$PY -c 'import json; print("\n".join(sorted(r["id"] for r in json.load(open("'"$RULES"'"))["rules"] if r["id"] not in ("cgroup-mode-hybrid", "runtime-kubelet-flag-misread"))))' > "$T_TMP/want"
rules_found "$T_TMP/legacy.out" > "$T_TMP/got"
check "legacy: every planted rule is found, and nothing else" diff "$T_TMP/want" "$T_TMP/got"

# finding RULE COUNT TEXT: the finding of RULE counts COUNT places and
# names TEXT in them; breaks_in, replacement and source come with it.
finding() {
	$PY - "$T_TMP/legacy.out" "$@" <<'EOP'
import json, sys
doc, rule, count, text = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), sys.argv[4]
f = [f for f in doc["findings"] if f["rule"] == rule]
assert len(f) == 1, f
f = f[0]
assert f["count"] == count, f
assert any(text in w for w in f["where"]), f["where"]
assert f["replacement"] and f["source"] and f["effect"], f
if f["severity"] == "breaks" and f["shown_as"] == "breaks":
    assert any(d["outcome"] in ("breaks", "broken") and d["source"] for d in f["decisions"]), f
EOP
}
while read -r rule count text; do
	check "legacy: $rule, $count, at '$text'" finding "$rule" "$count" "$text"
done <<'EOF'
cgroup-mode-legacy 1 cgroup mode legacy: /sys/fs/cgroup is tmpfs with cgroup v1 hierarchies (8 v1 hierarchies mounted)
v1-memory-mounted 1 /sys/fs/cgroup/memory (memory)
v1-cpuset-mounted 1 /sys/fs/cgroup/cpuset (cpuset)
v1-other-mounted 6 /sys/fs/cgroup/systemd (name=systemd)
v1-processes 1 /sys/fs/cgroup/memory: 7 processes in 2 cgroups
knob-use-hierarchy 2 /memory/batch: memory.use_hierarchy = 0
knob-soft-limit 1 /memory/batch/job1: memory.soft_limit_in_bytes = 1073741824
knob-kmem-limit 1 /memory/batch/job1: memory.kmem.limit_in_bytes = 67108864
knob-kmem-tcp-limit 1 /memory/batch/job1: memory.kmem.tcp.limit_in_bytes = 16777216
knob-memsw-limit 1 /memory/batch/job1: memory.memsw.limit_in_bytes = 2147483648
knob-oom-kill-disable 1 /memory/batch/job1: memory.oom_control = oom_kill_disable 1
knob-move-charge 1 /memory/batch/job1: memory.move_charge_at_immigrate = 1
knob-swappiness 1 /memory/batch/job1: memory.swappiness = 10
knob-rt-runtime 1 /cpu,cpuacct/rt: cpu.rt_runtime_us = 950000
knob-net-cls 1 /tagged: net_cls.classid = 1048577
knob-net-prio 1 /tagged: net_prio.ifpriomap = lo 0 ...
knob-devices 1 /devices/locked: devices.list = c 1:3 rwm ...
knob-freezer 1 /freezer/paused: freezer.state = FROZEN
knob-blkio-throttle 1 /blkio/slow: blkio.throttle.read_bps_device = 8:0 1048576
knob-blkio-weight 1 /blkio/slow: blkio.weight = 800
knob-cpuset-v1-only 1 /cpuset/pinned: cpuset.mem_exclusive = 1
knob-cpuset-load-balance 1 /cpuset/pinned: cpuset.sched_load_balance = 0
knob-cpuset-memory-pressure 1 /cpuset (root): cpuset.memory_pressure_enabled = 1
cmdline-legacy 1 /proc/cmdline: systemd.unified_cgroup_hierarchy=0
cmdline-legacy-controller 1 /proc/cmdline: systemd.legacy_systemd_cgroup_controller=1
cmdline-legacy-force 1 /proc/cmdline: SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1
cmdline-swapaccount-0 1 /proc/cmdline: swapaccount=0
cmdline-cgroup-no-v1 1 /proc/cmdline: cgroup_no_v1=net_prio
cmdline-cgroup-enable-memory 1 /proc/cmdline: cgroup_enable=memory
kernel-no-memcg-v1 1 /boot/config-6.12.48+deb13-amd64: CONFIG_MEMCG_V1 is not set
kernel-no-cpusets-v1 1 /boot/config-6.12.48+deb13-amd64: CONFIG_CPUSETS_V1 is not set
systemd-refuses-v1 1 systemd 256.7
runtime-lxc-v1-keys 1 /var/lib/lxc/web/config:5: lxc.cgroup.memory.limit_in_bytes = 536870912
runtime-docker-cgroupfs 1 /etc/docker/daemon.json:2: "exec-opts": ["native.cgroupdriver=cgroupfs"],
runtime-containerd-cgroupfs 1 /etc/containerd/config.toml:3: SystemdCgroup = false
runtime-kubelet-cgroupfs 1 /var/lib/kubelet/config.yaml:3: cgroupDriver: cgroupfs
runtime-kubelet-v1-allowed 1 /etc/default/kubelet:1: --fail-cgroupv1=false
EOF

# For people: grouped by severity, where, what breaks from which version,
# what instead, and a last line with the verdict.
run legacy
check "legacy, for people: exit 1" [ "$st" -eq 1 ]
for s in "Breaks:" "Deprecated:" "Information:" \
	"decides: kernel 6.12.48+deb13-amd64: breaks: booted into kernel 6.12.48+deb13-amd64, which is built without CONFIG_MEMCG_V1" \
	"systemd 258: breaks: systemd 258 has no cgroup v1" \
	"kubelet: keeps it: failCgroupV1 is false (" \
	"instead: cgroup.freeze of cgroup v2" "asks:    the kernel's message M8 asks for your use case"; do
	check "legacy, for people: says '$s'" grep -qF "$s" "$T_TMP/legacy.out"
done
check "legacy, for people: the last line is the verdict" \
	sh -c 'tail -n 1 "$1" | grep -qx "NOT READY for the removal of cgroup v1: 19 findings break when it goes\."' _ "$T_TMP/legacy.out"

# --- --prometheus ------------------------------------------------------------
# node_exporter's textfile format, read back by Prometheus' own parser
# (Debian's python3-prometheus-client): a sample per rule, the counts of
# the JSON, the verdict; the file replaced whole and readable by node_exporter.
mkdir -p "$T_TMP/textfile"
"$CGFB" check --json --root "$L" --mountinfo "$T_TMP/legacy/mountinfo" \
	--prometheus "$T_TMP/textfile/cgroup-feedback.prom" > "$T_TMP/prom.json" 2> "$T_TMP/prom.err"
check "--prometheus: exit 1 as without it" [ $? -eq 1 ]
if /usr/bin/python3 -c 'import prometheus_client' 2> /dev/null; then
	check "--prometheus: parsed by prometheus_client, a sample per rule with the JSON's counts" \
		/usr/bin/python3 - "$T_TMP/textfile/cgroup-feedback.prom" "$T_TMP/prom.json" "$RULES" <<'EOP'
import json, sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
doc, rules = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))["rules"]
got = {(s.labels["rule"], s.labels["severity"]): s.value for s in fams["cgroup_feedback_check_findings"].samples}
want = {(r["id"], r["severity"]): 0 for r in rules}
for f in doc["findings"]:
    want[(f["rule"], f["severity"])] += f["count"]
assert got == want, set(got.items()) ^ set(want.items())
val = lambda n: fams[n].samples[0].value
assert val("cgroup_feedback_check_ready") == 0 and val("cgroup_feedback_check_checked") == 1
assert val("cgroup_feedback_check_breaking") == sum(f["severity"] == "breaks" and f["breaks_on_target"] for f in doc["findings"])
assert val("cgroup_feedback_check_decided") == (doc["verdict"] != "cannot_tell")
assert val("cgroup_feedback_check_unreadable") == doc["unreadable"]["count"]
EOP
else
	skip "--prometheus parsed by Prometheus' parser" "python3-prometheus-client is not installed (make deps)"
fi
check "--prometheus: mode 0644, no temporary file left beside it" \
	sh -c '[ "$(stat -c %a "$1/cgroup-feedback.prom")" = 644 ] && [ "$(ls -A "$1" | wc -l)" = 1 ]' _ "$T_TMP/textfile"
"$CGFB" check --root "$L" --mountinfo "$T_TMP/legacy/mountinfo" \
	--prometheus "$T_TMP/nowhere/x.prom" > /dev/null 2> "$T_TMP/prom.err"
check "--prometheus into a missing directory: exit 2, the path and the reason said" \
	sh -c '[ "$1" -eq 2 ] && grep -q "nowhere/x.prom: No such file or directory" "$2"' _ $? "$T_TMP/prom.err"

# --- --report: findings the kernel asks about become pending reports -----------
# A cgroup named like a real tenant and host, with a knob set: check names it
# (its output stays here), the report carries a keyed token for it.
mkdir -p "$L/sys/fs/cgroup/memory/acme-payroll-db01"
cp "$L/sys/fs/cgroup/memory/batch/job1/memory.soft_limit_in_bytes" "$L/sys/fs/cgroup/memory/acme-payroll-db01/"
mkdir -p "$L/etc"
printf 'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="20.04"\n' > "$L/etc/os-release"
RS=$T_TMP/rstate
printf 'motd-path = %s/motd\nnotify = log\n' "$T_TMP" > "$T_TMP/rconf"
"$CGFB" --config "$T_TMP/rconf" check --report --state-dir "$RS" --root "$L" \
	--mountinfo "$T_TMP/legacy/mountinfo" > "$T_TMP/report.out" 2> "$T_TMP/report.err"
check "check --report: exit 1 (the findings), reports written" [ $? -eq 1 ]
check "... the tenant's cgroup named in check's own output" grep -q "/memory/acme-payroll-db01: memory.soft_limit_in_bytes" "$T_TMP/report.out"
check "... one report per catalog entry a finding names (V1 of three cpuset rules once), valid, source check, no message" \
	python3 - "$RS" "$PWD/$BUILD/tests/tools/validate-report" <<'EOP'
import glob, json, subprocess, sys
files = sorted(glob.glob(sys.argv[1] + "/reports/*.json"))
reps = [json.load(open(f)) for f in files]
ids = sorted(r["detection"]["catalog_id"] for r in reps)
assert ids == sorted(["M8", "M3", "M1b", "M2", "M4", "M7", "M10", "V1", "V3", "M9b"]), ids
assert all(r["detection"]["source"] == "check" and r["detection"]["message"] == "" for r in reps)
for f in files:
    subprocess.run([sys.argv[2], f], check=True, stdout=subprocess.DEVNULL)
EOP
# "db01" bounded by non-hex characters: a report id or a token may hold it
# (one in about 2,000 runs did).
check "... nothing of the machine's names or paths in any report" sh -c \
	'! grep -l -e acme -e payroll -e "$2" -e /proc/cmdline -e "/sys/fs" -e batch -e job1 "$1"/reports/*.json &&
	 ! grep -lP "(?<![0-9a-f])db01(?![0-9a-f])" "$1"/reports/*.json' _ "$RS" "$T_TMP"
# A copy of another machine's files (issue 38): its facts as the copy shows
# them (os-release, the kernel it ran, its command line, its mounts and
# tree), nothing of this machine's; a boot of the copy's own, not this one.
check "... about the copy's machine: its facts, nothing of this machine's, not this boot" \
	python3 - "$RS" "$(uname -r)" "$(cat /proc/sys/kernel/random/boot_id)" <<'EOP'
import glob, json, sys
want = {"facts": "copy",
        "kernel": {"release": "5.4.0-150-generic", "series": "5.4", "arch": "unknown"},
        "distribution": {"id": "ubuntu", "version_id": "20.04"},
        "cpus": "unknown", "numa_nodes": 0, "memory": "unknown", "virtualization": "unknown",
        "cgroup_mode": "legacy", "init": "unknown",
        "cmdline": {"systemd.unified_cgroup_hierarchy": "0", "systemd.legacy_systemd_cgroup_controller": "1",
                    "swapaccount": "0", "cgroup_no_v1": "net_prio", "cgroup_enable": "memory"}}
for f in glob.glob(sys.argv[1] + "/reports/*.json"):
    r = json.load(open(f))
    assert r["system"] == want, r["system"]
    assert r["topology"]["hierarchies"], "the copy's tree"
    assert sys.argv[2] not in open(f).read(), "this machine's kernel"
    seen = json.load(open(f[:-5] + ".seen"))
    assert seen["last_boot"] != sys.argv[3], seen
EOP
check "... the log says check found them, not that the kernel asked" sh -c \
	'[ "$(grep -c "check found what the kernel asks about (.*); report .* is ready for review" "$1")" -eq 10 ] &&
	 ! grep -q "kernel asked" "$1"' _ "$T_TMP/report.err"
check "... each said with its review command" sh -c \
	'[ "$(grep -c "report .* written, waiting for review: .*review [0-9a-f-]*$" "$1")" -eq 10 ] &&
	 grep -q "^--report: 10 new reports, 0 counted on earlier ones$" "$1"' _ "$T_TMP/report.out"
paste_hint 's/^M3: report .* written, waiting for review: \([^ ]*cgroup-feedback .*\) review \([0-9a-f-]*\)$/\1 show \2/p' \
	"$T_TMP/report.out" "check --report's review command (show in review's place)"
"$CGFB" --config "$T_TMP/rconf" check --report --state-dir "$RS" --root "$L" \
	--mountinfo "$T_TMP/legacy/mountinfo" > "$T_TMP/report2.out" 2>&1
check "check --report again: the same findings counted on their reports, none new" sh -c \
	'grep -q "^--report: 0 new reports, 10 counted on earlier ones$" "$1" && [ "$(ls "$2"/reports/*.json | wc -l)" -eq 10 ]' \
	_ "$T_TMP/report2.out" "$RS"
"$CGFB" --config "$T_TMP/rconf" check --json --report --state-dir "$RS" --root "$L" \
	--mountinfo "$T_TMP/legacy/mountinfo" > "$T_TMP/report3.json" 2> "$T_TMP/report3.err"
check "check --json --report: the JSON alone on stdout (valid), the reports said on stderr" sh -c \
	'python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$1" && grep -q "^--report: 0 new" "$2"' \
	_ "$T_TMP/report3.json" "$T_TMP/report3.err"
id=$(sed -n 's/^M3: report \([0-9a-f-]*\) written.*/\1/p' "$T_TMP/report.out")
printf 'check found on this machine what the kernel asks about\t<EOF>\n' |
	python3 tests/client/drive_review.py "$T_TMP/review.log" -- \
	"$CGFB" --config "$T_TMP/rconf" --state-dir "$RS" review "$id" > /dev/null 2>&1
check "review of a check report says check found it, not that the kernel printed it; kept pending" sh -c \
	'grep -q "cgroup-feedback check found on this machine what the kernel asks about with this message (M3)" "$1" &&
	 ! grep -q "The kernel printed" "$1" && "$2" --state-dir "$3" list | grep -q "^$4  pending"' \
	_ "$T_TMP/review.log" "$CGFB" "$RS" "$id"
check "--state-dir without --report: exit 2" sh -c '! "$1" check --state-dir /tmp >/dev/null 2>&1; [ $? -eq 0 ]' _ "$CGFB"
rm -rf "$L/sys/fs/cgroup/memory/acme-payroll-db01"

# --- --target ----------------------------------------------------------------
# An installed kernel of the 6.12 series counts on the target 6.12, not 6.11.
run legacy --json --target kernel=6.11
check "target kernel=6.11: exit 1 (memcg v1 goes in 6.11)" [ "$st" -eq 1 ]
$PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
on = {f["rule"] for f in d["findings"] if f["breaks_on_target"]}
assert "v1-memory-mounted" in on and "kernel-no-memcg-v1" not in on and "v1-other-mounted" not in on, on
assert d["target"] == {"kernel": "6.11", "systemd": None, "kubelet": None, "distro": None}, d["target"]' "$T_TMP/legacy.out" 
check "target kernel=6.11: memcg v1 breaks there, the installed 6.12 kernel and systemd 258 do not" [ $? -eq 0 ]
run legacy --json --target kernel=6.12
check "target kernel=6.12: the installed 6.12.48 kernel without memcg v1 breaks there" \
	$PY -c 'import json, sys; assert any(f["rule"] == "kernel-no-memcg-v1" and f["breaks_on_target"] for f in json.load(open(sys.argv[1]))["findings"])' "$T_TMP/legacy.out"
run legacy --target systemd=255,kubelet=1.34,kernel=5.10
check "target systemd=255,kubelet=1.34,kernel=5.10: exit 0, ready there" [ "$st" -eq 0 ]
check "... the last line says so" sh -c 'tail -n 1 "$1" | grep -qx "READY for kernel=5.10,systemd=255,kubelet=1.34: nothing found that breaks."' _ "$T_TMP/legacy.out"
check "... and how many findings it did not show" grep -q "findings that do not break on the target not shown" "$T_TMP/legacy.out"
# The force switch on the command line keeps systemd 256 and 257 on v1
# (v256 cg_is_legacy_force_enabled(); 257 with =0 too); without it 256
# refuses to boot (v256 main.c 3107) and 257 boots v2 after 30 s.
run legacy --target systemd=257
check "target systemd=257 with =0 and the force switch on the command line: exit 0, ready" [ "$st" -eq 0 ]
run legacy --target kubelet=1.35
check "target kubelet=1.35 with --fail-cgroupv1=false in /etc/default/kubelet: exit 0, ready" [ "$st" -eq 0 ]
cp "$L/proc/cmdline" "$T_TMP/cmdline"
sed -i 's/ SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1//' "$L/proc/cmdline"
run legacy --target systemd=256
check "target systemd=256 without the force switch: exit 1 (v1 refused)" [ "$st" -eq 1 ]
check "... systemd 256 refuses, said with its message" \
	grep -q "systemd 256 refuses to boot a v1 host without SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1" "$T_TMP/legacy.out"
cp "$T_TMP/cmdline" "$L/proc/cmdline"
for bad in "kernel=6.x" "os=13" "kernel=6.1,kernel=6.2" ""; do
	run legacy --target "$bad"
	check "--target '$bad': exit 2 with a message naming --target" \
		sh -c '[ "$1" -eq 2 ] && grep -q -- "--target" "$2" && [ ! -s "$3" ]' _ "$st" "$T_TMP/legacy.err" "$T_TMP/legacy.out"
done

# --- the running kernel's /proc/config.gz, when /boot has none for it --------
rm -f "$L"/boot/config-*
echo 6.13.0-rc1 > "$L/proc/sys/kernel/osrelease"
printf "$DEB13_CONFIG" | gzip -9 > "$L/proc/config.gz"
run legacy --json
check "/proc/config.gz of the running 6.13 kernel without memcg v1 is read" \
	$PY -c 'import json, sys; f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["rule"] == "kernel-no-memcg-v1"]; assert len(f) == 1 and f[0]["breaks_in"]["kernel"] == "6.13.0-rc1" and f[0]["where"][0].endswith("/proc/config.gz: CONFIG_MEMCG_V1 is not set (kernel 6.13.0-rc1)"), f' "$T_TMP/legacy.out"
# Garbage in a configuration: said, the rest still checked.
head -c 3000 /dev/urandom > "$L/boot/config-6.14.0"
printf 'not a config\n' > "$L/boot/config-6.15.0"
run legacy --json
check "garbage kernel configurations: each named as not a configuration, the rest checked (exit 1)" \
	$PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["unreadable"]["count"] == 2, d["unreadable"]
assert all("not a kernel configuration" in u for u in d["unreadable"]["first"]), d["unreadable"]
assert any(f["rule"] == "knob-devices" for f in d["findings"])' "$T_TMP/legacy.out"
check "... exit 1" [ "$st" -eq 1 ]

# A runtime's configuration that is no text: said, the rest still checked.
cp "$L/etc/docker/daemon.json" "$T_TMP/daemon.json"
printf '{"exec-opts": ["native.cgroupdriver=cgroupfs"]}\0\1\2' > "$L/etc/docker/daemon.json"
run legacy --json
check "a binary daemon.json: named as no text file, nothing taken from it, the rest checked" \
	$PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert any(u.endswith("/etc/docker/daemon.json: not a text file (a NUL byte)") for u in d["unreadable"]["first"]), d["unreadable"]
rules = {f["rule"] for f in d["findings"]}
assert "runtime-docker-cgroupfs" not in rules and "runtime-lxc-v1-keys" in rules, rules' "$T_TMP/legacy.out"
cp "$T_TMP/daemon.json" "$L/etc/docker/daemon.json"

# --- the systemd version from its library, without dpkg ----------------------
rm -f "$L/var/lib/dpkg/status"
mkdir -p "$L/usr/lib64/systemd"
: > "$L/usr/lib64/systemd/libsystemd-shared-257.2-1.fc42.so"
run legacy --json
check "no dpkg: systemd's version from libsystemd-shared-257.2-1.fc42.so" \
	$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["system"]["systemd"] == "257.2", d["system"]; assert any(f["rule"] == "systemd-refuses-v1" for f in d["findings"])' "$T_TMP/legacy.out"

# --- what cannot be read ----------------------------------------------------
# As a user: a knob file and a cgroup it may not read are listed; the rest is
# checked. The fixture is root's, readable by all but those two.
rm -f "$L"/boot/config-6.1[45].0
chmod 000 "$L/sys/fs/cgroup/memory/batch/job1/memory.soft_limit_in_bytes"
chmod 700 "$L/sys/fs/cgroup/devices/locked"
chmod 755 "$T_TMP" "$T_TMP/legacy" "$T_TMP/legacy/root"
if [ "$(id -u)" -ne 0 ]; then
	skip "unreadable places, as a user" "the suite is not run as root (it plants root-owned files)"
elif ! command -v setpriv > /dev/null; then
	skip "unreadable places, as a user" "setpriv is not installed"
else
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CGFB" check --json \
		--root "$L" --mountinfo "$T_TMP/legacy/mountinfo" > "$T_TMP/user.out" 2> "$T_TMP/user.err"
	st=$?
	check "as a user: exit 1, what it could read was checked" [ "$st" -eq 1 ]
	check "as a user: the unreadable knob and cgroup are named with the reason" $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
u = d["unreadable"]
assert u["count"] == 2, u
assert any(x.endswith("/memory/batch/job1/memory.soft_limit_in_bytes: Permission denied") for x in u["first"]), u
assert any(x.endswith("/devices/locked: Permission denied") for x in u["first"]), u
rules = {f["rule"] for f in d["findings"]}
assert "knob-soft-limit" not in rules and "knob-devices" not in rules and "knob-kmem-limit" in rules, rules' "$T_TMP/user.out"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CGFB" check \
		--root "$L" --mountinfo "$T_TMP/legacy/mountinfo" > "$T_TMP/user.txt" 2>&1
	check "as a user, for people: 'Could not read 2 places' and each of them" \
		sh -c 'grep -q "^Could not read 2 places" "$1" && grep -q "memory.soft_limit_in_bytes: Permission denied" "$1"' _ "$T_TMP/user.txt"
fi

# --- unified: nothing to say ---------------------------------------------------
root unified unified || exit 2
U=$T_TMP/unified/root
echo "BOOT_IMAGE=/vmlinuz-6.12.48+deb13-amd64 root=UUID=0b1c ro quiet" > "$U/proc/cmdline"
echo 6.12.48+deb13-amd64 > "$U/proc/sys/kernel/osrelease"
printf "$DEB13_CONFIG" > "$U/boot/config-6.12.48+deb13-amd64"
dpkg_status unified 257.9-1~deb13u1
mkdir -p "$U/etc/containerd" "$U/var/lib/lxc/db"
printf '  # SystemdCgroup = false\n  SystemdCgroup = true\n' > "$U/etc/containerd/config.toml"
printf 'lxc.cgroup2.memory.max = 1G\nlxc.cgroup.relative = 0\n' > "$U/var/lib/lxc/db/config"
run unified --json
check "unified: exit 0" [ "$st" -eq 0 ]
check "unified: valid by the schema" valid "$T_TMP/unified.out"
check "unified: no finding at all, ready" $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["findings"] == [] and d["ready"] and d["checked"] and d["system"]["cgroup_mode"] == "unified" and d["system"]["systemd"] == "257.9", d' "$T_TMP/unified.out"
# The mount table from the root itself, as /proc/self/mountinfo.
mkdir -p "$U/proc/self" && cp "$T_TMP/unified/mountinfo" "$U/proc/self/mountinfo"
"$CGFB" check --root "$U" > "$T_TMP/unified.txt" 2>&1
check "unified, DIR/proc/self/mountinfo: exit 0, 'READY for the removal of cgroup v1'" \
	sh -c '[ "$1" -eq 0 ] && tail -n 1 "$2" | grep -qx "READY for the removal of cgroup v1: nothing found that breaks."' _ $? "$T_TMP/unified.txt"

# --- the hybrid host of the snapshot tests -------------------------------------
python3 tests/data/cgroupfs/mkfixture.py tests/data/cgroupfs/hybrid-systemd.desc "$T_TMP/hybrid" > /dev/null
run hybrid --json
check "hybrid: exit 1" [ "$st" -eq 1 ]
rules_found "$T_TMP/hybrid.out" | tr '\n' ' ' > "$T_TMP/got"
check "hybrid: the mode and the v1 hierarchies, no knob: $(cat "$T_TMP/got")" \
	[ "$(cat "$T_TMP/got")" = "cgroup-mode-hybrid v1-cpuset-mounted v1-memory-mounted v1-other-mounted " ]
check "hybrid: every busy cgroup (13) is a systemd unit's: counted apart, not a finding" \
	$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert {"owner": "systemd-unit", "rule": "v1-processes", "count": 13} in d["owned"], d["owned"]' "$T_TMP/hybrid.out"
check "hybrid: what could not be read (no /proc/cmdline in this root) is said" \
	grep -q '/proc/cmdline: No such file or directory' "$T_TMP/hybrid.out"

# --- could check nothing --------------------------------------------------------
mkdir -p "$T_TMP/empty"
"$CGFB" check --root "$T_TMP/empty" > "$T_TMP/empty.out" 2>&1
check "an empty root: exit 2, 'Could not check'" \
	sh -c '[ "$1" -eq 2 ] && grep -q "^Could not check" "$2"' _ $? "$T_TMP/empty.out"
"$CGFB" check --root "$T_TMP/empty" --json > "$T_TMP/empty.json" 2>&1
check "an empty root, --json: exit 2, checked false, valid" \
	sh -c '[ "$1" -eq 2 ] && grep -q "\"checked\":false" "$2"' _ $? "$T_TMP/empty.json"
check "... valid by the schema" valid "$T_TMP/empty.json"
printf '{"rules": [{"id": "x"' > "$T_TMP/bad-rules.json"
"$CGFB" check --rules "$T_TMP/bad-rules.json" > "$T_TMP/rules.out" 2>&1
check "broken --rules: exit 2, the file and the reason named" \
	sh -c '[ "$1" -eq 2 ] && grep -q "bad-rules.json: not JSON" "$2"' _ $? "$T_TMP/rules.out"
"$CGFB" check --root "$T_TMP/empty" extra > "$T_TMP/arg.out" 2>&1
check "an argument: exit 2 naming --root" sh -c '[ "$1" -eq 2 ] && grep -q -- "--root" "$2"' _ $? "$T_TMP/arg.out"

# --- real host types -------------------------------------------------------------
# tests/data/readiness/hosts/NAME: a host type's cgroup layout and files, and
# the verdicts its deciders' sources give, each beside the source line
# (README there). expect.py builds the root and checks every statement.
# The interpreter is resolved once (a version manager's shim costs a
# quarter of a second per start, more than a host takes) and started
# without site-packages (-S: expect.py needs the standard library only).
HPY=$($PY -c 'import sys; print(sys.executable)')
for h in tests/data/readiness/hosts/*/; do
	h=${h%/}
	check "host ${h##*/}: every expectation in its expect file" \
		"$HPY" -S tests/data/readiness/hosts/expect.py "$h" "$CGFB" "$T_TMP/hosts"
done

# --- names another party chose (issue 39) ---------------------------------------
# A cgroup name holds any byte but '/', NUL and newline, and whoever may
# create cgroups (a container's root, a delegated user) chooses it: in the
# where: and first: lines, in what could not be read (a knob that is a
# directory here), text and JSON, it is shown escaped, never raw.
printf 'kernel 5.4\nmount tmpfs /sys/fs/cgroup\nmount cgroup /sys/fs/cgroup/memory memory\ncg /sys/fs/cgroup/memory/%s soft=1G procs=1\ncg /sys/fs/cgroup/memory/%s/b%s\n' \
	"$HOSTILE_PCT" "$HOSTILE_PCT" "$HOSTILE_PCT" > "$T_TMP/hostile.desc"
python3 tests/data/cgroupfs/mkfixture.py "$T_TMP/hostile.desc" "$T_TMP/hostile" > /dev/null
K=$T_TMP/hostile/root/sys/fs/cgroup/memory/$HOSTILE/b$HOSTILE/memory.soft_limit_in_bytes
rm "$K" && mkdir "$K"
run hostile
check "hostile cgroup names: the text shows where:, first: and what could not be read, escaped" \
	sh -c 'noraw() { python3 tests/tools/noraw.py "$@"; }; noraw --hostile "$1" && grep -q "first: .*ev.x1b" "$1" && grep -q "^  .*ev.x1b.*: Is a directory" "$1" && grep -q "where: .*ev.x1b.*soft_limit" "$1"' _ "$T_TMP/hostile.out"
run hostile --json
check "hostile cgroup names: the JSON is strict UTF-8 with the same escapes" noraw --json --hostile "$T_TMP/hostile.out"
check "hostile cgroup names: the JSON is valid by the schema" valid "$T_TMP/hostile.out"

# --- this machine -------------------------------------------------------------
"$CGFB" check --json > "$T_TMP/host.json" 2> "$T_TMP/host.err"
st=$?
check "this machine: valid by the schema" valid "$T_TMP/host.json"
if grep -q ' - cgroup ' /proc/self/mountinfo; then
	# Whether they break depends on who decides here (a container's
	# systemd, its host's kernel): the exit status says the verdict.
	check "this machine has v1 hierarchies: each is named, the exit status is the verdict's" \
		$PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
n = sum(f["count"] for f in d["findings"] if f["rule"] in ("v1-memory-mounted", "v1-cpuset-mounted", "v1-other-mounted"))
v1 = {l.split()[3] + l.split()[4] for l in open("/proc/self/mountinfo") if " - cgroup " in l}
assert n >= 1 and n <= len(v1), (n, v1)
want = {"ready": "0", "not_ready": "1", "cannot_tell": "2"}[d["verdict"]]
assert sys.argv[2] == want, (sys.argv[2], d["verdict"])' "$T_TMP/host.json" "$st"
else
	check "this machine has no v1 hierarchy: no finding about one" \
		$PY -c 'import json, sys; assert not [f for f in json.load(open(sys.argv[1]))["findings"] if f["rule"].startswith("v1-")]' "$T_TMP/host.json"
fi
finish
