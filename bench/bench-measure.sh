#!/bin/bash
# bench-measure.sh — blkpeak measure qd-sweep against fio running the same
# access spec (issue 15): 4 KiB random reads over a 1 GiB RAM-backed loop
# device (direct I/O), libaio, at each depth of DEPTHS. Per depth and
# round, blkpeak measure (--ios N --warmup W) and a fio job file doing the
# same W warm-up I/Os then N measured ones run one after the other, in an
# order that rotates each round; per depth the medians of IOPS and CPU per
# I/O (user + sys of the whole command and its children) and the median
# blkpeak/fio ratio of the rounds with its range. bench/measure_vs_fio.py
# does the runs and says how it judges.
#
# Needs root, fio and python3. N (default 100000), W (default N/10),
# ROUNDS (default 5), DEPTHS (default "1 4 16 64") can be set; BASELINE=
# an older blkpeak binary adds it as a third contender (before/after).
# About 2-3 minutes on an idle 2-CPU machine with the defaults. Run it
# under flock /tmp/blkpeak-bench.lock when others share the machine.
#
# THROTTLE=IOPS (not the default): the device bound, as the demo's disks
# are: the kernel's block throttling (scripts/throttle.sh) caps the loop
# device at IOPS reads a second for a cgroup the whole comparison runs in,
# and fio's warm-up is a ramp_time inside its measured job (see
# measure_vs_fio.py). N then defaults to 2 x IOPS (2 s a run) and
# ROUNDS to 3; e.g. THROTTLE=5000: about 2 minutes.
# the build of this checkout unless BLKPEAK says otherwise (lib.sh's own
# default is for scripts in tests/e2e)
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd fio python3
L=$(make_loop 1G bench)
dd if=/dev/zero of="$L" bs=1M count=1024 oflag=direct status=none || fail "fill $L"
echo "device $L (RAM-backed loop, direct I/O); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "blkpeak: $BLKPEAK${BASELINE:+; baseline (old): $BASELINE}"
run=(python3 "$(dirname "$0")/measure_vs_fio.py" "$L" "$E2E_TMP")
if [ -n "${THROTTLE:-}" ]; then
	case $THROTTLE in *[!0-9]* | 0*) fail "THROTTLE=$THROTTLE: not a number of IOPS above 0" ;; esac
	. "$(dirname "$0")/../scripts/throttle.sh"
	thr_detect || fail "THROTTLE needs the kernel's block throttling"
	with_kernel_lock
	thr_create "blkpeak-bench-measure-$$" || fail "cannot create a cgroup under $THR_ROOT"
	at_exit thr_destroy
	thr_limit "$L" "$THROTTLE" 0 0 0 || fail "cannot limit $L"
	export THROTTLE N=${N:-$((THROTTLE * 2))} ROUNDS=${ROUNDS:-3}
	echo "throttled: $THROTTLE read IOPS for the cgroup the runs are in (fio warms up with ramp_time)"
	run=(thr_exec "${run[@]}")
fi
export BLKPEAK
"${run[@]}" || fail "the bench failed"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
