#!/bin/bash
# bench-heap-window.sh — the shared heap and reorder window (common/heap.h,
# common/window.h, issue 31) against an older build, on the paths that use
# them, in alternating runs (old, new, old, new, ...) so that a shared
# machine's load falls on both alike:
#   info MSR.csv        a foreign CSV whose times run up to ~50 records
#                       out of order: the scan's key window and the record
#                       window (slab + heap), both readings
#   to blktrace         convert .bpt --to blktrace: the writer's event heap
#   from blktrace       info of that blktrace file: the merge of per-CPU
#                       streams and the record window
#   replay afap         replay --engine null --timing afap of a trace
#                       recorded at depth 32: load.c's in-flight heap
# (bench-codec.sh is not here: the codec, lib/, has no heap or window.)
# CPU seconds (user + system) of each command, the median of ROUNDS runs.
# Usage (under the benchmark lock):
#   flock /tmp/blkpeak-bench.lock bench/bench-heap-window.sh OLD_TREE [N] [ROUNDS]
# OLD_TREE is a built checkout of the older version (its build/blkpeak);
# N records (default 2000000), ROUNDS (default 5).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?usage: bench-heap-window.sh OLD_TREE [N] [ROUNDS]}
N=${2:-2000000}
ROUNDS=${3:-5}
[ -x /usr/bin/time ] || { echo "SKIP: needs /usr/bin/time"; exit 77; }
W=$(mktemp -d "${BENCH_DIR:-/dev/shm}/bench-heap-window.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
make -s -C "$ROOT" build/blkpeak || exit 1

NEW=$ROOT/build/blkpeak
"$NEW" generate -q -o "$W/g.bpt" --count "$N" --queue-depth 32 --read-pct 100 --seed 3 || exit 1
truncate -s 1G "$W/target"
awk -v n="$N" 'BEGIN { srand(7)
	for (i = 0; i < n; i++) {   # FILETIME 100 ns: 10 us apart, +- 250 us
		t = 372000000000 + i * 100 + int(rand() * 5000)
		printf "128166%012.0f,hm,0,%s,%.0f,%d,%d\n", t, rand() < 0.7 ? "Read" : "Write",
			int(rand() * 2e7) * 4096, 4096, 1000
	} }' > "$W/in.csv"

# cpu CMD...: user + system seconds of CMD (stdout dropped)
cpu() {
	/usr/bin/time -f "%U %S" -o "$W/t" "$@" > /dev/null 2> "$W/err" ||
		{ echo "FAIL: $*: $(tail -2 "$W/err")" >&2; exit 1; }
	awk '{ print $1 + $2 }' "$W/t"
}

# run BIN NAME: one round of every command with one build
run() {
	local b=$1 name=$2
	echo "$name info-msr $(cpu "$b" info "$W/in.csv")"
	rm -rf "$W/bt"
	echo "$name to-blktrace $(cpu "$b" convert -q "$W/g.bpt" --to blktrace -o "$W/bt")"
	echo "$name from-blktrace $(cpu "$b" info "$W/bt/gen0.blktrace.0")"
	echo "$name replay-afap $(cpu "$b" replay "$W/g.bpt" --engine null --timing afap -t "$W/target")"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $OLD ($(git -C "$OLD" rev-parse --short HEAD)), new: $ROOT ($(git -C "$ROOT" rev-parse --short HEAD)), $N records, $ROUNDS rounds"
for r in $(seq "$ROUNDS"); do
	run "$OLD/build/blkpeak" old
	run "$NEW" new
done > "$W/all"
# median MIN MAX of one command's CPU seconds under one build
stat() {
	awk -v c="$1" -v w="$2" '$1 == w && $2 == c { print $3 }' "$W/all" | sort -g |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.3f %.3f %.3f", m, v[1], v[NR] }'
}
for c in $(awk '{ print $2 }' "$W/all" | sort -u); do
	read -r om ol oh <<<"$(stat "$c" old)"
	read -r nm nl nh <<<"$(stat "$c" new)"
	printf "%-14s old %6.3f s (%.3f-%.3f)  new %6.3f s (%.3f-%.3f)  new/old %.3f\n" "$c" \
		"$om" "$ol" "$oh" "$nm" "$nl" "$nh" "$(awk -v a="$nm" -v b="$om" 'BEGIN { print (b > 0 ? a / b : 0) }')"
done
