#!/bin/bash
# bench-inplace.sh — traces analysed in place (issue 18) against the
# imported copy and the sqlite3 shell, on one generated trace of N I/Os
# (default 100 M, fileserver pattern):
#   1. trace_ios() scans: count(*) and sum(bytes) over every row (target
#      >= 10 M rows/s on one core), and a time range holding 1% of the
#      trace in its middle (target < 1 s);
#   2. `analyze report FILE --json` (target <= 20 s, <= 256 MiB);
#   3. `analyze import` and `analyze report ID --json` from the database;
#      the two JSON reports must be equal (the id aside);
#   4. the peer: the same rows as CSV (`blkpeak dump --format csv`) piped
#      into the sqlite3 shell's `.import` (the shell's own rate, without
#      the dump: the dump alone is timed too).
# Each step under /usr/bin/time -v: wall, user and system CPU, peak RSS.
# Files go to $BENCH_DIR (default /var/tmp) and are deleted at the end.
# Run it under the benchmark lock:
#   flock /tmp/blkpeak-bench.lock bench/bench-inplace.sh [N]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
N=${1:-100000000}
[ -x /usr/bin/time ] || { echo "SKIP: needs /usr/bin/time (Debian package time)"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: needs sqlite3"; exit 77; }
W=$(mktemp -d "${BENCH_DIR:-/var/tmp}/inplace-bench.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

# measure LABEL ROWS CMD...: run CMD under /usr/bin/time -v; print wall,
# CPU, peak RSS and ROWS per wall second (ROWS 0: no rate)
measure() {
	label=$1 rows=$2; shift 2
	/usr/bin/time -v "$@" >"$W/out" 2>"$W/time" || { echo "FAIL: $label: $(tail -3 "$W/time")"; exit 1; }
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$W/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$W/time")
	usr=$(awk -F': ' '/User time/ {print $2}' "$W/time")
	sys=$(awk -F': ' '/System time/ {print $2}' "$W/time")
	secs=$(awk -v w="$wall" 'BEGIN { n = split(w, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }')
	rate=""
	[ "$rows" != 0 ] && rate=$(awk -v r="$rows" -v s="$secs" -v u="$usr" \
		'BEGIN { printf "  %6.2f M rows/s wall, %6.2f per CPU s", r / s / 1e6, r / u / 1e6 }')
	printf "%-40s wall %9s  user %7.2f s  sys %6.2f s  peak RSS %8.1f MiB%s\n" \
		"$label" "$wall" "$usr" "$sys" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$rate"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) (other helpers running)"
echo "blkpeak: $BLKPEAK ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null)), $(sqlite3 --version | cut -d' ' -f1-2)"
measure "generate ($N)" 0 "$BLKPEAK" generate -q --count "$N" --pattern fileserver -o "$W/t.bpt"
echo "trace: $N I/Os, $(stat -c %s "$W/t.bpt") bytes"

measure "query count(*)" "$N" "$BLKPEAK" analyze query --csv \
	"SELECT count(*) FROM trace_ios('$W/t.bpt')"
measure "query sum(bytes)" "$N" "$BLKPEAK" analyze query --csv \
	"SELECT sum(bytes) FROM trace_ios('$W/t.bpt')"
last=$("$BLKPEAK" info --json "$W/t.bpt" | awk -F': ' '/"last_issue_ns"/ { gsub(",", "", $2); print $2 }')
lo=$((last / 2)) hi=$((last / 2 + last / 100))
measure "query 1% time range" 0 "$BLKPEAK" analyze query --csv \
	"SELECT count(*), sum(bytes) FROM trace_ios('$W/t.bpt') WHERE issue_ns BETWEEN $lo AND $hi"
echo "  rows in the range: $(sed 1d "$W/out" | tr -d '\r')"

measure "report FILE --json" "$N" "$BLKPEAK" analyze report "$W/t.bpt" --json
cp "$W/out" "$W/file.json"
measure "import" "$N" "$BLKPEAK" analyze import -q "$W/t.bpt" --db "$W/t.db"
echo "  database: $(stat -c %s "$W/t.db") bytes"
measure "report ID --json (database)" "$N" "$BLKPEAK" analyze report 1 --json --db "$W/t.db"
python3 - "$W/file.json" "$W/out" <<'PY' || { echo "FAIL: the reports differ"; exit 1; }
import json, sys
f, d = (json.load(open(p)) for p in sys.argv[1:])
f["trace"].pop("id"); d["trace"].pop("id")
assert f == d, [k for k in f if f[k] != d.get(k)]
print("  report FILE = report ID (every figure)")
PY
measure "query count(*) (database)" "$N" "$BLKPEAK" analyze query --csv --db "$W/t.db" \
	"SELECT count(*) FROM ios WHERE trace_id = 1"
rm -f "$W/t.db"

# the peer: CSV into the sqlite3 shell
measure "dump --format csv > file" "$N" sh -c "'$BLKPEAK' dump --format csv '$W/t.bpt' > '$W/t.csv'"
rm -f "$W/t.bpt"
measure "sqlite3 .import CSV" "$N" sqlite3 "$W/peer.db" ".import --csv '$W/t.csv' ios"
echo "  database: $(stat -c %s "$W/peer.db") bytes"
