#!/bin/bash
# bench-pg-store.sh — the PostgreSQL store (issue 28) against SQLite on
# this machine, with a private server (tests/pg.sh) run as a real one
# would be (fsync, synchronous commit, full page writes on; 512 MB shared
# buffers), its data in a temp dir on disk:
#   - import of one generated trace of N I/Os (default 10 M) by
#     `analyze import` (COPY binary, one connection) and into SQLite;
#   - psql's \copy of the same rows as CSV (and as binary) into a plain
#     table of the same columns, in the same run;
#   - bytes per I/O on disk (the trace's partition with its TOAST and
#     indexes; the SQLite file);
#   - `analyze report --json` of that trace from each engine;
#   - 1, 2 and 4 connections: N I/Os as 4 traces imported by that many
#     processes at once into a new database each time (the wall time).
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
TIMEFORMAT="%R"
secs() { { time "$@" >/dev/null 2>"$W/err"; } 2>&1 || { echo "FAIL: $*: $(cat "$W/err")" >&2; exit 1; }; }
rate() { awk "BEGIN { printf \"%.2f\", $1 / $2 / 1e6 }"; }

"$BLKPEAK" generate -q --count "$N" --queue-depth 8 --read-pct 70 --bs 4k:60,64k:40 -o "$W/g.bpt" || exit 1
for k in 1 2 3 4; do
	"$BLKPEAK" generate -q --count $((N / 4)) --seed $((k + 10)) --queue-depth 8 -o "$W/q$k.bpt" || exit 1
done
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before; PostgreSQL $(pg_psql -c 'SHOW server_version')"

t=$(secs "$BLKPEAK" analyze import -q "$W/g.bpt" --db "$W/s.db")
echo "SQLite import: $N I/Os in $t s ($(rate "$N" "$t") M I/Os/s), $(awk "BEGIN { printf \"%.1f\", $(stat -c %s "$W/s.db") / $N }") bytes per I/O"
t=$(secs "$BLKPEAK" analyze import -q "$W/g.bpt" --db "$PG_URI")
b=$(pg_psql -c "SELECT pg_total_relation_size('ios_t1')")
echo "PostgreSQL import (COPY binary, 1 connection): $N I/Os in $t s ($(rate "$N" "$t") M I/Os/s), $(awk "BEGIN { printf \"%.1f\", $b / $N }") bytes per I/O (partition ios_t1: $b bytes)"

# psql \copy of the same rows
(cd "$W" && pg_psql -c "\\copy (SELECT * FROM ios WHERE trace_id = 1 ORDER BY idx) TO '$W/rows.csv' (FORMAT csv)" \
	-c "\\copy (SELECT * FROM ios WHERE trace_id = 1 ORDER BY idx) TO '$W/rows.bin' (FORMAT binary)") >/dev/null || exit 1
pg_psql -c "CREATE TABLE csv_rows (LIKE ios)" -c "CREATE TABLE bin_rows (LIKE ios)" >/dev/null
t=$(secs pg_psql -c "\\copy csv_rows FROM '$W/rows.csv' (FORMAT csv)")
echo "psql \\copy of the same rows as CSV ($(stat -c %s "$W/rows.csv") bytes): $t s ($(rate "$N" "$t") M rows/s)"
t=$(secs pg_psql -c "\\copy bin_rows FROM '$W/rows.bin' (FORMAT binary)")
echo "psql \\copy of the same rows as binary ($(stat -c %s "$W/rows.bin") bytes): $t s ($(rate "$N" "$t") M rows/s)"
pg_psql -c "DROP TABLE csv_rows, bin_rows" >/dev/null

for db in "$W/s.db" "$PG_URI"; do
	t=$(secs "$BLKPEAK" analyze report 1 --json --db "$db")
	echo "report --json of $N I/Os from $([ "$db" = "$PG_URI" ] && echo PostgreSQL || echo SQLite): $t s"
done
"$BLKPEAK" analyze report 1 --json --db "$W/s.db" >"$W/r.s" && "$BLKPEAK" analyze report 1 --json --db "$PG_URI" >"$W/r.p"
cmp -s "$W/r.s" "$W/r.p" && echo "  (the two reports are byte for byte the same)" || echo "  the two reports DIFFER"

for c in 1 2 4; do
	pg_psql -c "CREATE DATABASE c$c" >/dev/null
	db="postgresql://blkpeak@/c$c?host=$PG_DIR"
	start=$(date +%s.%N)
	case $c in
	1) "$BLKPEAK" analyze import -q "$W"/q[1-4].bpt --db "$db" || exit 1 ;;
	2) "$BLKPEAK" analyze import -q "$W/q1.bpt" "$W/q2.bpt" --db "$db" & p1=$!
	   "$BLKPEAK" analyze import -q "$W/q3.bpt" "$W/q4.bpt" --db "$db" || exit 1
	   wait $p1 || exit 1 ;;
	4) pids=""
	   for k in 1 2 3 4; do "$BLKPEAK" analyze import -q "$W/q$k.bpt" --db "$db" & pids="$pids $!"; done
	   for p in $pids; do wait "$p" || exit 1; done ;;
	esac
	t=$(awk "BEGIN { print $(date +%s.%N) - $start }")
	echo "$c connection(s): 4 traces, $N I/Os in $(printf %.2f "$t") s ($(rate "$N" "$t") M I/Os/s)"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) after"
