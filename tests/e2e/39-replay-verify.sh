#!/bin/bash
# replay --verify: the kernel's view of the replay (a child eBPF capture on
# the members) finds every I/O on the right member at the right member
# offset, on a plain loop device, raid0, raid1 and raid5 (its array-internal
# reads and parity writes included), and with a device that
# splits requests (max_sectors_kb); its issue error agrees with the ftrace
# blk tracer's (trace_clock mono, so both are CLOCK_MONOTONIC) within 2 µs
# at p50 on the same run; the results are in the JSON and the run file;
# --verify without what it needs fails with a message.
. "$(dirname "$0")/lib.sh"
need_bpf
need_cmd python3 losetup
CHECK="python3 $(dirname "$0")/verify_check.py"

P=$(make_loop 64M plain)
A=$(make_loop 32M a)
B=$(make_loop 32M b)
"$BLKPEAK" generate -o "$E2E_TMP/g.bpt" --count 400 --read-pct 50 --bs 4k:50,16k:30,64k:20 \
	--span 32m --queue-depth 4 --seed 5 -q || fail "generate"

# vj FILE KEY: a number of the "verify" object of a replay's --json (one
# line; the object comes last); shell, not python, as python starts slowly
vj() { sed 's/.*"verify"://' "$1" | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2; }

# all_present NAME: every I/O seen as asked, nothing missing or misplaced
all_present() {
	[ "$(vj "$E2E_TMP/$1.json" ios)" = 400 ] || fail "$1: $(vj "$E2E_TMP/$1.json" ios) I/Os compared, want 400"
	[ "$(vj "$E2E_TMP/$1.json" present)" = 400 ] || fail "$1: $(cat "$E2E_TMP/$1.json")"
	[ "$(vj "$E2E_TMP/$1.json" missing)" = 0 ] && [ "$(vj "$E2E_TMP/$1.json" misplaced)" = 0 ] ||
		fail "$1: missing or misplaced I/Os"
}

# plain device, with the blk tracer on the same run
OLDCLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/tracing/trace_clock 2>/dev/null)
blktrace_start "$P" "$E2E_TMP/plain.bin"
at_exit "echo ${OLDCLOCK:-local} > /sys/kernel/tracing/trace_clock"
echo mono > /sys/kernel/tracing/trace_clock || skip "no mono trace clock"
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$P" --allow-write --timing afap --queue-depth 8 \
	--verify --json -o "$E2E_TMP/plain.bpt" > "$E2E_TMP/plain.json" 2> "$E2E_TMP/plain.err" ||
	{ cat "$E2E_TMP/plain.err"; fail "plain: replay --verify failed"; }
blktrace_stop
echo "${OLDCLOCK:-local}" > /sys/kernel/tracing/trace_clock
all_present plain
python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/replay.schema.json" \
	"$E2E_TMP/plain.json" || fail "plain: --json does not match schemas/replay.schema.json"
"$BLKPEAK" info "$E2E_TMP/plain.bpt" > "$E2E_TMP/plain.info"
grep -q "verify.present=400" "$E2E_TMP/plain.info" && grep -q "verify.missing=0" "$E2E_TMP/plain.info" ||
	fail "plain: the run file does not hold --verify's results"
"$BLKPEAK" dump --format csv "$E2E_TMP/plain.bpt" > "$E2E_TMP/plain.csv"
$CHECK "$E2E_TMP/plain.bin" "$E2E_TMP/plain.csv" \
	"$(printf '%d,%d' "0x$(stat -c %t "$P")" "0x$(stat -c %T "$P")")" \
	"$(vj "$E2E_TMP/plain.json" start_mono_ns)" > "$E2E_TMP/plain.check" || fail "verify_check.py"
grep -q "^present 400 of 400" "$E2E_TMP/plain.check" || fail "blk tracer: $(cat "$E2E_TMP/plain.check")"
BT=$(sed -n 's/^p50 //p' "$E2E_TMP/plain.check")
VP=$(sed 's/.*"issue_error":{//' "$E2E_TMP/plain.json" | grep -o '"p50_ns":[0-9]*' | head -1 | cut -d: -f2)
D=$(( BT > VP ? BT - VP : VP - BT ))
note "plain: 400/400 present; issue error p50: --verify $VP ns, blk tracer $BT ns"
[ "$D" -le 2000 ] || fail "p50 issue error: --verify $VP ns, blk tracer $BT ns: more than 2 us apart"

# arrays: every part on its member at its member offset
for L in "raid0:chunk=16k:$A,$B" "raid1:$A,$B" "raid5:chunk=16k:$A,$B,$P"; do
	N=${L%%:*}
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$L" --allow-write --timing afap --queue-depth 8 \
		--verify --json > "$E2E_TMP/$N.json" 2> "$E2E_TMP/$N.err" ||
		{ cat "$E2E_TMP/$N.err"; fail "$N: replay --verify failed"; }
	all_present "$N"
	[ "$(vj "$E2E_TMP/$N.json" parts)" -gt 400 ] || fail "$N: no I/O had more than one part"
	note "$N: 400/400 present in $(vj "$E2E_TMP/$N.json" parts) parts"
done

# a device that splits: 256 KiB I/Os on max_sectors_kb 64 are 4 requests each
MS=/sys/block/$(basename "$P")/queue/max_sectors_kb
at_exit "echo $(cat "$MS") > $MS"
echo 64 > "$MS" || fail "cannot set $MS"
"$BLKPEAK" generate -o "$E2E_TMP/big.bpt" --count 40 --bs 256k --span 32m --seed 2 -q || fail "generate"
"$BLKPEAK" replay "$E2E_TMP/big.bpt" --target "$P" --allow-write --timing afap --verify --json \
	> "$E2E_TMP/split.json" 2> "$E2E_TMP/split.err" || { cat "$E2E_TMP/split.err"; fail "split: replay --verify failed"; }
[ "$(vj "$E2E_TMP/split.json" present)" = 40 ] || fail "split: $(cat "$E2E_TMP/split.json")"
[ "$(vj "$E2E_TMP/split.json" split_parts)" = 40 ] || fail "split: $(vj "$E2E_TMP/split.json" split_parts) split parts, want 40"

# refusals: what --verify cannot look at, it says so (exit 1)
truncate -s 64M "$E2E_TMP/file.img"
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$E2E_TMP/file.img" --allow-write --verify \
	> /dev/null 2> "$E2E_TMP/file.err" && fail "--verify on a file succeeded"
grep -q "not a block device" "$E2E_TMP/file.err" || fail "file: $(cat "$E2E_TMP/file.err")"
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$P" --engine null --allow-write --verify \
	> /dev/null 2> "$E2E_TMP/null.err" && fail "--verify with the null engine succeeded"
grep -q "null engine" "$E2E_TMP/null.err" || fail "null: $(cat "$E2E_TMP/null.err")"
ls /tmp/blkpeak-verify-* >/dev/null 2>&1 && fail "a --verify temp dir was left in /tmp"
exit 0
