#!/bin/bash
# capture and signals: SIGINT and SIGTERM end a capture cleanly (exit 0,
# a complete trace); with `-- CMD` they go to CMD, whose status the capture
# exits with; SIGKILL mid-capture leaves a trace that reads back up to its
# last complete block, losing at most about a second.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture

L=$(make_loop 256M)
settle
# a steady load for the whole test, gentle on a shared machine
bg_start fio --name=load --filename="$L" --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=4 --rate_iops=5000 --time_based --runtime=60 \
	--output=/dev/null
# fio running (its start can take seconds on a loaded machine)
wait_dev_ios "$L" 500 "$BG_PID"

# A capture that starts under load may miss a few completions right when
# its programs attach (the kernel skips their runs while it patches the
# tracepoints); they are counted as lost, so these runs allow a loss, and
# check that it is tiny.
small_loss() { # ERRFILE: lost events <= 1% of the I/Os in the end line
	awk '/^capture: [0-9]+ I\/Os/ { ios = $2; lost = $7 }
	     END { exit !(ios > 0 && lost * 100 <= ios) }' "$1"
}

for sig in INT TERM; do
	"$BLKPEAK" capture -o "$T/$sig.bpt" -d "$L" --allow-loss 2>"$T/$sig.err" &
	cap=$!
	wait_capturing $cap
	# 1000 I/Os while it captures: counted by the device, not assumed
	# from a time that a loaded machine may give fio or not
	wait_dev_ios "$L" 1000 $cap
	kill -$sig $cap
	wait $cap; rc=$?
	[ $rc -eq 0 ] || fail "SIG$sig: exit $rc: $(cat "$T/$sig.err")"
	small_loss "$T/$sig.err" || fail "SIG$sig: $(cat "$T/$sig.err")"
	"$BLKPEAK" info --verify "$T/$sig.bpt" > "$T/$sig.info" || fail "SIG$sig: trace does not verify"
	grep -q '^status: *complete' "$T/$sig.info" || fail "SIG$sig: trace not complete"
	# every I/O the end line counted is in the trace, and the 1000 the
	# device completed while the capture ran (less those it counted lost)
	n=$(bpt_count "$T/$sig.bpt")
	read -r said lost <<< "$(awk '/^capture: [0-9]+ I\/Os/ { print $2, $7 }' "$T/$sig.err")"
	[ "$n" = "${said:-}" ] || fail "SIG$sig: the end line counts ${said:-no} I/Os, the trace holds $n"
	[ $((n + lost)) -ge 1000 ] || fail "SIG$sig: $n records + $lost lost of the 1000 I/Os done while capturing"
	note "SIG$sig: $(sed -n 's/^capture: //p' "$T/$sig.err")"
done

# SIGKILL: the blocks flushed each second are there
"$BLKPEAK" capture -o "$T/k.bpt" -d "$L" 2>/dev/null &
cap=$!
wait_capturing $cap
t0=$(date +%s%N)
sleep 3.5
kill -KILL $cap
t1=$(date +%s%N)
{ wait $cap; } 2>/dev/null
"$BLKPEAK" info --json "$T/k.bpt" > "$T/k.json" 2>"$T/k.err" || fail "info on a killed capture: $(cat "$T/k.err")"
grep -q '"truncated": true' "$T/k.json" || fail "a killed capture's trace is not marked truncated"
last=$(json_num "$T/k.json" last_complete_ns)
records=$(json_num "$T/k.json" ios)
killed_ns=$((t1 - t0))
# record time 0 is before t0 (the capture's start, before loading): the
# trace must reach within a second of the kill, plus 1 s for a flusher
# that a loaded machine runs late
[ $((last + 1000000000 + 1000000000)) -ge $killed_ns ] ||
	fail "killed after $((killed_ns / 1000000)) ms, trace ends at $((last / 1000000)) ms"
"$BLKPEAK" info --verify "$T/k.bpt" >/dev/null 2>"$T/k.err"
grep -qi 'checksum\|corrupt' "$T/k.err" && fail "killed capture: $(cat "$T/k.err")"
"$BLKPEAK" dump --format csv "$T/k.bpt" 2>/dev/null | tail -n +2 | wc -l | grep -qx "$records" ||
	fail "dump of the killed capture disagrees with info ($records records)"
note "SIGKILL after $((killed_ns / 1000000)) ms: $records records, up to $((last / 1000000)) ms"

# -- CMD: SIGINT goes to CMD; the capture ends when CMD does, with its status
start=$(date +%s)
"$BLKPEAK" capture -o "$T/c.bpt" -d "$L" -- sleep 30 2>"$T/c.err" &
cap=$!
wait_capturing $cap
# the child must be sleep already: before its exec it still has the
# capture's handlers, and a forwarded SIGINT would not end it
for _ in $(seq 600); do pgrep -P $cap -x sleep > /dev/null && break; sleep 0.05; done
pgrep -P $cap -x sleep > /dev/null || fail "-- sleep 30: the command did not start"
kill -INT $cap
wait $cap; rc=$?
[ $rc -eq 130 ] || fail "-- sleep 30, SIGINT: exit $rc, want 130 (sleep killed by SIGINT)"
[ $(( $(date +%s) - start )) -lt 25 ] || fail "-- CMD: SIGINT did not end the capture (sleep 30)"
"$BLKPEAK" info --verify "$T/c.bpt" >/dev/null || fail "-- CMD, SIGINT: trace does not verify"
exit 0
