#!/bin/bash
# bench-analyze-memory.sh — peak memory (RSS) and time of `blkpeak analyze
# report` (issue 9, "Memory stays flat": <= 256 MiB at 100 M I/Os, with
# exact percentiles) for traces of each size given:
#   1. `blkpeak generate` writes a trace of N I/Os (70% reads, sizes
#      512 B / 4 KiB / 64 KiB, queue depth 8);
#   2. `blkpeak analyze import` loads it into a new database (timed);
#   3. `blkpeak analyze report --json` of it, under /usr/bin/time -v:
#      maximum resident set size, wall clock, user and system CPU. With
#      OLD=path-to-another-blkpeak, that binary's report of the same
#      database is measured too, and both JSON reports are compared
#      (the figures must be equal; keys renamed between versions are
#      mapped: n -> count, p99.9_ns -> p99_9_ns, p99.99_ns -> p99_99_ns).
# Files go to $BENCH_DIR (default /var/tmp: a 100 M I/O database is
# ~6 GB) and are deleted after each size. Run it under the benchmark lock:
#   flock /tmp/blkpeak-bench.lock bench/bench-analyze-memory.sh 1000000 10000000 100000000
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
OLD=${OLD:-}
[ -x /usr/bin/time ] || { echo "SKIP: needs /usr/bin/time (Debian package time)"; exit 77; }
[ $# -gt 0 ] || set -- 1000000 10000000 100000000

# measure LABEL CMD...: run CMD under /usr/bin/time -v, print peak RSS and times
measure() {
	label=$1; shift
	/usr/bin/time -v "$@" >"$W/out" 2>"$W/time" || { echo "FAIL: $label: $(tail -3 "$W/time")"; exit 1; }
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$W/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$W/time")
	usr=$(awk -F': ' '/User time/ {print $2}' "$W/time")
	sys=$(awk -F': ' '/System time/ {print $2}' "$W/time")
	printf "%-34s peak RSS %8.1f MiB   wall %9s   user %7.2f s   sys %6.2f s\n" \
		"$label" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$wall" "$usr" "$sys"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) (other helpers running)"
echo "blkpeak: $BLKPEAK ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null))"
for n in "$@"; do
	W=$(mktemp -d "${BENCH_DIR:-/var/tmp}/stats-bench-analyze-memory.XXXXXX") || exit 1
	trap 'rm -rf "$W"' EXIT
	"$BLKPEAK" generate -q --count "$n" --read-pct 70 --queue-depth 8 --bs 4k:60,64k:30,512:10 \
		-o "$W/t.bpt" || exit 1
	echo "trace: $n I/Os, $(stat -c %s "$W/t.bpt") bytes"
	measure "import ($n)" "$BLKPEAK" analyze import -q "$W/t.bpt" --db "$W/t.db"
	rm -f "$W/t.bpt"
	measure "report --json ($n)" "$BLKPEAK" analyze report 1 --json --db "$W/t.db"
	cp "$W/out" "$W/new.json"
	if [ -n "$OLD" ]; then
		measure "old report --json ($n)" "$OLD" analyze report 1 --json --db "$W/t.db"
		python3 - "$W/new.json" "$W/out" <<'PY' || { echo "FAIL: the reports differ"; exit 1; }
import json, sys
new, old = (json.load(open(p)) for p in sys.argv[1:])
ren = {"n": "count", "p99.9_ns": "p99_9_ns", "p99.99_ns": "p99_99_ns"}
def norm(x):
    if isinstance(x, dict):
        return {ren.get(k, k): norm(v) for k, v in x.items()}
    return [norm(v) for v in x] if isinstance(x, list) else x
old = norm(old)
diff = [k for k in new if new[k] != old.get(k)]
if diff:
    sys.exit("differ in %s" % diff)
print("reports equal (old keys renamed)")
PY
	fi
	rm -rf "$W"
	trap - EXIT
done
