#!/bin/bash
# A suite mix's `time = NAME` (schemas/suite-manifest.md): the result
# stored for the mix is recording NAME's own run file from the mix's
# replay (its I/Os alone, tagged with its name), not the whole run,
# ranked under the suite run's label (not the run file's "x in mix"); a
# name that is not a member is refused with the line.
. "$(dirname "$0")/lib.sh"
need_cmd python3
S=$E2E_TMP/s
mkdir -p "$S"
"$BLKPEAK" generate -o "$S/pe.bpt" --count 60 --seed 1 -q || fail "generate"
"$BLKPEAK" generate -o "$S/bk.bpt" --count 140 --seed 2 -q || fail "generate"
cat > "$S/suite.ini" <<INI
[suite]
name = t
[recording photo]
file = pe.bpt
repeat = 1
[recording backup]
file = bk.bpt
repeat = 1
[mix timed]
recordings = photo, backup
time = photo
repeat = 1
[mix whole]
recordings = photo, backup
repeat = 1
INI
truncate -s 2G "$E2E_TMP/t.img"
"$BLKPEAK" suite run "$S" --target "$E2E_TMP/t.img" --label x --db "$E2E_TMP/s.db" --allow-write \
	> "$E2E_TMP/out" 2>&1 || { cat "$E2E_TMP/out"; fail "suite run"; }
python3 - "$E2E_TMP/s.db" <<'PY' || fail "the stored mix results"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
got = dict(c.execute("SELECT r.workload, t.ios FROM suite_results r JOIN traces t ON t.id = r.trace_id"))
labels = {r[0] for r in c.execute("SELECT DISTINCT label FROM suite_results")}
assert labels == {'x'}, labels
assert got == {'photo causal': 60, 'backup causal': 140, 'timed causal': 60, 'whole causal': 200}, got
PY
TIMED=$(python3 - "$E2E_TMP/s.db" <<'PY'
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT t.path FROM suite_results r JOIN traces t"
      " ON t.id = r.trace_id WHERE r.workload = 'timed causal'").fetchone()[0])
PY
)
[ "$("$BLKPEAK" dump --format csv "$TIMED" | awk -F, 'NR > 1 { print $10 }' | sort -u)" = pe ] ||
	fail "the timed mix's stored run holds I/Os of other recordings"
"$BLKPEAK" analyze leaderboard "$S" --db "$E2E_TMP/s.db" > "$E2E_TMP/lb" || fail "leaderboard"
grep -q "timed causal" "$E2E_TMP/lb" || { cat "$E2E_TMP/lb"; fail "the timed mix is not ranked"; }
sed -i 's/^time = photo$/time = nope/' "$S/suite.ini"
if "$BLKPEAK" suite run "$S" --target "$E2E_TMP/t.img" --label y --db "$E2E_TMP/s.db" --allow-write \
	> "$E2E_TMP/bad" 2>&1; then fail "time = nope accepted"; fi
grep -q "time: 'nope' is not one of the mix's recordings" "$E2E_TMP/bad" || { cat "$E2E_TMP/bad"; fail "no reason"; }
note "the timed mix stored photo's 60 I/Os of the run's 200"
exit 0
