#!/bin/sh
# RPM packaging: `rpmbuild -bb` builds cgroup-feedback and
# cgroup-feedback-server from the `make dist` tarball (git HEAD) in a scratch
# topdir, with the same files, units and scriptlets as the Debian packages.
# On Debian the rpm database knows none of the build dependencies (dpkg has
# them), hence --nodeps.
. tests/lib.sh

if [ "${CGFB_SKIP_PACKAGES:-0}" = 1 ]; then
	skip "RPM packages" "CGFB_SKIP_PACKAGES=1"
	finish; exit 0
fi
case $BUILD in *san*)
	skip "RPM packages" "the package build runs once, on the normal build"
	finish; exit 0 ;;
esac
if ! command -v rpmbuild >/dev/null 2>&1; then
	not_ok "rpmbuild is not installed (Debian package rpm; make deps)"
	finish; exit 1
fi

T0=$(date +%s)
SPEC=packaging/rpm/cgroup-feedback.spec
VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
check "spec Version matches the Makefile's $VERSION" grep -qx "Version: *$VERSION" "$SPEC"
check "debian/changelog version matches too" sh -c 'head -n 1 debian/changelog | grep -q "($1-"' _ "$VERSION"

TOP=$T_TMP/rpmbuild
mkdir -p "$TOP/SOURCES"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git archive --format=tar.gz --prefix="cgroup-feedback-$VERSION/" \
		-o "$TOP/SOURCES/cgroup-feedback-$VERSION.tar.gz" HEAD
	check "source tarball from git archive (make dist)" [ -s "$TOP/SOURCES/cgroup-feedback-$VERSION.tar.gz" ]
else
	skip "rpmbuild" "not a git checkout: no make dist tarball"
	finish; exit 77
fi

timeout 900 rpmbuild -bb --nodeps --define "_topdir $TOP" "$SPEC" >"$T_TMP/rpmbuild.log" 2>&1
st=$?
check "rpmbuild -bb" [ $st -eq 0 ]
[ $st -eq 0 ] || tail -n 30 "$T_TMP/rpmbuild.log" | sed 's/^/# /'
echo "# rpmbuild took $(($(date +%s) - T0)) s"
RPM=$(find "$TOP/RPMS" -name "cgroup-feedback-$VERSION-*.rpm" 2>/dev/null | head -n 1)
SRPM=$(find "$TOP/RPMS" -name "cgroup-feedback-server-$VERSION-*.rpm" 2>/dev/null | head -n 1)
check "package cgroup-feedback" [ -f "$RPM" ]
check "package cgroup-feedback-server" [ -f "$SRPM" ]
[ -f "$RPM" ] && [ -f "$SRPM" ] || { finish; exit 1; }

rpm -qpl "$RPM" > "$T_TMP/files" 2>/dev/null
rpm -qpl "$SRPM" > "$T_TMP/sfiles" 2>/dev/null
for f in /usr/bin/cgroup-feedback /usr/share/cgroup-feedback/catalog.json \
	/usr/share/cgroup-feedback/check.schema.json /usr/share/cgroup-feedback/status.schema.json \
	/usr/share/cgroup-feedback/demo/demo.sh /usr/share/cgroup-feedback/demo/fedora-6.15.kmsg \
	/etc/cgroup-feedback/cgroup-feedback.conf /usr/lib/systemd/system/cgroup-feedback.service \
	/usr/lib/systemd/system/cgroup-feedback-flush.service /usr/lib/systemd/system/cgroup-feedback-flush.timer \
	/usr/lib/sysusers.d/cgroup-feedback.conf /usr/lib/tmpfiles.d/cgroup-feedback.conf \
	/usr/share/bash-completion/completions/cgroup-feedback; do
	check "cgroup-feedback.rpm has $f" grep -qx "$f" "$T_TMP/files"
done
check "cgroup-feedback.rpm has the man pages" sh -c 'grep -q "man8/cgroup-feedback.8" "$1" && grep -q "man5/cgroup-feedback.conf.5" "$1"' _ "$T_TMP/files"
for f in /usr/lib/systemd/system/cgroup-feedback-server.service /usr/lib/sysusers.d/cgroup-feedback-server.conf \
	/etc/default/cgroup-feedback-server; do
	check "cgroup-feedback-server.rpm has $f" grep -qx "$f" "$T_TMP/sfiles"
done
check "cgroup-feedback-server.rpm has /usr/sbin/cgroup-feedback-server" grep -qx /usr/sbin/cgroup-feedback-server "$T_TMP/sfiles"
check "configuration is %config(noreplace)" \
	sh -c 'rpm -qpc "$1" 2>/dev/null | grep -qx /etc/cgroup-feedback/cgroup-feedback.conf' _ "$RPM"
check "admin group is wheel in the RPM's configuration" \
	sh -c 'rpm2cpio "$1" | (cd "$2" && mkdir x && cd x && cpio -idm --quiet) && grep -qx "admin-group = wheel" "$2/x/etc/cgroup-feedback/cgroup-feedback.conf"' _ "$RPM" "$T_TMP"
check "automatic library requirements (libjson-c.so.5)" sh -c 'rpm -qpR "$1" 2>/dev/null | grep -q "libjson-c.so.5"' _ "$RPM"
rpm -qp --scripts "$RPM" > "$T_TMP/scripts" 2>/dev/null
check "scriptlets make the user before the files (sysusers or useradd)" \
	sh -c 'sed -n "/^preinstall/,/^postinstall/p" "$1" | grep -q "systemd-sysusers" && grep -q "useradd -r" "$1"' _ "$T_TMP/scripts"
check "scriptlets enable the watcher and the timer (preset), stop them on erase" \
	sh -c 'grep -q "preset.*cgroup-feedback.service.*cgroup-feedback-flush.timer" "$1" && grep -q "disable --now cgroup-feedback.service" "$1"' _ "$T_TMP/scripts"
check "scriptlets run tmpfiles" grep -q "systemd-tmpfiles --create cgroup-feedback.conf" "$T_TMP/scripts"
check "an erase keeps the spool and says which sent reports can still be withdrawn (postuninstall)" \
	sh -c 'sed -n "/^postuninstall/,\$p" "$1" > "$1.postun" && grep -q "^withdrawable() {" "$1.postun" &&
	       grep -q "withdrawable /var/lib/cgroup-feedback" "$1.postun" && ! grep -q "rm -rf /var/lib/cgroup-feedback" "$1" &&
	       sed -n "/^postuninstall/,/^[a-z]* scriptlet/{/scriptlet/d;p}" "$1" | sh -n' _ "$T_TMP/scripts"
check "the packaged binary runs (Debian has the same libraries)" \
	sh -c '"$1/x/usr/bin/cgroup-feedback" --version | grep -q "^cgroup-feedback $2"' _ "$T_TMP" "$VERSION"
check "the unit starts the packaged watcher, /usr/libexec/cgroup-feedback/cgroup-feedback-watch" \
	grep -q '^ExecStart=/usr/libexec/cgroup-feedback/cgroup-feedback-watch ' "$T_TMP/x/usr/lib/systemd/system/cgroup-feedback.service"
check "the package holds the watcher, the report writer and the sender" \
	sh -c '[ -x "$1/usr/libexec/cgroup-feedback/cgroup-feedback-watch" ] &&
	       [ -x "$1/usr/libexec/cgroup-feedback/cgroup-feedback-report" ] &&
	       [ -x "$1/usr/libexec/cgroup-feedback/cgroup-feedback-send" ]' _ "$T_TMP/x"

finish
