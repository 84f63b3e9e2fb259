#!/bin/bash
# Nothing lost silently: with a tiny ring buffer under a heavy load the
# capture loses events, counts every one (recorded + lost equals the reads
# the kernel counted in /sys/block/DEV/stat), writes them into the trace
# with their time windows, says so at the end and exits 1 -- or 0 with
# --allow-loss.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture

L=$(make_loop 256M)
N=$(basename "$L")
settle
reads() { awk '{ print $1 }' "/sys/block/$N/stat"; }

# lossy NAME OPTIONS...: a capture with a 4 KiB ring buffer (45 records)
# of 16384 random reads at QD32; a loss depends on how late the reader
# runs, so up to three tries until one happens.
lossy() {
	name=$1; shift
	for try in 1 2 3; do
		before=$(reads)
		"$BLKPEAK" capture -o "$T/$name.bpt" -d "$L" --buffer-size 4k --json "$@" -- \
			fio --name=heavy --filename="$L" --rw=randread --bs=4k --direct=1 \
			--ioengine=libaio --iodepth=32 --io_size=64m --size=200m --output=/dev/null \
			> "$T/$name.json" 2>"$T/$name.err"
		rc=$?
		after=$(reads)
		ios=$(sed -n 's/.*"ios":\([0-9]*\).*/\1/p' "$T/$name.json")
		lost=$(sed -n 's/.*"lost":\([0-9]*\).*/\1/p' "$T/$name.json")
		[ "${lost:-0}" -gt 0 ] && return 0
	done
	fail "$name: a 4 KiB ring buffer lost nothing in three tries: $(cat "$T/$name.json" "$T/$name.err")"
}

lossy l
[ $rc -eq 1 ] || fail "a capture that lost events exits $rc, want 1 ($(cat "$T/l.json"))"
grep -q "events were lost: a larger --buffer-size" "$T/l.err" || fail "no loss advice: $(cat "$T/l.err")"
[ $((ios + lost)) -eq $((after - before)) ] ||
	fail "recorded $ios + lost $lost != $((after - before)) reads counted by the kernel"
"$BLKPEAK" info --json "$T/l.bpt" > "$T/info.json" || fail "info"
[ "$(json_num "$T/info.json" records)" -eq "$ios" ] || fail "info's records differ from the end line's"
[ "$(json_num "$T/info.json" lost_events)" -eq "$lost" ] || fail "info's lost events differ from the end line's"
windows=$(json_num "$T/info.json" loss_windows)
[ "$windows" -ge 1 ] || fail "no loss window in the trace"
note "4 KiB buffer: $ios recorded + $lost lost = $((after - before)) reads in /sys/block/$N/stat, $windows loss windows"

# --allow-loss: the same, exit 0
lossy a --allow-loss
[ $rc -eq 0 ] || fail "--allow-loss: exit $rc with $lost lost"
[ $((ios + lost)) -eq $((after - before)) ] ||
	fail "--allow-loss: recorded $ios + lost $lost != $((after - before)) reads"

# the default buffer loses nothing at this load
before=$(reads)
"$BLKPEAK" capture -o "$T/d.bpt" -d "$L" --json -- \
	fio --name=heavy --filename="$L" --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=32 --io_size=64m --size=200m --output=/dev/null \
	> "$T/d.json" 2>"$T/d.err" || fail "default buffer: exit $?: $(cat "$T/d.json" "$T/d.err")"
after=$(reads)
grep -q "\"ios\":$((after - before))," "$T/d.json" || fail "default buffer: $(cat "$T/d.json"), kernel counted $((after - before))"
grep -q '"lost":0,' "$T/d.json" || fail "default buffer lost events: $(cat "$T/d.json")"
exit 0
