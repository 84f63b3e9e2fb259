#!/bin/bash
# 50-measure.sh — blkpeak measure on a file, mostly with the null engine:
# --weights-from gives the share of time at each depth that an
# independent count (Python, from `blkpeak dump`) gives, and the score is
# the weighted mean of the depths' IOPS; the null engine's fixed latency
# bounds IOPS and latency as the arithmetic says; --like takes the
# trace's read share; seeks report their spans; bad input (depth 0, spans
# over 100%, a target too small, options of another kind) is refused
# with a clear error; results land in the database (also one of schema
# version 3, migrated), and analyze import refuses a broken document.
. "$(dirname "$0")/lib.sh"
need_cmd python3 sqlite3
T=$E2E_TMP
export BLKPEAK_DB=$T/default.db # where measure stores without --db
truncate -s 64M "$T/f.img"
M() { "$BLKPEAK" measure "$@"; }

# A recording whose queue depth varies: Poisson arrivals on 6 servers.
"$BLKPEAK" generate -q --count 3000 --queue-depth 6 --iops 20000 --arrival poisson \
	--read-pct 70 --bs 4k:3,64k:1 -o "$T/rec.bpt" || fail "generate"
"$BLKPEAK" dump --format csv "$T/rec.bpt" > "$T/rec.csv" || fail "dump"
M qd-sweep --target "$T/f.img" --engine null --null-latency 20us --depths 1,2,4 \
	--ios 200 --warmup 20 --weights-from "$T/rec.bpt" --like "$T/rec.bpt" --json \
	> "$T/w.json" || fail "qd-sweep --weights-from"
python3 - "$T/rec.csv" "$T/w.json" <<'PY' || fail "weights differ from the count of time at depth"
import bisect, csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
iss = sorted(round(float(r["issue_us"]) * 1000) for r in rows)
com = sorted(round(float(r["complete_us"]) * 1000) for r in rows)
times = sorted(set(iss + com))
swept = [1, 2, 4]
busy = {d: 0 for d in swept}
for a, b in zip(times, times[1:]):
    q = bisect.bisect_right(iss, a) - bisect.bisect_right(com, a)  # in flight during [a, b)
    if q > 0:
        d = next((s for s in swept if s >= q), swept[-1])
        busy[d] += b - a
total = sum(busy.values())
doc = json.load(open(sys.argv[2]))
reads = sum(r["op"] == "read" for r in rows) * 100 / len(rows)
assert f"{reads:.1f}% read" in doc["access"], (reads, doc["access"])
score = 0
for p in doc["points"]:
    want = busy[p["depth"]] / total
    assert abs(p["weight"] - want) < 1e-6, (p["depth"], p["weight"], want)
    score += p["weight"] * p["ios_per_s"]
assert abs(score - doc["score_ios_per_s"]) < 1e-2 * max(1, score) / 100, (score, doc["score_ios_per_s"])
assert doc["weights"] == "trace"
print("  weights", {d: round(busy[d] / total, 4) for d in swept})
PY

# The null engine serves each I/O in no less than its latency (1 ms): at
# depth D at most D per ms, and by Little's law mean latency * IOPS <= D.
M qd-sweep --target "$T/f.img" --engine null --null-latency 1ms --depths 1,4 --ios 100 \
	--warmup 5 --json > "$T/n.json" || fail "qd-sweep null"
python3 - "$T/n.json" <<'PY' || fail "null engine figures break the arithmetic"
import json, sys
for p in json.load(open(sys.argv[1]))["points"]:
    d, iops, lat = p["depth"], p["ios_per_s"], p["latency"]
    assert p["ios"] == 100 and p["errors"] == 0, p
    assert lat["p50_ns"] >= 1_000_000 and lat["max_ns"] >= lat["p50_ns"], lat
    assert iops <= d * 1000 * 1.0001, (d, iops)
    assert iops * lat["mean_ns"] / 1e9 <= d * 1.0001, (d, iops, lat["mean_ns"])
    assert abs(p["window_ns"] * iops / 1e9 - 100) < 1e-3, p
PY

# --time: the null engine at 1 ms and depth 2 does at most 2 I/Os per ms,
# so a 300 ms step ends by time, far below its --ios cap; the first tenth
# is the warm-up
M qd-sweep --target "$T/f.img" --engine null --null-latency 1ms --depths 2 --ios 5000 \
	--time 300ms --json > "$T/t.json" || fail "qd-sweep --time"
python3 - "$T/t.json" <<'PY' || fail "--time figures"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["points"][0]
assert d["time_limit_ns"] == 300_000_000 and d["warmup_ns"] == 30_000_000 and d["warmup_ios"] == 0, d
# the measured window is the time from the warm-up's end to the last
# completion, so it can run a few ms past 270 ms: bound by the window
assert 20 <= p["ios"] <= 2 * p["window_ns"] / 1e6 + 2, (p["ios"], p["window_ns"])
assert p["window_ns"] <= 300_000_000, p["window_ns"]
assert p["ios_per_s"] <= 2000 * 1.0001, p["ios_per_s"]
PY

# seeks: each span reported with its bytes; text output "N @ SIZE"
M seeks --target "$T/f.img" --spans 1,50,100 --ios 100 > "$T/s.txt" || fail "seeks"
grep -q "seeks/s: .* @ 652.0 KiB, .* @ 32.0 MiB, .* @ 64.0 MiB" "$T/s.txt" || fail "seeks output: $(cat "$T/s.txt")"

# bad input
expect() { # CODE TEXT ARGS...: measure exits CODE saying TEXT
	local code=$1 text=$2 rc
	shift 2
	M "$@" > "$T/o" 2> "$T/e"; rc=$?
	[ "$rc" = "$code" ] || fail "measure $*: exit $rc, not $code: $(cat "$T/e")"
	grep -q -- "$text" "$T/e" || fail "measure $*: no '$text' in: $(cat "$T/e")"
}
expect 2 "a depth is 1..65536" qd-sweep --target "$T/f.img" --depths 0,1
expect 2 "depths must increase" qd-sweep --target "$T/f.img" --depths 4,2
expect 2 "at most 100" seeks --target "$T/f.img" --spans 10,150
expect 2 "not an option of qd-sweep" qd-sweep --target "$T/f.img" --zones 4
expect 2 "not qd-sweep, zcav, seeks or commit" bogus --target "$T/f.img"
expect 2 "give one" qd-sweep --target "$T/f.img" --pattern database --like "$T/rec.bpt"
expect 2 "not in --depths" qd-sweep --target "$T/f.img" --depths 1,2 --weights 8:1
expect 2 "required" zcav
expect 2 "give one" seeks --target "$T/f.img" --db "$T/x.db" --no-store
expect 1 "an input of this command" seeks --target "$T/f.img" --engine null -o "$BLKPEAK_DB"
truncate -s 512K "$T/small.img"
expect 1 "too small" qd-sweep --target "$T/small.img" --depths 1 --ios 10
expect 1 "too small for one zone" zcav --target "$T/small.img" --ios 4 --bs 1m
expect 1 "no such file" seeks --target "$T/absent.img"
# a database that cannot take the results is named before measuring (the
# null engine at 1 s an I/O would measure for 100 s first), and a
# database that is missing is not made by a measurement that fails
echo "not a database" > "$T/notdb"
for db in "$T/notdb:not a SQLite database" "$T/nodir/x.db:cannot be created: $T/nodir"; do
	timeout 60 "$BLKPEAK" measure qd-sweep --target "$T/f.img" --engine null --null-latency 1s \
		--depths 1 --ios 100 --db "${db%%:*}" > "$T/o" 2> "$T/e"
	rc=$?
	[ "$rc" = 1 ] || fail "--db ${db%%:*}: exit $rc: $(cat "$T/e")"
	grep -q -- "${db#*:}" "$T/e" || fail "--db ${db%%:*}: no '${db#*:}' in: $(cat "$T/e")"
	[ -s "$T/o" ] && fail "--db ${db%%:*}: measured first: $(cat "$T/o")"
done
[ "$(cat "$T/notdb")" = "not a database" ] || fail "the file that is not a database was written"
expect 1 "no such file" seeks --target "$T/absent.img" --db "$T/new.db"
[ -e "$T/new.db" ] && fail "a failed measurement made its database"

# without --db the results went to $BLKPEAK_DB; --no-store keeps them out
n=$(sqlite3 "$BLKPEAK_DB" "SELECT count(*) FROM measurements")
[ "$n" -ge 4 ] || fail "measurements stored by default: $n"
M seeks --target "$T/f.img" --engine null --ios 10 --no-store > /dev/null || fail "seeks --no-store"
[ "$(sqlite3 "$BLKPEAK_DB" "SELECT count(*) FROM measurements")" = "$n" ] || fail "--no-store stored"

# the database: --db imports, analyze query reaches the tables
DB=$T/m.db
M zcav --target "$T/f.img" --zones 3 --ios 4 --warmup 1 --bs 1m --db "$DB" -o "$T/z.json" \
	> /dev/null || fail "zcav --db"
[ "$(sqlite3 "$DB" "SELECT kind || ' ' || count(*) FROM measurements JOIN measurement_points
	ON measurement_id = id")" = "zcav 3" ] || fail "zcav rows"
[ "$(sqlite3 "$DB" "SELECT max(offset_bytes) + 5 * 1048576 FROM measurement_points")" = 67108864 ] ||
	fail "the last zone does not end at the end"
"$BLKPEAK" analyze import --db "$DB" "$T/z.json" | grep -q "already imported as measurement 1" ||
	fail "a second import of the same results"
# a database of schema version 3 is migrated by the next import
db_to_v4 "$DB" || fail "make a version-4 database"
sqlite3 "$DB" "DROP TABLE measurement_points; DROP TABLE measurements; PRAGMA user_version = 3"
"$BLKPEAK" analyze import -q --db "$DB" "$T/z.json" || fail "import into a version-3 database"
[ "$(sqlite3 "$DB" "PRAGMA user_version; SELECT count(*) FROM measurement_points")" = "11
3" ] || fail "migration from version 3"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["points"][0]["ios"]; json.dump(d, open(sys.argv[2], "w"))' \
	"$T/z.json" "$T/broken.json"
"$BLKPEAK" analyze import --db "$DB" "$T/broken.json" 2> "$T/e" && fail "a broken document was imported"
grep -q 'a point.s "ios" is missing' "$T/e" || fail "broken document message: $(cat "$T/e")"

# measurements side by side: compare, plot and html
DB2=$T/c.db
for d in 1,2 1,2,4; do
	M qd-sweep --target "$T/f.img" --engine null --null-latency 50us --depths $d --ios 50 \
		--db "$DB2" > /dev/null || fail "qd-sweep --depths $d --db"
done
M seeks --target "$T/f.img" --engine null --spans 10,100 --ios 20 --db "$DB2" > /dev/null || fail "seeks --db"
"$BLKPEAK" analyze compare --measurements 1 2 --db "$DB2" > "$T/cmp.txt" || fail "compare --measurements"
grep -qE '^QD 4 +– +[0-9.]+$' "$T/cmp.txt" || fail "compare: the depth only the second has: $(cat "$T/cmp.txt")"
grep -qE '^score \(IOPS\) +[0-9.]+ +[0-9.]+ \([-+][0-9.]+%\)$' "$T/cmp.txt" || fail "compare: score row: $(cat "$T/cmp.txt")"
"$BLKPEAK" analyze compare --measurements 1 2 --json --db "$DB2" > "$T/cmp.json" || fail "compare --json"
python3 - "$T/cmp.json" <<'PY' || fail "compare --measurements --json figures"
import json, sys
m = json.load(open(sys.argv[1]))["measurements"]
a, b = m[0], m[1]
assert [p["depth"] for p in b["points"]] == [1, 2, 4]
for i, p in enumerate(b["points"]):
    want = (p["ios_per_s"] / a["points"][i]["ios_per_s"] - 1) * 100 if i < 2 else None
    assert (want is None and p["ios_per_s_vs_first_pct"] is None) or abs(p["ios_per_s_vs_first_pct"] - want) < 1e-2, (p, want)
assert abs(b["score_vs_first_pct"] - (b["score_ios_per_s"] / a["score_ios_per_s"] - 1) * 100) < 1e-2
PY
# steps pair by depth, not by position: 1,2,4 against 1,4,8,16 (the
# null engine at a fixed latency gives IOPS in proportion to the depth)
M qd-sweep --target "$T/f.img" --engine null --null-latency 50us --depths 1,4,8,16 --ios 50 \
	--label "wide sweep" --db "$DB2" > /dev/null || fail "qd-sweep --depths 1,4,8,16 --db"
"$BLKPEAK" analyze compare --measurements 2 4 --db "$DB2" > "$T/cmp.txt" || fail "compare 2 4"
grep -qE '^QD 2 +[0-9.]+ +–$' "$T/cmp.txt" || fail "compare: QD 2 only the first has: $(cat "$T/cmp.txt")"
grep -qE '^QD 8 +– +[0-9.]+$' "$T/cmp.txt" || fail "compare: QD 8 only the second has: $(cat "$T/cmp.txt")"
grep -qE '^QD 4 +[0-9.]+ +[0-9.]+ \([-+][0-9.]+%\)$' "$T/cmp.txt" ||
	fail "compare: QD 4 not against QD 4: $(cat "$T/cmp.txt")"
grep -q '^  4: wide sweep (' "$T/cmp.txt" || fail "compare: --label not shown: $(cat "$T/cmp.txt")"
awk 'length > 100 { exit 1 }' "$T/cmp.txt" || fail "compare --measurements wider than 100 columns"
"$BLKPEAK" analyze compare --measurements 2 4 --json --db "$DB2" > "$T/cmp.json" || fail "compare 2 4 --json"
python3 - "$T/cmp.json" <<'PY' || fail "compare --measurements --json pairs by depth"
import json, sys
a, b = json.load(open(sys.argv[1]))["measurements"]
assert b["label"] == "wide sweep", b["label"]
base = {p["depth"]: p for p in a["points"]}
for p in b["points"]:
    want = (p["ios_per_s"] / base[p["depth"]]["ios_per_s"] - 1) * 100 if p["depth"] in base else None
    got = p["ios_per_s_vs_first_pct"]
    assert (want is None and got is None) or abs(got - want) < 1e-2, (p, want)
PY
"$BLKPEAK" analyze label --measurement 4 "renamed" --db "$DB2" | grep -q '^measurement 4: renamed$' ||
	fail "analyze label --measurement"
"$BLKPEAK" analyze compare --measurements 2 4 --db "$DB2" | grep -q '^  4: renamed (' ||
	fail "analyze label --measurement not shown"
"$BLKPEAK" analyze compare --measurements 1 3 --db "$DB2" 2> "$T/e" && fail "compared a qd-sweep with seeks"
grep -q "compare one kind" "$T/e" || fail "kinds message: $(cat "$T/e")"
"$BLKPEAK" analyze plot --kind qd-iops 1 2 --db "$DB2" -o "$T/q.svg" || fail "plot qd-iops"
[ "$(grep -o 'data-points="[0-9]*"' "$T/q.svg" | tr '\n' ' ')" = 'data-points="2" data-points="3" ' ] ||
	fail "plot qd-iops series: $(grep -o 'class="series"[^>]*' "$T/q.svg")"
"$BLKPEAK" analyze plot --kind zcav 1 --db "$DB2" -o "$T/z.svg" 2> "$T/e" && fail "drew a qd-sweep as zcav"
"$BLKPEAK" analyze html --measurements all --db "$DB2" -o "$T/m.html" || fail "html --measurements"
for id in measure-qd-sweep chart-qd-iops chart-qd-p99 measure-seeks chart-seeks; do
	grep -q "id=\"$id\"" "$T/m.html" || fail "html: no $id"
done
C="python3 $(dirname "$0")/chartcheck.py"
$C svg "$T/q.svg" 2 > /dev/null || fail "plot qd-iops: $($C svg "$T/q.svg" 2 2>&1)"
[ "$($C html-svgs "$T/m.html")" = 3 ] || fail "html --measurements: not 3 charts: $($C html-svgs "$T/m.html" 2>&1)"

# on a raid5 target the array's own parity and old-data I/Os are in the
# run file (column internal) beside the step's: they are not its I/Os
truncate -s 64M "$T/p1.img" "$T/p2.img" "$T/p3.img"
"$BLKPEAK" measure qd-sweep --target "raid5:chunk=64k:$T/p1.img,$T/p2.img,$T/p3.img" --engine null \
	--pattern fileserver --depths 1,4 --ios 200 --no-store --json >"$T/r5.json" 2>"$T/e" ||
	fail "qd-sweep with writes on raid5: $(cat "$T/e")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(0 if [p["ios"] for p in d["points"]] == [200, 200] else 1)' "$T/r5.json" ||
	fail "raid5 qd-sweep: not 200 I/Os a step"
exit 0
