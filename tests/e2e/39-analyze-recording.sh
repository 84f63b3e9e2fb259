#!/bin/bash
# analyze report --recording NAME: of a mixed replay's run (replay
# A.bpt B.bpt C.bpt), only recording NAME's I/Os. Read in place and from
# the database, its figures are those of the recording's own run file
# (RUN.NAME.bpt, the same I/Os); a name that is not one of the run's
# recordings fails naming them, so does a trace that is no mixed run;
# --recording with --files, twice or empty is refused.
. "$(dirname "$0")/lib.sh"
need_cmd python3
W=$E2E_TMP

"$BLKPEAK" generate -o "$W/photo.bpt" --duration 1s --iops 600 --read-pct 70 --span 24m --seed 11 -q ||
	fail "generate"
"$BLKPEAK" generate -o "$W/backup.bpt" --duration 1s --iops 300 --read-pct 90 --span 24m --seed 12 -q ||
	fail "generate"
"$BLKPEAK" generate -o "$W/mail.bpt" --duration 1s --iops 200 --read-pct 50 --span 24m --seed 13 -q ||
	fail "generate"
truncate -s 64M "$W/t.img"
"$BLKPEAK" replay "$W/photo.bpt" "$W/backup.bpt" "$W/mail.bpt" --target "$W/t.img" --allow-write \
	--timing afap -o "$W/run.bpt" > "$W/out" 2>&1 || { cat "$W/out"; fail "mixed replay"; }
export BLKPEAK_DB=$W/a.db
"$BLKPEAK" analyze import "$W/run.bpt" -q || fail "import"
ID=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(trace_id) FROM runs").fetchone()[0])' "$W/a.db")

# same KEY... : the figures of two report documents are equal
same() {
	python3 - "$@" <<'EOF' || exit 1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ('ios', 'bytes', 'errors', 'mix', 'sizes', 'latency', 'duration_ns', 'first_issue_ns'):
    if a[k] != b[k]:
        sys.exit('%s differs: %s against %s' % (k, a[k], b[k]))
EOF
}
for r in photo backup mail; do
	"$BLKPEAK" analyze report "$W/run.bpt" --recording "$r" --json > "$W/$r.json" ||
		fail "report --recording $r"
	"$BLKPEAK" analyze report "$ID" --recording "$r" --json > "$W/$r.db.json" ||
		fail "report $ID --recording $r"
	"$BLKPEAK" analyze report "$W/run.$r.bpt" --json > "$W/$r.own.json" || fail "report run.$r.bpt"
	same "$W/$r.json" "$W/$r.own.json" || fail "$r: in place, not the figures of its own run file"
	same "$W/$r.db.json" "$W/$r.own.json" || fail "$r: from the database, not the figures of its own run file"
	n=$("$BLKPEAK" dump --format csv "$W/run.bpt" | python3 -c 'import csv, sys
print(sum(1 for r in csv.DictReader(sys.stdin) if r["comm"] == sys.argv[1]))' "$r")
	python3 - "$W/$r.json" "$n" "$r" <<'EOF' || fail "$r: the recording object"
import json, sys
d = json.load(open(sys.argv[1]))
rec = d['recording']
assert d['ios'] == int(sys.argv[2]) > 0, (d['ios'], sys.argv[2])
assert rec == {'name': sys.argv[3], 'recordings': ['photo', 'backup', 'mail'],
               'ios_of_run': rec['ios_of_run']} and rec['ios_of_run'] > d['ios'], rec
assert d['files_filter'] is None
EOF
	note "$r: $n I/Os of the run's $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recording"]["ios_of_run"])' "$W/$r.json")"
done
python3 "$(dirname "$0")/json_schema_check.py" "$(dirname "$0")/../../schemas/analyze-report.schema.json" \
	"$W/backup.json" > /dev/null || fail "the report does not follow its schema"
"$BLKPEAK" analyze report "$W/run.bpt" --recording backup > "$W/backup.txt" || fail "text report"
grep -q "recording 'backup' of the mixed run (its recordings: photo, backup, mail)" "$W/backup.txt" ||
	{ cat "$W/backup.txt"; fail "the text report does not say which recording"; }

bad() {
	_want=$1; shift
	if "$BLKPEAK" analyze report "$@" > "$W/bad.out" 2>&1; then fail "accepted: $*"; fi
	grep -qF -- "$_want" "$W/bad.out" || { cat "$W/bad.out"; fail "$*: no '$_want'"; }
}
bad "'nope' is not a recording of this mixed run; its recordings: photo, backup, mail" \
	"$W/run.bpt" --recording nope
bad "'nope' is not a recording of this mixed run; its recordings: photo, backup, mail" \
	"$ID" --recording nope
bad "this trace is not one" "$W/photo.bpt" --recording photo
bad "--recording and --files together are not supported" "$W/run.bpt" --recording photo --files ':data'
bad "--recording given twice" "$W/run.bpt" --recording photo --recording mail
bad "--recording: empty name" "$W/run.bpt" --recording ''
exit 0
