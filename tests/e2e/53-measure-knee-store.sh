#!/bin/bash
# measure knee's results stored like the other measurements (schema 11):
# by default in $BLKPEAK_DB, --db elsewhere, --no-store nowhere; the
# database's rows hold what the results document says (every step's
# speed factor, IOPS, MB/s, percentiles, met; the knee and the target);
# analyze report --measurement, compare and html show it (the html's
# knee charts have the target's line and the knee), merge carries it;
# import refuses a knee's document without its target, with a speed
# of 0 or with two points of one step; a database of schema
# 10 with measurements in it (SQLite, and a PostgreSQL store) is migrated
# by the next store and keeps its rows. The null engine: no disk, seconds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../pg.sh"
need_cmd python3 sqlite3 psql
T=$E2E_TMP
export BLKPEAK_DB=$T/default.db
truncate -s 16M "$T/f.img"
"$BLKPEAK" generate -q -o "$T/t.bpt" --count 300 --iops 3000 --span 8m || fail "generate"
K() { "$BLKPEAK" measure knee "$T/t.bpt" --target "$T/f.img" --engine null --max 8 "$@"; }

K --slo p99=1s --db "$T/x.db" --no-store 2>"$T/err" && fail "--db with --no-store"
grep -q -- "--db and --no-store: give one" "$T/err" || fail "message: $(cat "$T/err")"
K --slo p99=1s --label "$(printf 'x%.0s' {1..64})" 2>"$T/err" && fail "a 64-byte label"
grep -q -- "--label: .*1 to 63 bytes" "$T/err" || fail "message: $(cat "$T/err")"
sum=$(md5sum < "$T/t.bpt")
K --slo p99=1s -o "$T/t.bpt" 2>"$T/err" && fail "-o over the trace"
grep -q "t.bpt" "$T/err" || fail "message: $(cat "$T/err")"
[ "$(md5sum < "$T/t.bpt")" = "$sum" ] || fail "the trace was written over"
[ -e "$BLKPEAK_DB" ] && fail "a refused command made the database"
# a database that cannot take the results is named before the search
# (nothing printed: the search did not run)
echo "not a database" > "$T/notdb"
K --slo p99=1s --db "$T/notdb" >"$T/out" 2>"$T/err" && fail "--db of a file that is not a database"
grep -q "notdb: not a SQLite database" "$T/err" || fail "message: $(cat "$T/err")"
[ -s "$T/out" ] && fail "the search ran before the database was checked: $(cat "$T/out")"

# every factor meets 1 s: the sweep runs to --max, stored by default
K --slo p99=1s --slo max=2s --label first -o "$T/a.json" >/dev/null || fail "knee into the default database"
K --slo p99=1s --no-store --json >"$T/n.json" || fail "knee --no-store"
[ "$(sqlite3 "$BLKPEAK_DB" "SELECT count(*) FROM measurements")" = 1 ] || fail "--no-store stored"
python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/measure-results.schema.json" \
	"$T/a.json" || fail "the results document"
"$BLKPEAK" dump --format csv "$T/t.bpt" >"$T/t.csv" || fail "dump"
python3 - "$T/a.json" "$BLKPEAK_DB" "$T/t.csv" <<'PY' || fail "the database differs from the results document"
import csv, json, sqlite3, sys
d = json.load(open(sys.argv[1]))
trace_bytes = sum(int(r["bytes"]) for r in csv.DictReader(open(sys.argv[3])))
db = sqlite3.connect(sys.argv[2])
m = db.execute("SELECT kind, target, label, knee_factor, knee_slo, ios_per_step, id"
               " FROM measurements").fetchone()
assert m[:3] == ("knee", d["target"], "first"), m
assert d["knee_factor"] == 8 and m[3] == 8, (d["knee_factor"], m)
assert json.loads(m[4]) == {"p99_ns": 10**9, "max_ns": 2 * 10**9} == d["slo"], m[4]
assert m[5] == 300, m
rows = db.execute("SELECT step, speed_factor, met, ios, bytes, errors, window_ns, ios_per_s,"
                  " mb_per_s, mean_ns, p50_ns, p90_ns, p99_ns, p999_ns, p9999_ns, max_ns"
                  " FROM measurement_points WHERE measurement_id = ? ORDER BY step", (m[6],)).fetchall()
assert [r[1] for r in rows] == [1, 2, 4, 8], rows
for r, p in zip(rows, d["points"]):
    l = p["latency"]
    want = (p["step"], p["speed_factor"], int(p["met"]), p["ios"], p["bytes"], p["errors"],
            p["window_ns"], p["ios_per_s"], p["mb_per_s"], l["mean_ns"], l["p50_ns"], l["p90_ns"],
            l["p99_ns"], l["p99_9_ns"], l["p99_99_ns"], l["max_ns"])
    assert tuple(r) == want, (r, want)
    assert p["bytes"] == trace_bytes and p["met"] and p["ios"] == 300, (p, trace_bytes)
PY

# a target nothing meets (1 ns): one step, the knee NULL, exit status 1,
# stored all the same (a search that ran to its end is a result)
K --slo p50=1ns --db "$T/b.db" >"$T/out" && fail "a target none met gave exit status 0"
grep -q "no factor from 1 met the target" "$T/out" || fail "text: $(cat "$T/out")"
[ "$(sqlite3 "$T/b.db" "SELECT knee_factor IS NULL, knee_slo, (SELECT group_concat(met) FROM measurement_points) FROM measurements")" = '1|{"p50_ns":1}|0' ] ||
	fail "a search with no knee: $(sqlite3 "$T/b.db" "SELECT * FROM measurements")"

# shown by analyze report --measurement, compare and html
"$BLKPEAK" analyze report --measurement 1 >"$T/r.txt" || fail "report --measurement"
grep -q "^measurement 1: knee on " "$T/r.txt" && grep -q "target: p99 <= 1.000 s, max <= 2.000 s" "$T/r.txt" &&
	grep -qE '^  speed x8 +[0-9.]+ .* met$' "$T/r.txt" &&
	grep -q "^knee: speed x8 is the largest that met the target" "$T/r.txt" || fail "report: $(cat "$T/r.txt")"
"$BLKPEAK" analyze report --measurement 9 2>"$T/err" && fail "report of a missing measurement"
grep -q "no measurement 9" "$T/err" || fail "message: $(cat "$T/err")"
"$BLKPEAK" analyze import -q "$T/n.json" || fail "import a knee's results document"
# a knee's document that lacks its target, has a speed of 0 or two points
# of one step (the fuzzer's find: it passed the check, then failed the
# database's unique key), is refused
for bad in "del d['slo']|\"slo\" is missing" "d['slo'] = {'p98_ns': 5}|\"slo\" is not an object of one" \
	"d['points'][1]['speed_factor'] = 0|speed factor .* is not above 0" \
	"del d['points'][0]['met']|a point's \"met\" is missing" \
	"d['points'][1]['step'] = d['points'][0]['step']|two points have the same \"step\""; do
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); ${bad%%|*}; json.dump(d, open(sys.argv[2], 'w'))" \
		"$T/n.json" "$T/bad.json" || fail "making a bad document"
	"$BLKPEAK" analyze import --db "$T/bad.db" "$T/bad.json" 2>"$T/err" && fail "imported: ${bad%%|*}"
	grep -q "${bad#*|}" "$T/err" || fail "message for ${bad%%|*}: $(cat "$T/err")"
done
"$BLKPEAK" analyze compare --measurements 1 2 >"$T/c.txt" || fail "compare"
grep -qE '^knee \(speed\) +8\.000 +8\.000 \(\+0\.0%\)$' "$T/c.txt" || fail "compare: $(cat "$T/c.txt")"
"$BLKPEAK" analyze compare --measurements 1 2 --json >"$T/c.json" || fail "compare --json"
python3 "$(dirname "$0")/json_schema_check.py" \
	"$(dirname "$0")/../../schemas/analyze-compare-measurements.schema.json" "$T/c.json" ||
	fail "compare --json schema"
"$BLKPEAK" analyze html --measurements all -o "$T/h.html" || fail "html"
python3 - "$T/h.html" <<'PY' || fail "html knee charts"
import re, sys
h = open(sys.argv[1]).read()
for chart in ("knee-latency", "knee-iops"):
    fig = re.search(r'<figure id="chart-%s">(.*?)</figure>' % chart, h, re.S)
    assert fig, chart
    labels = [(l, n) for n, l in re.findall(r'<g class="series" data-series="\d+" data-points="(\d+)" data-label="([^"]*)"', fig.group(1))]
    names = [l for l, _ in labels]
    assert ("1 first", "4") in labels, labels
    assert "1 knee x8" in names and "2 knee x8" in names, labels
    assert ("1 target p99 &lt;= 1.000 s, max &lt;= 2.000 s" in names) == (chart == "knee-latency"), labels
assert '<h3 id="measure-knee">' in h
PY

# analyze merge carries a knee's columns to another database
"$BLKPEAK" analyze merge -q "$BLKPEAK_DB" --db "$T/m.db" || fail "merge"
q="SELECT m.knee_factor, m.knee_slo, group_concat(p.speed_factor || ':' || p.met, ' ') FROM measurements m
	JOIN measurement_points p ON p.measurement_id = m.id GROUP BY m.id ORDER BY m.id"
[ "$(sqlite3 "$T/m.db" "$q")" = "$(sqlite3 "$BLKPEAK_DB" "$q")" ] || fail "merge lost a knee's columns: $(sqlite3 "$T/m.db" "$q")"

# a schema-10 SQLite database with a measurement: the next knee store
# migrates it (10 -> 11) and keeps the row
sqlite3 "$T/b.db" "ALTER TABLE measurements DROP COLUMN knee_slo; ALTER TABLE measurements DROP COLUMN knee_factor;
	ALTER TABLE measurement_points DROP COLUMN speed_factor; ALTER TABLE measurement_points DROP COLUMN met;
	UPDATE measurements SET label = 'old'; PRAGMA user_version = 10" || fail "making a schema-10 database"
"$BLKPEAK" analyze report --measurement 1 --db "$T/b.db" 2>&1 | grep -q "old schema version" ||
	fail "a schema-10 database read without a migration"
K --slo p99=1s --db "$T/b.db" >/dev/null || fail "knee into a schema-10 database"
[ "$(sqlite3 "$T/b.db" "PRAGMA user_version; SELECT group_concat(coalesce(label, '-') || ':' || coalesce(knee_factor, '-'), ' ') FROM measurements")" = "11
old:- -:8.0" ] || fail "migration 10 -> 11: $(sqlite3 "$T/b.db" "PRAGMA user_version; SELECT * FROM measurements")"

# PostgreSQL: stored on the server as in SQLite; a schema-10 store is
# migrated by the next store and keeps its measurements
pg_start
K --slo p99=1s --db "$PG_URI" -o "$T/p.json" >/dev/null 2>"$T/err" || fail "knee --db PostgreSQL: $(cat "$T/err")"
[ "$(pg_psql -c "SELECT kind, knee_factor, knee_slo FROM measurements")" = 'knee|8|{"p99_ns":1000000000}' ] ||
	fail "on the server: $(pg_psql -c "SELECT * FROM measurements")"
[ "$(pg_psql -c "SELECT string_agg(speed_factor || ':' || met, ' ' ORDER BY step) FROM measurement_points")" = "1:1 2:1 4:1 8:1" ] ||
	fail "points on the server: $(pg_psql -c "SELECT * FROM measurement_points")"
"$BLKPEAK" analyze report --measurement 1 --db "$PG_URI" >"$T/rp.txt" || fail "report from PostgreSQL"
grep -q "^knee: speed x8 is the largest" "$T/rp.txt" || fail "report from PostgreSQL: $(cat "$T/rp.txt")"
pg_psql -c "ALTER TABLE measurements DROP COLUMN knee_slo, DROP COLUMN knee_factor;
	ALTER TABLE measurement_points DROP COLUMN speed_factor, DROP COLUMN met;
	UPDATE measurements SET label = 'old'; UPDATE blkpeak_schema SET version = 10" >/dev/null ||
	fail "making a schema-10 store"
"$BLKPEAK" analyze report --measurement 1 --db "$PG_URI" 2>&1 | grep -q "old schema version 10" ||
	fail "a schema-10 store read without a migration"
K --slo p99=1s --db "$PG_URI" >/dev/null 2>"$T/err" || fail "knee into a schema-10 store: $(cat "$T/err")"
[ "$(pg_psql -c "SELECT version FROM blkpeak_schema")" = 11 ] || fail "the store not migrated to 11"
[ "$(pg_psql -c "SELECT string_agg(coalesce(label, '-') || ':' || coalesce(knee_factor::text, '-'), ' ' ORDER BY id) FROM measurements")" = "old:- -:8" ] ||
	fail "migration 10 -> 11 on PostgreSQL: $(pg_psql -c "SELECT * FROM measurements")"
[ "$(pg_psql -c "SELECT count(*) FROM measurement_points")" = 8 ] || fail "points lost by the migration"
exit 0
