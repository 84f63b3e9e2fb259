#!/bin/bash
# analyze query and export: the example queries of docs/analyze.md run and agree
# with the report; --csv and --json are well formed; statements that
# write (DROP, INSERT, ATTACH, PRAGMA writes) are refused with a clear
# message and the database stays byte for byte the same; export writes
# every I/O as CSV or JSON, to stdout or -o FILE.
. "$(dirname "$0")/lib.sh"
need_cmd python3 sha256sum
T=$E2E_TMP
DB=$T/q.db
export BLKPEAK_DB=$DB
sum() { sha256sum "$1" | cut -d' ' -f1; }

"$BLKPEAK" generate -q --duration 5s --iops 6000 --read-pct 60 --bs 4k:50,16k:30,128k:20 \
	-o "$T/g.bpt" || fail "generate"
"$BLKPEAK" analyze import -q "$T/g.bpt" || fail "import"

# docs/analyze.md: the busiest second, latency by request size, I/Os per process.
"$BLKPEAK" analyze query --csv "SELECT issue_ns / 1000000000 AS second, count(*) AS ios
	FROM ios WHERE trace_id = 1 GROUP BY second ORDER BY ios DESC, second LIMIT 1" >"$T/busy.csv" ||
	fail "busiest second"
"$BLKPEAK" analyze report 1 --json >"$T/rep.json" || fail "report"
python3 - "$T/busy.csv" "$T/rep.json" <<'PY' || fail "busiest second disagrees with the report"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
d = json.load(open(sys.argv[2]))
ps = d["per_second"]
assert int(rows[0]["ios"]) == max(ps["ios_per_s"]), (rows, max(ps["ios_per_s"]))
assert int(rows[0]["second"]) == ps["first_second"] + ps["ios_per_s"].index(max(ps["ios_per_s"]))
PY
"$BLKPEAK" analyze query "SELECT bytes, op_name AS op, count(*) AS ios,
	round(avg(service_ns) / 1000.0, 1) AS mean_us FROM io_detail WHERE trace_id = 1
	GROUP BY bytes, op ORDER BY bytes, op" >"$T/bysize.txt" || fail "latency by size"
head -2 "$T/bysize.txt" | grep -Eq "^ *bytes +op +ios +mean_us" || fail "table header: $(head -2 "$T/bysize.txt")"
[ "$(wc -l <"$T/bysize.txt")" -eq 8 ] || fail "latency by size: $(cat "$T/bysize.txt")"
"$BLKPEAK" analyze query --json "SELECT pid, comm, count(*) AS ios FROM io_detail
	WHERE trace_id = 1 GROUP BY pid, comm ORDER BY ios DESC" |
	python3 -c 'import json,sys; r = json.load(sys.stdin); assert r[0]["ios"] == 30000 and r[0]["comm"], r' ||
	fail "I/Os per process"

# Writes are refused, before anything runs; the database is untouched.
before=$(sum "$DB")
for sql in "DROP TABLE io_rows" "DROP VIEW ios" "INSERT INTO ops VALUES (7, 'x')" "DELETE FROM io_rows" \
	   "ATTACH '$T/x.db' AS x" "PRAGMA user_version = 3" "SELECT 1; DROP TABLE traces"; do
	"$BLKPEAK" analyze query "$sql" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 1 ] || fail "'$sql': exit $rc, want 1"
	grep -q "refused" "$T/err" || fail "'$sql': message: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "'$sql' printed rows"
done
note "refusal: $(cat "$T/err")"
[ ! -e "$T/x.db" ] || fail "ATTACH created a file"
[ "$(sum "$DB")" = "$before" ] || fail "a refused statement changed the database"
"$BLKPEAK" analyze query "SELEC 1" 2>"$T/err"; [ $? -eq 1 ] || fail "syntax error: want exit 1"
grep -q "syntax error" "$T/err" || fail "syntax error message: $(cat "$T/err")"

# export: every I/O, in file order.
"$BLKPEAK" analyze export 1 --csv >"$T/e.csv" || fail "export --csv"
"$BLKPEAK" analyze export 1 --json -o "$T/e.json" || fail "export --json -o"
"$BLKPEAK" dump "$T/g.bpt" --format csv >"$T/dump.csv" || fail "dump --format csv"
python3 - "$T/e.csv" "$T/e.json" "$T/dump.csv" <<'PY' || fail "export content"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
js = json.load(open(sys.argv[2]))
assert len(rows) == len(js) == 30000, (len(rows), len(js))
for i in (0, 1, 12345, 29999):
    r, j = rows[i], js[i]
    assert int(r["idx"]) == j["idx"] == i
    for k in ("issue_ns", "complete_ns", "sector", "bytes"):
        assert int(r[k]) == j[k], (k, r[k], j[k])
    assert j["service_ns"] == j["complete_ns"] - j["issue_ns"]
    assert r["op"] in ("read", "write")
# the same I/Os as the trace file says, through the trace tools' dump
dump = list(csv.DictReader(open(sys.argv[3], newline="")))
assert len(dump) == 30000, len(dump)
for r, d in zip(rows, dump):
    assert (r["sector"], r["bytes"], r["op"], r["comm"]) == (d["sector"], d["bytes"], d["op"], d["comm"]), (r, d)
    assert abs(int(r["complete_ns"]) / 1000 - float(d["complete_us"])) < 0.001
PY
ls "$T" | grep -q '\.tmp\.' && fail "temporary file left: $(ls "$T" | grep '\.tmp\.')"
"$BLKPEAK" analyze export 9 --csv 2>"$T/err"; [ $? -eq 1 ] || fail "export of a missing id: want exit 1"
grep -q "no trace with id 9" "$T/err" || fail "export missing id message"
"$BLKPEAK" analyze export 9 --csv -o "$T/none.csv" 2>/dev/null
[ ! -e "$T/none.csv" ] || fail "a failed export left its output file"
ls "$T" | grep -q '\.tmp\.' && fail "a failed export left a temporary file"
"$BLKPEAK" analyze export 1 --csv -o "$T/no/such/dir.csv" 2>"$T/err"; [ $? -eq 1 ] || fail "export into a missing folder: want exit 1"
grep -q "$T/no/such/dir.csv: cannot create: No such file or directory" "$T/err" || fail "export create error: $(cat "$T/err")"
"$BLKPEAK" analyze export 1 2>/dev/null; [ $? -eq 2 ] || fail "export without a format: want exit 2"
"$BLKPEAK" analyze query --help | grep -q "^usage: blkpeak analyze query" || fail "query --help"
"$BLKPEAK" analyze export --help | grep -q "^usage: blkpeak analyze export" || fail "export --help"
exit 0
