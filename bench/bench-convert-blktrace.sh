#!/bin/bash
# bench-convert-blktrace.sh — blktrace binary in and out of `blkpeak
# convert` against blkparse on the same input (issue 13: >= 5 M events/s
# on one core, peak memory <= 64 MiB on a 10 M-record input):
#   1. `blkpeak generate` writes a trace of N I/Os (70% reads, 4 KiB /
#      64 KiB, queue depth 8), and `convert --to blktrace` turns it into
#      DEV.blktrace.0 (Q, D and C per I/O: 3 N + 2 records) — timed too;
#   2. on one core (taskset -c 0), under /usr/bin/time -v:
#        blkpeak convert DIR/DEV -o t.bpt   (reads the input twice: a scan
#                                            that checks it and learns the
#                                            time base, then the conversion)
#        blkparse -D DIR -i DEV -o /dev/null (the peer: every event as text)
#        blkparse -D DIR -i DEV -O           (the peer without text output)
#      the rate: the input's records per CPU second (and per wall second).
# Files go to $BENCH_DIR (default /var/tmp) and are deleted at the end.
# Run it under the benchmark lock:
#   flock /tmp/blkpeak-bench.lock bench/bench-convert-blktrace.sh 3400000
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
[ -x /usr/bin/time ] || { echo "SKIP: needs /usr/bin/time (Debian package time)"; exit 77; }
command -v blkparse >/dev/null || { echo "SKIP: needs blkparse (Debian package blktrace)"; exit 77; }
N=${1:-3400000}
W=$(mktemp -d "${BENCH_DIR:-/var/tmp}/blktrace-bench-convert.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

# measure LABEL RECORDS CMD...: peak RSS, wall, CPU (user + system), and
# records per CPU second of the one single-threaded process (the figure a
# loaded machine moves least) and per wall second
measure() {
	label=$1 recs=$2
	shift 2
	/usr/bin/time -v taskset -c 0 "$@" >"$W/out" 2>"$W/time" ||
		{ echo "FAIL: $label: $(tail -3 "$W/time")"; exit 1; }
	awk -v label="$label" -v recs="$recs" -F': ' '
		/Maximum resident set size/ { rss = $2 }
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0
			for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
		/User time/ { usr = $2 }
		/System time/ { sys = $2 }
		END { cpu = usr + sys
			printf "%-34s peak RSS %6.1f MiB  wall %6.2f s  CPU %6.2f s  %5.2f M rec/CPU s  %5.2f M rec/wall s\n",
			label, rss / 1024, wall, cpu, recs / cpu / 1e6, recs / wall / 1e6 }' "$W/time"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (other helpers may be running)"
echo "blkpeak: $BLKPEAK ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null)); $(blkparse -v 2>&1 | head -1)"
"$BLKPEAK" generate -q --count "$N" --read-pct 70 --queue-depth 8 --bs 4k:70,64k:30 \
	--span 64g --device-name sdx -o "$W/g.bpt" || exit 1
measure "convert --to blktrace ($N I/Os)" "$N" "$BLKPEAK" convert -q "$W/g.bpt" --to blktrace -o "$W/bt"
recs=$((N * 3 + 2))
echo "input: $W/bt/sdx.blktrace.0, $recs records, $(stat -c %s "$W/bt/sdx.blktrace.0") bytes"
rm -f "$W/g.bpt"
measure "blkpeak convert (blktrace -> bpt)" "$recs" "$BLKPEAK" convert -q "$W/bt/sdx" -o "$W/t.bpt"
got=$("$BLKPEAK" info "$W/t.bpt" | awk '/^records:/ { print $2 }')
[ "$got" = "$N" ] || { echo "FAIL: the converted trace has $got I/Os, not $N"; exit 1; }
rm -f "$W/t.bpt"
measure "blkparse -o /dev/null (text)" "$recs" blkparse -D "$W/bt" -i sdx -o /dev/null
measure "blkparse -O (no output)" "$recs" blkparse -D "$W/bt" -i sdx -O
