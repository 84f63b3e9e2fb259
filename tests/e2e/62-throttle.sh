#!/bin/bash
# 62-throttle.sh — scripts/throttle.sh really slows O_DIRECT libaio I/O on
# a loop device to the limits set (measured with fio inside the cgroup,
# against fio outside it), and removes its cgroup afterwards. The demo's
# "disks" rely on this.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd fio lsblk
. "$(dirname "$0")/../../scripts/throttle.sh"
thr_detect || skip "no block throttling (cgroup v2 io.max or v1 blkio)"
with_kernel_lock

dev=$(make_loop 256M)
thr_create "blkpeak-e2e-throttle-$$" || fail "cannot create a cgroup under $THR_ROOT"
cg=$THR_CG
at_exit "thr_destroy"
thr_limit "$dev" 250 0 0 0 || fail "cannot set the IOPS limit"

# What must hold under any load is checked tightly: the throttled runs
# never go past their limits (+20% for the throttle's first slice), and
# the cgroup's accounting saw every read fio made in it. How close to the
# limit they come depends on the CPU fio gets, so the lower bounds are
# loose (half the limit: still far from a limit off by a unit).
#
# fio_run [thr_exec] ARGS...: a 2 s O_DIRECT libaio fio run on $dev,
# inside the cgroup when the first word is thr_exec; terse output.
fio_run() {
	local in=""
	[ "$1" = thr_exec ] && { in=thr_exec; shift; }
	$in fio --name=t --filename="$dev" --direct=1 --ioengine=libaio --runtime=2 \
		--time_based --output-format=terse "$@" 2>/dev/null
}
free_iops=$(fio_run --rw=randread --bs=4k --iodepth=16 | awk -F';' '{ print $8 }')
read -r cg_kb cg_iops <<< "$(fio_run thr_exec --rw=randread --bs=4k --iodepth=16 | awk -F';' '{ print $6, $8 }')"
note "4 KiB random reads, QD16: $free_iops IOPS free, $cg_iops IOPS in the cgroup (limit 250)"
[ -n "$cg_iops" ] && [ "$cg_iops" -ge 125 ] && [ "$cg_iops" -le 300 ] ||
	fail "throttled IOPS $cg_iops not near the limit 250"
[ "$free_iops" -gt $((cg_iops * 2)) ] || fail "the unthrottled run ($free_iops IOPS) was not much faster"
read -r r w <<< "$(thr_ios "$dev")"
[ "$r" -ge $((cg_kb / 4)) ] && [ "$r" -gt 0 ] ||
	fail "the cgroup's accounting saw $r reads, fio made $((cg_kb / 4)) in it"

# A bandwidth limit on writes: 20 MB/s of 1 MiB writes.
thr_limit "$dev" 0 0 0 20000000 || fail "cannot set the bandwidth limit"
kbs=$(fio_run thr_exec --rw=write --bs=1M --iodepth=4 | awk -F';' '{ print $48 }')
note "1 MiB writes in the cgroup: $kbs KiB/s (limit 20 MB/s = 19531 KiB/s)"
[ -n "$kbs" ] && [ "$kbs" -ge 9800 ] && [ "$kbs" -le 24000 ] ||
	fail "throttled write bandwidth $kbs KiB/s not near 19531"

thr_destroy || fail "cannot remove the cgroup"
[ ! -d "$cg" ] || fail "cgroup $cg left behind"
exit 0
