#!/bin/bash
# suite run refuses, before anything runs, a manifest whose items it
# could not run as written: a speed at which a recording would outlast
# replay's longest schedule (the estimate printed a negative number of
# seconds, then each replay failed) and a sweep named as a replay's items
# ('a.causal' beside [recording a]: it was marked done with the replay and
# never run); and it passes measure the weights in the form measure
# takes (' 4:0.5' was refused by the sweep, after the replays ran).
# Dry runs only: no I/O.
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
S=$T/suite
mkdir -p "$S"
export BLKPEAK_DB=$T/s.db
"$BLKPEAK" generate -q --count 20 -o "$S/a.bpt" || fail "generate"

printf '[recording a]\nfile = a.bpt\nspeed = 1e-300\n' >"$S/suite.ini"
"$BLKPEAK" suite run "$S" --target "$T/x.img" --label x --dry-run >"$T/out" 2>"$T/err" &&
	fail "a speed past the longest schedule was taken: $(cat "$T/out")"
grep -q "suite.ini:1): speed = 1e-300: the replay would last .* past replay's longest schedule" \
	"$T/err" || fail "speed: $(cat "$T/out" "$T/err")"
grep -q -- "-[0-9]* s" "$T/out" && fail "a negative estimate: $(cat "$T/out")"

printf '[recording a]\nfile = a.bpt\nspeed = 0.5\n' >"$S/suite.ini"
"$BLKPEAK" suite run "$S" --target "$T/x.img" --label x --dry-run >"$T/out" 2>"$T/err" ||
	fail "speed 0.5: $(cat "$T/err")"

printf '[recording a]\nfile = a.bpt\n[measure a.causal]\npattern = random\n' >"$S/suite.ini"
"$BLKPEAK" suite run "$S" --target "$T/x.img" --label x --dry-run >"$T/out" 2>"$T/err" &&
	fail "a sweep named as the replay's items was taken: $(cat "$T/out")"
grep -q "\[measure a.causal\]: its results would be named as those of \[recording a\]" "$T/err" ||
	fail "collision: $(cat "$T/err")"
# weights written with blanks reach measure as its --weights takes them
printf '[measure w]\npattern = random\ndepths = 1, 4\nweights = 1:0.5, 4 : 0.5\n' >"$S/suite.ini"
"$BLKPEAK" suite run "$S" --target "$T/x.img" --label x --dry-run >"$T/out" 2>"$T/err" ||
	fail "weights with blanks: $(cat "$T/err")"
grep -q -- "--weights 1:0.5,4:0.5 " "$T/out" || fail "weights passed as: $(grep -- --weights "$T/out")"
# the commands --dry-run shows never show a --db password (URI or key=value)
printf '[recording a]\nfile = a.bpt\n' >"$S/suite.ini"
for db in 'postgresql://u:s3cret@127.0.0.1:1/db' 'host=/tmp password=s3cret dbname=x'; do
	"$BLKPEAK" suite run "$S" --target "$T/x.img" --label x --dry-run --db "$db" >"$T/out" 2>&1 ||
		fail "dry run with --db $db: $(cat "$T/out")"
	grep -q -- "--db" "$T/out" || fail "dry run shows no --db: $(cat "$T/out")"
	grep -q s3cret "$T/out" && fail "dry run prints the password: $(grep s3cret "$T/out" | head -1)"
done
note "a speed past the longest schedule and a sweep named as a replay's items are refused; no password shown"
exit 0
