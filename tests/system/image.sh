#!/bin/sh
# The full-system test's Debian 12, cached: a disk image whose root boots
# Debian's cloud kernel with systemd as PID 1, the kernel and initrd to boot
# it with, and Debian's matching linux-headers (unpacked) to build the test
# module against.
#
# usage: tests/system/image.sh CACHE_DIR
#   prints the directory of the image on stdout (CACHE_DIR/<key>), building
#   it first unless it is already there; progress goes to stderr.
# exit:  0 done; 1 the build failed; 77 it cannot be built here (not root,
#        or debootstrap cannot reach the archive) and nothing is cached.
#
# The key is a hash of what the image is made of: this script, the package
# list and the files of tests/system/image/. Nothing of the project goes
# into the image: its .debs, the module and the scenarios come with each run
# on a disk of their own (tests/system/run.sh), so a change to them never
# rebuilds it. A build takes a debootstrap and an apt-get install (a few
# minutes with a warm network); the image is then about 1 GB of a sparse
# 3 GB file. Old images are removed when a new one is made.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=$1
suite=bookworm

say() { printf '# system-image: %s\n' "$*" >&2; }

key=$( (cat "$0" "$here/packages"; for f in "$here"/image/*; do printf '%s\n' "${f##*/}"; cat "$f"; done) |
	sha256sum | cut -c1-16)
out=$cache/$key
if [ -f "$out/ready" ]; then
	echo "$out"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || { say "building the image needs root (debootstrap, chroot)"; exit 77; }
command -v debootstrap >/dev/null 2>&1 || { say "debootstrap is not installed (make deps)"; exit 77; }
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock -w 3600 9 || { say "cannot lock $cache/.lock"; exit 1; }
# Another run may have built it while we waited.
if [ -f "$out/ready" ]; then
	echo "$out"
	exit 0
fi

# The mirrors this machine's apt uses (deb822 or one-line sources): the
# main archive and, if configured, the security archive, whose kernel is
# the one Debian ships today.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -v -e security -e '^$' | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ { print $2; exit }' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
security=$(sed -n 's/^URIs: *\([^ ]*security[^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	head -n 1)
[ -n "$security" ] || security=$(awk '$1 == "deb" && $3 ~ /^bookworm-security$/ { print $2; exit }' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
[ -n "$security" ] || security=http://deb.debian.org/debian-security

work=$(mktemp -d "$cache/.build.XXXXXX")
root=$work/root
log=$work/build.log
cleanup() {
	for m in "$root/proc" "$root/sys" "$root/dev/pts"; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

t0=$(date +%s)
say "debootstrap --variant=minbase $suite from $mirror"
if ! timeout 1800 debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$log" 2>&1; then
	tail -n 5 "$log" | sed 's/^/#   /' >&2
	if grep -qE 'Failed getting release file|Couldn.t download|Temporary failure|Could not resolve|unable to resolve' "$log"; then
		say "debootstrap cannot reach $mirror"
		exit 77
	fi
	exit 1
fi

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
say "apt-get install ($(grep -cv -e '^#' -e '^$' "$here/packages") packages)"
in_root apt-get update -q >>"$log" 2>&1 || { tail -n 20 "$log" | sed 's/^/#   /' >&2; exit 1; }
# shellcheck disable=SC2046 # one word per package
if ! in_root apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends \
	$(grep -v -e '^#' -e '^$' "$here/packages") >>"$log" 2>&1; then
	tail -n 30 "$log" | sed 's/^/#   /' >&2
	exit 1
fi

kver=$(cd "$root/lib/modules" && ls | head -n 1)
[ -f "$root/boot/vmlinuz-$kver" ] && [ -f "$root/boot/initrd.img-$kver" ] ||
	{ say "no kernel or initrd for $kver in /boot"; exit 1; }

# Debian's headers for exactly this kernel (and the kbuild they need),
# downloaded only: the module is built on the host, and the image carries no
# compiler.
hdr_pkgs=$(in_root apt-cache depends "linux-headers-$kver" |
	sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p' | tr '\n' ' ')
mkdir -p "$work/debs" "$work/out/headers"
(cd "$work/debs" && in_root sh -c "cd /tmp && apt-get download linux-headers-$kver $hdr_pkgs" >>"$log" 2>&1 &&
	mv "$root"/tmp/*.deb .) || { tail -n 10 "$log" | sed 's/^/#   /' >&2; exit 1; }
for d in "$work"/debs/*.deb; do dpkg -x "$d" "$work/out/headers"; done
[ -f "$work/out/headers/usr/src/linux-headers-$kver/Makefile" ] || { say "linux-headers-$kver not unpacked"; exit 1; }
# Its Makefile includes the common part by an absolute /usr/src path: make
# it relative, so that the unpacked tree works where it is.
sed -i 's|^include /usr/src/\(linux-headers-[^/]*-common\)/Makefile$|include $(dir $(lastword $(MAKEFILE_LIST)))../\1/Makefile|' \
	"$work/out/headers/usr/src/linux-headers-$kver/Makefile"

say "configuring the guest"
cp "$root/boot/vmlinuz-$kver" "$work/out/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$work/out/initrd.img"
echo "$kver" >"$work/out/kver"
echo cgfb-guest >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 cgfb-guest\n' >"$root/etc/hosts"
# No fsck at boot: the image carries no e2fsprogs, and every run starts
# from a copy of it.
echo '/dev/vda / ext4 rw,noatime 0 0' >"$root/etc/fstab"
# A fixed machine id: no "first boot" presets at every run.
echo 0123456789abcdef0123456789abcdef >"$root/etc/machine-id"
in_root passwd -d root >>"$log" 2>&1
# The administrator, as Debian's installer makes the first user: in adm
# (reads the logs) and sudo (the default admin-group). The test logs it in
# on ttyS2 (the serial-getty drop-in) and wants wall messages (mesg y).
in_root useradd -m -s /bin/bash -G adm,sudo -c 'cgfb test administrator' admin >>"$log" 2>&1
# With a password, as the installer asks for one: sudo asks for it, and the
# host (tests/system/admin.py) types it, read from the image's admin-password.
echo cgfb-admin-pw >"$work/out/admin-password"
printf 'admin:%s\n' "$(cat "$work/out/admin-password")" | in_root chpasswd >>"$log" 2>&1
printf '\n# Wall messages (cgroup-feedback) may reach this terminal.\nmesg y\n' >>"$root/home/admin/.profile"
# A user outside the admin group, logged in beside the administrator.
in_root useradd -m -s /bin/bash -c 'cgfb test user' alice >>"$log" 2>&1
install -m 0644 "$here/image/cgfb-test.service" "$root/etc/systemd/system/cgfb-test.service"
install -m 0755 "$here/image/cgfb-test-boot" "$root/usr/local/sbin/cgfb-test-boot"
mkdir -p "$root/etc/systemd/system/serial-getty@ttyS2.service.d"
install -m 0644 "$here/image/autologin.conf" "$root/etc/systemd/system/serial-getty@ttyS2.service.d/autologin.conf"
in_root systemctl enable cgfb-test.service serial-getty@ttyS2.service >>"$log" 2>&1
# What only slows a TCG boot down.
in_root systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
	fstrim.timer systemd-timesyncd.service >>"$log" 2>&1 || :
in_root systemctl set-default multi-user.target >>"$log" 2>&1
rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/resolv.conf"
in_root apt-get clean >>"$log" 2>&1
rm -rf "$root"/var/lib/apt/lists/* "$root"/tmp/*
for m in "$root/proc" "$root/sys"; do umount "$m"; done

say "mkfs.ext4 -d (the root as a disk image)"
truncate -s 3G "$work/out/disk.img"
mkfs.ext4 -q -F -L cgfb-root -E root_owner=0:0 -d "$root" "$work/out/disk.img" >>"$log" 2>&1 ||
	{ tail -n 10 "$log" | sed 's/^/#   /' >&2; exit 1; }
cp "$log" "$work/out/build.log"
touch "$work/out/ready"
# Only one image is kept: the previous ones will not be used again.
for old in "$cache"/*/; do
	[ "${old%/}" = "$out" ] || rm -rf "${old%/}"
done
mv -T "$work/out" "$out"
say "built $out in $(($(date +%s) - t0)) s (kernel $kver)"
echo "$out"
