#!/bin/bash
# A replay stopped before its last I/O says so everywhere: SIGINT in
# flight exits 1 and the summary, the run file (run.status partial,
# run.stopped) and `info` say "PARTIAL: N of 3000 I/Os (interrupted by
# SIGINT)"; SIGTERM the same in --json. analyze report marks the run (text
# and JSON); analyze compare refuses it, and with --allow-partial marks it
# on every line that names it. A run file cut before its end (a killed
# replay) is partial too. A database of schema 1 is refused read-only
# with a clear message and migrated by import.
. "$(dirname "$0")/lib.sh"
each_engine
need_cmd python3 sqlite3
T=$E2E_TMP
export BLKPEAK_DB=$T/p.db
F=$T/target.img

"$BLKPEAK" generate -q -o "$T/g.bpt" --duration 3s --iops 1000 --read-pct 50 --span 16m ||
	fail "generate"
"$BLKPEAK" replay "$T/g.bpt" --target "$F" --create 32m --timing afap -o "$T/full.bpt" > /dev/null ||
	fail "complete replay"
"$BLKPEAK" info "$T/full.bpt" > "$T/info" || fail "info"
grep -q "run.status.*complete" "$T/info" || fail "complete run: $(cat "$T/info")"

# interrupt_replay SIG OUT ARGS...: start a slow replay onto a fresh sparse
# file and send SIG once its first write has landed (the file then has
# blocks), so the signal always arrives while I/O is in flight
interrupt_replay() {
	_sig=$1 _out=$2; shift 2
	rm -f "$F"
	"$BLKPEAK" replay "$T/g.bpt" --target "$F" --create 32m --speed 0.1 -o "$_out" "$@" \
		> "$T/out" 2> "$T/err" &
	_pid=$!
	_PIDS="$_pid $_PIDS"
	for _ in $(seq 600); do
		[ -f "$F" ] && [ "$(stat -c %b "$F")" -gt 0 ] && break
		kill -0 $_pid 2>/dev/null || break
		sleep 0.05
	done
	[ "$(stat -c %b "$F" 2>/dev/null || echo 0)" -gt 0 ] || fail "$_sig: no write landed: $(cat "$T/err")"
	kill -"$_sig" $_pid
	wait $_pid; _rc=$?
	[ $_rc -eq 1 ] || fail "$_sig: exit $_rc, want 1: $(cat "$T/err")"
}

interrupt_replay INT "$T/int.bpt"
grep -q "interrupted by SIGINT; the run is partial: [0-9]* of 3000 I/Os, exit status 1" "$T/err" ||
	fail "SIGINT: message: $(cat "$T/err")"
grep -q "^  PARTIAL: [0-9]* of 3000 I/Os (interrupted by SIGINT)$" "$T/out" ||
	fail "SIGINT: summary: $(cat "$T/out")"
"$BLKPEAK" info "$T/int.bpt" > "$T/info" || fail "info of the interrupted run"
grep -q "run.status.*partial" "$T/info" || fail "run file status: $(cat "$T/info")"
grep -q "run.stopped.*interrupted by SIGINT" "$T/info" || fail "run file reason: $(cat "$T/info")"
done_ios=$(sed -n 's/.*run.done[^0-9]*\([0-9]*\).*/\1/p' "$T/info")
records=$(sed -n 's/^records: *\([0-9]*\).*/\1/p' "$T/info")
[ -n "$done_ios" ] && [ "$done_ios" = "$records" ] && [ "$done_ios" -lt 3000 ] ||
	fail "run.done $done_ios, records $records"
note "SIGINT: $(head -1 "$T/err")"

interrupt_replay TERM "$T/term.bpt" --json
python3 - "$T/out" <<'PY' || fail "SIGTERM --json: $(cat "$T/out")"
import json, sys
j = json.load(open(sys.argv[1]))
p = j["partial"]
assert p["reason"] == "interrupted by SIGTERM", p
assert p["ios_total"] == 3000 and p["ios_done"] == j["ios"] < 3000, p
PY

# a run file cut before its end: the footer (with run.status) is gone
"$BLKPEAK" replay "$T/g.bpt" --target "$F" --timing afap -o "$T/cut.bpt" > /dev/null ||
	fail "replay to be cut"
truncate -s -40 "$T/cut.bpt"

"$BLKPEAK" analyze import -q "$T/g.bpt" "$T/full.bpt" "$T/int.bpt" || fail "import"
"$BLKPEAK" analyze import -q --partial "$T/cut.bpt" || fail "import the cut run"
ids=$(sqlite3 "$BLKPEAK_DB" "SELECT group_concat(id, ' ') FROM (SELECT id FROM traces ORDER BY id)")
[ "$ids" = "1 2 3 4" ] || fail "ids: $ids"
[ "$(sqlite3 "$BLKPEAK_DB" 'SELECT partial, ios_total FROM runs ORDER BY trace_id')" = "0|3000
1|3000
1|3000" ] || fail "runs table: $(sqlite3 "$BLKPEAK_DB" 'SELECT * FROM runs')"

"$BLKPEAK" analyze report 3 > "$T/rep" || fail "report of the partial run"
grep -q "^trace 3: .*int.bpt  PARTIAL: $done_ios of 3000 I/Os (interrupted by SIGINT)$" "$T/rep" ||
	fail "report: $(head -3 "$T/rep")"
"$BLKPEAK" analyze report 4 > "$T/rep" || fail "report of the cut run"
grep -q "^trace 4: .*PARTIAL: [0-9]* of 3000 I/Os (the run file ends before the replay did" "$T/rep" ||
	fail "report of the cut run: $(head -3 "$T/rep")"
"$BLKPEAK" analyze report 3 --json > "$T/rep.json" || fail "report --json"
python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/analyze-report.schema.json" \
	"$T/rep.json" || fail "report --json does not match its schema"
python3 - "$T/rep.json" "$done_ios" <<'PY' || fail "report --json: $(head -c 600 "$T/rep.json")"
import json, sys
p = json.load(open(sys.argv[1]))["run"]["partial"]
assert p == {"ios_done": int(sys.argv[2]), "ios_total": 3000, "reason": "interrupted by SIGINT"}, p
PY

"$BLKPEAK" analyze compare 1 > "$T/cmp" 2> "$T/err"; rc=$?
[ $rc -eq 1 ] || fail "compare with a partial run: exit $rc, want 1"
grep -q "trace 3 is a partial run (PARTIAL: $done_ios of 3000 I/Os (interrupted by SIGINT)): its figures cover only part of the trace; --allow-partial compares it anyway" "$T/err" ||
	fail "compare refusal: $(cat "$T/err")"
"$BLKPEAK" analyze compare 2 3 > /dev/null 2>&1 && fail "compare 2 3 accepted a partial run"
[ "$(sqlite3 "$BLKPEAK_DB" 'SELECT count(*) FROM comparisons')" = 0 ] || fail "a refused comparison was stored"
note "refused: $(cat "$T/err")"

"$BLKPEAK" analyze compare 1 2 3 --allow-partial > "$T/cmp" || fail "compare --allow-partial"
mark="PARTIAL: $done_ios of 3000 I/Os (interrupted by SIGINT)"
grep -q "$mark" "$T/cmp" || fail "compare table: $(cat "$T/cmp")"
# the summary lines: after the headline (line 1)
lines=$(tail -n +2 "$T/cmp" | grep -c "finishes")
[ "$lines" = 2 ] || fail "compare: $lines summary lines"
tail -n +2 "$T/cmp" | grep "finishes" | sed -n 2p | grep -q "^single [^ ]* $mark finishes" ||
	fail "compare: the partial run's summary line: $(grep finishes "$T/cmp")"
tail -n +2 "$T/cmp" | grep "finishes" | sed -n 1p | grep -q "PARTIAL" && fail "the complete run is marked"
"$BLKPEAK" analyze compare 1 2 3 --allow-partial --json > "$T/cmp.json" || fail "compare --json"
python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/analyze-compare.schema.json" \
	"$T/cmp.json" || fail "compare --json does not match its schema"
python3 - "$T/cmp.json" "$done_ios" <<'PY' || fail "compare --json: $(cat "$T/cmp.json")"
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
assert e[0]["partial"] is None and e[1]["partial"] is None, e
assert e[2]["partial"] == {"ios_done": int(sys.argv[2]), "ios_total": 3000,
                           "reason": "interrupted by SIGINT"}, e[2]
assert e[2]["label"].endswith("PARTIAL: %s of 3000 I/Os (interrupted by SIGINT)" % sys.argv[2])
PY

# a database of schema 1 (before runs knew they could be partial)
db_to_v4 "$BLKPEAK_DB" || fail "make a schema-4 database"
sqlite3 "$BLKPEAK_DB" "CREATE TABLE v1 AS SELECT trace_id, source_digest, source_trace_id, source_path,
	target, timing, speed, queue_depth, engine, host, kernel FROM runs; DROP TABLE runs;
	ALTER TABLE v1 RENAME TO runs; ALTER TABLE ios DROP COLUMN completion;
	PRAGMA user_version = 1" || fail "make a schema-1 database"
"$BLKPEAK" analyze report 2 > /dev/null 2> "$T/err" && fail "report on schema 1 accepted"
grep -q "old schema version, run 'blkpeak analyze import' once to migrate it" "$T/err" ||
	fail "schema 1: $(cat "$T/err")"
"$BLKPEAK" analyze import -q "$T/term.bpt" || fail "import migrates schema 1"
[ "$(sqlite3 "$BLKPEAK_DB" 'PRAGMA user_version')" = 11 ] || fail "not migrated"
[ "$(sqlite3 "$BLKPEAK_DB" 'SELECT trace_id, partial, stop_reason FROM runs WHERE partial = 1')" = \
	"5|1|interrupted by SIGTERM" ] || fail "after migration: $(sqlite3 "$BLKPEAK_DB" 'SELECT * FROM runs')"
"$BLKPEAK" analyze compare 1 2 > /dev/null || fail "compare of complete runs after migration"
exit 0
