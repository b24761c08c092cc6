#!/bin/sh
# /init of the real-kernel test guest (PID 1, busybox sh); installed by tests/qemu/run.sh.
#
# Makes the kernel print real cgroup v1 / memcg deprecation warnings, writes look-alike
# texts to /dev/kmsg from userspace, runs the detector on the live kernel log and prints
# its output between marker lines on the serial console, where run.sh checks it.
# Everything a check depends on goes to the console: the guest has no other channel.

PATH=/usr/bin:/usr/sbin:/bin:/sbin
HOME=/root
export PATH HOME

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# The initramfs has no /dev/console node (run.sh may build it unprivileged), so the
# kernel started us without stdio; attach it now that devtmpfs provides the node.
exec </dev/console >/dev/console 2>&1

# Search path for the detector's shared libraries, written by run.sh.
# shellcheck disable=SC1091
[ -r /etc/cgfb.env ] && . /etc/cgfb.env

# Leave the VM whatever happens; -no-reboot makes qemu exit on a reboot or a panic too.
finish() {
	sync
	poweroff -f
	reboot -f
	exit 1 # PID 1 exiting panics the kernel; panic=-1 then reboots, ending qemu
}

# One marker line per step so that a failed trigger is visible in the console log.
step() {
	name=$1
	shift
	"$@"
	echo "@@STEP $name rc=$?@@"
}

# shellcheck disable=SC2317 # called through step
kmsg_inject() {
	# One printf = one write() = one record: the whole line must reach the kernel at once.
	while IFS= read -r line; do
		case $line in '#'* | '') continue ;; esac
		printf '<4>%s\n' "$line" >/dev/kmsg
	done </etc/cgfb-inject.txt
}

echo "@@GUEST-START $(uname -r)@@"

# Fakes first: the real M8, M1b, M7 and C4 records come after their copies (M9b, printed
# at boot, before its copy), so a detector that accepted userspace records would report
# those ids twice.
step inject kmsg_inject

CG=/sys/fs/cgroup
mount -t tmpfs cgroup $CG
mkdir -p $CG/memory $CG/cpu
step mount-memory mount -t cgroup -o memory memory $CG/memory
step mkdir mkdir -p $CG/memory/job/task

# M8: any value but 1 is refused with EINVAL, after the warning.
step M8 sh -c "echo 0 >$CG/memory/job/memory.use_hierarchy"
# M1b: the write is accepted and ignored (6.1.56+).
step M1b sh -c "echo 64M >$CG/memory/job/memory.kmem.limit_in_bytes"
# M7: printed on any write, before the value is applied.
step M7 sh -c "echo 1 >$CG/memory/job/memory.move_charge_at_immigrate"
# C4: cgroup1_reconfigure() warns when a remount changes the controller set (or sets a
# release_agent) before it validates anything; adding cpuacct to an empty cpu hierarchy
# then succeeds. One remount only: each one prints C4 again (pr_warn, not _once).
step mount-cpu mount -t cgroup -o cpu cpu $CG/cpu
step C4 mount -o remount,cpu,cpuacct $CG/cpu

echo "@@CGFB-BEGIN@@"
# The detector must stop at the end of the log; never let it hang the test.
timeout 40 cgroup-feedback scan --json 2>/tmp/cgfb.err
echo "@@CGFB-END rc=$?@@"
echo "@@CGFB-STDERR-BEGIN@@"
cat /tmp/cgfb.err
echo "@@CGFB-STDERR-END@@"

# The watcher over the same log writes a report per detection; each report (one line of
# canonical JSON) goes to the console for check.py to validate and inspect.
echo "@@WATCH-BEGIN@@"
timeout 60 cgroup-feedback watch --once --json --state-dir /var/lib/cgroup-feedback \
	>/tmp/watch.out 2>/tmp/watch.err
echo "@@WATCH-END rc=$?@@"
echo "@@WATCH-STDERR-BEGIN@@"
cat /tmp/watch.err
echo "@@WATCH-STDERR-END@@"
echo "@@REPORTS-BEGIN@@"
for r in /var/lib/cgroup-feedback/reports/*.json; do
	[ -f "$r" ] || continue
	cat "$r"
	echo
done
echo "@@REPORTS-END@@"

# The watcher as the service runs it, following the log: which program the
# process is, what it maps, and how often it wakes over 3 idle seconds.
echo "@@MAPS-BEGIN@@"
cgroup-feedback watch --state-dir /var/lib/cgfb-follow >/dev/null 2>/tmp/follow.err &
wpid=$!
# Once it has read the backlog and written its reports (it says so last),
# up to three windows of 3 s: a timer wakes it in every one, the tail of
# the burst on a slow emulated machine only in the first.
i=0
while [ $i -lt 120 ] && ! grep -q 'following the kernel log' /tmp/follow.err; do sleep 0.5; i=$((i + 1)); done
echo "exe $(readlink /proc/$wpid/exe)"
for try in 1 2 3; do
	a=$(awk '/ctxt_switches/ { s += $2 } END { print s }' /proc/$wpid/status)
	sleep 3
	b=$(awk '/ctxt_switches/ { s += $2 } END { print s }' /proc/$wpid/status)
	[ "$a" = "$b" ] && break
done
echo "wakeups $((b - a))"
awk '$6 ~ /\.so/ { print "so " $6 }' /proc/$wpid/maps | sort -u
kill $wpid
echo "@@MAPS-END@@"

# Raw records ("<prio>[time] text") show the facility: 0 (<4>) for the kernel, 1 (<12>)
# for the injected copies.
echo "@@DMESG-BEGIN@@"
dmesg -r
echo "@@DMESG-END@@"

finish
