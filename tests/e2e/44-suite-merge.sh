#!/bin/bash
# analyze merge carries a suite's results (the leaderboard's rows) with
# the runs and measurements they name: the leaderboard of the merged
# database is the source's (the rows were left behind: "no results of
# suite version ..."); merging again copies none, and a result the
# destination had keeps pointing at its own run and measurement. Into
# SQLite and into PostgreSQL (a private server, tests/pg.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../pg.sh"
need_cmd sqlite3 psql
T=$E2E_TMP
S=$T/suite
mkdir -p "$S"
"$BLKPEAK" generate -q --count 40 --span 64m -o "$S/a.bpt" || fail "generate"
cat >"$S/suite.ini" <<'INI'
[recording a]
file = a.bpt
repeat = 1
timing = afap
[measure sweep]
pattern = random
depths = 1,2
ios = 50
INI
truncate -s 256M "$T/x.img"
"$BLKPEAK" suite run "$S" --target "$T/x.img" --label x --db "$T/a.db" >"$T/out" 2>&1 ||
	fail "suite run: $(cat "$T/out")"
"$BLKPEAK" analyze leaderboard "$S" --db "$T/a.db" --csv >"$T/a.csv" || fail "leaderboard a"

"$BLKPEAK" analyze merge "$T/a.db" --db "$T/b.db" --json >"$T/m1.json" || fail "merge"
grep -q '"suite_results":2,"suite_results_there":0' "$T/m1.json" || fail "merge: $(cat "$T/m1.json")"
"$BLKPEAK" analyze leaderboard "$S" --db "$T/b.db" --csv >"$T/b.csv" 2>"$T/err" ||
	fail "leaderboard of the merged database: $(cat "$T/err")"
cmp -s "$T/a.csv" "$T/b.csv" || fail "leaderboards differ: $(diff "$T/a.csv" "$T/b.csv")"
[ "$(sqlite3 "$T/b.db" "SELECT count(*) FROM suite_results r JOIN traces t ON t.id = r.trace_id")" = 1 ] ||
	fail "the replay's result names no run"
[ "$(sqlite3 "$T/b.db" "SELECT count(*) FROM suite_results r JOIN measurements m ON m.id = r.measurement_id")" = 1 ] ||
	fail "the sweep's result names no measurement"

"$BLKPEAK" analyze merge "$T/a.db" --db "$T/b.db" --json >"$T/m2.json" || fail "merge again"
grep -q '"suite_results":0,"suite_results_there":2' "$T/m2.json" || fail "again: $(cat "$T/m2.json")"
cmp -s "$T/a.csv" <("$BLKPEAK" analyze leaderboard "$S" --db "$T/b.db" --csv) ||
	fail "the leaderboard changed on merging again"
pg_start
"$BLKPEAK" analyze merge "$T/a.db" --db "$PG_URI" --json >"$T/p1.json" 2>"$T/err" ||
	fail "merge into PostgreSQL: $(cat "$T/err")"
grep -q '"suite_results":2,"suite_results_there":0' "$T/p1.json" || fail "merge: $(cat "$T/p1.json")"
"$BLKPEAK" analyze leaderboard "$S" --db "$PG_URI" --csv >"$T/p.csv" 2>"$T/err" ||
	fail "leaderboard on PostgreSQL: $(cat "$T/err")"
cmp -s "$T/a.csv" "$T/p.csv" || fail "leaderboards differ: $(diff "$T/a.csv" "$T/p.csv")"
"$BLKPEAK" analyze merge "$T/a.db" --db "$PG_URI" --json >"$T/p2.json" || fail "merge again into PostgreSQL"
grep -q '"suite_results":0,"suite_results_there":2' "$T/p2.json" || fail "again: $(cat "$T/p2.json")"
note "a suite's results merged with their runs and sweeps, into SQLite and PostgreSQL; merging again copies none"
exit 0
