#!/bin/bash
# Original timing holds its stated accuracy: a 2000 IOPS trace (3 s, 6000
# I/Os) replayed on a loop device with --realtime, each I/O's issue time
# taken from the kernel (blk tracer D events, matched by sector and nth
# occurrence, aligned at the first) and from the run file. Stated
# accuracy (docs/replay.md, "Timing accuracy"): p99 absolute issue error <= 1 ms, max <= 10
# ms, total drift <= 0.05%, on this shared 2-core machine.
# Also checks --speed 2 halves the duration, that causal timing never
# issues an I/O before its recorded dependencies completed, and that afap
# never has more than --queue-depth I/Os outstanding (from the run files).
. "$(dirname "$0")/lib.sh"
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
read -r matched p99 max drift <<< "$(sed -E 's/matched ([0-9]+) of.* p99 ([0-9.]+) max ([0-9.]+); drift ([-+0-9.]+)%.*/\1 \2 \3 \4/' "$E2E_TMP/timing")"
total=$(($(wc -l < "$E2E_TMP/src.csv") - 1))
[ "$matched" -eq "$total" ] || fail "only $matched of $total I/Os matched"
awk -v p="$p99" -v m="$max" -v d="$drift" 'BEGIN { exit !(p <= 1000 && m <= 10000 && d <= 0.05 && d >= -0.05) }' ||
	fail "timing outside the stated accuracy: $(cat "$E2E_TMP/timing")"

# --speed 2: half the recorded 3 s
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$A" --allow-write --speed 2 --json > "$E2E_TMP/j" ||
	fail "--speed 2"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); d=j['duration_ns']/1e9; sys.exit(not (1.45 < d < 1.6))" \
	"$E2E_TMP/j" || fail "--speed 2: duration $(cat "$E2E_TMP/j")"
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
