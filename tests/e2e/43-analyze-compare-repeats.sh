#!/bin/bash
# analyze compare for a reader (issue 25): runs of the same label, target
# and timing are the repeats of one configuration (replay --repeat N
# writes RUN.K.bpt each); the first line is a headline that says who won,
# by how much and how sure (median of N, range); the table shows medians
# and min–max and fits 100 columns for four configurations, one row per
# configuration beyond that; labels (replay --label, analyze label, the
# short default from the target) name the columns, never a path list; two
# trace files read in place are named, not "file file". The figures are
# not timed against a limit: the null engine's runs take what they take.
. "$(dirname "$0")/lib.sh"
need_cmd python3
T=$E2E_TMP
export BLKPEAK_DB=$T/c.db
SCHEMA=$(dirname "$0")/../../schemas/analyze-compare.schema.json

# the widest line of a file, in characters (the en dash is one)
width() { python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' "$1"; }
widest() { python3 -c 'import sys; print(max(open(sys.argv[1], encoding="utf-8"), key=len))' "$1"; }

"$BLKPEAK" generate -q --count 400 --span 8m -o "$T/src.bpt" || fail "generate"
for x in a b c d e; do truncate -s 8M "$T/$x.img"; done
R() { "$BLKPEAK" replay "$T/src.bpt" --engine null --timing afap --queue-depth 1 "$@" >/dev/null 2>>"$T/replay.err"; }
R --target "$T/a.img" --null-latency 200us --repeat 3 -o "$T/one.bpt" || fail "replay --repeat 3 (a)"
R --target "raid0:chunk=64k:$T/b.img,$T/c.img" --null-latency 100us --repeat 3 -o "$T/r0.bpt" ||
	fail "replay --repeat 3 (raid0)"
R --target "$T/d.img" --null-latency 150us --label "my disk" --repeat 2 -o "$T/mine.bpt" ||
	fail "replay --label --repeat 2"
for k in 1 2 3; do [ -f "$T/one.$k.bpt" ] && [ -f "$T/r0.$k.bpt" ] || fail "--repeat: no run $k: $(ls "$T")"; done

# files read in place: three configurations, named in the legend
"$BLKPEAK" analyze compare "$T"/one.[123].bpt "$T"/r0.[123].bpt "$T"/mine.[12].bpt > "$T/cmp.txt" ||
	fail "compare the repeats"
# the headline, with its "(how sure)" put back when it went on a line of
# its own (past 100 columns); who wins is the null engine's business on a
# loaded machine: either form
headline() { python3 -c 'import sys; t = open(sys.argv[1], encoding="utf-8").read().split("\n")
print(t[0] + (" " + t[1].strip() if t[1].startswith("    (") else ""))' "$1"; }
headline "$T/cmp.txt" | grep -qE '^((raid0 x2 64k|my disk) finishes [0-9.]+% sooner than single a.img|single a.img is the fastest: (raid0 x2 64k|my disk), the next, finishes [0-9.]+% later) \(median of (3|2 vs 3 runs), range -?[0-9.]+–-?[0-9.]+%(, within noise)?\)$' ||
	fail "headline: $(headline "$T/cmp.txt")"
grep -q '^  (base) single a.img: 3 runs, one.1.bpt, one.2.bpt, one.3.bpt$' "$T/cmp.txt" ||
	fail "legend: $(cat "$T/cmp.txt")"
grep -q '^  my disk: 2 runs, mine.1.bpt, mine.2.bpt$' "$T/cmp.txt" || fail "legend of --label: $(cat "$T/cmp.txt")"
grep -qE '^ +single a.img +raid0 x2 64k +my disk$' "$T/cmp.txt" || fail "column heads: $(cat "$T/cmp.txt")"
grep -qE '^runs +3 +3 +2$' "$T/cmp.txt" || fail "runs row: $(cat "$T/cmp.txt")"
grep -qE '^  min–max +[0-9.]+ ms–[0-9.]+ ms ' "$T/cmp.txt" || fail "total time range row: $(cat "$T/cmp.txt")"
grep -qE '^  noise +base +(within|beyond) +(within|beyond)$' "$T/cmp.txt" || fail "noise row: $(cat "$T/cmp.txt")"
grep -qF "$T" "$T/cmp.txt" && fail "a path in the table: $(cat "$T/cmp.txt")"
[ "$(width "$T/cmp.txt")" -le 100 ] || fail "wider than 100 columns: $(width "$T/cmp.txt"): $(widest "$T/cmp.txt")"

# --json: the same, per configuration
"$BLKPEAK" analyze compare --json "$T"/one.[123].bpt "$T"/r0.[123].bpt "$T"/mine.[12].bpt > "$T/cmp.json" ||
	fail "compare --json"
python3 "$(dirname "$0")/json_schema_check.py" "$SCHEMA" "$T/cmp.json" || fail "compare --json against its schema"
python3 - "$T/cmp.json" "$T/cmp.txt" <<'PY' || fail "compare --json configurations"
import json, sys
c = json.load(open(sys.argv[1]))
t = open(sys.argv[2], encoding="utf-8").read().split("\n")
assert c["headline"] in (t[0], t[0] + " " + t[1].strip()), (c["headline"], t[:2])
g = c["configurations"]
assert [x["label"] for x in g] == ["single a.img", "raid0 x2 64k", "my disk"], g
assert [x["runs"] for x in g] == [3, 3, 2] and g[1]["positions"] == [3, 4, 5], g
assert g[0]["within_noise"] is None and all(isinstance(x["within_noise"], bool) for x in g[1:])
e = c["entries"]
t = sorted(x["duration_ns"] for x in e[:3])
assert g[0]["duration_ns"] == {"median": t[1], "min": t[0], "max": t[2]}, g[0]["duration_ns"]
for x in e:  # time saved against the baseline's median
    assert abs(x["time_saved_pct"] - (t[1] - x["duration_ns"]) / t[1] * 100) < 1e-4, x
s = sorted(x["time_saved_pct"] for x in e[3:6])
assert abs(g[1]["time_saved_pct"]["min"] - s[0]) < 1e-4 and abs(g[1]["time_saved_pct"]["max"] - s[2]) < 1e-4
# within noise: the ranges of total time overlap the baseline's
for x in g[1:]:
    d = x["duration_ns"]
    assert x["within_noise"] == (d["min"] <= g[0]["duration_ns"]["max"] and g[0]["duration_ns"]["min"] <= d["max"]), x
PY

# two trace files are named by their files, not "file file"
"$BLKPEAK" analyze compare "$T/one.1.bpt" "$T/r0.1.bpt" > "$T/two.txt" || fail "compare two files"
grep -qw "file" "$T/two.txt" && fail "two files compare as file file: $(cat "$T/two.txt")"
grep -q '^  (base) single a.img: 1 run, one.1.bpt$' "$T/two.txt" || fail "two files: $(cat "$T/two.txt")"
headline "$T/two.txt" | grep -q "(one run each, no range: use replay --repeat)$" ||
	fail "headline of single runs: $(headline "$T/two.txt")"

# more than four configurations: one row each, still within 100 columns
R --target "$T/e.img" --null-latency 120us -o "$T/e.bpt" || fail "replay e"
R --target "linear:$T/b.img,$T/c.img" --null-latency 120us -o "$T/lin.bpt" || fail "replay linear"
"$BLKPEAK" analyze compare "$T"/one.[123].bpt "$T"/r0.[123].bpt "$T"/mine.[12].bpt "$T/e.bpt" "$T/lin.bpt" \
	> "$T/five.txt" || fail "compare five configurations"
grep -qE '^configuration +runs +total time +min–max +saved +min–max +noise$' "$T/five.txt" ||
	fail "five: no row table: $(cat "$T/five.txt")"
grep -qE '^linear x2 +1 +[0-9.]+ ms +- +[-+][0-9.]+% +- +(within|beyond)$' "$T/five.txt" || fail "five: linear row: $(cat "$T/five.txt")"
[ "$(width "$T/five.txt")" -le 100 ] || fail "five: wider than 100 columns: $(width "$T/five.txt"): $(widest "$T/five.txt")"

# from the database: labels stored on import, changed by analyze label
"$BLKPEAK" analyze import -q "$T/src.bpt" "$T"/one.[12].bpt "$T"/mine.1.bpt || fail "import"
"$BLKPEAK" analyze label 2 "the old disk" | grep -q '^trace 2: the old disk$' || fail "analyze label"
"$BLKPEAK" analyze compare 1 --no-store > "$T/db.txt" || fail "compare trace 1 and its runs"
grep -q '^  the old disk: 1 run, trace 2$' "$T/db.txt" || fail "analyze label not shown: $(cat "$T/db.txt")"
grep -q '^  single a.img: 1 run, trace 3$' "$T/db.txt" || fail "default label: $(cat "$T/db.txt")"
grep -q '^  my disk: 1 run, trace 4$' "$T/db.txt" || fail "replay --label from the database: $(cat "$T/db.txt")"
"$BLKPEAK" analyze label 2 "" | grep -q '^trace 2: single a.img$' || fail "analyze label '' takes it away"
"$BLKPEAK" analyze label 9 x 2>"$T/err"; [ $? -eq 1 ] || fail "analyze label of a missing id: want exit 1"
grep -q "no trace with id 9" "$T/err" || fail "missing id: $(cat "$T/err")"
# a database of schema 6 (no labels) gets them on the next import
if command -v sqlite3 >/dev/null; then
	db_to_v6 "$BLKPEAK_DB" || fail "make a schema-6 database"
	"$BLKPEAK" analyze import -q "$T/mine.2.bpt" || fail "import into a schema-6 database"
	[ "$(sqlite3 "$BLKPEAK_DB" "PRAGMA user_version; SELECT label FROM traces WHERE id = 5")" = "11
my disk" ] || fail "migration 6 -> 11: $(sqlite3 "$BLKPEAK_DB" "PRAGMA user_version; SELECT id, label FROM traces")"
fi
# the HTML report opens with the same headline; the recording beside the
# runs is no contender
"$BLKPEAK" analyze label 4 "my disk" >/dev/null || fail "label 4 again (the migration test dropped it)"
"$BLKPEAK" analyze html 2 3 4 5 1 -o "$T/r.html" || fail "analyze html"
h=$(grep -o '<p class="headline"><strong>[^<]*' "$T/r.html" | sed 's/.*<strong>//')
echo "$h" | grep -qE '^(my disk finishes [0-9.]+% sooner than single a.img|single a.img is the fastest: my disk finishes [0-9.]+% later) \(median of 2' ||
	fail "html headline: '$h'"
"$BLKPEAK" replay "$T/src.bpt" --target "$T/a.img" --label "" 2>/dev/null; [ $? -eq 2 ] || fail "--label '': want exit 2"
"$BLKPEAK" replay "$T/src.bpt" --target "$T/a.img" --repeat 0 2>/dev/null; [ $? -eq 2 ] || fail "--repeat 0: want exit 2"
exit 0
