#!/bin/sh
# The project's .debs for the sources as they are now, built once and shared:
# tests/integration/deb-install.sh and tests/system/run.sh both need them,
# run in parallel and independently, and `make deb` costs about 23 s of CPU.
#
# usage: sh tests/tools/debs.sh DEST     (from the top of the source tree)
# does:  copies the .debs, .changes and .buildinfo of these sources into DEST
# output: one line on stderr, "# debs: built KEY ..." or "# debs: reused KEY ..."
# exit:  0 done; 1 `make deb` failed or made no .debs (its log's tail on stderr)
# env:   CGFB_DEBS_CACHE  the cache (default /var/cache/cgroup-feedback-test/debs
#                         as root, else a private directory under $TMPDIR)
#
# The key is a sha256 over exactly what `make pkg-srcdir` copies for the
# package (names, modes, link targets, contents: an uncommitted change
# counts), the architecture and every installed package's version (the
# toolchain and the build dependencies). A .deb of other sources is never
# used: a different tree is a different key. An flock per key makes a
# second job wait for the first's build and then reuse it; a build goes to
# a temporary directory renamed into place, and is stored only if the
# sources did not change while it ran. Entries unused for 7 days are removed.
set -u
dest=${1:?usage: debs.sh DEST}
if [ "$(id -u)" -eq 0 ]; then
	cache=${CGFB_DEBS_CACHE:-/var/cache/cgroup-feedback-test/debs}
else
	cache=${CGFB_DEBS_CACHE:-${TMPDIR:-/tmp}/cgroup-feedback-test-debs-$(id -u)}
fi
mkdir -p "$(dirname "$cache")" && { [ -d "$cache" ] || mkdir -m 0700 "$cache"; } && [ -O "$cache" ] ||
	{ echo "# debs: cache $cache is missing or not ours" >&2; exit 1; }
tmp=$(mktemp -d "$cache/.work.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# key: what `make pkg-srcdir` copies, hashed in a fixed order, plus the
# toolchain.
srckey() {
	rm -rf "$tmp/k" &&
	make -s --no-print-directory pkg-srcdir PKG_WORK="$tmp/k" >/dev/null 2>&1 &&
	{
		echo "debs-key 1 $(dpkg --print-architecture)"
		dpkg-query -W -f '${Package}:${Architecture} ${Version}\n' | LC_ALL=C sort
		(cd "$tmp/k/pkgsrc" && find . \( -type f -o -type l -o -type d \) -printf '%y %m %p %l\n' |
			LC_ALL=C sort &&
		 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
	} | sha256sum | cut -c1-32
}
key=$(srckey)
[ -n "$key" ] || { echo "# debs: make pkg-srcdir failed" >&2; exit 1; }
exec 9>"$cache/$key.lock"
flock -w 1800 9 || { echo "# debs: cannot lock $cache/$key.lock" >&2; exit 1; }

copy() { mkdir -p "$dest" && cp "$1"/*.deb "$1"/*.changes "$1"/*.buildinfo "$dest"/; }
if [ -d "$cache/$key" ] && ls "$cache/$key"/cgroup-feedback-server_*.deb >/dev/null 2>&1; then
	touch "$cache/$key"
	copy "$cache/$key" || exit 1
	echo "# debs: reused $key (built earlier from identical sources, $cache)" >&2
	exit 0
fi

t0=$(date +%s)
DEB_BUILD_OPTIONS=nocheck timeout 1200 make -s --no-print-directory deb PKG_WORK="$tmp/pkg" \
	>"$tmp/deb.log" 2>&1
st=$?
if [ $st -ne 0 ] || ! ls "$tmp"/pkg/deb/cgroup-feedback_*.deb "$tmp"/pkg/deb/cgroup-feedback-server_*.deb \
	>/dev/null 2>&1; then
	tail -n 30 "$tmp/deb.log" | sed 's/^/# /' >&2
	echo "# debs: make deb failed (exit $st)" >&2
	exit 1
fi
copy "$tmp/pkg/deb" || exit 1
# Stored only if the sources are still those of the key: an edit made
# while dpkg-buildpackage ran may or may not be in these .debs.
if [ "$(srckey)" = "$key" ]; then
	rm -rf "${cache:?}/$key" && mv "$tmp/pkg/deb" "$cache/$key"
	stored="stored in $cache"
else
	stored="not stored: the sources changed during the build"
fi
echo "# debs: built $key with make deb in $(($(date +%s) - t0)) s, $stored" >&2

# Old entries: removed only when no job holds their lock.
find "$cache" -mindepth 1 -maxdepth 1 -type d -name '[0-9a-f]*' -mtime +7 | while read -r old; do
	k=$(basename "$old")
	[ "$k" = "$key" ] && continue
	# (the lock file stays: a job may be waiting on it)
	( flock -n 8 && rm -rf "$old" ) 8>"$old.lock"
done
find "$cache" -mindepth 1 -maxdepth 1 -name '.work.*' -mtime +1 -exec rm -rf {} + 2>/dev/null
exit 0
