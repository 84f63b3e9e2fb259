#!/bin/bash
# --map and every operation: a trace of two recorded devices (sda, sdb)
# with reads, writes, a FUA write, a flush, a discard and a write-zeroes
# is replayed with sda on a loop device and sdb on a raid1 of two; the
# blk tracer shows each I/O on the right device with the right operation
# (discard: libaio through BLKDISCARD as DS, io_uring through its
# asynchronous discard command as D; write-zeroes as WS, the flush as
# FWS, FUA as WFS), mirrored writes on both members. A recorded device
# with no target is refused by name.
. "$(dirname "$0")/lib.sh"
each_engine
need_root
need_cmd blkparse cc
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cc_libbpt "$E2E_TMP/mktrace" "$ROOT/tests/e2e/replay_mktrace.c" || fail "cannot build replay_mktrace (run make first)"

# dev issue_us complete_us sector bytes op flags
"$E2E_TMP/mktrace" "$E2E_TMP/t.bpt" <<'T' || fail "mktrace"
0 0 100 0 4096 read -
1 10 120 2048 8192 write S
0 200 300 4096 4096 write SF
1 400 500 0 0 flush -
0 600 700 8192 65536 discard -
1 800 900 16384 65536 write-zeroes -
1 1000 1100 4096 4096 read -
T
A=$(make_loop 32M a); B=$(make_loop 32M b); C=$(make_loop 32M c)
"$BLKPEAK" replay "$E2E_TMP/t.bpt" --map "sda=$A" --timing afap --allow-write \
	> /dev/null 2> "$E2E_TMP/err" && fail "a recorded device without a target was accepted"
grep -q "recorded device sdb (8:16) has no target; give --target SPEC or --map sdb=SPEC" \
	"$E2E_TMP/err" || fail "message: $(cat "$E2E_TMP/err")"

blktrace_start "$A" "$E2E_TMP/bt.bin"
for d in "$B" "$C"; do
	echo 1 > "/sys/block/$(basename "$d")/trace/enable"
	at_exit "echo 0 > /sys/block/$(basename "$d")/trace/enable"
done
"$BLKPEAK" replay "$E2E_TMP/t.bpt" --map "sda=$A" --map "8:16=raid1:$B,$C" --timing afap \
	--allow-write -o "$E2E_TMP/run.bpt" > "$E2E_TMP/out" 2>&1 || { cat "$E2E_TMP/out"; fail "replay"; }
for d in "$B" "$C"; do echo 0 > "/sys/block/$(basename "$d")/trace/enable"; done
blktrace_stop
# "DEV RWBS SECTOR+N" for the Q events, one per line, sorted
blkparse -i - -f "%D %a %d %S %n\n" < "$E2E_TMP/bt.bin" |
	awk '$2 == "Q" { printf "%s %s %s+%s\n", $1, $3, $4, $5 }' | sort > "$E2E_TMP/got"
mm() { printf '%d,%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }
{
	echo "$(mm "$A") R 0+8"        # the trace's read and the warm-up read
	echo "$(mm "$B") R 0+8"        # the warm-up read of each member
	echo "$(mm "$C") R 0+8"
	echo "$(mm "$A") WFS 4096+8"
	if [ "$E2E_ENGINE" = io_uring ]; then echo "$(mm "$A") D 8192+128"
	else echo "$(mm "$A") DS 8192+128"; fi
	echo "$(mm "$B") WS 2048+16"
	echo "$(mm "$C") WS 2048+16"
	echo "$(mm "$B") WS 16384+128"
	echo "$(mm "$C") WS 16384+128"
	echo "$(mm "$B") FWS 0+0"
	echo "$(mm "$C") FWS 0+0"
} | sort -u > "$E2E_TMP/want"
# the one sdb read goes to one mirror
grep -q "^$(mm "$B") R 4096+8$\|^$(mm "$C") R 4096+8$" "$E2E_TMP/got" || fail "sdb's read is missing: $(cat "$E2E_TMP/got")"
# write-zeroes shows as a write (WS), once, or twice when the kernel falls
# back to writing zero pages; the set of distinct events is compared
grep -v " R 4096+8$" "$E2E_TMP/got" | sort -u > "$E2E_TMP/got2"
diff "$E2E_TMP/want" "$E2E_TMP/got2" > "$E2E_TMP/diff" || { cat "$E2E_TMP/diff"; fail "the devices saw other I/Os"; }
"$BLKPEAK" info "$E2E_TMP/run.bpt" | grep -q "target=sda=$A;8:16=raid1:$B,$C" ||
	fail "run file header lacks the map: $("$BLKPEAK" info "$E2E_TMP/run.bpt" | grep target)"
"$BLKPEAK" info "$E2E_TMP/run.bpt" | grep -q "engine=$E2E_ENGINE" ||
	fail "run file header names another engine: $("$BLKPEAK" info "$E2E_TMP/run.bpt" | grep engine)"
note "$(wc -l < "$E2E_TMP/got") block-layer I/Os, each on its device with its operation"
exit 0
