#!/bin/bash
# e2e-timeout: 600
# Traces analysed in place, without an import (issue 18):
#  - query's trace_ios('FILE') returns exactly dump's rows and values and
#    the imported copy's, for traces with every operation, flag, error,
#    device kind, completion kind and the replay columns; with time,
#    device and operation constraints (boundary times of blocks, every
#    comparison, IN, OR, non-integer and NULL values) it drops no row;
#  - a time range reads only the blocks it needs (a damaged block outside
#    it is never read);
#  - the read-only guard still holds with the table in;
#  - report FILE and compare FILE FILE equal the reports of the imported
#    copies (text and --json), and need no database;
#  - report FILE keeps its memory flat from 1 M to 20 M I/Os.
. "$(dirname "$0")/lib.sh"
need_cmd sqlite3 python3 cc /usr/bin/time
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$E2E_TMP
DB=$T/a.db
cd "$T" || fail "cd"

cc_libbpt "$T/mktrace" "$ROOT/tests/e2e/inplace_mktrace.c" || fail "cannot build inplace_mktrace (run make first)"
"$T/mktrace" "$T/cap.bpt" 30000 capture 1000 || fail "mktrace capture"
"$T/mktrace" "$T/run.bpt" 12000 replay 1000 || fail "mktrace replay"
"$BLKPEAK" analyze import -q --db "$DB" "$T/cap.bpt" "$T/run.bpt" || fail "import"

q() { "$BLKPEAK" analyze query --db "$DB" --csv "$@"; }

# 1. Every row and value, against dump: the dump columns computed in SQL.
for f in cap run; do
	case $f in
	cap) opt=", completion_name" ;;
	run) opt=", printf('%d.%03d', sched_ns / 1000, sched_ns % 1000), source_index, member" ;;
	esac
	us() { echo "printf('%d.%03d', $1 / 1000, $1 % 1000)"; }
	sus() { echo "(CASE WHEN $1 < 0 THEN '-' ELSE '' END) || printf('%d.%03d', abs($1) / 1000, abs($1) % 1000)"; }
	sql="SELECT $(us queue_ns), $(us issue_ns), $(us complete_ns),
		CASE dev WHEN 0 THEN 'sda' WHEN 1 THEN 'nvme0n1' ELSE 'a-device-name-of-31-characters!' END,
		sector, bytes, op_name,
		(CASE WHEN flags & 1 THEN 'S' ELSE '' END) || (CASE WHEN flags & 2 THEN 'F' ELSE '' END) ||
		(CASE WHEN flags & 4 THEN 'P' ELSE '' END) || (CASE WHEN flags & 8 THEN 'M' ELSE '' END) ||
		(CASE WHEN flags & 16 THEN 'A' ELSE '' END),
		pid, comm, cgroup_id, $(sus "issue_ns - queue_ns"), $(sus service_ns), error $opt
		FROM (SELECT *, CASE completion WHEN 0 THEN 'seen' WHEN 1 THEN 'reused' ELSE 'pending' END
		      AS completion_name FROM trace_ios('$f.bpt'))"
	q "$sql" | sed 1d | tr -d '\r' >"$T/$f.vt" || fail "query trace_ios($f)"
	"$BLKPEAK" dump --format csv "$T/$f.bpt" | sed 1d >"$T/$f.dump" || fail "dump $f"
	[ "$(wc -l <"$T/$f.dump")" -gt 10000 ] || fail "dump $f: too few rows"
	cmp -s "$T/$f.vt" "$T/$f.dump" || { diff "$T/$f.vt" "$T/$f.dump" | head -5; fail "trace_ios($f) differs from dump"; }
done
note "trace_ios = dump, every row and column (capture and replay kinds)"

# 2. Every column against the imported copy, with and without constraints.
cols="idx, queue_ns, issue_ns, complete_ns, dev, sector, bytes, op, flags, pid, comm_id, cgroup_id,
      error, sched_ns, source_index, member, completion"
# boundary times: the first and last issue time of blocks (1000 records each)
b() { q "SELECT $1(issue_ns) FROM ios WHERE trace_id = 1 AND idx / 1000 = $2" | sed 1d | tr -d '\r'; }
lo5=$(b min 5); hi5=$(b max 5); lo6=$(b min 6); hi15=$(b max 15); hi20=$(b max 20); at=$(q "SELECT issue_ns FROM ios WHERE trace_id = 1 AND idx = 7321" | sed 1d | tr -d '\r')
[ -n "$lo5" ] && [ -n "$hi20" ] && [ -n "$at" ] || fail "boundary times"
n=0
while IFS= read -r cond; do
	[ -n "$cond" ] || continue
	a=$(q "SELECT $cols FROM trace_ios('cap.bpt') WHERE $cond ORDER BY idx" | md5sum)
	e=$(q "SELECT $cols FROM ios WHERE trace_id = 1 AND ($cond) ORDER BY idx" | md5sum)
	c=$(q "SELECT count(*) FROM ios WHERE trace_id = 1 AND ($cond)" | sed 1d | tr -d '\r')
	[ "$a" = "$e" ] || fail "trace_ios WHERE $cond: rows differ from the imported copy ($c expected)"
	n=$((n + 1))
done <<EOF
1
issue_ns >= $lo5
issue_ns > $lo5
issue_ns < $lo5
issue_ns <= $lo5
issue_ns = $at
issue_ns = $hi5
issue_ns BETWEEN $lo5 AND $hi5
issue_ns BETWEEN $hi5 AND $lo6
issue_ns > $hi5 AND issue_ns < $lo6
issue_ns >= $lo6 AND issue_ns <= $hi20 AND dev = 1
issue_ns >= $lo5 + 0.5 AND issue_ns < $hi20 - 0.5
issue_ns > '$lo5'
issue_ns BETWEEN 6e6 AND 8.5e6
issue_ns = $at.0
issue_ns >= $at.5
issue_ns > 9.25e18
issue_ns >= 9.21e18
issue_ns < -0.5
issue_ns <= 1e300
issue_ns > NULL
issue_ns < 0
issue_ns >= -5 AND issue_ns <= $lo5
issue_ns > 9223372036854775807
issue_ns < -9223372036854775808
dev = 2
dev = 1 AND op = 3
dev IN (0, 2) AND op = 4
op = 2 OR issue_ns < $lo5
op >= 3 AND flags & 16
error <> 0 AND completion = 1
completion = 2 AND op = 0
idx BETWEEN 2999 AND 3001
idx = 29999
dev = 1.0
op = '1'
issue_ns >= $lo5 AND issue_ns <= $hi5 AND issue_ns >= $lo6
sched_ns > 0
EOF
for cond in "1" "sched_ns > 1000000 AND member = 2" "source_index < 400" "member IS NULL" "issue_ns < $lo5"; do
	a=$(q "SELECT $cols FROM trace_ios('run.bpt') WHERE $cond ORDER BY idx" | md5sum)
	e=$(q "SELECT $cols FROM ios WHERE trace_id = 2 AND ($cond) ORDER BY idx" | md5sum)
	[ "$a" = "$e" ] || fail "trace_ios(run) WHERE $cond: rows differ from the imported copy"
	n=$((n + 1))
done
note "trace_ios = the imported copy under $n constraints"

# 3. A time range reads only its blocks: damage block ~22 (of 30); a range
# in blocks 5-15 still reads, a full scan fails on the damage.
cp cap.bpt bad.bpt
python3 - <<'PY' || fail "damage a block"
data = bytearray(open('bad.bpt', 'rb').read())
# damage a byte three quarters into the file: inside block ~22 of 30,
# well after block 16 and before the footer
at = len(data) * 3 // 4
data[at] ^= 0xff
open('bad.bpt', 'wb').write(data)
PY
"$BLKPEAK" analyze query "SELECT count(*) FROM trace_ios('bad.bpt')" >/dev/null 2>"$T/err" &&
	fail "a full scan of a damaged trace succeeded"
grep -q "trace_ios: .*bad.bpt" "$T/err" || fail "damage error: $(cat "$T/err")"
c=$("$BLKPEAK" analyze query --csv "SELECT count(*) FROM trace_ios('bad.bpt') WHERE issue_ns BETWEEN $lo5 AND $hi15" | sed 1d | tr -d '\r') ||
	fail "a range before the damage did not read"
e=$(q "SELECT count(*) FROM ios WHERE trace_id = 1 AND issue_ns BETWEEN $lo5 AND $hi15" | sed 1d | tr -d '\r')
[ "$c" = "$e" ] || fail "range count $c, want $e"
c=$("$BLKPEAK" analyze query --csv "SELECT count(*) FROM trace_ios('bad.bpt') WHERE issue_ns BETWEEN $lo5 - 0.5 AND $hi15 + 0.5" | sed 1d | tr -d '\r') ||
	fail "a range of REAL bounds before the damage did not read"
[ "$c" = "$e" ] || fail "REAL range count $c, want $e"
note "a time range skips the blocks outside it (a damaged one is never read)"

# 4. The guard holds with the table in; no database is needed.
for bad in "SELECT load_extension('x')" "SELECT readfile('cap.bpt')" \
	   "CREATE VIRTUAL TABLE temp.x USING trace_ios" "ATTACH 'cap.bpt' AS x" \
	   "DELETE FROM ios" "PRAGMA query_only = 0"; do
	"$BLKPEAK" analyze query --db "$DB" "$bad" >/dev/null 2>&1 && fail "query ran: $bad"
done
sqlite3 "$T/view.db" "PRAGMA application_id = 1112296272; PRAGMA user_version = 3;" || fail "view.db"
cp "$DB" "$T/view.db"
sqlite3 "$T/view.db" "CREATE VIEW sneaky AS SELECT * FROM trace_ios('$T/cap.bpt')" 2>/dev/null
"$BLKPEAK" analyze query --db "$T/view.db" "SELECT count(*) FROM sneaky" >/dev/null 2>&1 &&
	fail "a view of the database read a trace file"
mkfifo "$T/fifo"
timeout 10 "$BLKPEAK" analyze query "SELECT * FROM trace_ios('$T/fifo')" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "trace_ios(FIFO): exit $rc, want 1"
"$BLKPEAK" analyze query "SELECT * FROM trace_ios()" >/dev/null 2>"$T/err" && fail "trace_ios() without a file ran"
"$BLKPEAK" analyze query "SELECT * FROM trace_ios('$T/none.bpt')" >/dev/null 2>"$T/err" && fail "trace_ios(missing) ran"
grep -q "none.bpt" "$T/err" || fail "missing file message: $(cat "$T/err")"
mkdir "$T/nodb" && cd "$T/nodb" || fail "cd"
"$BLKPEAK" analyze query --csv "SELECT count(*) FROM trace_ios('../cap.bpt')" | grep -q "^30000" || fail "query without a database"
[ ! -e blkpeak.db ] || fail "query created a database"
"$BLKPEAK" analyze query "SELECT * FROM ios" 2>"$T/err" && fail "ios without a database"
grep -q "trace_ios('FILE')" "$T/err" || fail "no hint without a database: $(cat "$T/err")"

# 5. report FILE and compare FILE FILE = the imported copy's.
for f in cap:1 run:2; do
	name=${f%:*} id=${f#*:}
	"$BLKPEAK" analyze report "../$name.bpt" >"$T/$name.ftxt" || fail "report $name.bpt"
	"$BLKPEAK" analyze report --db "$DB" "$id" >"$T/$name.dtxt" || fail "report $id"
	diff <(sed 1d "$T/$name.ftxt" | sed 's/read from a truncated/imported from a truncated/') \
	     <(sed 1d "$T/$name.dtxt") >/dev/null || fail "report $name.bpt differs from report $id"
	head -1 "$T/$name.ftxt" | grep -q "^file $T/$name.bpt" || fail "report FILE's first line: $(head -1 "$T/$name.ftxt")"
	"$BLKPEAK" analyze report "../$name.bpt" --json >"$T/$name.fjson" || fail "report --json $name.bpt"
	"$BLKPEAK" analyze report --db "$DB" "$id" --json >"$T/$name.djson" || fail "report --json $id"
	python3 - "$T/$name.fjson" "$T/$name.djson" "$id" <<'PY' || fail "report --json $name.bpt differs from report $id"
import json, sys
f, d = (json.load(open(p)) for p in sys.argv[1:3])
assert f["trace"].pop("id") is None and d["trace"].pop("id") == int(sys.argv[3])
if d["run"]:
    d["run"]["source_trace_id"] = None
assert f == d, [k for k in f if f[k] != d[k]]
PY
	python3 "$ROOT/tests/e2e/json_schema_check.py" "$ROOT/schemas/analyze-report.schema.json" \
		"$T/$name.fjson" || fail "report FILE --json does not match its schema"
done
grep -q "PARTIAL: 12000 of 24000" "$T/run.ftxt" || fail "report of a cut run file not marked partial"
cd "$T" || fail "cd"
"$BLKPEAK" analyze compare cap.bpt run.bpt --force --allow-partial --json >"$T/cf.json" || fail "compare FILE FILE"
"$BLKPEAK" analyze compare --db "$DB" 1 2 --force --allow-partial --no-store --json >"$T/cd.json" || fail "compare 1 2"
python3 - "$T/cf.json" "$T/cd.json" <<'PY' || fail "compare FILE FILE differs from compare 1 2"
import json, sys
f, d = (json.load(open(p)) for p in sys.argv[1:3])
for i, e in enumerate(d["entries"]):
    assert f["entries"][i].pop("trace_id") is None and e.pop("trace_id") == i + 1
assert f == d
PY
python3 "$ROOT/tests/e2e/json_schema_check.py" "$ROOT/schemas/analyze-compare.schema.json" "$T/cf.json" ||
	fail "compare FILE --json does not match its schema"
"$BLKPEAK" analyze compare cap.bpt run.bpt >/dev/null 2>"$T/err" && fail "compare of different traces without --force"
grep -q "not the same I/O" "$T/err" || fail "compare FILE message: $(cat "$T/err")"
note "report FILE and compare FILE... = the imported copies' (text, json)"

# 6. Memory stays flat: report FILE at 1 M and 20 M I/Os, peak RSS.
BIG=$(mktemp -d /var/tmp/blkpeak-e2e-inplace.XXXXXX) || fail "mktemp"
at_exit "rm -rf '$BIG'"
rss() { /usr/bin/time -f "%M" -o "$BIG/rss" "$@" >/dev/null || fail "$*"; cat "$BIG/rss"; }
"$BLKPEAK" generate -q --count 1000000 --pattern fileserver -o "$BIG/1m.bpt" || fail "generate 1 M"
"$BLKPEAK" generate -q --count 20000000 --pattern fileserver -o "$BIG/20m.bpt" || fail "generate 20 M"
r1=$(rss "$BLKPEAK" analyze report "$BIG/1m.bpt" --json)
r20=$(rss "$BLKPEAK" analyze report "$BIG/20m.bpt" --json)
q20=$(rss "$BLKPEAK" analyze query "SELECT count(*), sum(bytes) FROM trace_ios('$BIG/20m.bpt')")
note "peak RSS: report 1 M I/Os $((r1 / 1024)) MiB, 20 M $((r20 / 1024)) MiB; query 20 M $((q20 / 1024)) MiB"
[ "$r20" -lt $((r1 + 16384)) ] || fail "report's memory grows with the trace: $r1 KiB at 1 M, $r20 KiB at 20 M"
[ "$r20" -lt 65536 ] && [ "$q20" -lt 32768 ] || fail "peak RSS too high: report $r20 KiB, query $q20 KiB"
exit 0
