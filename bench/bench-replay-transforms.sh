#!/bin/bash
# bench-replay-transforms.sh — the what-if transforms' cost (issue 33):
# peak memory of `blkpeak replay` with --loop and --select as the I/Os
# replayed grow to 100 M (a trace of COUNT I/Os looped 10 times, and its
# first half selected and looped 20 times: memory must stay flat), and
# the CPU per I/O of an afap replay with record transforms (--select,
# --spread, --shift, --writes-as-reads) against the same replay without.
# Null engine onto a sparse file, with a run file (-o); peak RSS, user and
# system CPU from /usr/bin/time -v.
#
#   bench/bench-replay-transforms.sh [COUNT...]   (default 1000000 10000000)
#
# Files go to /var/tmp and are deleted at the end. Run it under
# `flock /tmp/blkpeak-bench.lock` on a shared machine.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BLKPEAK=${BLKPEAK:-$HERE/../build/blkpeak}
[ $# -gt 0 ] || set -- 1000000 10000000
for c in /usr/bin/time "$BLKPEAK"; do
	[ -x "$c" ] || { echo "bench-replay-transforms: $c: not found" >&2; exit 1; }
done
W=$(mktemp -d /var/tmp/blkpeak-xfbench.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
truncate -s 64g "$W/target.img"

echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%F %T UTC')"
printf '%-9s %-44s %11s %9s %9s %9s %9s\n' trace options 'I/Os done' 'peak MiB' 'wall s' \
	'CPU s' 'CPU ns/IO'

# run N OPTIONS...: one measured replay of the trace of N I/Os
run() {
	local n=$1 rss wall cpu done
	shift
	if ! /usr/bin/time -v -o "$W/time.txt" "$BLKPEAK" replay "$W/trace.bpt" \
		--target "$W/target.img" --engine null -o "$W/run.bpt" --json "$@" \
		> "$W/out.json" 2> "$W/err.txt"; then
		echo "$n $*: failed: $(tail -n 3 "$W/err.txt")" >&2
		return
	fi
	done=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ios"])' "$W/out.json")
	rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$W/time.txt")
	wall=$(awk -F': ' '/Elapsed \(wall/ {n = split($2, a, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$W/time.txt")
	cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$W/time.txt")
	printf '%-9s %-44s %11s %9.1f %9.1f %9.1f %9.0f\n' "$n" "${*:-(none)}" "$done" \
		"$(echo "$rss / 1024" | bc -l)" "$wall" "$cpu" "$(echo "$cpu * 1000000000 / $done" | bc -l)"
	rm -f "$W/run.bpt"
}

for n in "$@"; do
	"$BLKPEAK" generate -o "$W/trace.bpt" --count "$n" --read-pct 70 --bs 4k --span 1g \
		--queue-depth 4 -q || { echo "generate $n failed" >&2; exit 1; }
	half=$("$BLKPEAK" info "$W/trace.bpt" | awk '/^time span:/ { printf "%.3fs", $3 / 2 }')
	run "$n" --timing afap
	run "$n" --timing afap --select op:read,write --spread 0.5 --shift 1g --writes-as-reads
	run "$n" --timing afap --loop 10 --loop-offset 1g
	run "$n" --timing afap --select "-$half" --loop 20 --loop-offset 1g
	run "$n" --timing original --speed 1000 --loop 10
	rm -f "$W/trace.bpt"
done
