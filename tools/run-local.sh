#!/bin/sh
# The main job on one machine: a local collector (the stand-in for
# linux-mm@kvack.org, on an embedded SQLite file) and the watcher reading the
# live kernel log. Reports wait for `cgroup-feedback review` in another
# terminal; nothing is sent without a yes there. Ctrl-C stops both.
set -eu
BUILD=${BUILD:-build}
STATE=${CGFB_STATE_DIR:-/var/lib/cgroup-feedback}
SERVER_DIR=${CGFB_SERVER_DIR:-/var/lib/cgroup-feedback-server}
LISTEN=${CGFB_LISTEN:-127.0.0.1:8080}
if [ "$(id -u)" -ne 0 ]; then
	echo "run-local: the watcher reads /dev/kmsg and cgroupfs: run as root" >&2
	exit 1
fi
mkdir -p "$SERVER_DIR"
chmod 0700 "$SERVER_DIR"
if [ ! -s "$SERVER_DIR/admin-token" ]; then
	(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$SERVER_DIR/admin-token")
fi
"$BUILD/cgroup-feedback-server" --listen "$LISTEN" --database "$SERVER_DIR/collector.db" \
	--admin-token-file "$SERVER_DIR/admin-token" --quiet &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT INT TERM
cat <<EOT
run-local: collector on http://$LISTEN/ (database $SERVER_DIR/collector.db,
           admin token in $SERVER_DIR/admin-token)
run-local: watching the kernel log (state in $STATE). In another terminal:
             sudo $BUILD/cgroup-feedback --config /dev/null review --state-dir $STATE
           (the default endpoint, http://127.0.0.1:8080/api/v1/reports, is this collector)
           and the dashboard at http://$LISTEN/ . Ctrl-C stops both.
EOT
"$BUILD/cgroup-feedback" --config /dev/null watch --state-dir "$STATE"
