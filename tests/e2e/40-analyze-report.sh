#!/bin/bash
# analyze report: an ID is read from the database (a FILE is read in
# place: 42-analyze-inplace.sh); the text has
# every section; --json matches schemas/analyze-report.schema.json and its
# figures agree with the same figures computed by the sqlite3 shell over
# the ios table; bad ids and databases fail cleanly.
. "$(dirname "$0")/lib.sh"
need_cmd sqlite3 python3
T=$E2E_TMP
DB=$T/r.db

"$BLKPEAK" generate -q --count 200000 --read-pct 70 --queue-depth 4 --bs 4k:70,64k:30 \
	-o "$T/g.bpt" || fail "generate"
"$BLKPEAK" analyze import -q "$T/g.bpt" --db "$DB" || fail "import"
"$BLKPEAK" analyze report 1 --db "$DB" >"$T/rep.txt" 2>"$T/err" || fail "report ID: $(cat "$T/err")"
for s in "I/Os        200000" "^mix" "^request size" "^seek distance" "sequential share" \
	 "^queue depth" "^idle periods" "^service latency" "^total latency" \
	 "^top processes by I/Os" "^top processes by bytes" "p99.99"; do
	grep -q "$s" "$T/rep.txt" || fail "report text lacks '$s'"
done
# A FILE is read in place: nothing is imported, the database is not touched.
sum=$(md5sum <"$DB")
"$BLKPEAK" analyze report "$T/g.bpt" --db "$DB" >/dev/null 2>"$T/err" || fail "report FILE"
[ ! -s "$T/err" ] || fail "report FILE printed: $(cat "$T/err")"
[ "$(md5sum <"$DB")" = "$sum" ] || fail "report FILE changed the database"

start=$(date +%s%N)
"$BLKPEAK" analyze report 1 --json --db "$DB" >"$T/rep.json" || fail "report --json"
note "report --json of 200k I/Os: $(( ($(date +%s%N) - start) / 1000000 )) ms"

python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/analyze-report.schema.json" \
	"$T/rep.json" || fail "report --json does not match its schema"

q() { sqlite3 "$DB" "$1"; }
python3 - "$T/rep.json" \
	"$(q 'SELECT count(*), sum(bytes), max(complete_ns) - min(issue_ns) FROM ios WHERE trace_id = 1')" \
	"$(q "SELECT count(*) FROM ios WHERE trace_id = 1 AND op = 0")" \
	"$(q "SELECT complete_ns - issue_ns AS l FROM ios WHERE trace_id = 1 AND op = 0 ORDER BY l
	      LIMIT 1 OFFSET (990000 * (SELECT count(*) FROM ios WHERE trace_id = 1 AND op = 0) + 999999) / 1000000 - 1")" \
	"$(q 'SELECT max(complete_ns - queue_ns) FROM ios WHERE trace_id = 1')" \
	"$(q 'SELECT total(complete_ns - issue_ns) / (max(complete_ns) - min(issue_ns)) FROM ios WHERE trace_id = 1')" \
	"$(q 'SELECT count(*) FROM ios WHERE trace_id = 1 AND bytes = 65536')" <<'PY' || fail "report --json disagrees with SQL"
import json, sys
d = json.load(open(sys.argv[1]))
n, nbytes, dur = map(int, sys.argv[2].split("|"))
reads, p99read, maxtotal = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
little, big = float(sys.argv[6]), int(sys.argv[7])
assert d["ios"] == n == 200000, (d["ios"], n)
assert d["bytes"] == nbytes and d["duration_ns"] == dur
assert abs(d["ios_per_s"] - n / (dur / 1e9)) < 1e-3 * d["ios_per_s"]
assert abs(d["mb_per_s"] - nbytes / 1e6 / (dur / 1e9)) < 1e-3 * d["mb_per_s"]
assert d["mix"]["read"]["ios"] == reads
assert d["latency"]["service"]["read"]["p99_ns"] == p99read
assert d["latency"]["total"]["all"]["max_ns"] == maxtotal
assert abs(d["queue_depth"]["mean"] - little) < 1e-3, (d["queue_depth"]["mean"], little)
assert sum(c["read"] + c["write"] for c in d["sizes"] if c["class"] == "64 KiB") == big
ps = d["per_second"]
assert sum(ps["ios_per_s"]) == n and abs(sum(ps["mb_per_s"]) - nbytes / 1e6) < 1e-3
assert d["busy_ns"] + d["idle_ns"] == dur
assert sum(c["count"] for c in d["seek"]["classes"]) == n - 1
assert d["top_processes"]["by_ios"][0]["ios"] == n
PY

"$BLKPEAK" analyze report 7 --db "$DB" 2>"$T/err"; [ $? -eq 1 ] || fail "missing id: want exit 1"
grep -q "no trace with id 7" "$T/err" || fail "missing id message: $(cat "$T/err")"
"$BLKPEAK" analyze report 1 --db "$T/none.db" 2>"$T/err"; [ $? -eq 1 ] || fail "missing db: want exit 1"
grep -q "no such database" "$T/err" || fail "missing db message: $(cat "$T/err")"
[ ! -e "$T/none.db" ] || fail "report created a database"
"$BLKPEAK" analyze report x.bpt --db "$DB" 2>/dev/null; [ $? -eq 2 ] || fail "bad argument: want exit 2"
"$BLKPEAK" analyze report --help | grep -q "^usage: blkpeak analyze report" || fail "--help"
exit 0
