#!/bin/sh
# Real-kernel test of cgroup-feedback.
#
# Boots Debian 12's cloud kernel under qemu with a busybox initramfs whose /init
# (guest-init.sh) makes the kernel print cgroup v1 / memcg deprecation warnings and
# writes look-alike texts to /dev/kmsg from userspace. The detector then scans the live
# kernel log in the guest; check.py verifies from the serial console log that every real
# warning was reported once and no userspace copy was reported.
#
# usage: tests/qemu/run.sh [DETECTOR]        DETECTOR defaults to build/cgroup-feedback
# output: TAP on stdout, one "ok N - PASS: ..." / "not ok N - FAIL: ..." line per check
# exit:  0 all checks passed; 1 a check failed or the test could not run;
#        77 skipped (no qemu, or the kernel/busybox packages cannot be downloaded)
# env:   CGFB_QEMU_CACHE  download cache (default /var/cache/cgroup-feedback-test); kept
#                         outside the repo so that every clone on the machine reuses it
#        CGFB_QEMU_ACCEL  qemu accelerator (default tcg: works everywhere and boots in a few
#                         seconds; a half-working /dev/kvm can hang the guest instead)
#        CGFB_QEMU_KEEP=1 keep the work directory (console log, initramfs) even on success
#
# Only `apt-get download` and `dpkg -x` touch packages: nothing is installed on the host.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
detector=${1:-$top/build/cgroup-feedback}
accel=${CGFB_QEMU_ACCEL:-tcg}
# The metapackage follows Debian's kernel ABI bumps; it depends on the versioned image.
kernel_meta=linux-image-cloud-amd64
# swapaccount=0 makes the kernel print M9b at boot. quiet/loglevel=4 keep the console
# for our markers; the kernel log itself still records every level.
cmdline="console=ttyS0 printk.devkmsg=on swapaccount=0 panic=-1 quiet loglevel=4"
boot_timeout=120

say() { printf '# qemu-test: %s\n' "$*" >&2; }
# Outcomes before check.py runs are reported as a single TAP test.
skip() {
	say "SKIP: $*"
	printf 'ok 1 - real-kernel test # SKIP %s\n1..1\n' "$*"
	exit 77
}
die() {
	say "ERROR: $*"
	printf 'not ok 1 - FAIL: real-kernel test -- %s\n1..1\n' "$*"
	exit 1
}

start=$(date +%s)

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	skip "qemu-system-x86_64 not found (Debian package qemu-system-x86; see make deps)"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to check the console log (make deps)"
[ -x "$detector" ] || die "detector binary $detector not found or not executable (run make)"

# A warm cache may be read-only (filled by root, used by anyone); it only has to be
# writable when something is missing, see install_cache.
cache=${CGFB_QEMU_CACHE:-/var/cache/cgroup-feedback-test}
if ! mkdir -p "$cache" 2>/dev/null; then
	# Only the default gives way (users cannot create it under /var/cache); an explicit
	# CGFB_QEMU_CACHE is meant.
	[ -z "${CGFB_QEMU_CACHE:-}" ] || die "cannot create cache directory $cache"
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/cgroup-feedback-test
	mkdir -p "$cache" || die "cannot create cache directory $cache"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-qemu.XXXXXX")
# Keep the console log of a failure for inspection; a pass or a skip has nothing to show.
# shellcheck disable=SC2317 # called by the EXIT trap
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

# ---------------------------------------------------------------- downloads (cached)

# An `apt-get download` 404 usually means the lists name a version the mirror has
# superseded (or there are no lists yet): refresh them once per run, then give up.
apt_updated=0
apt_refresh() {
	[ "$apt_updated" -eq 0 ] || return 1
	apt_updated=1
	if [ "$(id -u)" -ne 0 ]; then
		say "package lists may be stale, but apt-get update needs root"
		return 1
	fi
	say "running apt-get update (package lists stale or missing)"
	if ! timeout 300 apt-get update -qq >"$work/apt-update.log" 2>&1; then
		sed 's/^/#   /' "$work/apt-update.log" >&2
		return 1
	fi
}

kernel_package() {
	apt-cache depends "$kernel_meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1
}

# fetch PKG DESTDIR: download PKG's .deb (current candidate) and unpack it into DESTDIR.
fetch() {
	dl=$work/dl-$1
	mkdir -p "$dl"
	# A subshell keeps the cwd; apt-get download saves into it.
	if ! (cd "$dl" && timeout 300 apt-get download "$1") >"$dl.log" 2>&1; then
		if ! apt_refresh || ! (cd "$dl" && timeout 300 apt-get download "$1") >"$dl.log" 2>&1; then
			sed 's/^/#   /' "$dl.log" >&2
			return 1
		fi
	fi
	dpkg -x "$dl"/*.deb "$2"
}

# install_cache NAME DIR: move a completed DIR into the cache under NAME. The rename is
# atomic, so a concurrent run sees either nothing or a complete entry; if it won the
# race, keep its copy.
install_cache() {
	tmp=$(mktemp -d "$cache/.new.XXXXXX" 2>/dev/null) ||
		die "cache directory $cache is not writable (set CGFB_QEMU_CACHE)"
	cp -R "$2"/. "$tmp"/
	chmod 755 "$tmp"
	mv -T "$tmp" "$cache/$1" 2>/dev/null || rm -rf "$tmp"
}

command -v apt-get >/dev/null 2>&1 && have_apt=1 || have_apt=0

kpkg=
if [ "$have_apt" -eq 1 ]; then
	kpkg=$(kernel_package)
	if [ -z "$kpkg" ] && apt_refresh; then
		kpkg=$(kernel_package)
	fi
fi
if [ -z "$kpkg" ]; then
	# No usable package lists (not Debian, or offline): a cached kernel still tests.
	for dir in "$cache"/linux-image-*; do
		[ ! -f "$dir/vmlinuz" ] || kpkg=${dir##*/}
	done
	[ -n "$kpkg" ] || skip "cannot resolve $kernel_meta with apt-cache and no kernel is cached in $cache"
	say "using cached $kpkg (could not resolve $kernel_meta)"
fi

if [ ! -f "$cache/$kpkg/vmlinuz" ]; then
	[ "$have_apt" -eq 1 ] || skip "apt-get not found; cannot download $kpkg"
	say "downloading $kpkg into $cache"
	fetch "$kpkg" "$work/kernel-deb" || skip "apt-get download $kpkg failed"
	mkdir -p "$work/kernel"
	# Only the image is needed (the modules are 10x larger): nothing is loaded from them.
	cp "$work/kernel-deb"/boot/vmlinuz-* "$work/kernel/vmlinuz"
	cp "$work/kernel-deb"/boot/config-* "$work/kernel/config"
	install_cache "$kpkg" "$work/kernel"
	# An ABI bump leaves the previous image behind; it will never be used again.
	for old in "$cache"/linux-image-*; do
		[ "$old" = "$cache/$kpkg" ] || rm -rf "$old"
	done
fi
vmlinuz=$cache/$kpkg/vmlinuz

if [ ! -x "$cache/busybox-static/busybox" ]; then
	[ "$have_apt" -eq 1 ] || skip "apt-get not found; cannot download busybox-static"
	say "downloading busybox-static into $cache"
	fetch busybox-static "$work/busybox-deb" || skip "apt-get download busybox-static failed"
	mkdir -p "$work/busybox"
	cp "$work/busybox-deb/bin/busybox" "$work/busybox/busybox"
	install_cache busybox-static "$work/busybox"
fi
bb=$cache/busybox-static/busybox

# ---------------------------------------------------------------- initramfs

root=$work/root
# /var/lib, /run and /root: somewhere to write, should the detector keep state.
mkdir -p "$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/etc "$root"/run \
	"$root"/root "$root"/var/lib "$root"/var/tmp "$root"/usr/share/cgroup-feedback
mkdir -p "$root"/bin
cp "$bb" "$root/bin/busybox"
for applet in $("$bb" --list-full); do
	case $applet in */*) ;; *) continue ;; esac # skip /linuxrc
	mkdir -p "$root/${applet%/*}"
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done

# The guest has no libc of its own: copy each library ldd resolves, and the dynamic
# loader, to the same path (the loader path is baked into the binary).
cp "$detector" "$root/usr/bin/cgroup-feedback"
# The watcher and the report writer beside it, where `cgroup-feedback watch`
# looks first.
progs="$detector"
for p in cgroup-feedback-send cgroup-feedback-watch cgroup-feedback-report; do
	[ -x "${detector%/*}/$p" ] || die "${detector%/*}/$p not found (run make)"
	cp "${detector%/*}/$p" "$root/usr/bin/$p"
	progs="$progs ${detector%/*}/$p"
done
# shellcheck disable=SC2086 # one word per program
ldd_out=$(for p in $progs; do timeout 30 ldd "$p" 2>&1; done | sort -u) || true
if printf '%s\n' "$ldd_out" | grep -q 'not found'; then
	printf '%s\n' "$ldd_out" | sed 's/^/#   /' >&2
	die "ldd cannot resolve every library of $detector"
fi
libdirs=
for lib in $(printf '%s\n' "$ldd_out" |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
	mkdir -p "$root${lib%/*}"
	cp -L "$lib" "$root$lib"
	case :$libdirs: in *":${lib%/*}:"*) ;; *) libdirs=${libdirs:+$libdirs:}${lib%/*} ;; esac
done
# Without /etc/ld.so.cache the loader only searches its built-in directories.
printf 'LD_LIBRARY_PATH=%s\nexport LD_LIBRARY_PATH\n' "$libdirs" >"$root/etc/cgfb.env"

# The binary may carry the catalog; the installed copy covers builds that read it.
cp "$top/data/catalog.json" "$root/usr/share/cgroup-feedback/catalog.json"
cp "$here/inject.txt" "$root/etc/cgfb-inject.txt"
cp "$here/guest-init.sh" "$root/init"
chmod 755 "$root/init"

# busybox cpio: no host cpio needed, and -R 0:0 gives root-owned files when unprivileged.
(cd "$root" && find . | "$bb" cpio -o -H newc -R 0:0 2>/dev/null) | gzip -1 >"$work/initrd.gz"

# ---------------------------------------------------------------- boot and check

# boot LOG: the serial console goes to stdout (-nographic), hence to LOG.
boot() {
	timeout -k 5 "$boot_timeout" qemu-system-x86_64 -nographic -no-reboot \
		-accel "$accel" -m 512 -smp 1 -net none \
		-kernel "$vmlinuz" -initrd "$work/initrd.gz" -append "$cmdline" \
		</dev/null >"$1" 2>"$1.qemu-stderr"
}

# Under TCG a guest can occasionally crash or stall; one retry separates that from a
# real failure, which repeats.
log=$work/console.log
say "booting $kpkg (accel $accel, timeout ${boot_timeout}s)"
boot_rc=0
boot "$log" || boot_rc=$?
if ! grep -q '@@CGFB-END rc=' "$log"; then
	say "guest did not finish (qemu exit $boot_rc); retrying once. Last console lines:"
	tail -n 20 "$log" | tr -d '\r' | sed 's/^/#   /' >&2
	sed 's/^/#   /' "$log.qemu-stderr" >&2
	mv "$log" "$work/console-1.log"
	boot_rc=0
	boot "$log" || boot_rc=$?
	grep -q '@@CGFB-END rc=' "$log" || say "guest did not finish again (qemu exit $boot_rc)"
fi

status=0
python3 "$here/check.py" "$log" "$here/inject.txt" || status=1
say "took $(($(date +%s) - start))s"
exit "$status"
