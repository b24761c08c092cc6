#!/bin/sh
# Debian packages, end to end: `make deb` builds cgroup-feedback and
# cgroup-feedback-server, lintian finds no error, apt installs them (with
# their dependencies from the archive) into a minimal Debian 12 made by
# debootstrap, the programs run there, and `apt-get purge` leaves nothing
# behind but what policy keeps (the system users).
#
# The bootstrapped root is cached as a tarball, with the .debs apt fetched,
# in $CGFB_DEB_CACHE (default /var/cache/cgroup-feedback-test/deb-bookworm,
# outside the repository so that every clone reuses it); it is rebuilt after
# a week. Cold: one debootstrap (a few minutes); warm: no network at all.
# Skipped (exit 77) only when there is no cache and debootstrap cannot reach
# the Debian archive.
. tests/lib.sh

if [ "${CGFB_SKIP_PACKAGES:-0}" = 1 ]; then
	skip "Debian packages" "CGFB_SKIP_PACKAGES=1"
	finish; exit 0
fi
case $BUILD in *san*)
	skip "Debian packages" "package build and install run once, on the normal build"
	finish; exit 0 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
	skip "Debian packages" "needs root (debootstrap, chroot, mount)"
	finish; exit 77
fi
under_valgrind && skip "valgrind over the packaged programs" \
	"they run in a debootstrapped chroot without valgrind; the other scripts run the same programs under it"

T0=$(date +%s)
say() { echo "# deb-install: $* ($(($(date +%s) - T0)) s)"; }
CACHE=${CGFB_DEB_CACHE:-/var/cache/cgroup-feedback-test/deb-bookworm}
BASE=$CACHE/bookworm-minbase.tar
ARCHIVES=$CACHE/apt-archives
SUITE=bookworm
ROOT=$T_TMP/chroot

# The mirror this machine's apt uses (deb822 or one-line sources).
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -v -e security -e '^$' | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ { print $2; exit }' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

cleanup() {
	for m in "$ROOT/var/cache/apt/archives" "$ROOT/dev/pts" "$ROOT/proc"; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	t_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the packages ----------------------------------------------------------------
say "make deb (tests/tools/debs.sh)"
# `make deb` once per source state: the system test (tests/system/run.sh)
# needs the same .debs, and tests/tools/debs.sh builds them in a private
# directory, or reuses those built from identical sources.
PKGW=$T_TMP/pkg
BUILD="$BUILD" sh tests/tools/debs.sh "$PKGW/deb" 2>"$T_TMP/deb.log"
st=$?
sed 's/^# /# deb-install: /' "$T_TMP/deb.log"
check "make deb (dpkg-buildpackage -us -uc -b), built now or by another job from identical sources" [ $st -eq 0 ]
DEB=$(ls "$PKGW"/deb/cgroup-feedback_*.deb 2>/dev/null | head -n 1)
SDEB=$(ls "$PKGW"/deb/cgroup-feedback-server_*.deb 2>/dev/null | head -n 1)
check "binary package cgroup-feedback" [ -f "$DEB" ]
check "binary package cgroup-feedback-server" [ -f "$SDEB" ]
check "source tree untouched by the build (no debian/ build products)" \
	sh -c '! ls debian/.debhelper debian/cgroup-feedback debian/files debian/tmp >/dev/null 2>&1'
check "Depends from shlibs (libjson-c5, libc6)" \
	sh -c 'dpkg-deb -f "$1" Depends | grep -q "libjson-c5" && dpkg-deb -f "$1" Depends | grep -q "libc6"' _ "$DEB"
check "the configuration is a conffile" \
	sh -c 'dpkg-deb --ctrl-tarfile "$1" | tar -xOf - ./conffiles | grep -qx /etc/cgroup-feedback/cgroup-feedback.conf' _ "$DEB"
check "postinst enables the watcher and the timer" \
	sh -c 'dpkg-deb --ctrl-tarfile "$1" | tar -xOf - ./postinst > "$2" &&
	       grep -q "enable.*cgroup-feedback.service" "$2" && grep -q "cgroup-feedback-flush.timer" "$2" &&
	       grep -q "systemd-sysusers" "$2"' _ "$DEB" "$T_TMP/postinst"
check "postrm keeps the deletion tokens of sent reports at purge (docs/PRIVACY.md), and is valid sh" \
	sh -c 'dpkg-deb --ctrl-tarfile "$1" | tar -xOf - ./postrm > "$2" && sh -n "$2" &&
	       grep -q "^withdrawable() {" "$2" && grep -q "cgroup-feedback-withdraw-tokens" "$2"' _ "$DEB" "$T_TMP/postrm"
if command -v lintian >/dev/null 2>&1; then
	say "lintian"
	timeout 300 lintian "$PKGW"/deb/*.changes >"$T_TMP/lintian.out" 2>&1
	grep -E '^[WI]: ' "$T_TMP/lintian.out" | sed 's/^/# lintian: /'
	check "lintian: no errors" sh -c '! grep -q "^E: " "$1"' _ "$T_TMP/lintian.out"
	grep '^E: ' "$T_TMP/lintian.out" | sed 's/^/# /'
else
	not_ok "lintian is not installed (make deps)"
fi
[ -f "$DEB" ] && [ -f "$SDEB" ] || { finish; exit 1; }

# --- a minimal Debian 12, cached ----------------------------------------------------
mkdir -p "$CACHE" "$ARCHIVES/partial"
exec 9>"$CACHE/.lock"
flock -w 1800 9 || { not_ok "cache lock $CACHE/.lock"; finish; exit 1; }
if [ -f "$BASE" ] && [ -z "$(find "$BASE" -mtime +7)" ]; then
	say "cached root $BASE"
else
	command -v debootstrap >/dev/null 2>&1 || { not_ok "debootstrap is not installed (make deps)"; finish; exit 1; }
	say "debootstrap --variant=minbase $SUITE from $mirror (cold cache)"
	rm -rf "$CACHE/root.new"
	timeout 1800 debootstrap --variant=minbase \
		--cache-dir="$ARCHIVES" "$SUITE" "$CACHE/root.new" "$mirror" >"$T_TMP/debootstrap.log" 2>&1
	st=$?
	if [ $st -ne 0 ]; then
		tail -n 5 "$T_TMP/debootstrap.log" | sed 's/^/# /'
		rm -rf "$CACHE/root.new"
		if grep -qE 'Failed getting release file|Couldn.t download|Temporary failure|Could not resolve|unable to resolve' \
			"$T_TMP/debootstrap.log"; then
			skip "install in a debootstrapped Debian 12" "debootstrap cannot reach $mirror"
			finish; exit 77
		fi
		not_ok "debootstrap (exit $st)"; finish; exit 1
	fi
	tar -C "$CACHE/root.new" --exclude=./var/cache/apt/archives --exclude=./proc \
		-cf "$BASE.new" . && mv "$BASE.new" "$BASE"
	rm -rf "$CACHE/root.new"
fi
flock -u 9

say "unpack root"
mkdir -p "$ROOT"
tar -C "$ROOT" -xf "$BASE"
check "chroot unpacked" [ -x "$ROOT/usr/bin/apt-get" ]
mkdir -p "$ROOT/proc" "$ROOT/var/cache/apt/archives" "$ROOT/tmp/debs"
mount -t proc proc "$ROOT/proc"
mount --bind "$ARCHIVES" "$ROOT/var/cache/apt/archives"
# No service starts in a chroot (there is no systemd there anyway).
printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"
chmod 0755 "$ROOT/usr/sbin/policy-rc.d"
cp "$DEB" "$SDEB" "$ROOT/tmp/debs/"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null
in_root() { t=$1; shift; timeout "$t" chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
# apt_in_root SECONDS ARG...: apt-get in the chroot, holding the cached
# archives' lock: they are bind-mounted into every run's chroot, and apt's
# lock on them would make a second suite's apt-get fail, not wait.
exec 8>"$CACHE/.archives.lock"
apt_in_root() {
	flock -w 1800 8 || { echo "deb-install: cannot lock $CACHE/.archives.lock"; return 1; }
	in_root "$@"
	_rc=$?
	flock -u 8
	return $_rc
}
before=$T_TMP/files.before
(cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/cache/apt -o -path ./var/lib/apt \) -prune -o -print | sort) > "$before"

# --- install ------------------------------------------------------------------------
APT_OPTS="-y -q -o Dpkg::Use-Pty=0 -o APT::Install-Recommends=false"
install_debs() {
	# shellcheck disable=SC2086
	apt_in_root 600 apt-get install $APT_OPTS /tmp/debs/"$(basename "$DEB")" /tmp/debs/"$(basename "$SDEB")"
}
say "apt-get install (lists as cached)"
install_debs >"$T_TMP/apt.log" 2>&1
st=$?
if [ $st -ne 0 ]; then
	say "apt-get update and retry"
	apt_in_root 300 apt-get update -q >>"$T_TMP/apt.log" 2>&1
	install_debs >>"$T_TMP/apt.log" 2>&1
	st=$?
fi
check "apt-get install of both packages, dependencies from the archive" [ $st -eq 0 ]
[ $st -eq 0 ] || tail -n 30 "$T_TMP/apt.log" | sed 's/^/# /'
check "dependencies came from the archive (libjson-c5 installed)" \
	sh -c 'chroot "$1" dpkg-query -W -f="\${Status}" libjson-c5 | grep -q "install ok installed"' _ "$ROOT"
say "installed"

check "cgroup-feedback --version" sh -c 'chroot "$1" cgroup-feedback --version | grep -q "^cgroup-feedback [0-9]"' _ "$ROOT"
check "cgroup-feedback review --help: the packaged cgroup-feedback-send, from /usr/libexec/cgroup-feedback" \
	sh -c 'chroot "$1" cgroup-feedback review --help | grep -q "^Usage: cgroup-feedback review" &&
	       [ -x "$1/usr/libexec/cgroup-feedback/cgroup-feedback-send" ]' _ "$ROOT"
cp "$DATA/logs/opensuse-12.2.dmesg" "$ROOT/tmp/opensuse.dmesg"
in_root 60 cgroup-feedback scan --json /tmp/opensuse.dmesg >"$T_TMP/scan.out" 2>&1
check "cgroup-feedback scan finds S1 in a SUSE log" [ $? -eq 0 ]
check "scan output names S1" grep -q '"id":"S1"' "$T_TMP/scan.out"
check "the installed catalog is used" \
	sh -c 'chroot "$1" cgroup-feedback catalog | grep -q S1 && [ -f "$1/usr/share/cgroup-feedback/catalog.json" ]' _ "$ROOT"
check "the JSON Schemas of a report, check --json and status --json are installed" sh -c \
	'for s in report check status; do cmp -s "$1/usr/share/cgroup-feedback/$s.schema.json" "docs/$s.schema.json" || exit 1; done' _ "$ROOT"
check "the readiness model the man page names is installed (/usr/share/doc/cgroup-feedback/READINESS.md)" \
	cmp -s "$ROOT/usr/share/doc/cgroup-feedback/READINESS.md" docs/READINESS.md
# A part of the product: missing is a failure, not a skip.
# The flat memory hierarchy of the 2012 patch: A (use_hierarchy=0) with B and C.
FX=$ROOT/tmp/fixture
for d in "" /A /A/B /A/C; do
	mkdir -p "$FX/cg/sys/fs/cgroup/memory$d"
	echo 0 > "$FX/cg/sys/fs/cgroup/memory$d/memory.use_hierarchy"
	echo 9223372036854771712 > "$FX/cg/sys/fs/cgroup/memory$d/memory.limit_in_bytes"
	: > "$FX/cg/sys/fs/cgroup/memory$d/cgroup.procs"
done
echo '36 25 0:31 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,memory' \
	> "$FX/mountinfo"
in_root 60 cgroup-feedback snapshot --json --for S1 --state-dir /tmp/fixture/state \
	--cgroup-root /tmp/fixture/cg --mountinfo /tmp/fixture/mountinfo >"$T_TMP/snapshot.out" 2>&1
check "cgroup-feedback snapshot --json on a flat-hierarchy fixture" [ $? -eq 0 ]
check "snapshot finds the flat subtree below A" grep -q '"flat_subtrees":\[{' "$T_TMP/snapshot.out"
check "cgroup-feedback-server --help" sh -c 'chroot "$1" cgroup-feedback-server --help >/dev/null 2>&1' _ "$ROOT"
check "system user _cgroup-feedback" sh -c 'chroot "$1" getent passwd _cgroup-feedback >/dev/null' _ "$ROOT"
check "system user _cgroup-feedback-server" sh -c 'chroot "$1" getent passwd _cgroup-feedback-server >/dev/null' _ "$ROOT"
check "spool made by tmpfiles.d, 0700, owned by _cgroup-feedback" \
	sh -c '[ "$(chroot "$1" stat -c "%a %U" /var/lib/cgroup-feedback)" = "700 _cgroup-feedback" ]' _ "$ROOT"
# The installed watcher, started as `cgroup-feedback watch` is, writes a
# report through the installed report writer.
printf '4,1,1000,-;%s\n' 'Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.' \
	> "$ROOT/tmp/m8.kmsg"
echo 0b0e0000-1111-4222-8333-444455556666 > "$ROOT/tmp/boot_id"
# The system's login banner as tmpfiles.d makes it (the link dangles while
# nothing is pending): this scratch spool, with the packaged configuration
# naming /run/cgroup-feedback/motd, must leave it alone (issue 38).
made_link=
if [ ! -L "$ROOT/run/motd.d/cgroup-feedback.motd" ]; then
	mkdir -p "$ROOT/run/motd.d" "$ROOT/run/cgroup-feedback"
	ln -s ../cgroup-feedback/motd "$ROOT/run/motd.d/cgroup-feedback.motd"
	made_link=yes
fi
rm -f "$ROOT/run/cgroup-feedback/motd"
in_root 60 cgroup-feedback watch --once --kmsg /tmp/m8.kmsg --boot-id-file /tmp/boot_id \
	--state-dir /tmp/watch-state --cgroup-root /tmp/fixture/cg --mountinfo /tmp/fixture/mountinfo \
	>"$T_TMP/watch.out" 2>&1
check "the packaged watcher (/usr/libexec/cgroup-feedback) detects M8 and writes its report" \
	sh -c 'grep -q "M8" "$1" && ls "$2"/tmp/watch-state/reports/*.json >/dev/null' _ "$T_TMP/watch.out" "$ROOT"
check "... and, on that scratch spool, leaves the system's login banner alone (packaged motd-path)" \
	sh -c '[ ! -e "$1/run/cgroup-feedback/motd" ] && [ -z "$(ls "$1/run/motd.d" | grep -v "^cgroup-feedback.motd$")" ]' _ "$ROOT"
[ -z "$made_link" ] || rm -rf "$ROOT/run/motd.d/cgroup-feedback.motd" "$ROOT/run/cgroup-feedback"
# cgroup-feedback demo, as installed: the packaged script and recording, the
# packaged collector on a free port; Ctrl-C (SIGINT, which timeout passes
# on) ends it and removes its scratch directory.
timeout -s INT 120 chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
	cgroup-feedback demo > "$T_TMP/demo.out" 2>&1 &
dpid=$!
for _ in $(seq 600); do
	grep -q '^Ctrl-C stops the collector' "$T_TMP/demo.out" && break
	kill -0 $dpid 2>/dev/null || break
	sleep 0.1
done
DD=$(sed -n 's/^Ctrl-C stops the collector and removes \(.*\)\.$/\1/p' "$T_TMP/demo.out")
check "cgroup-feedback demo (installed): reports pending, the next commands, the packaged collector" \
	sh -c '[ -n "$2" ] && grep -q "^demo: [0-9]* reports wait for review" "$1" &&
	       grep -q "dashboard, http://127.0.0.1:[0-9]*/" "$1" && grep -q " review [0-9a-f-]*$" "$1"' \
	_ "$T_TMP/demo.out" "$DD"
kill -INT $dpid 2>/dev/null
wait $dpid
check "... Ctrl-C ends it (exit 0) and removes its directory" \
	sh -c '[ "$1" -eq 0 ] && [ -n "$3" ] && [ ! -e "$2$3" ]' _ $? "$ROOT" "$DD"
check "watcher enabled (multi-user.target.wants)" \
	[ -L "$ROOT/etc/systemd/system/multi-user.target.wants/cgroup-feedback.service" ]
check "flush timer enabled (timers.target.wants)" \
	[ -L "$ROOT/etc/systemd/system/timers.target.wants/cgroup-feedback-flush.timer" ]
check "flush service itself not enabled (the timer starts it)" \
	sh -c '! find "$1/etc/systemd/system" -name cgroup-feedback-flush.service | grep -q .' _ "$ROOT"
check "collector enabled" \
	[ -L "$ROOT/etc/systemd/system/multi-user.target.wants/cgroup-feedback-server.service" ]
check "collector admin token made, root only" \
	sh -c '[ "$(stat -c %a "$1/etc/cgroup-feedback-server/admin-token")" = 600 ] && [ -s "$1/etc/cgroup-feedback-server/admin-token" ]' _ "$ROOT"
check "man page installed" [ -f "$ROOT/usr/share/man/man8/cgroup-feedback.8.gz" ]
check "bash completion installed" [ -f "$ROOT/usr/share/bash-completion/completions/cgroup-feedback" ]
check "nothing was sent: the spool holds no report" \
	sh -c '[ -z "$(ls -A "$1/var/lib/cgroup-feedback/reports" 2>/dev/null)" ]' _ "$ROOT"

# Reinstall (upgrade path: the maintainer scripts run again, the token stays).
tok=$(cat "$ROOT/etc/cgroup-feedback-server/admin-token" 2>/dev/null)
# shellcheck disable=SC2086
apt_in_root 300 apt-get install $APT_OPTS --reinstall /tmp/debs/"$(basename "$DEB")" /tmp/debs/"$(basename "$SDEB")" \
	>"$T_TMP/reinstall.log" 2>&1
check "apt-get install --reinstall" [ $? -eq 0 ]
check "admin token kept on reinstall" [ "$(cat "$ROOT/etc/cgroup-feedback-server/admin-token" 2>/dev/null)" = "$tok" ]

# --- purge ----------------------------------------------------------------------------
say "purge"
apt_in_root 300 apt-get purge -y -q cgroup-feedback cgroup-feedback-server >"$T_TMP/purge.log" 2>&1
check "apt-get purge of both packages" [ $? -eq 0 ]
check "dpkg forgot both packages" \
	sh -c '! chroot "$1" dpkg-query -W -f="\${Status}\n" cgroup-feedback cgroup-feedback-server 2>/dev/null | grep -q installed' _ "$ROOT"
(cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/cache/apt -o -path ./var/lib/apt \) -prune -o -print | sort) > "$T_TMP/files.after"
# What is new after install+purge, less the files of the packages that are
# still installed (the dependencies; dpkg names them by their pre-usrmerge
# paths too), dpkg's and apt's own records, and what the dependencies'
# maintainer scripts made (systemd's enablement links, /etc/mtab, ...).
deps_files=$T_TMP/deps.files
chroot "$ROOT" sh -c 'dpkg-query -W -f="\${Package}\n" | xargs dpkg -L 2>/dev/null' |
	sed -e 's#^/\(bin\|sbin\|lib\|lib64\)/#/usr/\1/#' -e 's#^#.#' | sort -u > "$deps_files"
comm -13 "$before" "$T_TMP/files.after" | comm -23 - "$deps_files" |
	grep -v -e '^./var/lib/dpkg' -e '^./var/log' -e '^./etc/\(passwd\|group\|shadow\|gshadow\|subuid\|subgid\)-\{0,1\}$' \
		-e '^./etc/systemd/system/[a-z.-]*\.wants/[a-z0-9@.-]*$' -e '^./etc/systemd/system\(/[a-z.-]*\.wants\)\{0,1\}$' \
		-e '^./var/lib/systemd' -e '^./var/\(lib\|cache\)/private$' -e '^./etc/ld.so.cache$' -e '^./etc/mtab$' -e '^./root/.ssh$' \
		-e '^./run$' -e '^./run/' -e '^./etc/machine-id$' -e '^./var/lib/dbus' -e '^./etc/.pwd.lock$' \
		> "$T_TMP/leftover"
if [ -s "$T_TMP/leftover" ]; then
	not_ok "purge leaves nothing of ours behind"; sed 's/^/# left: /' "$T_TMP/leftover" | head -n 20
else
	ok "purge leaves nothing of ours behind"
fi
check "no path naming cgroup-feedback is left (units, links, spool, /etc)" \
	sh -c '! (cd "$1" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/cache/apt \) -prune -o -name "*cgroup-feedback*" -print) | grep -q .' _ "$ROOT"
check "the system users stay, as policy asks" \
	sh -c 'chroot "$1" getent passwd _cgroup-feedback >/dev/null && chroot "$1" getent passwd _cgroup-feedback-server >/dev/null' _ "$ROOT"

say "done"
finish
