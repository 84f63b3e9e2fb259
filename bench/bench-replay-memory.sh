#!/bin/bash
# bench-replay-memory.sh — peak memory of `blkpeak replay` against the
# trace's length (issue 9, "Memory stays flat"): for each COUNT, a
# generated trace of COUNT random 4 KiB I/Os (70% reads, closed loop at
# depth 4) is replayed in each timing mode (afap; original and causal
# with --speed 1000, so the 26 s of recording per million I/Os pass
# quickly) onto a sparse file with the null engine (no I/O: the cost is
# blkpeak's own), with a run file (-o), and the peak RSS is read from
# /usr/bin/time -v. fio's trace replay (--read_iolog of the same I/Os as
# an iolog v2, --ioengine=null, --replay_no_stall=1, --iodepth=4) is
# measured beside it up to FIO_MAX I/Os (it holds the whole log: ~116
# bytes per I/O, so 100M would need ~11 GiB and a 3.5 GB text log).
#
#   bench/bench-replay-memory.sh [COUNT...]   (default 1000000 10000000 100000000)
#
# BLKPEAK (default build/blkpeak) is the binary measured; EXTRA="label=path
# ..." measures other builds of it in the same run (e.g. the previous
# release, for a ratio). MODES (default "afap original causal"), FIO_MAX
# (default 10000000). Files go to /var/tmp and are deleted at the end.
# Run it under `flock /tmp/blkpeak-bench.lock` on a shared machine.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BLKPEAK=${BLKPEAK:-$HERE/../build/blkpeak}
EXTRA=${EXTRA:-}
MODES=${MODES:-afap original causal}
FIO_MAX=${FIO_MAX:-10000000}
[ $# -gt 0 ] || set -- 1000000 10000000 100000000
for c in /usr/bin/time "$BLKPEAK"; do
	[ -x "$c" ] || { echo "bench-replay-memory: $c: not found" >&2; exit 1; }
done
W=$(mktemp -d /var/tmp/blkpeak-replaymem.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
truncate -s 2g "$W/target.img"

echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%F %T UTC')"
printf '%-12s %-10s %-9s %10s %10s %9s\n' tool mode I/Os 'peak MiB' 'B/I/O' 'wall s'

# run LABEL MODE COUNT CMD...: one measured run, one line of the table
run() {
	local label=$1 mode=$2 n=$3 rss wall
	shift 3
	if ! /usr/bin/time -v -o "$W/time.txt" "$@" > "$W/out.txt" 2> "$W/err.txt"; then
		echo "$label $mode $n: failed: $(tail -n 3 "$W/err.txt")" >&2
		return
	fi
	rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$W/time.txt")
	wall=$(awk -F': ' '/Elapsed \(wall/ {n = split($2, a, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$W/time.txt")
	printf '%-12s %-10s %-9s %10.1f %10.1f %9.1f\n' "$label" "$mode" "$n" \
		"$(echo "$rss / 1024" | bc -l)" "$(echo "$rss * 1024 / $n" | bc -l)" "$wall"
}

for n in "$@"; do
	"$BLKPEAK" generate -o "$W/trace.bpt" --count "$n" --read-pct 70 --bs 4k --span 1g \
		--queue-depth 4 -q || { echo "generate $n failed" >&2; exit 1; }
	for mode in $MODES; do
		args=(--timing "$mode")
		[ "$mode" = afap ] || args+=(--speed 1000)
		for b in "blkpeak=$BLKPEAK" $EXTRA; do
			run "${b%%=*}" "$mode" "$n" "${b#*=}" replay "$W/trace.bpt" \
				--target "$W/target.img" --engine null "${args[@]}" -o "$W/run.bpt"
			rm -f "$W/run.bpt"
		done
	done
	if [ "$n" -le "$FIO_MAX" ] && command -v fio > /dev/null; then
		# the generated trace is in issue order: dump's order is fio's
		"$BLKPEAK" dump --format csv "$W/trace.bpt" | awk -F, -v D="$W/target.img" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
				  print "fio version 2 iolog"; print D " add"; print D " open"; next }
			{ print D " " ($c["op"] == "read" ? "read" : "write") " " \
				$c["sector"] * 512 " " $c["bytes"] }
			END { print D " close" }' > "$W/trace.iolog"
		run fio afap "$n" fio --name=replay --ioengine=null --read_iolog="$W/trace.iolog" \
			--replay_no_stall=1 --iodepth=4 --output=/dev/null
		rm -f "$W/trace.iolog"
	fi
	rm -f "$W/trace.bpt"
done
