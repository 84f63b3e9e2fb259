#!/bin/bash
# Mixed replay (replay A.bpt B.bpt C.bpt --target DEV): three recordings
# on one loop device, B started 300 ms after the others (--mix-offset),
# checked from the run file and the kernel (blk tracer D events,
# replay_check.py mix): every I/O of each recording issued once, tagged
# with its recording, in its recording's issue order, due at its
# recorded time plus the offset, none early, the recordings interleaved
# in time, each sector read and written as often as the recordings say
# (each recording's device 'gen0' mapped to the target by its own table).
# Then causal timing: each recording's I/Os wait for their own
# dependencies (replay_check.py causal on each recording's share); the
# run file's meta names the recordings; analyze report reads it; each
# recording's own run file (run.NAME.bpt) holds its I/Os alone and
# analyze compare takes it with the recording; bad mixes are refused by
# name.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd blkparse python3
CHECK="python3 $(dirname "$0")/replay_check.py"
W=$E2E_TMP

"$BLKPEAK" generate -o "$W/photo.bpt" --duration 2s --iops 800 --read-pct 70 --span 24m \
	--arrival poisson --seed 11 -q || fail "generate"
"$BLKPEAK" generate -o "$W/backup.bpt" --duration 1s --iops 400 --read-pct 90 --span 24m \
	--arrival poisson --seed 12 -q || fail "generate"
"$BLKPEAK" generate -o "$W/mail.bpt" --duration 1500ms --iops 300 --read-pct 50 --span 24m \
	--seed 13 -q || fail "generate"
for r in photo backup mail; do
	"$BLKPEAK" dump --format csv "$W/$r.bpt" > "$W/$r.csv" || fail "dump $r"
done
A=$(make_loop 64M a)
DEV=$(printf '%d,%d' "0x$(stat -c %t "$A")" "0x$(stat -c %T "$A")")

blktrace_start "$A" "$W/bt.bin"
"$BLKPEAK" replay "$W/photo.bpt" "$W/backup.bpt" "$W/mail.bpt" --target "$A" --allow-write \
	--mix-offset backup=300ms -o "$W/run.bpt" > "$W/out" || { cat "$W/out"; fail "mixed replay"; }
blktrace_stop
grep -q "recordings of the mix" "$W/out" || fail "no per-recording summary: $(cat "$W/out")"
blkparse -i - -f "%D %a %d %S %n %T.%9t\n" < "$W/bt.bin" > "$W/bt.txt"
"$BLKPEAK" dump --format csv "$W/run.bpt" > "$W/run.csv" || fail "dump run"
$CHECK mix --warmup "$W/run.csv" "$W/bt.txt" "$DEV" "photo=$W/photo.csv@0" \
	"backup=$W/backup.csv@300000" "mail=$W/mail.csv@0" > "$W/mix" ||
	{ cat "$W/mix"; fail "mixed replay check"; }
note "$(tr '\n' ';' < "$W/mix")"
# the check fails on a wrong offset (it is not vacuous)
$CHECK mix --warmup "$W/run.csv" "$W/bt.txt" "$DEV" "photo=$W/photo.csv@0" \
	"backup=$W/backup.csv@0" "mail=$W/mail.csv@0" > /dev/null &&
	fail "the mix check passed with backup's offset left out"
"$BLKPEAK" info "$W/run.bpt" > "$W/info" || fail "info"
for m in "mix=3" "mix.2.name=backup" "mix.2.offset_ns=300000000" "mix.3.source=$W/mail.bpt"; do
	grep -qF "meta:         $m" "$W/info" || fail "run file meta lacks $m"
done
"$BLKPEAK" analyze report "$W/run.bpt" > "$W/report" || fail "analyze report of a mix run"
grep -q backup "$W/report" || fail "analyze report does not show the recording 'backup'"
# each recording's own run file beside it (run.NAME.bpt): its I/Os alone,
# as a run of that recording, which analyze compares with the recording
for r in photo backup mail; do
	"$BLKPEAK" dump --format csv "$W/run.$r.bpt" > "$W/part.csv" || fail "no run file of $r"
	python3 -c 'import csv, sys
whole = [r for r in csv.DictReader(open(sys.argv[1])) if r["comm"] == sys.argv[3]]
part = list(csv.DictReader(open(sys.argv[2])))
sys.exit(0 if part == whole and part else 1)' "$W/run.csv" "$W/part.csv" "$r" ||
		fail "run.$r.bpt is not the mix run's I/Os of $r"
	d=$("$BLKPEAK" info "$W/$r.bpt" | awk '/^digest:/ { print $2 }')
	"$BLKPEAK" info "$W/run.$r.bpt" | grep -q "meta:         source.digest=$d" ||
		fail "run.$r.bpt does not name its recording's digest"
done
"$BLKPEAK" analyze compare "$W/backup.bpt" "$W/run.backup.bpt" > "$W/cmp" ||
	fail "analyze compare of a recording and its run in the mix: $(cat "$W/cmp")"
grep -q "in mix" "$W/cmp" || fail "the recording's run in the mix is not labelled so: $(cat "$W/cmp")"

# causal: each recording waits for its own dependencies only
"$BLKPEAK" generate -o "$W/c1.bpt" --count 1500 --queue-depth 8 --read-pct 70 --span 24m \
	--seed 5 -q || fail "generate"
"$BLKPEAK" generate -o "$W/c2.bpt" --count 800 --queue-depth 2 --read-pct 50 --span 24m \
	--seed 6 -q || fail "generate"
"$BLKPEAK" replay "$W/c1.bpt" "$W/c2.bpt" --target "$A" --allow-write --timing causal \
	--no-idle -o "$W/causal.bpt" --json > "$W/causal.json" || fail "causal mix"
python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/replay.schema.json" \
	"$W/causal.json" || fail "replay --json of a mix does not match its schema"
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["recordings"]
sys.exit(0 if [(x["name"], x["ios"]) for x in r] == [("c1", 1500), ("c2", 800)] else 1)' \
	"$W/causal.json" || fail "replay --json: recordings $(cat "$W/causal.json")"
"$BLKPEAK" dump --format csv "$W/causal.bpt" > "$W/causal.csv" || fail "dump"
for r in c1 c2; do
	"$BLKPEAK" dump --format csv "$W/$r.bpt" > "$W/$r.csv" || fail "dump"
	python3 -c 'import csv,sys
rows = list(csv.DictReader(open(sys.argv[1])))
w = csv.DictWriter(sys.stdout, fieldnames=rows[0].keys(), lineterminator="\n")
w.writeheader()
w.writerows(r for r in rows if r["comm"] == sys.argv[2])' "$W/causal.csv" "$r" > "$W/causal-$r.csv"
	$CHECK causal "$W/$r.csv" "$W/causal-$r.csv" > "$W/cc" || { cat "$W/cc"; fail "causal $r"; }
	note "causal $r: $(cat "$W/cc")"
done

# refusals
expect_fail() { # WHAT PATTERN ARGS...
	local what=$1 pat=$2
	shift 2
	"$BLKPEAK" replay "$@" > "$W/o" 2> "$W/e" && fail "$what: accepted"
	grep -q -- "$pat" "$W/e" || fail "$what: $(cat "$W/e")"
}
expect_fail "same name twice" "two recordings named 'c1'" "$W/c1.bpt" "$W/c1.bpt" --target "$A" --allow-write
expect_fail "offset of no recording" "not one of the mix's recordings" "$W/c1.bpt" "$W/c2.bpt" \
	--target "$A" --allow-write --mix-offset c3=1s
expect_fail "offset without a mix" "give two or more traces" "$W/c1.bpt" --target "$A" \
	--mix-offset c1=1s
expect_fail "offset past 24h" "up to 24h" "$W/c1.bpt" "$W/c2.bpt" --target "$A" --mix-offset c2=25h
expect_fail "file map in a mix" "take one recording, not a mix" "$W/c1.bpt" "$W/c2.bpt" \
	--target "$A" --map "path:*=$A"
exit 0
