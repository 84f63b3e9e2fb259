#!/bin/bash
# bench-analyze.sh — import speed and report time of `blkpeak analyze`
# (issue 5) against the sqlite3 shell's CSV import of the same rows:
#   1. `blkpeak generate` writes a trace of N I/Os (default 10 million,
#      70% reads, sizes 512 B / 4 KiB / 64 KiB, queue depth 8);
#   2. `blkpeak analyze import` loads it into a new database (timed: wall
#      clock, user and system CPU) -> I/Os per second;
#   3. the same rows (`SELECT * FROM ios`) are written as CSV and loaded
#      by the sqlite3 shell's `.import` into a new database made from the
#      same schemas/analyze.sql, with the same page cache size blkpeak
#      uses (timed the same way) -> rows per second; the CSV's writing is
#      not timed;
#   4. `blkpeak analyze report` of the trace, text three times (the median
#      is the figure) and --json once (timed).
#   5. the size of both databases per I/O.
# Targets: import >= 2 M I/Os per second and <= 25 database bytes per
# I/O (issue 18), report <= 5 s. PATTERN=fileserver (a generate preset)
# replaces the default mix.
# Files go to $BENCH_DIR (default: a temporary folder in /dev/shm, so that
# both importers write to memory, not to a disk the other helpers share).
# Usage: [PATTERN=P] [BENCH_DIR=D] bench/bench-analyze.sh [N]
set -u
N=${1:-10000000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
command -v sqlite3 >/dev/null || { echo "SKIP: needs the sqlite3 shell"; exit 77; }
W=$(mktemp -d "${BENCH_DIR:-/dev/shm}/blkpeak-bench-analyze.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }

# timed LABEL CMD...: run CMD; print "LABEL: wall W s, cpu C s"; set
# WALL and CPU (bash's own `time`, so no extra package is needed)
timed() {
	label=$1; shift
	TIMEFORMAT="%R %U %S"
	{ time "$@" >"$W/out" 2>"$W/err"; } 2>"$W/time" ||
		{ echo "FAIL: $label: $(tail -3 "$W/err")"; exit 1; }
	read -r WALL USR SYS <"$W/time"
	CPU=$(calc "$USR + $SYS")
	printf "%-30s wall %6.2f s   cpu %6.2f s (user %.2f, sys %.2f)\n" "$label" "$WALL" "$CPU" "$USR" "$SYS"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (other helpers running)"
echo "files in $W"
if [ -n "${PATTERN:-}" ]; then
	"$BLKPEAK" generate -q --count "$N" --pattern "$PATTERN" -o "$W/t.bpt" || exit 1
else
	"$BLKPEAK" generate -q --count "$N" --read-pct 70 --queue-depth 8 --bs 4k:60,64k:30,512:10 \
		-o "$W/t.bpt" || exit 1
fi
echo "trace: $N I/Os, $(stat -c %s "$W/t.bpt") bytes"

timed "blkpeak analyze import" "$BLKPEAK" analyze import "$W/t.bpt" --db "$W/blkpeak.db"
bp_wall=$WALL bp_cpu=$CPU

sqlite3 -csv "$W/blkpeak.db" "SELECT * FROM ios" >"$W/ios.csv" || exit 1
# the peer loads the rows into one plain table of the view's columns,
# clustered by (trace_id, idx) as the table `ios` of schema versions 1-4
sqlite3 "$W/shell.db" "PRAGMA page_size = 16384; CREATE TABLE ios (trace_id INTEGER NOT NULL,
	idx INTEGER NOT NULL, queue_ns INTEGER NOT NULL, issue_ns INTEGER NOT NULL,
	complete_ns INTEGER NOT NULL, dev INTEGER NOT NULL, sector INTEGER NOT NULL,
	bytes INTEGER NOT NULL, op INTEGER NOT NULL, flags INTEGER NOT NULL, pid INTEGER NOT NULL,
	comm_id INTEGER NOT NULL, cgroup_id INTEGER NOT NULL, error INTEGER NOT NULL,
	sched_ns INTEGER, source_index INTEGER, member INTEGER, completion INTEGER NOT NULL,
	PRIMARY KEY (trace_id, idx)) WITHOUT ROWID" || exit 1
[ "$(wc -l <"$W/ios.csv")" -eq "$N" ] || { echo "FAIL: CSV has $(wc -l <"$W/ios.csv") rows"; exit 1; }
printf 'PRAGMA cache_size = -65536;\n.import --csv %s ios\n' "$W/ios.csv" >"$W/import.sql"
timed "sqlite3 .import (CSV)" sqlite3 "$W/shell.db" ".read $W/import.sql"
sh_wall=$WALL sh_cpu=$CPU
[ "$(sqlite3 "$W/shell.db" 'SELECT count(*) FROM ios')" -eq "$N" ] || { echo "FAIL: shell imported too few rows"; exit 1; }

walls=""
for i in 1 2 3; do
	timed "blkpeak analyze report ($i)" "$BLKPEAK" analyze report 1 --db "$W/blkpeak.db"
	walls="$walls $WALL"
done
rep_wall=$(echo $walls | tr ' ' '\n' | sort -n | sed -n 2p)
timed "blkpeak analyze report --json" "$BLKPEAK" analyze report 1 --json --db "$W/blkpeak.db"

echo
echo "import: blkpeak $(calc "$N / $bp_wall / 1e6") M I/Os/s ($(calc "$N / $bp_cpu / 1e6") M per CPU second)," \
	"sqlite3 .import $(calc "$N / $sh_wall / 1e6") M rows/s ($(calc "$N / $sh_cpu / 1e6") M per CPU second)"
echo "ratio blkpeak / sqlite3 .import: $(calc "$sh_wall / $bp_wall")x by wall clock, $(calc "$sh_cpu / $bp_cpu")x by CPU time"
echo "database bytes per I/O: blkpeak $(calc "$(stat -c %s "$W/blkpeak.db") / $N")," \
	"sqlite3 .import $(calc "$(stat -c %s "$W/shell.db") / $N") (trace file $(calc "$(stat -c %s "$W/t.bpt") / $N"))"
echo "report: median of 3 $rep_wall s wall (target <= 5 s); import target >= 2 M I/Os/s"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
