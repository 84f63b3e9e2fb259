#!/bin/bash
# One set of numbers (common/stats.h): `replay --json` and `analyze report
# --json` of the run it wrote carry the same `latency` object, same keys
# and same values, for a replay with I/O on a file and one on the null
# engine; and those values are the nearest-rank percentiles of the run's
# rows computed here, in Python, from the sqlite3 shell's rows.
. "$(dirname "$0")/lib.sh"
need_cmd python3 sqlite3
T=$E2E_TMP
export BLKPEAK_DB=$T/s.db

"$BLKPEAK" generate -q --count 30000 --read-pct 70 --queue-depth 8 --bs 4k:70,64k:30 --span 32m \
	-o "$T/src.bpt" || fail "generate"
"$BLKPEAK" replay "$T/src.bpt" --target "$T/target.img" --create 64m --timing afap \
	-o "$T/run-file.bpt" --json >"$T/replay-file.json" 2>"$T/err" || fail "replay on a file: $(cat "$T/err")"
"$BLKPEAK" replay "$T/src.bpt" --target "$T/target.img" --engine null --timing afap \
	-o "$T/run-null.bpt" --json >"$T/replay-null.json" 2>"$T/err" || fail "replay on null: $(cat "$T/err")"
"$BLKPEAK" analyze import -q "$T/run-file.bpt" "$T/run-null.bpt" || fail "import"
"$BLKPEAK" analyze report 1 --json >"$T/report-file.json" || fail "report 1"
"$BLKPEAK" analyze report 2 --json >"$T/report-null.json" || fail "report 2"
for f in report-file report-null; do
	python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/analyze-report.schema.json" \
		"$T/$f.json" || fail "$f.json does not match its schema"
done

for run in file:1 null:2; do
	name=${run%%:*} id=${run#*:}
	sqlite3 "$BLKPEAK_DB" "SELECT op, complete_ns - issue_ns FROM ios WHERE trace_id = $id" >"$T/rows-$name" ||
		fail "rows of $id"
	python3 - "$T/replay-$name.json" "$T/report-$name.json" "$T/rows-$name" <<'PY' || fail "$name: latency objects differ"
import json, math, sys
rep = json.load(open(sys.argv[1]))["latency"]
ana = json.load(open(sys.argv[2]))["latency"]

def walk(a, b, where):
    """Every key and value of a and b equal, or name the first difference."""
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(a) != sorted(b):
            sys.exit("%s: keys %s against %s" % (where, sorted(a), sorted(b)))
        for k in a:
            walk(a[k], b[k], where + "." + k)
    elif a != b or type(a) != type(b):
        sys.exit("%s: replay %r, report %r" % (where, a, b))

walk(rep, ana, "latency")

# The written rule, independently: rank ceil(p/100 * n), 1-based.
names = {0: "read", 1: "write", 2: "flush", 3: "discard", 4: "write-zeroes"}
by = {"all": []}
for line in open(sys.argv[3]):
    op, lat = map(int, line.split("|"))
    by["all"].append(lat)
    by.setdefault(names[op], []).append(lat)
pcts = [("p50_ns", 50), ("p90_ns", 90), ("p99_ns", 99), ("p99_9_ns", 99.9), ("p99_99_ns", 99.99), ("max_ns", 100)]
for op, v in by.items():
    v.sort()
    got = ana["service"][op]
    assert got["count"] == len(v), (op, got["count"], len(v))
    for key, p in pcts:
        rank = max(1, math.ceil(round(p * 10000) * len(v) / 1000000))
        assert got[key] == v[rank - 1], (op, key, got[key], v[rank - 1])
    assert abs(got["mean_ns"] - sum(v) / len(v)) <= 0.05, (op, got["mean_ns"], sum(v) / len(v))
assert set(by) == set(ana["service"]), (sorted(by), sorted(ana["service"]))
PY
done
python3 - "$T/replay-file.json" <<'PY' || fail "replay's lateness object"
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d["lateness"]) == ["max_ns", "p50_ns", "p99_ns"], d["lateness"]
assert d["lateness"]["p50_ns"] <= d["lateness"]["p99_ns"] <= d["lateness"]["max_ns"]
PY
# the text summary prints the same rows as the report's text
"$BLKPEAK" replay "$T/src.bpt" --target "$T/target.img" --engine null --timing afap >"$T/replay.txt" ||
	fail "replay text"
grep -Eq "^  read +n=[0-9]+ mean .* p50 .* p99\.99 .* max " "$T/replay.txt" || fail "replay text: $(cat "$T/replay.txt")"
note "read p50: replay $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency"]["service"]["read"]["p50_ns"])' "$T/replay-file.json") ns, report the same"
exit 0
