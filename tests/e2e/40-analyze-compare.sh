#!/bin/bash
# analyze compare: two traces of different I/O are refused unless --force;
# the forced table has the figures of each report and the percentages
# computed from their durations; it is stored (and not with --no-store);
# a trace without runs, or a missing id, is an error. With the replay
# command (and root): a trace and two real runs of it, on a loop device
# and on a virtual RAID 0, compared by the trace's id.
. "$(dirname "$0")/lib.sh"
need_cmd python3 sqlite3
T=$E2E_TMP
export BLKPEAK_DB=$T/c.db

# The same workload on a slow and a fast device model.
"$BLKPEAK" generate -q --count 20000 --latency 200us -o "$T/slow.bpt" || fail "generate slow"
"$BLKPEAK" generate -q --count 20000 --latency 120us -o "$T/fast.bpt" || fail "generate fast"
"$BLKPEAK" analyze import -q "$T/slow.bpt" "$T/fast.bpt" || fail "import"

"$BLKPEAK" analyze compare 1 2 >"$T/out" 2>"$T/err"; [ $? -eq 1 ] || fail "different traces: want exit 1"
grep -q -- "not the same I/O (--force" "$T/err" || fail "refusal message: $(cat "$T/err")"
[ "$(sqlite3 "$BLKPEAK_DB" 'SELECT count(*) FROM comparisons')" = 0 ] || fail "a refused comparison was stored"

"$BLKPEAK" analyze compare 1 2 --force >"$T/cmp.txt" || fail "compare --force"
grep -q "fast.bpt finishes [0-9.]*% sooner than slow.bpt" "$T/cmp.txt" || fail "summary line: $(cat "$T/cmp.txt")"
sed -n 2p "$T/cmp.txt" | grep -q "^comparison 1 (stored), forced" || fail "stored line: $(head -2 "$T/cmp.txt")"
head -1 "$T/cmp.txt" | grep -q "^fast.bpt finishes [0-9.]*% sooner than slow.bpt (one run each, no range" ||
	fail "headline: $(head -1 "$T/cmp.txt")"
"$BLKPEAK" analyze compare 1 2 --force --json >"$T/cmp.json" || fail "compare --json"
python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/analyze-compare.schema.json" \
	"$T/cmp.json" || fail "compare --json does not match its schema"
"$BLKPEAK" analyze report 1 --json >"$T/r1.json" && "$BLKPEAK" analyze report 2 --json >"$T/r2.json" ||
	fail "reports"
python3 - "$T/cmp.json" "$T/r1.json" "$T/r2.json" <<'PY' || fail "compare --json disagrees with the reports"
import json, sys
c = json.load(open(sys.argv[1]))
r = [json.load(open(p)) for p in sys.argv[2:]]
e = c["entries"]
assert c["comparison_id"] == 2 and c["forced"] is True
t0, t1 = r[0]["duration_ns"], r[1]["duration_ns"]
assert e[0]["duration_ns"] == t0 and e[1]["duration_ns"] == t1
assert abs(e[1]["time_saved_pct"] - (t0 - t1) / t0 * 100) < 1e-4
assert abs(e[1]["speedup_pct"] - (t0 / t1 - 1) * 100) < 1e-4
assert e[1]["time_saved_pct"] > 20, e[1]["time_saved_pct"]
for i in (0, 1):
    assert e[i]["ios"] == r[i]["ios"] and abs(e[i]["ios_per_s"] - r[i]["ios_per_s"]) < 1e-2
    assert e[i]["service"]["p99_ns"] == r[i]["latency"]["service"]["all"]["p99_ns"]
PY
[ "$(sqlite3 "$BLKPEAK_DB" 'SELECT count(*) FROM comparison_entries WHERE comparison_id = 2')" = 2 ] ||
	fail "comparison entries not stored"
"$BLKPEAK" analyze compare 1 2 --force --no-store >/dev/null || fail "--no-store"
[ "$(sqlite3 "$BLKPEAK_DB" 'SELECT count(*) FROM comparisons')" = 2 ] || fail "--no-store stored"

# The same trace twice: two runs of one configuration, nothing to win.
"$BLKPEAK" analyze compare 1 1 --no-store >"$T/same.txt" || fail "compare 1 1"
head -1 "$T/same.txt" | grep -q "^slow.bpt: 2 runs, total time median " ||
	fail "same trace: $(head -1 "$T/same.txt")"

"$BLKPEAK" analyze compare 1 2>"$T/err"; [ $? -eq 1 ] || fail "trace without runs: want exit 1"
grep -q "has no runs" "$T/err" || fail "no-runs message: $(cat "$T/err")"
"$BLKPEAK" analyze compare 1 9 2>"$T/err"; [ $? -eq 1 ] || fail "missing id: want exit 1"
grep -q "no trace with id 9" "$T/err" || fail "missing id message: $(cat "$T/err")"
# With the replay command built and root: a trace and its real runs.
if "$BLKPEAK" replay --help >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	"$BLKPEAK" generate -q --count 5000 --span 64m -o "$T/src.bpt" || fail "generate src"
	a=$(make_loop 64M a) && b=$(make_loop 64M b) && c=$(make_loop 64M c) || fail "loop devices"
	"$BLKPEAK" replay "$T/src.bpt" --target "$a" --timing afap -o "$T/run-a.bpt" >/dev/null ||
		fail "replay on $a"
	"$BLKPEAK" replay "$T/src.bpt" --target "raid0:chunk=64k:$b,$c" --timing afap \
		-o "$T/run-r0.bpt" >/dev/null || fail "replay on raid0"
	"$BLKPEAK" analyze import -q "$T/run-a.bpt" "$T/src.bpt" "$T/run-r0.bpt" || fail "import runs"
	# ids 3 (run, imported before its source), 4 (the trace), 5 (run)
	[ "$(sqlite3 "$BLKPEAK_DB" 'SELECT group_concat(source_trace_id) FROM runs ORDER BY trace_id')" = "4,4" ] ||
		fail "runs not linked to their source: $(sqlite3 "$BLKPEAK_DB" 'SELECT * FROM runs')"
	"$BLKPEAK" analyze compare 4 --json >"$T/runs.json" || fail "compare a trace and its runs"
	python3 - "$T/runs.json" "$a" <<'PY' || fail "compare of runs: $(cat "$T/runs.json")"
import json, sys
c = json.load(open(sys.argv[1]))
e = c["entries"]
assert [x["trace_id"] for x in e] == [4, 3, 5] and c["forced"] is False
assert [x["is_run"] for x in e] == [False, True, True]
assert e[1]["label"] == "single " + sys.argv[2].rsplit("/", 1)[1], e[1]["label"]
assert e[2]["label"] == "raid0 x2 64k", e[2]["label"]
assert all(x["ios"] == 5000 for x in e)
PY
	note "trace and runs: $("$BLKPEAK" analyze compare 4 --no-store | tail -2 | tr '\n' ' ')"
else
	note "replay not built or not root: trace-and-runs part not run"
fi

"$BLKPEAK" analyze compare 2>/dev/null; [ $? -eq 2 ] || fail "no ids: want exit 2"
"$BLKPEAK" analyze compare --help | grep -q "^usage: blkpeak analyze compare" || fail "--help"
exit 0
