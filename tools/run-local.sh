#!/bin/sh
# The main job on one machine: the watcher, reading the live kernel log and
# remembering its progress under a state directory. Ctrl-C stops it.
# (The local collector joins here once the server exists.)
set -eu
BUILD=${BUILD:-build}
STATE=${CGFB_STATE_DIR:-/var/lib/cgroup-feedback}
if [ "$(id -u)" -ne 0 ]; then
	echo "run-local: the watcher reads /dev/kmsg and cgroupfs: run as root" >&2
	exit 1
fi
echo "run-local: catalog messages already in the kernel log:"
"$BUILD/cgroup-feedback" scan || true
echo "run-local: watching the kernel log (state in $STATE); Ctrl-C to stop"
exec "$BUILD/cgroup-feedback" watch --state-dir "$STATE"
