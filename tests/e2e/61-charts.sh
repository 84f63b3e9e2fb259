#!/bin/bash
# 61-charts.sh — `blkpeak analyze plot` and `analyze html` on a database
# made here with the normative schema (schemas/analyze.sql) and known
# I/Os: every chart kind is valid SVG with one series per trace and every
# point inside the axes; bad input fails cleanly without leaving a file;
# the HTML report is self-contained and renders in headless Chromium.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser.sh"
need_cmd sqlite3 python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHECK="python3 $ROOT/tests/e2e/chartcheck.py"
DB=$E2E_TMP/a.db
cd "$E2E_TMP" || fail "no temp dir"

sqlite3 "$DB" < "$ROOT/schemas/analyze.sql" || fail "cannot create the database"
# A capture (id 1) and two replays of it (2: raid0, 3: raid1), 3000 I/Os
# each, one issued per ms; a mix of 4 KiB random and 1 MiB sequential;
# the runs are 2x and 1.25x faster. Trace 4 is empty.
sqlite3 "$DB" "
INSERT INTO traces (id, digest, path, kind, format_version, columns, ios, bytes,
	first_issue_ns, last_complete_ns, imported_at) VALUES
 (1, 'a', '/x/photo-edit.bpt', 'capture', '1.0', 0, 3000, 0, 0, 3000000000, 'x'),
 (2, 'b', '/x/run-raid0.bpt', 'replay', '1.0', 0, 3000, 0, 0, 1500000000, 'x'),
 (3, 'c', '/x/run-raid1.bpt', 'replay', '1.0', 0, 3000, 0, 0, 2400000000, 'x'),
 (4, 'd', '/x/empty.bpt', 'capture', '1.0', 0, 0, 0, NULL, NULL, 'x');
INSERT INTO runs (trace_id, source_digest, target, timing) VALUES
 (2, 'a', 'raid0:chunk=64k:/dev/loop8,/dev/loop9', 'causal'),
 (3, 'a', 'raid1:/dev/loop8,/dev/loop9', 'causal');
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999),
 t(id, k) AS (VALUES (1, 1.0), (2, 0.5), (3, 0.8))
INSERT INTO ios (trace_id, idx, queue_ns, issue_ns, complete_ns, dev, sector, bytes, op,
	flags, pid, comm_id, cgroup_id, error)
SELECT id, i, i * 1000000 * k, i * 1000000 * k,
	i * 1000000 * k + CAST(((i * 7919) % 900 + 50) * 1000 * k AS INTEGER), 0,
	CASE WHEN i % 4 = 0 THEN (i * 104729) % 4000000 ELSE i * 2048 END,
	CASE WHEN i % 4 = 0 THEN 4096 ELSE 1048576 END, i % 2, 0, 1, 0, 0, 0
FROM n, t;
UPDATE traces SET bytes = (SELECT coalesce(sum(bytes), 0) FROM ios WHERE trace_id = traces.id);
" || fail "cannot fill the database"

for k in latency-cdf iops lba qd sizes mbps latency-time seeks-time; do
	"$BLKPEAK" analyze plot --db "$DB" --kind "$k" -o "$k.svg" 1 2 3 || fail "plot --kind $k failed"
	$CHECK svg "$k.svg" 3 || fail "$k.svg"
done
# btt's breakdown: two series (queue wait, service), a bar per trace or process
for k in btt btt-procs; do
	"$BLKPEAK" analyze plot --db "$DB" --kind "$k" -o "$k.svg" 1 2 3 || fail "plot --kind $k failed"
	$CHECK svg "$k.svg" 2 || fail "$k.svg"
done
# these runs have no member column: no members chart, said so
"$BLKPEAK" analyze plot --db "$DB" --kind members -o x.svg 1 2 3 2> err; rc=$?
[ $rc -eq 1 ] && grep -q "no I/O a members chart can show" err || fail "members without members: exit $rc, $(cat err)"
# One trace alone, and an empty trace next to a full one.
"$BLKPEAK" analyze plot --db "$DB" --kind iops -o one.svg 1 && $CHECK svg one.svg 1 || fail "one series"
"$BLKPEAK" analyze plot --db "$DB" --kind qd -o mixed.svg 4 1 && $CHECK svg mixed.svg 2 || fail "empty + full"
BLKPEAK_DB=$DB "$BLKPEAK" analyze plot --kind sizes 1 > stdout.svg && $CHECK svg stdout.svg 1 ||
	fail "\$BLKPEAK_DB and standard output"

# Bad input: exit 2 for usage, 1 for failures, no output file left.
"$BLKPEAK" analyze plot --db "$DB" --kind pie -o x.svg 1 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "'pie'" err || fail "unknown kind: exit $rc, $(cat err)"
"$BLKPEAK" analyze plot --db "$DB" --kind iops -o x.svg 1 99 2> err; rc=$?
[ $rc -eq 1 ] && grep -q "not in the database" err || fail "missing id: exit $rc, $(cat err)"
"$BLKPEAK" analyze plot --db "$DB" --kind lba -o x.svg 4 2> err; rc=$?
[ $rc -eq 1 ] && grep -q "no I/O" err || fail "empty trace: exit $rc, $(cat err)"
echo "not a database" > notdb
"$BLKPEAK" analyze plot --db notdb --kind iops -o x.svg 1 2> err; rc=$?
[ $rc -eq 1 ] && grep -q "notdb: not a" err || fail "not a db: exit $rc, $(cat err)"
[ ! -e x.svg ] && [ -z "$(ls x.svg.tmp.* 2>/dev/null)" ] || fail "a failed plot left a file"
"$BLKPEAK" analyze plot --db "$DB" --kind iops -o "$E2E_TMP/no/such/dir/x.svg" 1 2> err; rc=$?
[ $rc -eq 1 ] && grep -q "x.svg: cannot create: No such file or directory" err || fail "bad output dir: exit $rc, $(cat err)"
"$BLKPEAK" analyze plot --db "$DB" --kind iops -o x.svg 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "no trace id" err || fail "no id: exit $rc, $(cat err)"
"$BLKPEAK" analyze html --db "$DB" -o x.html 1 zz 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "'zz': not a trace id" err || fail "bad id: exit $rc, $(cat err)"
echo old > keep.svg
"$BLKPEAK" analyze plot --db "$DB" --kind iops -o keep.svg 99 2>/dev/null
[ "$(cat keep.svg)" = old ] || fail "a failed plot destroyed the previous file"

# The report.
"$BLKPEAK" analyze html --db "$DB" --title "charts test" -o report.html 1 2 3 || fail "html failed"
n=$($CHECK html-svgs report.html) || fail "report.html charts"
[ "$n" -eq 10 ] || fail "report has $n charts, expected 10 (no members chart)"
grep -q "No run here replays onto a virtual array" report.html || fail "the report does not say why it has no members chart"
grep -q '+50.0 %' report.html || fail "raid0 (2x faster) should show +50.0 % time saved"
grep -q '+20.0 %' report.html || fail "raid1 (1.25x faster) should show +20.0 % time saved"
"$BLKPEAK" analyze html --db "$DB" 1 2>/dev/null; [ $? -eq 2 ] || fail "html without -o must be a usage error"

if command -v "$CHROMIUM" >/dev/null 2>&1; then
	check_report_in_browser report.html 10
	check_report_fits report.html 1280 1920
	note "report rendered in Chromium: $E2E_TMP/report.png"
	[ -n "${KEEP_SCREENSHOT:-}" ] && cp report.png "$KEEP_SCREENSHOT"
else
	[ "${CI:-}" = true ] && fail "chromium is missing (scripts/install-deps.sh installs it)"
	note "chromium missing: browser check not run"
fi
exit 0
