#!/bin/bash
# suite and leaderboard (issue 29): a suite of three small recordings and
# one qd-sweep and one mix run on three emulated configurations (one 7200 rpm disk, a
# RAID 0 and a RAID 1 of two): every result stored once with its label and
# host; the leaderboard's figures equal an independent computation from
# the run files (suite_check.py, from `blkpeak dump` and the sweeps'
# documents); RAID 0 beats one disk on the seek-bound recording; a run
# interrupted with SIGINT and resumed gives the same set of results as an
# uninterrupted one; a changed manifest is refused against the old results
# unless --new-version; the mix (two recordings replayed together, one
# 50 ms late) is run on each configuration, its results present, its run
# files tagged with both recordings;
# suite init writes a manifest run reads and does not replace it without
# --force. No figure is timed against a limit.
. "$(dirname "$0")/lib.sh"
need_cmd python3 sqlite3 setsid
T=$E2E_TMP
export BLKPEAK_DB=$T/s.db
S=$T/suite
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$S"

"$BLKPEAK" generate -q --count 120 --span 512m -o "$S/seek.bpt" || fail "generate seek"
"$BLKPEAK" generate -q --pattern sequential --count 200 --bs 64k --span 64m -o "$S/seq.bpt" ||
	fail "generate seq"
"$BLKPEAK" generate -q --count 100 --read-pct 50 --span 256m --queue-depth 4 --seed 7 \
	-o "$S/mixed.bpt" || fail "generate mixed"

# init: a manifest for the three, read back by run; not replaced without --force
"$BLKPEAK" suite init "$S" >"$T/out" || fail "suite init"
grep -q "3 recordings" "$T/out" || fail "suite init: $(cat "$T/out")"
"$BLKPEAK" suite run "$S" --target "$T/x.img" --label x --dry-run >/dev/null ||
	fail "suite run --dry-run on init's manifest"
"$BLKPEAK" suite init "$S" 2>"$T/err" && fail "suite init replaced a manifest"
grep -q "exists: edit it, or --force" "$T/err" || fail "init refusal: $(cat "$T/err")"
"$BLKPEAK" suite init "$S" --force >/dev/null || fail "suite init --force"

cat >"$S/suite.ini" <<'INI'
[suite]
name = mini
[recording seek]
file = seek.bpt
repeat = 2
[recording seq]
file = seq.bpt
timing = causal, afap
repeat = 1
[recording mixed]
file = mixed.bpt
timing = original
repeat = 2
[measure fileserver]
pattern = fileserver
depths = 1,4
weights = 1:0.5,4:0.5
ios = 100
[mix both]
recordings = seek, mixed
offsets = mixed:50ms
repeat = 1
INI
ITEMS=8
for d in a b c d; do truncate -s 1G "$T/$d.img"; done
declare -A TGT=([single]="hdd:7200:$T/a.img"
	[raid0]="raid0:chunk=64k:hdd:7200:$T/b.img,hdd:7200:$T/c.img"
	[raid1]="raid1:hdd:7200:$T/b.img,hdd:7200:$T/d.img")
run() { "$BLKPEAK" suite run "$S" --target "${TGT[$1]}" --label "$1" "${@:2}"; }

run single >"$T/single.out" 2>"$T/err" || fail "suite run single: $(cat "$T/err")"
grep -q "^\[$ITEMS/$ITEMS\] both causal, repeat 1/1 \.\.\. .* done$" "$T/single.out" ||
	fail "no progress line: $(cat "$T/single.out")"
run raid0 >/dev/null 2>"$T/err" || fail "suite run raid0: $(cat "$T/err")"

# raid1: interrupted (SIGINT to its process group, as Ctrl-C) once an
# item has finished, then resumed
DIGEST=$("$BLKPEAK" suite digest "$S" | cut -d' ' -f1)
STATE=$S/results/$DIGEST/raid1/state
setsid "$BLKPEAK" suite run "$S" --target "${TGT[raid1]}" --label raid1 >"$T/r1.out" 2>"$T/r1.err" &
PID=$!
for _ in $(seq 600); do grep -q '^done ' "$STATE" 2>/dev/null && break; sleep 0.05; done
grep -q '^done ' "$STATE" || fail "raid1: no item finished: $(cat "$T/r1.out" "$T/r1.err")"
kill -INT -- "-$PID" 2>/dev/null
wait "$PID" && fail "an interrupted suite run exited 0"
grep -q "interrupted: .* the same command resumes" "$T/r1.err" ||
	fail "interrupted run: $(cat "$T/r1.out" "$T/r1.err")"
BEFORE=$(grep -c '^done ' "$STATE")
[ "$BEFORE" -lt "$ITEMS" ] || fail "the interrupted run finished every item"
run raid1 >"$T/r1b.out" 2>"$T/err" || fail "resumed suite run: $(cat "$T/err")"
grep -q "^resuming: $((ITEMS - BEFORE)) to run" "$T/r1b.out" || fail "resume: $(cat "$T/r1b.out")"
note "raid1 interrupted after $BEFORE of $ITEMS items, resumed"

# every result once, labels and host kept; the resumed run has the same set
q() { sqlite3 "$BLKPEAK_DB" "$1"; }
[ "$(q "SELECT count(*) FROM suite_results")" = $((3 * ITEMS)) ] ||
	fail "results: $(q 'SELECT workload, label, repeat_no FROM suite_results')"
[ "$(q "SELECT count(DISTINCT host) FROM suite_results")" = 1 ] &&
	[ "$(q "SELECT DISTINCT host FROM suite_results")" = "$(hostname)" ] || fail "host not kept"
[ "$(q "SELECT group_concat(label) FROM (SELECT DISTINCT label FROM suite_results ORDER BY label)")" = \
	"raid0,raid1,single" ] || fail "labels: $(q 'SELECT DISTINCT label FROM suite_results')"
set_of() { q "SELECT workload || '/' || repeat_no FROM suite_results WHERE label = '$1' ORDER BY 1"; }
[ "$(set_of raid1)" = "$(set_of single)" ] || fail "resumed set differs: $(set_of raid1) vs $(set_of single)"
[ "$(q "SELECT count(*) FROM suite_results r JOIN traces t ON t.id = r.trace_id WHERE t.label <> r.label")" = 0 ] ||
	fail "a run's label differs from its suite result's"

# the leaderboard: independent figures, schema, width, the seek-bound ranking
"$BLKPEAK" analyze leaderboard "$S" --baseline single --json >"$T/lb.json" || fail "leaderboard --json"
python3 "$HERE/json_schema_check.py" "$HERE/../../schemas/analyze-leaderboard.schema.json" "$T/lb.json" ||
	fail "leaderboard --json does not match its schema"
python3 "$HERE/suite_check.py" "$T/lb.json" "$S/results/$DIGEST" "$BLKPEAK" || fail "leaderboard figures"
python3 - "$T/lb.json" <<'PY' || fail "raid0 does not beat one disk on the seek-bound recording"
import json, sys
w = [w for w in json.load(open(sys.argv[1]))["workloads"] if w["name"] == "seek causal"][0]
m = {r["label"]: r["median"] for r in w["results"]}
sys.exit(0 if m["raid0"] < m["single"] else 1)
PY
python3 - "$T/lb.json" <<'PY' || fail "configurations not ranked by score"
import json, sys
c = json.load(open(sys.argv[1]))["configurations"]
ranks, scores = [x["rank"] for x in c], [x["score"] for x in c]
sys.exit(0 if ranks == list(range(1, len(c) + 1)) and scores == sorted(scores, reverse=True) else 1)
PY
"$BLKPEAK" analyze leaderboard mini --baseline single >"$T/lb.txt" || fail "leaderboard by name"
# the text's ranking is the JSON's (by score), the baseline named
[ "$(awk '/^rank  configuration/ { on = 1; next } on && NF == 0 { exit } on { print $2 }' "$T/lb.txt" |
	tr '\n' ' ')" = "$(python3 -c 'import json, sys
print(" ".join(x["label"] for x in json.load(open(sys.argv[1]))["configurations"]), end=" ")' "$T/lb.json")" ] ||
	fail "text ranking differs from the JSON's: $(cat "$T/lb.txt")"
grep -q "^ *[0-9]  single .*(baseline)$" "$T/lb.txt" || fail "the baseline is not named in the ranking"
grep -q "geometric mean over the workloads of the ratio to the baseline" "$T/lb.txt" ||
	fail "the score is not stated: $(cat "$T/lb.txt")"
awk 'length > 100 { exit 1 }' "$T/lb.txt" || fail "leaderboard text wider than 100 columns"
"$BLKPEAK" analyze leaderboard "$DIGEST" --csv >"$T/lb.csv" || fail "leaderboard --csv"
[ "$(grep -c '^(score),' "$T/lb.csv")" = 3 ] || fail "csv: $(cat "$T/lb.csv")"
# the HTML report's section: one bar chart per workload, a bar per configuration
"$BLKPEAK" analyze html --leaderboard "$S" --baseline single -o "$T/lb.html" || fail "html --leaderboard"
[ "$(grep -c '<figure class="leaderboard-chart">' "$T/lb.html")" = 6 ] || fail "html: not 6 charts"
[ "$(grep -o 'class="series" data-series="0" data-points="3" data-label="median"' "$T/lb.html" | wc -l)" = 6 ] ||
	fail "html: a chart without its 3 bars"
grep -q 'id="leaderboard"' "$T/lb.html" || fail "html: no leaderboard section"
"$BLKPEAK" analyze leaderboard "$S" --baseline nosuch 2>"$T/err" && fail "an unknown baseline accepted"
grep -q "'nosuch': no configuration" "$T/err" || fail "baseline error: $(cat "$T/err")"

# results of two machines in one store: each configuration is label @ host
cp "$BLKPEAK_DB" "$T/hosts.db"
sqlite3 "$T/hosts.db" "UPDATE suite_results SET host = 'box2' WHERE label = 'raid1'"
"$BLKPEAK" analyze leaderboard "$DIGEST" --db "$T/hosts.db" --baseline single >"$T/hosts.txt" ||
	fail "leaderboard of two hosts"
grep -q "raid1 @ box2" "$T/hosts.txt" && grep -q "single @ $(hostname)" "$T/hosts.txt" ||
	fail "hosts not shown: $(cat "$T/hosts.txt")"

# a changed manifest is a new version: refused against the old results
echo "# edited" >>"$S/suite.ini"
run single >/dev/null 2>"$T/err" && fail "a changed suite ran beside its old results"
grep -q "results of another version of the suite ($DIGEST" "$T/err" || fail "refusal: $(cat "$T/err")"
run single --new-version --dry-run >/dev/null || fail "--new-version --dry-run"
"$BLKPEAK" analyze leaderboard "$S" 2>"$T/err" && fail "a leaderboard of a version never run"
grep -q "no results of suite version" "$T/err" || fail "leaderboard error: $(cat "$T/err")"
[ "$(q "SELECT count(*) FROM suite_results")" = $((3 * ITEMS)) ] || fail "refused runs stored results"

# the mix: one result per configuration, its run file tagged with both
# recordings (every I/O of each), the second one 50 ms late
[ "$(q "SELECT group_concat(label) FROM (SELECT label FROM suite_results
	WHERE workload = 'both causal' AND kind = 'mix' ORDER BY label)")" = "raid0,raid1,single" ] ||
	fail "mix results: $(q "SELECT workload, workload_kind, label FROM suite_results")"
MIXRUN=$S/results/$DIGEST/single/both.causal.1.bpt
"$BLKPEAK" info "$MIXRUN" | grep -q "meta:         mix.2.offset_ns=50000000" || fail "mix run meta"
"$BLKPEAK" dump --format csv "$MIXRUN" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ n[$c["comm"]]++ } END { exit !(n["seek"] == 120 && n["mixed"] == 100) }' ||
	fail "the mix's run file does not hold every I/O of both recordings"
note "3 configurations x $ITEMS items (a mix among them); leaderboard checked; resume and version refusals hold"
exit 0
