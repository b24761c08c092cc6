#!/bin/sh
# Install the Debian 12 packages cgroup-feedback needs to build and test.
# As root: installs what is missing with apt-get. Otherwise: prints the command.
set -eu
PKGS="build-essential pkg-config libjson-c-dev libicu-dev libssl-dev libcurl4-openssl-dev libpcre2-dev
libudev-dev libsystemd-dev libyaml-dev systemd-journal-remote zlib1g-dev liblzma-dev libzstd-dev libbz2-dev liblz4-dev libmicrohttpd-dev libgnutls28-dev libsqlite3-dev libpq-dev postgresql-15 libcmocka-dev clang libclang-rt-dev
python3 python3-jsonschema python3-prometheus-client qemu-system-x86 cpio e2fsprogs valgrind util-linux strace
curl openssl gzip xz-utils zstd bzip2 lz4 wrk time haproxy chromium chromium-driver python3-selenium fonts-dejavu-core
systemd debhelper dpkg-dev fakeroot lintian debootstrap rpm mandoc groff-base
man-db bash-completion quilt git patch"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all build and test packages are installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing:$missing" >&2
	echo "deps: run as root:  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
