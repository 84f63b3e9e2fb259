#!/bin/bash
# bench-inplace.sh — traces analysed in place (issue 18) against the
# imported copy and the sqlite3 shell, on one generated trace of N I/Os
# (default 100 M, fileserver pattern):
#   1. trace_ios() scans: count(*) and sum(bytes) over every row (target
#      >= 10 M rows/s on one core), and a time range holding 1% of the
#      trace in its middle (target < 1 s);
#   2. `analyze report FILE --json` (target <= 20 s, <= 256 MiB);
#   3. `analyze import` (rate, database bytes per I/O; target >= 2 M
#      I/Os/s, <= 25 B/I/O) and `analyze report ID --json` from the
#      database; the two JSON reports must be equal (the id aside);
#   4. the peer: the first PEER_N rows (default 10 M, at most N) as CSV
#      (`blkpeak dump --format csv`, timed alone) loaded by the sqlite3
#      shell's `.import` (timed alone). The peer runs at ~0.3 M rows per
#      CPU second: 100 M rows would take ~6 min of CPU more, so its rate is
#      measured on 10 M unless PEER_N says otherwise.
# IMPORT=0 skips step 3 and PEER_N=0 step 4. N above 100 M (the issue's
# 1 B run) skips both unless set: the database would take ~23 GB and the
# import ~6 min of CPU, the peer the same hour as at 100 M; what is
# measured at 1 B is what runs in place (scans, range, report FILE).
# Each step under /usr/bin/time -v: wall, user and system CPU, peak RSS.
# Files go to $BENCH_DIR (default /var/tmp; the trace of 1 B I/Os takes
# 5 GB) and are deleted at the end. Run it under the benchmark lock:
#   flock /tmp/blkpeak-bench.lock bench/bench-inplace.sh [N]
#   flock /tmp/blkpeak-bench.lock bench/bench-inplace.sh 1000000000
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
N=${1:-100000000}
big=$((N > 100000000))
IMPORT=${IMPORT:-$((1 - big))}
PEER_N=${PEER_N:-$((big ? 0 : (N < 10000000 ? N : 10000000)))}
[ "$PEER_N" -le "$N" ] || PEER_N=$N
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
		-v y="$sys" 'BEGIN { printf "  %6.2f M rows/s wall, %6.2f per CPU s", r / s / 1e6, r / (u + y) / 1e6 }')
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
if [ "$IMPORT" = 1 ]; then
	measure "import" "$N" "$BLKPEAK" analyze import -q "$W/t.bpt" --db "$W/t.db"
	echo "  database: $(stat -c %s "$W/t.db") bytes," \
		"$(awk -v b="$(stat -c %s "$W/t.db")" -v n="$N" 'BEGIN { printf "%.2f", b / n }') bytes per I/O"
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
else
	echo "import, report from the database: skipped (IMPORT=0)"
fi

# the peer: CSV into the sqlite3 shell
if [ "$PEER_N" -gt 0 ]; then
	measure "dump --format csv > file ($PEER_N rows)" "$PEER_N" sh -c \
		"'$BLKPEAK' dump --format csv '$W/t.bpt' | head -n $((PEER_N + 1)) > '$W/t.csv'"
	rm -f "$W/t.bpt"
	measure "sqlite3 .import CSV ($PEER_N rows)" "$PEER_N" sqlite3 "$W/peer.db" ".import --csv '$W/t.csv' ios"
	echo "  database: $(stat -c %s "$W/peer.db") bytes," \
		"$(awk -v b="$(stat -c %s "$W/peer.db")" -v n="$PEER_N" 'BEGIN { printf "%.2f", b / n }') bytes per row"
else
	echo "peer (sqlite3 .import): skipped (PEER_N=0)"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
