#!/bin/bash
# Faults: a loop device that loses its backing file mid-run (truncated to
# nothing, capacity re-read, then detached; losetup -d alone is lazy while
# the replay holds the device) gives per-I/O errors, a summary, no crash
# and a complete, readable run file. Ctrl-C (SIGINT) mid-run stops
# cleanly and still writes a valid run file. --stop-on-error stops at the
# first failure.
. "$(dirname "$0")/lib.sh"
each_engine
need_root
need_cmd losetup python3

"$BLKPEAK" generate -o "$E2E_TMP/g.bpt" --duration 3s --iops 1000 --read-pct 70 --span 16m -q ||
	fail "generate"
A=$(make_loop 32M a)
IMG=$(losetup -n -O BACK-FILE "$A")
# In-flight writes can extend the file again between truncate and
# losetup -c: repeat until the device is really empty.
cut() {
	for _ in $(seq 100); do
		truncate -s 0 "$IMG"; losetup -c "$A"
		[ "$(blockdev --getsize64 "$A")" -eq 0 ] && break
	done
	losetup -d "$A"
}
# The fault comes after the replay's first 300 I/Os (counted by the
# device), not after a fixed time: how long the replay takes to start
# depends on the machine's load.
( wait_dev_ios "$A" 300; cut ) &
KILLER=$!
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$A" --allow-write -o "$E2E_TMP/run.bpt" \
	--json > "$E2E_TMP/j" 2> "$E2E_TMP/err"
rc=$?
wait $KILLER || fail "the device was not cut mid-run"
[ $rc -eq 1 ] || fail "replay with I/O errors exits $rc, want 1"
python3 - "$E2E_TMP/j" <<'PY' || fail "summary: $(cat "$E2E_TMP/j")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["errors"] >= 100, ("too few errors", j["errors"])
assert j["ios"] == j["total_ios"], (j["ios"], j["total_ios"])
assert j["errors"] < j["ios"], "some I/Os before the fault succeeded"
PY
"$BLKPEAK" info "$E2E_TMP/run.bpt" > "$E2E_TMP/info" || fail "run file unreadable"
grep -q "status: *complete" "$E2E_TMP/info" || fail "run file not complete: $(cat "$E2E_TMP/info")"
errs=$("$BLKPEAK" dump --format csv "$E2E_TMP/run.bpt" | awk -F, 'NR > 1 && $14 != 0' | wc -l)
[ "$errs" -gt 100 ] || fail "run file records $errs failed I/Os"
note "detached mid-run: $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['errors'], 'of', j['ios'], 'I/Os failed', j['errnos'])" "$E2E_TMP/j")"

# --stop-on-error: the device empties under a long afap run, which stops
# at the first failure instead of going through the trace
B=$(make_loop 32M b)
IMG=$(losetup -n -O BACK-FILE "$B")
A=$B
"$BLKPEAK" generate -o "$E2E_TMP/long.bpt" --count 400000 --read-pct 100 --span 16m -q ||
	fail "generate"
( wait_dev_ios "$B" 1000; cut ) &
KILLER=$!
"$BLKPEAK" replay "$E2E_TMP/long.bpt" --target "$B" --timing afap --queue-depth 4 \
	--stop-on-error --json > "$E2E_TMP/j2" 2> "$E2E_TMP/err2"
rc=$?
wait $KILLER || fail "the device was not cut mid-run"
[ $rc -eq 1 ] || fail "--stop-on-error exits $rc"
grep -q "stopped on error at I/O [0-9]*: E[A-Z]* (--stop-on-error); the run is partial: [0-9]* of 400000 I/Os" \
	"$E2E_TMP/err2" || fail "--stop-on-error: $(cat "$E2E_TMP/err2")"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not (j['stopped_early'] and 1 <= j['errors'] <= 4 and j['ios'] < 400000 and j['partial']['ios_done'] == j['ios'] and j['partial']['reason'].startswith('stopped on error at I/O ')))" \
	"$E2E_TMP/j2" || fail "--stop-on-error summary: $(cat "$E2E_TMP/j2")"

# Ctrl-C
C=$(make_loop 32M c)
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$C" --allow-write -o "$E2E_TMP/int.bpt" \
	> "$E2E_TMP/out" 2> "$E2E_TMP/err3" &
PID=$!
_PIDS="$PID $_PIDS"
wait_dev_ios "$C" 600 $PID
kill -INT $PID
wait $PID; rc=$?
[ $rc -eq 1 ] || fail "interrupted replay exits $rc, want 1"
grep -q "interrupted" "$E2E_TMP/err3" || fail "no 'interrupted' message"
grep -q "stopped early" "$E2E_TMP/out" || fail "summary does not say it stopped early"
"$BLKPEAK" info "$E2E_TMP/int.bpt" > "$E2E_TMP/info2" || fail "interrupted run file unreadable"
grep -q "status: *complete" "$E2E_TMP/info2" || fail "interrupted run file incomplete"
n=$(grep -E "^records:" "$E2E_TMP/info2" | awk '{print $2}')
# interrupted after the device completed 600 of its 3000 I/Os: those are
# in the run file (the replay waits for what it issued)
total=$("$BLKPEAK" info "$E2E_TMP/g.bpt" | awk '/^records:/ { print $2 }')
[ "$n" -ge 590 ] && [ "$n" -lt "$total" ] || fail "interrupted run holds $n of $total records"
note "interrupted after 600 I/Os: $n of $total records in a complete run file"
exit 0
