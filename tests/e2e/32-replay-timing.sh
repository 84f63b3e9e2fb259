#!/bin/bash
# Original timing keeps what must hold under any load: a 2000 IOPS trace
# (3 s, 6000 I/Os) replayed on a loop device with --realtime, checked
#  - from the run file: every I/O replayed once, due at its recorded
#    time, none issued before it was due, all in due order;
#  - from the kernel (blk tracer D events, matched by sector and nth
#    occurrence): every I/O seen, and the window drift (median error of
#    the last tenth against the first, replay_check.py) within 1%, which
#    a scheduler that adds up lateness or misreads the clock exceeds and
#    a stall of another process cannot reach.
# The accuracy figures (p99, max issue error) are printed, not checked:
# any process on the machine can break them; bench/bench-replay.sh
# measures them against the machine's noise floor (docs/replay.md,
# "Timing accuracy", quotes them).
# Also checks --speed 2 (due times halved, none early, the run clearly
# shorter than at speed 1), that causal timing never issues an I/O before
# its recorded dependencies completed, and that afap never has more than
# --queue-depth I/Os outstanding (from the run files).
. "$(dirname "$0")/lib.sh"
each_engine
need_root
need_cmd blkparse python3
CHECK="python3 $(dirname "$0")/replay_check.py"

"$BLKPEAK" generate -o "$E2E_TMP/g.bpt" --duration 3s --iops 2000 --read-pct 70 \
	--span 32m --arrival poisson -q || fail "generate"
"$BLKPEAK" dump --format csv "$E2E_TMP/g.bpt" > "$E2E_TMP/src.csv" || fail "dump"
A=$(make_loop 64M a)
DEV=$(printf '%d,%d' "0x$(stat -c %t "$A")" "0x$(stat -c %T "$A")")

blktrace_start "$A" "$E2E_TMP/bt.bin"
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$A" --allow-write --realtime \
	-o "$E2E_TMP/run.bpt" > "$E2E_TMP/out" || { cat "$E2E_TMP/out"; fail "replay"; }
blktrace_stop
blkparse -i - -f "%D %a %d %S %n %T.%9t\n" < "$E2E_TMP/bt.bin" > "$E2E_TMP/bt.txt"
$CHECK timing --warmup "$E2E_TMP/src.csv" "$E2E_TMP/bt.txt" "$DEV" > "$E2E_TMP/timing" || fail "timing check"
note "kernel D events: $(cat "$E2E_TMP/timing")"
note "run file: $(grep lateness "$E2E_TMP/out")"
read -r matched wdrift <<< "$(sed -E 's/^matched ([0-9]+) of.* window drift ([-+0-9.]+)%.*/\1 \2/' "$E2E_TMP/timing")"
total=$(($(wc -l < "$E2E_TMP/src.csv") - 1))
[ "$matched" -eq "$total" ] || fail "only $matched of $total I/Os matched"
awk -v d="$wdrift" 'BEGIN { exit !(d <= 1 && d >= -1) }' ||
	fail "window drift beyond 1%: $(cat "$E2E_TMP/timing")"
"$BLKPEAK" dump --format csv "$E2E_TMP/run.bpt" > "$E2E_TMP/run.csv" || fail "dump"
$CHECK ontime "$E2E_TMP/src.csv" "$E2E_TMP/run.csv" > "$E2E_TMP/ontime" ||
	{ cat "$E2E_TMP/ontime"; fail "run file: not on time"; }
note "run file check: $(tail -1 "$E2E_TMP/ontime")"

# --speed 2: due times halved, none early; the run lasts at least half the
# recorded span and clearly less than all of it (the last I/O would have
# to be a whole 1.5 s late to reach it)
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$A" --allow-write --speed 2 --json \
	-o "$E2E_TMP/run2.bpt" > "$E2E_TMP/j" || fail "--speed 2"
"$BLKPEAK" dump --format csv "$E2E_TMP/run2.bpt" > "$E2E_TMP/run2.csv" || fail "dump"
$CHECK ontime "$E2E_TMP/src.csv" "$E2E_TMP/run2.csv" 2 > "$E2E_TMP/ontime2" ||
	{ cat "$E2E_TMP/ontime2"; fail "--speed 2: not on time"; }
last=$(awk -F, 'NR > 1 && $2 > m { m = $2 } END { print m / 1e6 }' "$E2E_TMP/src.csv")
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); d=j['duration_ns']/1e9; l=float(sys.argv[2]); sys.exit(not (l / 2 <= d < l * 0.75))" \
	"$E2E_TMP/j" "$last" || fail "--speed 2: duration $(cat "$E2E_TMP/j"), last I/O recorded at $last s"
# causal (--no-idle): a trace with 8 outstanding, so that dependencies matter
"$BLKPEAK" generate -o "$E2E_TMP/c.bpt" --count 3000 --queue-depth 8 --read-pct 70 --span 32m \
	--seed 5 -q || fail "generate"
"$BLKPEAK" dump --format csv "$E2E_TMP/c.bpt" > "$E2E_TMP/c.csv" || fail "dump"
"$BLKPEAK" replay "$E2E_TMP/c.bpt" --target "$A" --allow-write --timing causal --no-idle \
	-o "$E2E_TMP/causal.bpt" > /dev/null || fail "causal replay"
"$BLKPEAK" dump --format csv "$E2E_TMP/causal.bpt" > "$E2E_TMP/causal.csv" || fail "dump"
$CHECK causal "$E2E_TMP/c.csv" "$E2E_TMP/causal.csv" > "$E2E_TMP/cc" || { cat "$E2E_TMP/cc"; fail "causal order"; }
note "causal: $(cat "$E2E_TMP/cc")"
# afap at depth 4
"$BLKPEAK" replay "$E2E_TMP/c.bpt" --target "$A" --allow-write --timing afap --queue-depth 4 \
	-o "$E2E_TMP/afap.bpt" > /dev/null || fail "afap replay"
"$BLKPEAK" dump --format csv "$E2E_TMP/afap.bpt" > "$E2E_TMP/afap.csv" || fail "dump"
$CHECK depth "$E2E_TMP/afap.csv" 4 > "$E2E_TMP/dc" || { cat "$E2E_TMP/dc"; fail "afap depth"; }
grep -q "at most 4 outstanding" "$E2E_TMP/dc" || fail "afap did not fill its depth: $(cat "$E2E_TMP/dc")"
note "afap: $(cat "$E2E_TMP/dc")"
exit 0
