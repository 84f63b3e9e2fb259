#!/bin/bash
# bench-convert.sh — speed and memory of reading foreign CSV traces
# (issue 13: >= 2 M records/s on one core for the CSV formats, peak RSS
# <= 64 MiB on a 10 M-record input). For each format (MSR, SPC, Tencent,
# Alibaba, SYSTOR'17):
#   1. awk writes N records in the format (times rising with random gaps,
#      half random and half sequential offsets, 70% reads, 4-16 KiB);
#   2. `blkpeak info FILE` reads it through the foreign reader (both
#      readings: the scan and the records): the rate every command that
#      opens such a file sees;
#   3. `blkpeak convert FILE -o X.bpt`: the same plus the .bpt writer;
#   4. `blkpeak convert X.bpt -o Y.bpt`: the .bpt reader and writer alone
#      on the same records, for the writer's share of step 3.
# Each under /usr/bin/time -v: peak RSS, wall, user and system CPU; the
# rate is records per CPU second (user + system) of one single-threaded
# process. Files go to $BENCH_DIR (default /var/tmp) and are deleted
# after each format. Run it under the benchmark lock:
#   flock /tmp/blkpeak-bench.lock bench/bench-convert.sh [N] [FORMAT...]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
[ -x /usr/bin/time ] || { echo "SKIP: needs /usr/bin/time (Debian package time)"; exit 77; }
N=${1:-10000000}
shift || true
[ $# -gt 0 ] || set -- msr spc tencent alibaba systor17

# gen FORMAT N: the records on standard output
gen() {
	awk -v fmt="$1" -v n="$2" 'BEGIN {
		srand(7); t = 0; off = 1e9
		if (fmt == "systor17") print "Timestamp,Response,IOType,LUN,Offset,Size"
		for (i = 0; i < n; i++) {
			t += int(rand() * 2000)            # µs
			if (rand() < 0.5) off = int(rand() * 2e7) * 4096; else off += 4096
			sz = 4096 * (1 + int(rand() * 4)); rd = rand() < 0.7
			if (fmt == "msr")
				printf "128166%012.0f,hm,0,%s,%.0f,%d,%d\n", 372000000000 + t * 10, rd ? "Read" : "Write", off, sz, int(rand() * 100000)
			else if (fmt == "spc")
				printf "%d,%.0f,%d,%s,%.6f\n", i % 4, off / 512, sz, rd ? "r" : "w", t / 1e6
			else if (fmt == "tencent")
				printf "%d,%.0f,%d,%d,%d\n", 1538323200 + int(t / 1e6), off / 512, sz / 512, rd ? 0 : 1, 1000 + i % 8
			else if (fmt == "alibaba")
				printf "%d,%s,%.0f,%d,%.0f\n", i % 8, rd ? "R" : "W", off, sz, 1577808000000000 + t
			else
				printf "%.6f,%.6f,%s,%d,%.0f,%d\n", 1487149498 + t / 1e6, rand() / 1000, rd ? "R" : "W", i % 4, off, sz
		}
	}'
}

. "$ROOT/bench/convert_measure.sh" # measure()

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (other helpers running)"
echo "blkpeak: $BLKPEAK ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null)), $N records per format"
for fmt in "$@"; do
	W=$(mktemp -d "${BENCH_DIR:-/var/tmp}/formats-bench-convert.XXXXXX") || exit 1
	trap 'rm -rf "$W"' EXIT
	gen "$fmt" "$N" >"$W/in.csv"
	echo "$fmt: $(stat -c %s "$W/in.csv") bytes"
	measure "  info (read twice)" "$N" "$BLKPEAK" info "$W/in.csv"
	grep -q "^records: *$N in" "$W/out" || { echo "FAIL: $fmt: info: $(grep records "$W/out")"; exit 1; }
	measure "  convert to .bpt" "$N" "$BLKPEAK" convert -q "$W/in.csv" -o "$W/a.bpt"
	measure "  .bpt to .bpt (writer share)" "$N" "$BLKPEAK" convert -q "$W/a.bpt" -o "$W/b.bpt"
	rm -rf "$W"
done
