#!/bin/bash
# bench-convert-cache.sh — speed and memory of the readers and writers of
# issue 24, the way bench-convert.sh measures the CSV readers (>= 2 M
# records/s on one core, peak RSS flat in the input's size):
#   readers vscsi (v2, 40-byte records), mqsim, disksim, k5cloud and
#   iotracer (13-field): awk or perl writes N records (times rising with
#   random gaps, half random and half sequential offsets, 70% reads,
#   4-16 KiB); `blkpeak info FILE` reads it twice (the scan and the
#   records) through the reader;
#   writers oracle and csv-zst: `blkpeak convert X.bpt -o Y` of the same
#   N records, beside `.bpt -o .bpt` for the reading's share;
#   csv: `info` of the csv-zst writer's .csv.zst (zstd decompression too).
# Each under /usr/bin/time -v: peak RSS, wall, user and system CPU; the
# rate is records per CPU second (user + system) of the one process.
# Files go to $BENCH_DIR (default /var/tmp) and are deleted after each
# format. Run it under the benchmark lock:
#   flock /tmp/blkpeak-bench.lock bench/bench-convert-cache.sh [N] [NAME...]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
[ -x /usr/bin/time ] || { echo "SKIP: needs /usr/bin/time (Debian package time)"; exit 77; }
command -v perl >/dev/null || { echo "SKIP: needs perl"; exit 77; }
N=${1:-10000000}
shift || true
[ $# -gt 0 ] || set -- vscsi mqsim disksim k5cloud iotracer oracle csv-zst csv

# gen FORMAT N: the records on standard output
gen() {
	if [ "$1" = vscsi ]; then
		perl -e 'srand(7); my ($t, $off, $n) = (1e6, 1e9, $ARGV[0]);
			binmode STDOUT; my $buf = "";
			for my $i (0 .. $n - 1) {
				$t += int(rand(2000));
				if (rand() < 0.5) { $off = int(rand(2e7)) * 4096 } else { $off += 4096 }
				my $sz = 4096 * (1 + int(rand(4)));
				$buf .= pack("vvVVVQ<Q<Q<", rand() < 0.7 ? 0x28 : 0x2a, 0x0200, $i, $sz, 1,
					     $off / 512, $t, int(rand(1000)));
				if (length($buf) > 1 << 20) { print $buf; $buf = "" }
			}
			print $buf' "$2"
		return
	fi
	awk -v fmt="$1" -v n="$2" 'BEGIN {
		srand(7); t = 0; off = 1e9
		for (i = 0; i < n; i++) {
			t += int(rand() * 2000)            # µs
			if (rand() < 0.5) off = int(rand() * 2e7) * 4096; else off += 4096
			sz = 4096 * (1 + int(rand() * 4)); rd = rand() < 0.7
			if (fmt == "mqsim")
				printf "%.0f %d %.0f %d %d\n", t * 1000, i % 4, off / 512, sz / 512, rd
			else if (fmt == "disksim")
				printf "%.3f %d %.0f %d %d\n", t / 1000, i % 4, off / 512, sz / 512, rd
			else if (fmt == "k5cloud")
				printf "%d,%.6f,%s,%.0f,%d\n", i % 8, t / 1e6, rd ? "R" : "W", off, sz
			else {
				s = 1717228800 + int(t / 1e6); us = t % 1000000
				printf "2024-06-01 %02d:%02d:%02d.%06d,%d,fio,%.0f,%s,%d,%.3f,%d,1,1,8:%d,0.010,REQ_SYNC\n", \
					int(s % 86400 / 3600), int(s % 3600 / 60), s % 60, us, 1000 + i % 4, \
					off / 512, rd ? "read" : "write", sz, 0.05 + rand(), 1000 + i % 4, 16 * (i % 2)
			}
		}
	}'
}

. "$ROOT/bench/convert_measure.sh" # measure()

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (other helpers running)"
echo "blkpeak: $BLKPEAK ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null)), $N records per format"
for fmt in "$@"; do
	W=$(mktemp -d "${BENCH_DIR:-/var/tmp}/formats-bench-cache.XXXXXX") || exit 1
	trap 'rm -rf "$W"' EXIT
	case $fmt in
	oracle | csv-zst)
		gen mqsim "$N" >"$W/in.txt"
		"$BLKPEAK" convert -q "$W/in.txt" -o "$W/a.bpt" || exit 1
		echo "$fmt writer: $N I/Os of 4-16 KiB (4 KiB blocks: $(( N * 5 / 2 )) expected requests)"
		measure "  .bpt to .bpt (reading)" "$N" "$BLKPEAK" convert -q "$W/a.bpt" -o "$W/b.bpt"
		ext=oracleGeneral; [ "$fmt" = csv-zst ] && ext=csv.zst
		measure "  .bpt to $fmt" "$N" "$BLKPEAK" convert -q "$W/a.bpt" -o "$W/out.$ext"
		echo "  output: $(stat -c %s "$W/out.$ext") bytes"
		;;
	csv)
		gen mqsim "$N" >"$W/in.txt"
		"$BLKPEAK" convert -q "$W/in.txt" -o "$W/a.bpt" && "$BLKPEAK" convert -q "$W/a.bpt" -o "$W/in.csv.zst" || exit 1
		echo "csv reader: the csv-zst writer's table of $N I/Os, $(stat -c %s "$W/in.csv.zst") bytes of zstd"
		measure "  info (read twice)" "$N" "$BLKPEAK" info "$W/in.csv.zst"
		grep -q "^records: *$N in" "$W/out" || { echo "FAIL: csv: info: $(grep records "$W/out")"; exit 1; }
		;;
	*)
		gen "$fmt" "$N" >"$W/in"
		echo "$fmt: $(stat -c %s "$W/in") bytes"
		measure "  info (read twice)" "$N" "$BLKPEAK" info "$W/in"
		grep -q "^records: *$N in" "$W/out" || { echo "FAIL: $fmt: info: $(grep records "$W/out")"; exit 1; }
		grep -q "^format:.*$fmt\|import.format=$fmt" "$W/out" || echo "  (format line: $(grep -m1 'import.format' "$W/out"))"
		measure "  convert to .bpt" "$N" "$BLKPEAK" convert -q "$W/in" -o "$W/a.bpt"
		;;
	esac
	rm -rf "$W"
done
