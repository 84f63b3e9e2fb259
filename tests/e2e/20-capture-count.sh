#!/bin/bash
# Every I/O kept: under fio at full speed on a loop device, round after
# round, the trace holds exactly as many I/Os as the kernel counted in
# /sys/block/DEV/stat: reads (field 1) + writes (5) + discards (12) +
# flushes (16), as block/genhd.c's part_stat_show() prints them
# (Documentation/ABI/stable/sysfs-block, "stat"). A completion the BPF
# side did not see is in the trace, flagged, and the capture exits 0.
#
# The load: random reads and writes at queue depth 32, random discards,
# and O_DSYNC writes (REQ_FUA: on a loop device, which has a write-back
# cache and no FUA, each is followed by a flush from the flush machinery,
# block/blk-flush.c). No fsync: stat counts an fsync's empty REQ_PREFLUSH
# write as a write (blk_flush_complete_seq() ends it with
# blk_mq_end_request() after blk_flush_restore_request() cleared
# RQF_FLUSH_SEQ, so blk_account_io_done() counts it) besides the flush
# the disk saw; the trace holds the flush only, the one request that
# reached the driver.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture

ROUNDS=${CAPTURE_COUNT_ROUNDS:-5}
L=$(make_loop 256M)
N=$(basename "$L")
settle
[ "$(wc -w < "/sys/block/$N/stat")" -ge 17 ] || skip "/sys/block/$N/stat has no flush fields (Linux < 5.5)"

cat > "$T/load.fio" <<JOBS
[global]
filename=$L
direct=1
ioengine=libaio
size=200m
time_based
runtime=1.5
randrepeat=0
[rw]
rw=randrw
bs=4k
iodepth=32
[trim]
rw=randtrim
bs=64k
iodepth=4
[dsync]
rw=randwrite
bs=4k
iodepth=8
sync=dsync
JOBS

total=0 unseen=0
for r in $(seq "$ROUNDS"); do
	# the counts are read by the command the capture runs, so inside its
	# window: any I/O the kernel counts meanwhile is one it should trace
	"$BLKPEAK" capture -o "$T/r$r.bpt" -d "$L" --json -- sh -c "
		awk '{ print \$1 + \$5 + \$12 + \$16 }' /sys/block/$N/stat > '$T/before' &&
		fio '$T/load.fio' --output=/dev/null &&
		awk '{ print \$1 + \$5 + \$12 + \$16 }' /sys/block/$N/stat > '$T/after'" \
		> "$T/r$r.json" 2>"$T/r$r.err"
	rc=$?
	before=$(cat "$T/before") after=$(cat "$T/after")
	[ $rc -eq 0 ] || fail "round $r: exit $rc: $(cat "$T/r$r.json" "$T/r$r.err")"
	loss_check "$T/r$r.json" "round $r"
	ios=$(json_num "$T/r$r.json" ios)
	[ "$ios" -eq $((after - before)) ] ||
		fail "round $r: the trace holds $ios I/Os, /sys/block/$N/stat counted $((after - before)): $(cat "$T/r$r.json")"
	[ "$(bpt_count "$T/r$r.bpt")" -eq "$ios" ] || fail "round $r: the file holds $(bpt_count "$T/r$r.bpt") records, the end line says $ios"
	# the flagged ones are in the file as the end line says
	flagged=$("$BLKPEAK" dump --format csv "$T/r$r.bpt" | awk -F, 'NR > 1 && $15 != "seen"' | wc -l)
	[ "$flagged" -eq "$UNSEEN" ] || fail "round $r: $flagged records flagged, the end line says $UNSEEN"
	if [ "$UNSEEN" -gt 0 ]; then
		grep -q "^capture: warning: $UNSEEN I/Os recorded with their completion not seen" "$T/r$r.err" ||
			fail "round $r: no warning: $(cat "$T/r$r.err")"
	fi
	for op in read write discard flush; do
		"$BLKPEAK" dump --format csv "$T/r$r.bpt" | awk -F, -v op=$op 'NR > 1 && $7 == op' | grep -q . ||
			fail "round $r: no $op in the trace"
	done
	total=$((total + ios)) unseen=$((unseen + UNSEEN))
	rm -f "$T/r$r.bpt" "$T/before" "$T/after"
done
note "$ROUNDS rounds: $total I/Os, each round exactly /sys/block/$N/stat's count; $unseen with their completion not seen"
exit 0
