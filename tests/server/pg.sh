# A real PostgreSQL server for the collector's tests, started by the test
# itself: initdb into a temporary directory owned by an unprivileged user
# (PostgreSQL refuses to run as root), a Unix socket in that directory and
# no TCP port, password authentication with the password in a PGPASSFILE
# (as a deployment would have it, never on a command line), and stopped by
# pg_stop, which tests/server/lib.sh's exit trap calls whatever happens.
# Sourced; needs tests/lib.sh (scaled). Sets PG_ROOT, PG_SOCK, PGPASSFILE.
# shellcheck shell=sh
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_USER=${CGFB_TEST_PG_USER:-cgfb-test}
PG_ROOT=""

# pg_available: initdb is there, or can be installed from the archive.
pg_available() {
	[ -x "$PG_BIN/initdb" ] && return 0
	[ "$(id -u)" = 0 ] || return 1
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends \
		postgresql-15 postgresql-client-15 >/dev/null 2>&1
	[ -x "$PG_BIN/initdb" ]
}

# pg_user: the unprivileged user that owns the cluster: a system user of
# its own, made if missing, or nobody when it cannot be made; the caller
# itself when it is not root.
pg_user() {
	if [ "$(id -u)" != 0 ]; then
		PG_USER=$(id -un)
		return 0
	fi
	PG_AS="runuser -u $PG_USER --"
	id "$PG_USER" >/dev/null 2>&1 && return 0
	if useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
		"$PG_USER" 2>/dev/null || id "$PG_USER" >/dev/null 2>&1; then
		return 0
	fi
	PG_USER=nobody
	PG_AS="runuser -u $PG_USER --"
}

# pg_as COMMAND...: COMMAND as the cluster's owner ($PG_AS: the prefix
# that does it, for timeout, which runs no shell function).
PG_AS=""
pg_as() { $PG_AS "$@"; }

# pg_start: a fresh cluster, running; 0 when it accepts connections.
pg_start() {
	pg_user
	PG_ROOT=$(mktemp -d /tmp/cgfb-pg.XXXXXX) || return 1
	chown "$PG_USER" "$PG_ROOT"
	chmod 0700 "$PG_ROOT"
	PG_SOCK=$PG_ROOT
	# The superuser's password: in a file for initdb, in PGPASSFILE for
	# every client (libpq insists on mode 0600).
	printf 'cgfb-%s\n' "$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')" > "$PG_ROOT/pw"
	chown "$PG_USER" "$PG_ROOT/pw"
	PGPASSFILE=$T_TMP/pgpass
	printf '*:*:*:postgres:%s\n' "$(cat "$PG_ROOT/pw")" > "$PGPASSFILE"
	chmod 0600 "$PGPASSFILE"
	export PGPASSFILE
	if ! pg_as "$PG_BIN/initdb" -D "$PG_ROOT/data" -U postgres --pwfile="$PG_ROOT/pw" \
		-A scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync >"$PG_ROOT/initdb.log" 2>&1; then
		echo "# initdb failed:"; sed 's/^/#   /' "$PG_ROOT/initdb.log"
		return 1
	fi
	rm -f "$PG_ROOT/pw"
	# fsync stays on: the tests check what a commit promises.
	if ! timeout "$(scaled 60)" $PG_AS "$PG_BIN/pg_ctl" -D "$PG_ROOT/data" \
		-l "$PG_ROOT/log" -w -t "$(scaled 30)" \
		-o "-k $PG_SOCK -c listen_addresses='' -c max_connections=200 -c shared_buffers=64MB" \
		start >/dev/null 2>&1; then
		echo "# PostgreSQL did not start; log:"; sed 's/^/#   /' "$PG_ROOT/log"
		return 1
	fi
}

# pg_restart [MODE]: stop (immediate: as a crash) and start the same cluster.
pg_restart() {
	timeout "$(scaled 60)" $PG_AS "$PG_BIN/pg_ctl" -D "$PG_ROOT/data" \
		-m "${1:-immediate}" -w -t "$(scaled 30)" \
		-o "-k $PG_SOCK -c listen_addresses='' -c max_connections=200 -c shared_buffers=64MB" \
		restart >/dev/null 2>&1
}

# pg_procs: the cluster's processes, the postmaster first.
pg_procs() {
	_pm=$(head -n 1 "$PG_ROOT/data/postmaster.pid" 2>/dev/null) || return 0
	echo "$_pm $(pgrep -P "$_pm" | tr '\n' ' ')"
}

# pg_freeze, pg_thaw: SIGSTOP every process of the cluster, as a hung
# server (a hung disk, a paused VM) whose kernel still accepts connections
# and acknowledges what is sent; SIGCONT. The postmaster first, so that it
# starts no process the list would miss.
pg_freeze() { for _p in $(pg_procs); do kill -STOP "$_p" 2>/dev/null; done; }
pg_thaw() { for _p in $(pg_procs); do kill -CONT "$_p" 2>/dev/null; done; }

# pg_stop: stopped and removed, whatever state it is in; for the exit trap
# (also of a script under set -e).
pg_stop() {
	[ -n "$PG_ROOT" ] || return 0
	# A test that failed with the cluster frozen: it would not stop.
	pg_thaw || true
	if [ -f "$PG_ROOT/data/postmaster.pid" ]; then
		timeout 30 $PG_AS "$PG_BIN/pg_ctl" -D "$PG_ROOT/data" -m immediate \
			-w -t 20 stop >/dev/null 2>&1
		# A postmaster that did not stop in time: by its pid, ours alone.
		_pm=$(head -n 1 "$PG_ROOT/data/postmaster.pid" 2>/dev/null || true)
		if [ -n "$_pm" ]; then kill -9 "$_pm" 2>/dev/null || true; fi
	fi
	[ -n "${CGFB_KEEP_TMP:-}" ] || rm -rf "$PG_ROOT"
	PG_ROOT=""
}

# pg_uri DB: the collector's --database for database DB on this server
# (no password in it: libpq reads PGPASSFILE).
pg_uri() { echo "postgresql:///$1?host=$PG_SOCK&user=postgres"; }

# pg_sql DB SQL: run SQL, rows printed unaligned, fields separated by |.
pg_sql() {
	"$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$(pg_uri "$1")" -c "$2"
}

# pg_createdb DB: a database of that name, if it is not there yet.
pg_createdb() {
	[ "$(pg_sql postgres "SELECT count(*) FROM pg_database WHERE datname = '$1'")" = 1 ] ||
		pg_sql postgres "CREATE DATABASE \"$1\""
}
