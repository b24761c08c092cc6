# Fixture trees for the snapshot tests and benchmark; source after tests/lib.sh.
# shellcheck shell=sh
FIXTURES=${FIXTURES:-$PWD/tests/data/cgroupfs}

# fixture NAME DIR: build NAME.desc into DIR (DIR/root, DIR/mountinfo).
fixture() {
	python3 "$FIXTURES/mkfixture.py" "$FIXTURES/$1.desc" "$2" >"$2.mounts"
}

# cached_fixture NAME: print the directory of a read-only copy of NAME built
# once per machine and description (big10k is 300,000 files and takes
# seconds to write). The key covers the generator and the description, and
# a finished tree is renamed into place, so a half-built one is never used.
cached_fixture() {
	key=$(cat "$FIXTURES/mkfixture.py" "$FIXTURES/$1.desc" | sha256sum | cut -c1-16)
	cache=${CGFB_FIXTURE_CACHE:-/var/cache/cgroup-feedback-test/fixtures}
	mkdir -p "$cache" 2>/dev/null || cache=${XDG_CACHE_HOME:-$HOME/.cache}/cgroup-feedback-test/fixtures
	mkdir -p "$cache" || return 1
	dir=$cache/$1-$key
	if [ ! -f "$dir/mountinfo" ]; then
		tmp=$(mktemp -d "$cache/.new.XXXXXX") || return 1
		fixture "$1" "$tmp/t" || { rm -rf "$tmp"; return 1; }
		mv "$tmp/t.mounts" "$tmp/t/mounts"
		chmod 755 "$tmp/t"
		mv -T "$tmp/t" "$dir" 2>/dev/null || true
		rm -rf "$tmp"
		# Other keys of this fixture are older generator versions.
		for old in "$cache/$1"-*; do
			[ "$old" = "$dir" ] || rm -rf "$old"
		done
	fi
	echo "$dir"
}
