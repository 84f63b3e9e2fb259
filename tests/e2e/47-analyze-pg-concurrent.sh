#!/bin/bash
# Many importers, one PostgreSQL store (issue 28), on a private server
# (tests/pg.sh): 10 rounds of four processes importing four different
# traces and one shared trace into one new database at once (the schema
# is created by whichever comes first): every trace once, every I/O once,
# one partition per trace, no table left over; a connection killed in
# the middle of an import (pg_terminate_backend while its COPY of the
# I/O rows runs, the longest part; the rest takes milliseconds)
# leaves nothing behind, and the same file imports afterwards.
# e2e-timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../pg.sh"
need_cmd psql
T=$E2E_TMP
pg_start

for i in 1 2 3 4; do
	"$BLKPEAK" generate -q --count $((5000 * i)) --seed $i -o "$T/t$i.bpt" || fail "generate $i"
done
"$BLKPEAK" generate -q --count 7000 --seed 99 --read-pct 30 -o "$T/shared.bpt" || fail "generate shared"
want=$((5000 + 10000 + 15000 + 20000 + 7000))

for r in $(seq 10); do
	pg_psql -c "CREATE DATABASE r$r" >/dev/null || fail "createdb r$r"
	db="postgresql://blkpeak@/r$r?host=$PG_DIR"
	pids=""
	for i in 1 2 3 4; do
		if [ $((i % 2)) -eq 0 ]; then files="$T/shared.bpt $T/t$i.bpt"; else files="$T/t$i.bpt $T/shared.bpt"; fi
		# shellcheck disable=SC2086
		"$BLKPEAK" analyze import -q $files --db "$db" 2>"$T/err.$i" &
		pids="$pids $!"
	done
	i=0
	for p in $pids; do
		i=$((i + 1))
		wait "$p" || fail "round $r: importer $i failed: $(cat "$T/err.$i")"
	done
	q() { psql "$db" -qAt -c "$1"; }
	[ "$(q 'SELECT count(*), count(DISTINCT digest) FROM traces')" = "5|5" ] ||
		fail "round $r: traces $(q 'SELECT id, digest, path FROM traces')"
	[ "$(q 'SELECT count(*) FROM ios')" = $want ] || fail "round $r: $(q 'SELECT count(*) FROM ios') I/Os, want $want"
	[ "$(q 'SELECT sum(ios) FROM traces')" = $want ] || fail "round $r: traces.ios"
	[ "$(q "SELECT count(*) FROM pg_inherits WHERE inhparent = 'io_rows'::regclass")" = 5 ] || fail "round $r: partitions"
	[ "$(q "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'io_rows_t%'")" = 5 ] || fail "round $r: tables left over"
	[ "$(q 'SELECT count(*) FROM (SELECT trace_id, idx FROM ios GROUP BY 1, 2 HAVING count(*) > 1) d')" = 0 ] ||
		fail "round $r: an I/O twice"
done
note "10 rounds of 4 importers: 5 traces, $want I/Os each round"

# A connection killed mid-import.
"$BLKPEAK" generate -q --count 3000000 --seed 7 -o "$T/big.bpt" || fail "generate big"
db="postgresql://blkpeak@/r1?host=$PG_DIR"
PGAPPNAME=blkpeak-victim "$BLKPEAK" analyze import -q "$T/big.bpt" --db "$db" 2>"$T/kill.err" &
victim=$!
deadline=$(( $(date +%s) + 120 ))
while :; do
	pid=$(pg_psql -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'blkpeak-victim'
		AND query LIKE 'COPY io_rows%' AND state = 'active'")
	[ -n "$pid" ] && break
	kill -0 $victim 2>/dev/null || fail "the import ended before its COPY was seen: $(cat "$T/kill.err")"
	[ "$(date +%s)" -lt $deadline ] || fail "no COPY of the import seen in 120 s"
	sleep 0.01
done
pg_psql -c "SELECT pg_terminate_backend($pid)" >/dev/null || fail "pg_terminate_backend"
wait $victim && fail "the import succeeded though its connection was killed"
grep -q "postgresql://blkpeak@/r1" "$T/kill.err" || fail "kill message: $(cat "$T/kill.err")"
q() { psql "$db" -qAt -c "$1"; }
[ "$(q 'SELECT count(*) FROM traces')" = 5 ] || fail "a killed import left a trace: $(q 'SELECT id, path FROM traces')"
[ "$(q "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'io_rows_t%'")" = 5 ] || fail "a killed import left a table"
[ "$(q 'SELECT count(*) FROM ios')" = $want ] || fail "a killed import left I/Os"
"$BLKPEAK" analyze import -q "$T/big.bpt" --db "$db" || fail "import after the kill"
[ "$(q 'SELECT count(*) FROM ios')" = $((want + 3000000)) ] || fail "the import after the kill is not whole"
note "killed import: nothing left; $(cat "$T/kill.err")"
exit 0
