#!/bin/bash
# 09-habits.sh — one set of habits across commands (issue 25), none of
# which needs root:
# - `blkpeak measure KIND --help` is KIND's own help: its options, not the
#   other kinds';
# - a short option means one thing: capture's -t (the duration; the target
#   in replay and measure) still works this release, with a warning that
#   names --duration;
# - `analyze export -o x.csv` / `x.json` takes its format from the suffix,
#   and refuses another suffix without --csv or --json;
# - every command that takes a trace or run id takes a file too: plot,
#   html and export read trace files (into a temporary database, leaving
#   the user's database and $TMPDIR as they were), and refuse ids mixed
#   with files.
# (capture -d NAME: test_capture_devices.c and 20-capture-cli.sh.)
. "$(dirname "$0")/lib.sh"
need_cmd python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHECK="python3 $ROOT/tests/e2e/chartcheck.py"
cd "$E2E_TMP" || fail "no temp dir"

# measure KIND --help
for k in qd-sweep zcav seeks commit; do
	"$BLKPEAK" measure "$k" --help > "h-$k" 2> err || fail "measure $k --help: exit $?"
	[ ! -s err ] || fail "measure $k --help wrote to stderr: $(cat err)"
	grep -q "^usage: blkpeak measure $k --target" "h-$k" || fail "measure $k --help: $(head -1 "h-$k")"
	grep -q -- "--target" "h-$k" && grep -q -- "--ios" "h-$k" && grep -q -- "--json" "h-$k" ||
		fail "measure $k --help lacks the options every kind takes"
done
grep -q -- "--depths" h-qd-sweep && ! grep -q -- "--depths" h-zcav && ! grep -q -- "--zones" h-qd-sweep ||
	fail "measure qd-sweep/zcav --help show each other's options"
grep -q -- "--spans" h-seeks && ! grep -q -- "--fua" h-seeks && grep -q -- "--fua" h-commit ||
	fail "measure seeks/commit --help show each other's options"
"$BLKPEAK" measure --target x --help > h-all || fail "measure --help"
for o in --depths --zones --spans --fua; do
	grep -q -- "$o" h-all || fail "measure --help (no kind) lacks $o"
done

# capture -t: the old spelling of --duration, with a warning (the usage
# error that follows stops it before it needs root)
"$BLKPEAK" capture -o x.bpt -t 1 --no-such-option 2> err; rc=$?
[ $rc -eq 2 ] || fail "capture -t 1 --no-such-option: exit $rc"
grep -q "warning: capture: -t is deprecated, use --duration" err || fail "capture -t: no warning: $(cat err)"
"$BLKPEAK" capture -o x.bpt --duration 1 --no-such-option 2> err
! grep -q deprecated err || fail "capture --duration warns: $(cat err)"
"$BLKPEAK" capture --help | grep -q -- "--duration TIME" || fail "capture --help has no --duration"
"$BLKPEAK" capture --help | grep -Eq -- "^ +-t, --duration" && fail "capture --help still gives -t as --duration's short form"

# a trace, its database
"$BLKPEAK" generate -q -o t.bpt --count 3000 --seed 3 || fail "generate"
"$BLKPEAK" generate -q -o u.bpt --count 2000 --seed 4 --pattern sequential || fail "generate"
"$BLKPEAK" analyze import -q --db a.db t.bpt > /dev/null || fail "import"
cp a.db a.db.orig

# export: the format from -o's suffix, and from a file
"$BLKPEAK" analyze export --db a.db 1 -o x.csv || fail "export -o x.csv: exit $?"
head -1 x.csv | grep -q '^idx,' || fail "export -o x.csv is not CSV: $(head -c 80 x.csv)"
[ "$(wc -l < x.csv)" -eq 3001 ] || fail "x.csv has $(wc -l < x.csv) lines"
"$BLKPEAK" analyze export --db a.db 1 -o x.JSON || fail "export -o x.JSON: exit $?"
python3 -c "import json,sys; d=json.load(open('x.JSON')); assert len(d)==3000 and 'sector' in d[0]" ||
	fail "export -o x.JSON is not the JSON array"
"$BLKPEAK" analyze export --db a.db 1 -o x.txt 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "x.txt: the suffix is not .csv or .json" err || fail "export -o x.txt: exit $rc, $(cat err)"
[ ! -e x.txt ] || fail "a refused export left x.txt"
"$BLKPEAK" analyze export --db a.db 1 --json -o y.csv && head -c1 y.csv | grep -q '\[' ||
	fail "--json must win over the suffix"
TMPDIR=$E2E_TMP/tmpd; mkdir "$TMPDIR"; export TMPDIR
"$BLKPEAK" analyze export t.bpt -o f.csv || fail "export FILE: exit $?"
cmp -s x.csv f.csv || fail "export of the file differs from export of its import"

# plot and html take files
"$BLKPEAK" analyze plot --kind iops t.bpt u.bpt -o f.svg || fail "plot FILE...: exit $?"
$CHECK svg f.svg 2 > /dev/null || fail "f.svg"
grep -q 'data-label="[0-9]* t.bpt"' f.svg && grep -q 'data-label="[0-9]* u.bpt"' f.svg ||
	fail "the legend does not name the files: $(grep -o 'data-label="[^"]*"' f.svg)"
for k in latency-cdf lba qd sizes; do
	"$BLKPEAK" analyze plot --kind "$k" t.bpt -o "f-$k.svg" && $CHECK svg "f-$k.svg" 1 > /dev/null ||
		fail "plot --kind $k FILE"
done
"$BLKPEAK" analyze html -o f.html t.bpt u.bpt || fail "html FILE...: exit $?"
[ "$($CHECK html-svgs f.html)" -ge 5 ] || fail "f.html has too few charts"
"$BLKPEAK" analyze plot --kind iops --db a.db t.bpt 1 -o m.svg 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "give trace ids or trace files, not both" err || fail "ids and files mixed: exit $rc, $(cat err)"
"$BLKPEAK" analyze plot --kind iops no-such.bpt -o m.svg 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "'no-such.bpt': not a trace id" err || fail "a missing file: exit $rc, $(cat err)"
echo "not a trace" > bad.bpt
"$BLKPEAK" analyze plot --kind iops bad.bpt -o m.svg 2> err; rc=$?
[ $rc -eq 1 ] && grep -q "bad.bpt" err || fail "a bad file: exit $rc, $(cat err)"
[ ! -e m.svg ] || fail "a refused plot left m.svg"
cmp -s a.db a.db.orig || fail "reading files changed the user's database"
[ -z "$(ls -A "$TMPDIR")" ] || fail "files left in \$TMPDIR: $(ls -A "$TMPDIR")"
exit 0
