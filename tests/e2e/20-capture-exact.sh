#!/bin/bash
# capture: every request the kernel's own blk tracer sees issued and
# completed (its D and C events) is in the trace with the same sector,
# size and operation, the counts match exactly, and pid/comm name fio.
# Runs the same check once more on the raw_tp fallback programs.
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

run_checked() { # NAME EXTRA-CAPTURE-OPTIONS...
	name=$1; shift
	blktrace_start "$L" "$E2E_TMP/$name.bin"
	"$BLKPEAK" capture -o "$E2E_TMP/$name.bpt" -d "$L" "$@" -- \
		fio "$E2E_TMP/jobs.fio" --output="$E2E_TMP/$name.fio" \
		2>"$E2E_TMP/$name.err" || { cat "$E2E_TMP/$name.err"; fail "$name: capture failed"; }
	blktrace_stop
	grep -q ' 0 lost events' "$E2E_TMP/$name.err" || fail "$name: $(cat "$E2E_TMP/$name.err")"
	"$BLKPEAK" info --verify "$E2E_TMP/$name.bpt" >/dev/null || fail "$name: trace does not verify"
	compare_requests "$E2E_TMP/$name.bin" "$L" "$E2E_TMP/$name.bpt"

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
	note "$name: $(sed -n 's/^capture: //p' "$E2E_TMP/$name.err" | head -1)"
}

run_checked tp_btf
run_checked raw_tp --raw-tp
grep -q 'raw_tp:block_io_start,block_rq_issue,block_rq_complete' "$E2E_TMP/raw_tp.bpt" 2>/dev/null ||
	"$BLKPEAK" info "$E2E_TMP/raw_tp.bpt" | grep -q 'capture.attach=raw_tp:' ||
	fail "--raw-tp did not attach raw tracepoints"
exit 0
