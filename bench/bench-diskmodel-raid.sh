#!/bin/bash
# bench-diskmodel-raid.sh — the README's RAID table on emulated disks
# (issue 11): random 8 KiB reads, --timing afap --realtime at queue depth
# 1 and 2, on one emulated disk, a RAID 0 (64 KiB chunks) and a RAID 1 of
# two, each disk hdd:MODEL on a RAM-backed loop device of 256 MiB; each
# trace spans its target's whole capacity (256 MiB for one disk and
# RAID 1, 512 MiB for RAID 0). IOPS from the replay's --json, and the
# ratio to one disk at depth 1. Run it under
# `flock /tmp/blkpeak-bench.lock`.
#
# Needs root. MODEL (default 7200) and N (default 1000 I/Os) can be set.
# the build of this checkout unless BLKPEAK says otherwise (lib.sh's own
# default is for scripts in tests/e2e)
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd python3
MODEL=${MODEL:-7200}
N=${N:-1000}
A=$(make_loop 256M a)
B=$(make_loop 256M b)
echo "disks: hdd:$MODEL on $A and $B (RAM-backed loops); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BLKPEAK" generate -o "$E2E_TMP/r256.bpt" --count "$N" --bs 8k --span 256m --seed 21 -q || fail "generate"
"$BLKPEAK" generate -o "$E2E_TMP/r512.bpt" --count "$N" --bs 8k --span 512m --seed 22 -q || fail "generate"
iops() { # TRACE QD TARGET
	"$BLKPEAK" replay "$1" --timing afap --realtime --queue-depth "$2" --target "$3" --json \
		2> /dev/null | python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["ios_per_s"])' ||
		fail "replay onto $3"
}
D="hdd:$MODEL"
declare -A R
for qd in 1 2; do
	R[one$qd]=$(iops "$E2E_TMP/r256.bpt" $qd "$D:$A")
	R[r0$qd]=$(iops "$E2E_TMP/r512.bpt" $qd "raid0:chunk=64k:$D:$A,$D:$B")
	R[r1$qd]=$(iops "$E2E_TMP/r256.bpt" $qd "raid1:$D:$A,$D:$B")
done
b=${R[one1]}
echo "| queue depth | one disk | raid0 of two | raid1 of two |"
echo "|---|---|---|---|"
for qd in 1 2; do
	awk -v q=$qd -v o="${R[one$qd]}" -v r0="${R[r0$qd]}" -v r1="${R[r1$qd]}" -v b="$b" \
		'BEGIN { printf "| %d | %.0f (%.2fx) | %.0f (%.2fx) | %.0f (%.2fx) |\n", q, o, o / b, r0, r0 / b, r1, r1 / b }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
