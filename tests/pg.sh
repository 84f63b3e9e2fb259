# pg.sh — a private PostgreSQL server for one test, sourced after
# tests/e2e/lib.sh (or on its own: then call pg_stop yourself).
#
#   pg_start            initdb into a new temp dir, start the server on a
#                       Unix socket in that dir (no TCP), export PG_URI
#                       (a libpq URI of database "blkpeak") and PG_DIR
#   pg_stop             stop the server and remove its dir (pg_start
#                       registers it with lib.sh's at_exit when sourced
#                       after lib.sh, so a failing test cleans up too)
#
# The server runs as an unprivileged user: the caller when not root,
# else `nobody` (created as a system user when missing). Every call has
# its own dir, socket and data, so two tests (or two checkouts) run
# servers at once; the port only names the socket file. fsync is off: the
# server is thrown away. The role `blkpeak` is the superuser (trust on the
# socket); role `pwuser` (password `secret`) must give a password.
# A missing PostgreSQL 15 skips the test, fails it under CI=true.
# PG_SERVER_OPTS adds server settings (-c NAME=VALUE ...) after these:
# bench/bench-pg-store.sh turns fsync and the rest back on.

PG_BIN=${PG_BIN:-$(pg_config --bindir 2>/dev/null)}
[ -x "$PG_BIN/initdb" ] || PG_BIN=/usr/lib/postgresql/15/bin

_pg_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$_PG_USER" -- "$@"
	else
		"$@"
	fi
}

pg_start() {
	if [ ! -x "$PG_BIN/initdb" ] || [ ! -x "$PG_BIN/pg_ctl" ]; then
		[ "${CI:-}" = "true" ] && { echo "FAIL: no PostgreSQL server (initdb) in $PG_BIN" >&2; exit 1; }
		echo "SKIP: needs PostgreSQL 15 (postgresql-15: scripts/install-deps.sh --tests)"
		exit 77
	fi
	_PG_USER=$(id -un)
	if [ "$(id -u)" -eq 0 ]; then
		_PG_USER=nobody
		id nobody >/dev/null 2>&1 || useradd --system --no-create-home nobody ||
			{ echo "FAIL: cannot create user nobody" >&2; exit 1; }
	fi
	PG_DIR=$(mktemp -d /tmp/blkpeak-pg.XXXXXX) || { echo "FAIL: mktemp" >&2; exit 1; }
	chmod 755 "$PG_DIR"
	[ "$(id -u)" -eq 0 ] && chown "$_PG_USER" "$PG_DIR"
	type at_exit >/dev/null 2>&1 && at_exit pg_stop
	printf 'secret\n' > "$PG_DIR/pw"
	_pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U blkpeak -A trust --no-sync \
		--no-instructions -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 ||
		{ cat "$PG_DIR/initdb.log" >&2; echo "FAIL: initdb" >&2; exit 1; }
	# pwuser gives a password; everyone else is trusted on the socket.
	{ echo "local all pwuser scram-sha-256"; echo "local all all trust"; } > "$PG_DIR/data/pg_hba.conf"
	_pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -c fsync=off \
		    -c synchronous_commit=off -c full_page_writes=off -c max_connections=40 \
		    -c shared_buffers=32MB ${PG_SERVER_OPTS:-}" start >/dev/null ||
		{ cat "$PG_DIR/server.log" >&2; echo "FAIL: the PostgreSQL server did not start" >&2; exit 1; }
	_pg_as "$PG_BIN/psql" -h "$PG_DIR" -U blkpeak -d postgres -qAt -v ON_ERROR_STOP=1 \
		-c "CREATE DATABASE blkpeak" \
		-c "CREATE ROLE pwuser LOGIN PASSWORD 'secret'" \
		-c "GRANT ALL ON DATABASE blkpeak TO pwuser" >/dev/null ||
		{ echo "FAIL: cannot create the test database" >&2; exit 1; }
	export PG_DIR
	export PG_URI="postgresql://blkpeak@/blkpeak?host=$PG_DIR"
}

# pg_psql SQL...: run statements as the superuser in database blkpeak.
pg_psql() {
	psql "$PG_URI" -qAt -v ON_ERROR_STOP=1 "$@"
}

pg_stop() {
	[ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ] || return 0
	[ -f "$PG_DIR/data/postmaster.pid" ] &&
		_pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$PG_DIR"
	PG_DIR=""
}
