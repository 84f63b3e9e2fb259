#!/bin/bash
# analyze import: two generated traces in, a second import recognised by
# digest, the database location (--db, $BLKPEAK_DB, ./blkpeak.db), row
# counts equal to the traces' records; a missing file, a truncated trace,
# a garbage file, another application's database and a newer schema each
# give a clear error and leave the database byte for byte as it was, and
# so does an import killed half-way (once the next command has run).
. "$(dirname "$0")/lib.sh"
need_cmd sqlite3 python3 sha256sum
T=$E2E_TMP
DB=$T/a.db
sum() { sha256sum "$1" | cut -d' ' -f1; }

"$BLKPEAK" generate -q --count 50000 --read-pct 70 -o "$T/a.bpt" || fail "generate a"
"$BLKPEAK" generate -q --count 20000 --pattern sequential --seed 2 -o "$T/b.bpt" || fail "generate b"

"$BLKPEAK" analyze import "$T/a.bpt" "$T/b.bpt" --db "$DB" >"$T/out" || fail "import: $(cat "$T/out")"
grep -q "a.bpt: imported as trace 1: 50000 I/Os" "$T/out" || fail "import message: $(cat "$T/out")"
grep -q "b.bpt: imported as trace 2: 20000 I/Os" "$T/out" || fail "import message: $(cat "$T/out")"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM ios WHERE trace_id = 1')" = 50000 ] || fail "ios rows of trace 1"
[ "$(sqlite3 "$DB" 'SELECT group_concat(ios) FROM traces ORDER BY id')" = "50000,20000" ] || fail "traces.ios"
for t in a b; do
	rec=$("$BLKPEAK" info --json "$T/$t.bpt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ios"])')
	got=$(sqlite3 "$DB" "SELECT ios FROM traces WHERE path LIKE '%/$t.bpt'")
	[ "$rec" = "$got" ] || fail "$t: info says $rec records, database $got"
done

# The same file again: recognised, nothing written.
before=$(sum "$DB")
"$BLKPEAK" analyze import "$T/a.bpt" --db "$DB" >"$T/out" || fail "second import failed"
grep -q "already imported as trace 1 (50000 I/Os)" "$T/out" || fail "second import message: $(cat "$T/out")"
[ "$(sum "$DB")" = "$before" ] || fail "a second import changed the database"
"$BLKPEAK" analyze import "$T/a.bpt" --db "$DB" --json | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert d["trace_id"] == 1 and d["already"] is True and d["ios"] == 50000, d' || fail "import --json"

# Where the database is: $BLKPEAK_DB, else ./blkpeak.db.
BLKPEAK_DB=$T/env.db "$BLKPEAK" analyze import -q "$T/b.bpt" || fail "import with BLKPEAK_DB"
[ -s "$T/env.db" ] || fail "\$BLKPEAK_DB not used"
mkdir "$T/cwd" && (cd "$T/cwd" && "$BLKPEAK" analyze import -q "$T/b.bpt") || fail "import to ./blkpeak.db"
[ -s "$T/cwd/blkpeak.db" ] || fail "./blkpeak.db not created"

# Bad input: each fails with a message naming the thing, database unchanged.
expect_fail() { # DESCRIPTION WORDS CMD...
	desc=$1 words=$2; shift 2
	before=$(sum "$DB")
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 1 ] || fail "$desc: exit $rc, want 1"
	grep -q -- "$words" "$T/err" || fail "$desc: message '$(cat "$T/err")' lacks '$words'"
	[ "$(sum "$DB")" = "$before" ] || fail "$desc: the database changed"
	note "$desc: $(head -1 "$T/err")"
}
expect_fail "missing trace" "nope.bpt" "$BLKPEAK" analyze import "$T/nope.bpt" --db "$DB"
"$BLKPEAK" analyze import "$T/nope.bpt" --db "$T/new.db" 2>/dev/null
[ ! -e "$T/new.db" ] || fail "a failed import created a database"

"$BLKPEAK" generate -q --count 300000 --seed 3 -o "$T/c.bpt" || fail "generate c"
size=$(stat -c %s "$T/c.bpt")
head -c $((size / 2)) "$T/c.bpt" >"$T/cut.bpt"
expect_fail "truncated trace" "truncated" "$BLKPEAK" analyze import "$T/cut.bpt" --db "$DB"
"$BLKPEAK" analyze import --partial "$T/cut.bpt" --db "$DB" >"$T/out" || fail "--partial"
grep -q "imported as trace 3: .*truncated file: complete blocks only" "$T/out" || fail "--partial: $(cat "$T/out")"
[ "$(sqlite3 "$DB" 'SELECT truncated FROM traces WHERE id = 3')" = 1 ] || fail "traces.truncated"
n=$(sqlite3 "$DB" 'SELECT count(*) FROM ios WHERE trace_id = 3')
[ "$n" -gt 0 ] && [ "$n" -lt 300000 ] || fail "--partial imported $n rows"
"$BLKPEAK" analyze report 3 --db "$DB" | grep -q "WARNING: imported from a truncated file" ||
	fail "the report of a --partial import does not say it is truncated"

head -c 100000 /dev/urandom >"$T/garbage.db"
DB=$T/garbage.db expect_fail "garbage database" "not a SQLite database" \
	"$BLKPEAK" analyze import "$T/a.bpt" --db "$T/garbage.db"
sqlite3 "$T/foreign.db" "CREATE TABLE accounts (id, balance); INSERT INTO accounts VALUES (1, 2)"
DB=$T/foreign.db expect_fail "foreign database" "not a blkpeak database" \
	"$BLKPEAK" analyze import "$T/a.bpt" --db "$T/foreign.db"
# one past the version this binary writes (its own database's)
newer=$(( $(sqlite3 "$DB" "PRAGMA user_version") + 1 ))
cp "$DB" "$T/newer.db" && sqlite3 "$T/newer.db" "PRAGMA user_version = $newer"
DB=$T/newer.db expect_fail "newer schema" "schema version $newer is newer" \
	"$BLKPEAK" analyze report 1 --db "$T/newer.db"

# An import killed half-way: the database is as it was before that
# import once the next command has run (it rolls back a hot journal: one
# whose header SQLite has written, i.e. pages of the database changed).
"$BLKPEAK" generate -q --count 6000000 --seed 4 -o "$T/big.bpt" || fail "generate big"
before=$(sum "$DB")
"$BLKPEAK" analyze import -q "$T/big.bpt" --db "$DB" & pid=$!
sleep 1.2; kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null; rc=$?
if [ $rc -eq 0 ]; then # a machine fast enough to import 6 M I/Os in 1.2 s
	[ "$(sqlite3 "$DB" 'SELECT count(*) FROM traces')" = 4 ] || fail "the finished import is missing"
	note "killed import: the import had finished, nothing to roll back"
else
	hot=no
	[ "$(head -c 8 "$DB-journal" 2>/dev/null | od -An -tx1 | tr -d ' ')" = d9d505f920a163d7 ] && hot=yes
	"$BLKPEAK" analyze query "SELECT count(*) FROM traces" --db "$DB" --csv >"$T/out" ||
		fail "query after a killed import"
	[ "$(tail -1 "$T/out" | tr -d '\r')" = 3 ] || fail "after a killed import: $(cat "$T/out")"
	[ "$(sum "$DB")" = "$before" ] || fail "the database differs from before the killed import (hot journal: $hot)"
	[ $hot = no ] || [ ! -e "$DB-journal" ] || fail "the hot journal is still there"
	note "killed import: hot journal $hot, database as before"
fi

"$BLKPEAK" analyze import --db "$DB" 2>/dev/null; [ $? -eq 2 ] || fail "no file: want exit 2"
"$BLKPEAK" analyze import --help | grep -q "^usage: blkpeak analyze import" || fail "--help"
exit 0
