#!/bin/sh
# The full-system test: the project's own .debs installed in a Debian 12
# booted with systemd as PID 1 on Debian's cloud kernel (cgroup v1, the
# kernel printing real deprecation warnings), an administrator logged in on
# a terminal, and the scenarios of tests/system/guest/ run in the guest
# (docs/SYSTEM-TEST.md says what each proves).
#
# usage: tests/system/run.sh        (BUILD=build by default, as make check)
# output: TAP on stdout; progress as "# system-test: ..." lines on stderr
# exit:  0 all passed; 1 a check failed or the guest did not finish;
#        77 skipped: no qemu-system-x86_64 (or no image and it cannot be built:
#        not root, or the Debian archive unreachable)
# env:   CGFB_SYSTEM_CACHE    the image cache (default /var/cache/cgroup-feedback-test/system)
#        CGFB_QEMU_ACCEL      qemu accelerator (default: kvm if /dev/kvm is usable, else tcg)
#        CGFB_SYSTEM_SMP      guest CPUs (default 2)
#        CGFB_SYSTEM_TIMEOUT  seconds the guest may take, both boots (default 1500)
#        CGFB_SYSTEM_DEBS     a directory with the two .debs to use instead of `make deb`
#                             (else tests/tools/debs.sh: built once per source state)
#        CGFB_QEMU_KEEP=1     keep the work directory (logs, the guest's evidence)
#
# Three serial ports: ttyS0 the console, ttyS1 the guest's TAP lines, ttyS2
# the administrator's terminal (agetty --autologin), each a file here. The
# image (tests/system/image.sh) is cached; the .debs, the test module and
# the scenarios come on a second disk made for each run, which also brings
# the guest's evidence (journal, spool, logs) back.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
cache=${CGFB_SYSTEM_CACHE:-/var/cache/cgroup-feedback-test/system}
smp=${CGFB_SYSTEM_SMP:-2}
guest_timeout=${CGFB_SYSTEM_TIMEOUT:-1500}
t_start=$(date +%s)

say() { printf '# system-test: %s (%d s)\n' "$*" "$(($(date +%s) - t_start))" >&2; }
skip() {
	say "SKIP: $*"
	printf 'ok 1 - full-system test # SKIP %s\n1..1\n' "$*"
	exit 77
}
die() {
	say "ERROR: $*"
	printf 'not ok 1 - full-system test: %s\n1..1\n' "$*"
	exit 1
}

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	skip "qemu-system-x86_64 not found (Debian package qemu-system-x86; see make deps)"
for tool in mkfs.ext4 debugfs make python3; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found (make deps)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-system.XXXXXX")
cleanup() {
	rc=$?
	if [ "${CGFB_QEMU_KEEP:-0}" = 1 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; }; then
		say "work directory kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# --- the image (cached) ----------------------------------------------------------
say "image"
img=$(sh "$here/image.sh" "$cache")
case $? in
0) ;;
77) skip "no cached image in $cache and it cannot be built here (see above)" ;;
*) die "building the image failed" ;;
esac
kver=$(cat "$img/kver")
# The administrator's password, set by image.sh (sudo asks for it).
admin_password=$(cat "$img/admin-password") || die "no admin-password in $img (rebuild the image)"
t_image=$(date +%s)

# KVM when it works: a /dev/kvm that opens is not enough (nested
# virtualisation here failed with "KVM internal error" or a failed MSR
# write, the guest hung). The probe boots the kernel without a root, which
# panics within seconds and, with -no-reboot, ends qemu; a broken KVM does
# not get there in 20 s (a working one takes 2 or 3).
kvm_works() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	timeout -k 5 20 qemu-system-x86_64 -accel kvm -m 256 -smp 1 -nodefaults -no-user-config \
		-display none -vga none -net none -no-reboot -kernel "$img/vmlinuz" \
		-append "console=ttyS0 panic=-1 rdinit=/nonexistent" -serial "file:$work/kvm-probe.log" \
		</dev/null >/dev/null 2>&1 &&
		grep -q 'Kernel panic' "$work/kvm-probe.log"
}
# A failed probe costs its whole 20 s, a CPU's worth (the broken KVM spins
# in the host kernel), at every run: its verdict is kept beside the image
# for this boot of the host (what decides it, the host's KVM and nested
# virtualisation, is set up at boot), and the probe is not repeated. A
# working KVM is found again each run (2 or 3 s). Rebooting the host, or a
# new image, probes again; so does removing "$img"/kvm-broken.*.
boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
kvm_broken=$img/kvm-broken.${boot_id:-unknown}
if [ -n "${CGFB_QEMU_ACCEL:-}" ]; then
	accel=$CGFB_QEMU_ACCEL
elif [ -n "$boot_id" ] && [ -e "$kvm_broken" ]; then
	accel=tcg
	say "KVM failed its probe earlier in this boot of the host ($kvm_broken)"
elif kvm_works; then
	accel=kvm
else
	accel=tcg
	[ -n "$boot_id" ] && touch "$kvm_broken" 2>/dev/null
fi
say "accelerator: $accel"

# --- what this run brings: the .debs, the module, the scenarios --------------------
payload=$work/payload
mkdir -p "$payload/debs" "$payload/out"
if [ -n "${CGFB_SYSTEM_DEBS:-}" ]; then
	cp "$CGFB_SYSTEM_DEBS"/cgroup-feedback_*.deb "$CGFB_SYSTEM_DEBS"/cgroup-feedback-server_*.deb \
		"$payload/debs/" || die "no .debs in $CGFB_SYSTEM_DEBS"
else
	# Built once per source state, shared with the deb-install job.
	say "make deb (tests/tools/debs.sh)"
	(cd "$top" && BUILD="$BUILD" sh tests/tools/debs.sh "$work/pkg") 2>"$work/deb.log"
	st=$?
	sed 's/^# /#   /' "$work/deb.log" >&2
	[ $st -eq 0 ] || die "make deb failed"
	cp "$work"/pkg/cgroup-feedback_*.deb "$work"/pkg/cgroup-feedback-server_*.deb \
		"$payload/debs/" || die "make deb made no .debs"
	rm -rf "$work/pkg"
fi
t_debs=$(date +%s)

say "building the test module against linux-headers-$kver"
cp -R "$here/module" "$work/module"
make -C "$img/headers/usr/src/linux-headers-$kver" M="$work/module" modules \
	>"$work/module.log" 2>&1 ||
	{ tail -n 20 "$work/module.log" | sed 's/^/#   /' >&2; die "building the test module failed"; }
cp "$work/module/cgfb_test.ko" "$payload/"
cp -R "$here/guest" "$payload/guest"
# Owned by root in the guest whoever runs this.
mkfs.ext4 -q -F -L cgfb-test -E root_owner=0:0 -d "$payload" "$work/payload.img" 256M ||
	die "mkfs.ext4 of the test disk failed"

# --- boot (twice: the guest reboots itself) ------------------------------------------
cmdline="root=/dev/vda rw console=ttyS0 systemd.unified_cgroup_hierarchy=0 swapaccount=0 panic=-1"
say "booting Debian 12 on $kver with systemd (accel $accel, $smp CPUs, at most ${guest_timeout} s)"
# The administrator at ttyS2 (admin.py): qemu connects the port to its
# socket; it logs what the terminal shows and answers the wall message.
python3 "$here/admin.py" "$work/admin.sock" "$work/admin-tty.log" "$work/admin-result.txt" \
	"$admin_password" "$((guest_timeout + 60))" 2>"$work/admin.err" &
admin_pid=$!
i=0
while [ ! -S "$work/admin.sock" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$work/admin.sock" ] || die "the administrator's terminal (admin.py) did not start: $(cat "$work/admin.err")"
timeout -k 10 "$guest_timeout" qemu-system-x86_64 -accel "$accel" -m 1024 -smp "$smp" \
	-nodefaults -no-user-config -display none -vga none -net none \
	-kernel "$img/vmlinuz" -initrd "$img/initrd.img" -append "$cmdline" \
	-drive "file=$img/disk.img,format=raw,if=virtio,snapshot=on" \
	-drive "file=$work/payload.img,format=raw,if=virtio" \
	-serial "file:$work/console.log" -serial "file:$work/tap.log" \
	-chardev "socket,id=admin,path=$work/admin.sock" -serial chardev:admin \
	</dev/null >"$work/qemu.log" 2>&1
qemu_rc=$?
# qemu closed the socket: admin.py ends on its own; bounded all the same.
timeout 30 sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 0.2; done' _ "$admin_pid" || kill "$admin_pid" 2>/dev/null
wait "$admin_pid" 2>/dev/null
t_guest=$(date +%s)
[ "$qemu_rc" -eq 0 ] || say "qemu exited with $qemu_rc (124: the guest did not finish in time)"

# The guest's evidence back from its disk.
debugfs -R "rdump /out $work" "$work/payload.img" >/dev/null 2>&1 || :

# --- results ---------------------------------------------------------------------------
n=0 failed=0
emit() {
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n - $2" ;;
	*) failed=$((failed + 1)); echo "not ok $n - $2" ;;
	esac
}
tr -d '\r' <"$work/tap.log" >"$work/tap.txt"
while IFS= read -r line; do
	case $line in
	"ok - "*) emit ok "${line#ok - }" ;;
	"not ok - "*) emit not_ok "${line#not ok - }" ;;
	"#"*) echo "$line" ;;
	esac
done <"$work/tap.txt"

# What the administrator's terminal showed, between the guest's markers.
tr -d '\r' <"$work/admin-tty.log" >"$work/admin-tty.txt"
segment() {
	awk -v m="@@MARK $1@@" -v e="@@MARK $2@@" \
		'index($0, e) { on = 0 } on { print } index($0, m) { on = 1 }' "$work/admin-tty.txt"
}
banner='cgroup-feedback: the kernel asked for your use case'
wall='\*\*\* cgroup-feedback: the kernel asked for your use case \*\*\*'
hcheck() {
	name=$1; shift
	if "$@" >/dev/null 2>&1; then emit ok "$name"; else emit not_ok "$name"; fi
}
seg_has() { segment "$1" "$2" | grep -q "$3"; }
seg_lacks() { ! segment "$1" "$2" | grep -q "$3"; }
# The wall message names the catalog id on the line after its title.
wall_names() { segment "$1" "$2" | grep -A 1 "$wall" | grep -q "^$3:"; }
hcheck "the administrator saw the login banner at login (terminal, after login-1)" \
	seg_has login-1 login-1-end "$banner"
hcheck "the administrator's terminal received the wall message for M8" \
	wall_names wall-M8 wall-M8-end M8
# What the administrator did with it (admin.py): the command the message
# printed, typed as printed; review through sudo, its pager and its
# questions; kept for later, exit 0. Then the command keep for later
# printed, typed as printed: the answers were there; kept again, exit 0.
admin_cmd=$(sed -n 's/^command: //p' "$work/admin-result.txt" 2>/dev/null)
admin_cmd2=$(sed -n 's/^command2: //p' "$work/admin-result.txt" 2>/dev/null)
is_hint() { printf '%s\n' "$1" | grep -Eqx 'sudo cgroup-feedback review [0-9a-f-]+'; }
reviewed() {
	grep -qx 'rc: 0' "$work/admin-result.txt" &&
		segment wall-M8 review-M8-end | grep -q '^Kept for later with what you typed'
}
# The packaged configuration names no collector (issue 38): both reviews
# said where a yes goes before the questions (the e-mail for the list),
# offered the e-mail and keep, and never a send over the network nor a
# loopback address.
no_collector_offered() {
	segment wall-M8 review-M8-end | tr '\n' ' ' | tr -s ' ' |
		grep -q 'Where a yes at the end goes: No collector is configured (endpoint), so a yes writes the report as an e-mail for linux-mm@kvack.org to a file' &&
		[ "$(segment wall-M8 review-M8-end | grep -c '^Now: \[e\]-mail it to linux-mm@kvack.org (shown first, then asked), \[k\]eep for later')" -eq 2 ] &&
		! segment wall-M8 review-M8-end | grep -q -e 'Send this report to' -e 'http://' -e '127\.0\.0\.1' -e 'localhost:'
}
reviewed_again() {
	grep -qx 'rc2: 0' "$work/admin-result.txt" && [ "$admin_cmd2" = "$admin_cmd" ] &&
		segment wall-M8 review-M8-end | grep -q '(your answer so far: our own batch scheduler)'
}
hcheck "the wall message's command is 'sudo cgroup-feedback review ID' (${admin_cmd:-none})" \
	is_hint "$admin_cmd"
hcheck "typed as printed, it ran review: kept for later, exit 0" reviewed
hcheck "the packaged configuration: review said a yes writes the e-mail for the list, offered it and keep, never a send nor a loopback address" \
	no_collector_offered
hcheck "keep for later's command (${admin_cmd2:-none}), typed as printed, resumed from the answers, exit 0" \
	reviewed_again
# After the reboot, the banner's command, typed as printed: review walked
# every pending report (as many as the guest counted), each kept, exit 0.
admin_cmd3=$(sed -n 's/^command3: //p' "$work/admin-result.txt" 2>/dev/null)
pending=$(cat "$work/out/pending-before-banner-review" 2>/dev/null)
banner_walked() {
	grep -qx 'rc3: 0' "$work/admin-result.txt" && [ -n "$pending" ] && [ "$pending" -gt 0 ] &&
		grep -qx "reports: $pending kept: $pending" "$work/admin-result.txt"
}
hcheck "the banner's command is 'sudo cgroup-feedback review' (${admin_cmd3:-none})" \
	[ "$admin_cmd3" = "sudo cgroup-feedback review" ]
hcheck "typed as printed, it walked every pending report (${pending:-?}), each kept for later, exit 0" \
	banner_walked
grep '^error: ' "$work/admin-result.txt" 2>/dev/null | sed 's/^/# admin.py: /'
hcheck "the terminal that refused messages (mesg n) showed no wall message" \
	seg_lacks wall-refused wall-refused-end "$wall"
hcheck "after the reboot, the administrator saw the banner again at login" \
	seg_has reboot after-reboot "$banner"
if [ -s "$work/admin-tty.txt" ]; then
	echo "# the administrator's terminal (ttyS2), first boot's login:"
	segment login-1 login-1-end | grep -v '^$' | head -n 12 | sed 's/^/#   /'
fi

if grep -q '^@@DONE@@' "$work/tap.txt"; then
	emit ok "the guest ran every scenario of both boots"
else
	emit not_ok "the guest ran every scenario of both boots"
	echo "# last console lines:"
	tr -d '\r' <"$work/console.log" | tail -n 25 | sed 's/^/#   /'
fi
echo "1..$n"
say "times: image $((t_image - t_start)) s, packages $((t_debs - t_image)) s, guest (two boots) $((t_guest - t_debs)) s, total $(($(date +%s) - t_start)) s"
[ "$failed" -eq 0 ]
