#!/bin/bash
# capture: every request the kernel's own blk tracer sees issued and
# completed (its D and C events) is in the trace with the same sector,
# size and operation, the counts match exactly, pid/comm name fio, and
# every data I/O is classed raw (O_DIRECT on the unmounted disk itself).
# Runs the same check on the raw_tp fallback programs, and with the
# mq-deadline scheduler under a load that makes it merge requests.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
need_capture
need_cmd blkparse

L=$(make_loop 256M)
settle

cat > "$E2E_TMP/jobs.fio" <<JOBS
[global]
filename=$L
direct=1
ioengine=libaio
size=128m
randrepeat=0
[rand-read-4k]
rw=randread
bs=4k
iodepth=16
io_size=8m
[seq-write-1m]
stonewall
rw=write
bs=1m
iodepth=4
io_size=32m
[rand-write-64k-fsync]
stonewall
rw=randwrite
bs=64k
iodepth=4
io_size=4m
fsync=8
[seq-read-128k]
stonewall
rw=read
bs=128k
iodepth=8
io_size=16m
[mixed-sizes-fsync]
stonewall
rw=randrw
bssplit=4k/40:16k/30:256k/20:1m/10
iodepth=8
io_size=16m
fsync=16
JOBS

# random 4 KiB writes crowded into 512 KiB: the scheduler merges some
cat > "$E2E_TMP/merges.fio" <<JOBS
[crowded-writes]
filename=$L
direct=1
ioengine=libaio
rw=randwrite
bs=4k
iodepth=64
iodepth_batch_submit=64
size=512k
io_size=32m
norandommap
numjobs=2
JOBS

run_checked() { # NAME JOBFILE EXTRA-CAPTURE-OPTIONS...
	name=$1 jobs=$2; shift 2
	blktrace_start "$L" "$E2E_TMP/$name.bin"
	"$BLKPEAK" capture -o "$E2E_TMP/$name.bpt" -d "$L" --json --allow-loss "$@" -- \
		fio "$jobs" --output="$E2E_TMP/$name.fio" \
		>"$E2E_TMP/$name.json" 2>"$E2E_TMP/$name.err" ||
		{ cat "$E2E_TMP/$name.err"; fail "$name: capture failed"; }
	blktrace_stop
	loss_check "$E2E_TMP/$name.json" "$name"
	"$BLKPEAK" info --verify "$E2E_TMP/$name.bpt" >/dev/null || fail "$name: trace does not verify"
	compare_requests "$E2E_TMP/$name.bin" "$L" "$E2E_TMP/$name.bpt" "$LOST"

	# who: fio's job processes, as the blk tracer's queue (Q) events say
	blkparse -q -i - -f "%M,%m %a %p\n" < "$E2E_TMP/$name.bin" |
		awk -v dev="$(majmin "$L")" '$1 == dev && $2 == "Q" { print $3 }' |
		sort -u > "$E2E_TMP/q.pids"
	"$BLKPEAK" dump --format csv "$E2E_TMP/$name.bpt" | tail -n +2 |
		awk -F, '{ print $9, $10 }' | sort -u > "$E2E_TMP/who"
	awk '$2 != "fio"' "$E2E_TMP/who" | grep -q . &&
		fail "$name: records not named fio: $(awk '$2 != "fio"' "$E2E_TMP/who" | head -3)"
	awk '{ print $1 }' "$E2E_TMP/who" | sort -u | comm -23 - "$E2E_TMP/q.pids" | grep -q . &&
		fail "$name: pids $(cat "$E2E_TMP/who" | tr '\n' ' ') not among the submitters $(tr '\n' ' ' < "$E2E_TMP/q.pids")"
	# O_DIRECT on the unmounted disk itself: user memory, class raw
	# (docs/capture.md, "Files"), whichever way the BPF side read it
	"$BLKPEAK" dump --format csv "$E2E_TMP/$name.bpt" | tail -n +2 |
		awk -F, '($7 == "read" || $7 == "write") && $6 > 0 && $16 != "raw"' > "$E2E_TMP/notraw"
	[ -s "$E2E_TMP/notraw" ] &&
		fail "$name: data I/O of the raw disk not classed raw: $(head -3 "$E2E_TMP/notraw")"
	note "$name: $(json_num "$E2E_TMP/$name.json" ios) I/Os, $LOST lost"
}

run_checked tp_btf "$E2E_TMP/jobs.fio"
run_checked raw_tp "$E2E_TMP/jobs.fio" --raw-tp
"$BLKPEAK" info "$E2E_TMP/raw_tp.bpt" | grep -q 'capture.attach=raw_tp:block_io_start,block_rq_issue,block_rq_complete' ||
	fail "--raw-tp did not attach raw tracepoints"

if echo mq-deadline > "/sys/block/$(basename "$L")/queue/scheduler" 2>/dev/null; then
	run_checked mq-deadline "$E2E_TMP/merges.fio"
	merged=$(blkparse -q -i - -f "%a\n" < "$E2E_TMP/mq-deadline.bin" | awk '$1 == "G" { g++ } $1 == "I" { i++ } END { print g - i }')
	note "mq-deadline: $merged requests merged into others before insertion"
else
	[ "${CI:-}" = true ] && fail "mq-deadline not available: merges not checked"
	note "mq-deadline not available: merges NOT CHECKED"
fi
exit 0
