#!/bin/bash
# bench-pg-store.sh — the PostgreSQL store (issue 28, schema 10) against
# SQLite on this machine, with a private server (tests/pg.sh) run as a
# real one would be (fsync, synchronous commit, full page writes on;
# 512 MB shared buffers), its data in a temp dir on disk:
#   - import of one generated trace of N I/Os (default 10 M) by
#     `analyze import` (COPY binary FREEZE, one connection) and into SQLite;
#   - psql's \copy of the same rows (the trace's io_rows partition, what
#     the import sends) as CSV and as binary into a plain table of the same
#     columns, in the same run;
#   - bytes per I/O on disk (the trace's partitions with their TOAST and
#     indexes, its io_kinds rows; the SQLite file);
#   - `analyze report --json` of that trace from each engine;
#   - 1, 2, 3 and 4 connections: N I/Os as 12 traces imported by that many
#     processes at once into a new database each time (the wall time).
# Each import also says the CPU seconds of blkpeak and of the server
# (the postmaster and its children, from /proc): on a shared machine the
# wall time includes waiting for a core, the CPU time does not.
# Usage: [N=10000000] bench/bench-pg-store.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
N=${N:-10000000}
command -v psql >/dev/null || { echo "SKIP: needs psql"; exit 77; }
W=$(mktemp -d /tmp/blkpeak-bench-pg.XXXXXX) || exit 1
exec 8>/tmp/blkpeak-bench.lock
flock 8
# shellcheck source=../tests/pg.sh
. "$ROOT/tests/pg.sh"
trap 'pg_stop; rm -rf "$W"' EXIT
PG_SERVER_OPTS="-c fsync=on -c synchronous_commit=on -c full_page_writes=on -c shared_buffers=512MB -c max_wal_size=8GB -c work_mem=256MB"
pg_start
chmod 755 "$W"
HZ=$(getconf CLK_TCK)

# CPU seconds of the server so far: the postmaster, its live children and
# the children it has reaped (backends that ended). A backend whose client
# left is counted once the postmaster has reaped it: wait until no
# backend but the checkpointer, writers and launchers is left.
srv_cpu() {
	local pm kids t=0 p i
	pm=$(head -1 "$PG_DIR/data/postmaster.pid")
	for i in $(seq 50); do
		pgrep -P "$pm" -f "postgres: blkpeak" >/dev/null || break
		sleep 0.1
	done
	t=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pm/stat")
	kids=$(cat "/proc/$pm/task/$pm/children" 2>/dev/null)
	for p in $kids; do
		[ -r "/proc/$p/stat" ] && t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	awk "BEGIN { printf \"%.2f\", $t / $HZ }"
}
rate() { awk "BEGIN { printf \"%.2f\", $1 / $2 / 1e6 }"; }
# run CMD...: its wall seconds into $wall, its CPU (user+sys) into $cpu,
# its peak RSS (KiB) into $rss, the server's CPU meanwhile into $scpu
run() {
	local s0 s1
	s0=$(srv_cpu)
	/usr/bin/time -f "%e %U %S %M" -o "$W/time" "$@" >/dev/null 2>"$W/err" ||
		{ echo "FAIL: $*: $(cat "$W/err")" >&2; exit 1; }
	s1=$(srv_cpu)
	read -r wall u s rss <"$W/time"
	cpu=$(awk "BEGIN { printf \"%.2f\", $u + $s }")
	scpu=$(awk "BEGIN { printf \"%.2f\", $s1 - $s0 }")
}
cpus() { echo "CPU: blkpeak $cpu s, server $scpu s"; }

"$BLKPEAK" generate -q --count "$N" --queue-depth 8 --read-pct 70 --bs 4k:60,64k:40 -o "$W/g.bpt" || exit 1
for k in $(seq 1 12); do
	"$BLKPEAK" generate -q --count $((N / 12)) --seed $((k + 10)) --queue-depth 8 -o "$W/q$k.bpt" || exit 1
done
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before; PostgreSQL $(pg_psql -c 'SHOW server_version')"

run "$BLKPEAK" analyze import -q "$W/g.bpt" --db "$W/s.db"
echo "SQLite import: $N I/Os in $wall s ($(rate "$N" "$wall") M I/Os/s), $(awk "BEGIN { printf \"%.1f\", $(stat -c %s "$W/s.db") / $N }") bytes per I/O; CPU: blkpeak $cpu s"
run "$BLKPEAK" analyze import -q "$W/g.bpt" --db "$PG_URI"
echo "PostgreSQL import (COPY binary FREEZE, 1 connection): $N I/Os in $wall s ($(rate "$N" "$wall") M I/Os/s); $(cpus)"
b=$(pg_psql -c "SELECT pg_total_relation_size('io_rows_t1')")
bk=$(pg_psql -c "SELECT pg_total_relation_size('io_kinds')")
echo "  bytes per I/O on disk: $(awk "BEGIN { printf \"%.1f\", ($b + $bk) / $N }") (partition io_rows_t1: $b bytes, io_kinds: $bk bytes; $(pg_psql -c "SELECT count(*) FROM io_kinds") kinds, no replay or file rows)"

# psql \copy of the same rows
(cd "$W" && pg_psql -c "\\copy (SELECT * FROM io_rows_t1) TO '$W/rows.csv' (FORMAT csv)" \
	-c "\\copy (SELECT * FROM io_rows_t1) TO '$W/rows.bin' (FORMAT binary)") >/dev/null || exit 1
pg_psql -c "CREATE TABLE csv_rows (LIKE io_rows)" -c "CREATE TABLE bin_rows (LIKE io_rows)" >/dev/null
run psql "$PG_URI" -qAt -v ON_ERROR_STOP=1 -c "\\copy csv_rows FROM '$W/rows.csv' (FORMAT csv)"
echo "psql \\copy of the same rows as CSV ($(stat -c %s "$W/rows.csv") bytes): $wall s ($(rate "$N" "$wall") M rows/s); $(cpus) (psql)"
run psql "$PG_URI" -qAt -v ON_ERROR_STOP=1 -c "\\copy bin_rows FROM '$W/rows.bin' (FORMAT binary)"
echo "psql \\copy of the same rows as binary ($(stat -c %s "$W/rows.bin") bytes): $wall s ($(rate "$N" "$wall") M rows/s); $(cpus) (psql)"
pg_psql -c "DROP TABLE csv_rows, bin_rows" >/dev/null
rm -f "$W/rows.csv" "$W/rows.bin"

for db in "$W/s.db" "$PG_URI"; do
	run "$BLKPEAK" analyze report 1 --json --db "$db"
	echo "report --json of $N I/Os from $([ "$db" = "$PG_URI" ] && echo PostgreSQL || echo SQLite): $wall s; $(cpus); blkpeak's peak RSS $((rss / 1024)) MiB"
done
"$BLKPEAK" analyze report 1 --json --db "$W/s.db" >"$W/r.s" && "$BLKPEAK" analyze report 1 --json --db "$PG_URI" >"$W/r.p"
cmp -s "$W/r.s" "$W/r.p" && echo "  (the two reports are byte for byte the same)" || echo "  the two reports DIFFER"

for c in 1 2 3 4; do
	pg_psql -c "CREATE DATABASE c$c" >/dev/null
	db="postgresql://blkpeak@/c$c?host=$PG_DIR"
	s0=$(srv_cpu)
	start=$(date +%s.%N)
	pids=""
	for p in $(seq 1 "$c"); do
		files=""
		for k in $(seq "$p" "$c" 12); do files="$files $W/q$k.bpt"; done
		# shellcheck disable=SC2086
		"$BLKPEAK" analyze import -q $files --db "$db" & pids="$pids $!"
	done
	for p in $pids; do wait "$p" || exit 1; done
	t=$(awk "BEGIN { print $(date +%s.%N) - $start }")
	echo "$c connection(s): 12 traces, $N I/Os in $(printf %.2f "$t") s ($(rate "$N" "$t") M I/Os/s); server CPU $(awk "BEGIN { printf \"%.2f\", $(srv_cpu) - $s0 }") s"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) after"
