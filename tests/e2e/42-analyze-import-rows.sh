#!/bin/bash
# analyze import (schema 6, compact I/O tables behind the `ios` view):
# every field of every record comes back through the view exactly as
# `blkpeak dump` prints it, for traces with every operation, flag, error,
# device, completion kind and the replay columns, two traces in one
# database; `analyze export` gives the same rows. A version-5 database
# (absolute issue times, no io_marks), a version-4 one
# (tables as the old binary made them: schemas/analyze.sql of version 4,
# rows inserted the old way) and a version-3 one (no measurement tables,
# ios without the view) are migrated by the next import with every row,
# report and export unchanged.
. "$(dirname "$0")/lib.sh"
need_cmd sqlite3 python3 cc
T=$E2E_TMP
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DB=$T/a.db

cc_libbpt "$T/mktrace" "$ROOT/tests/e2e/import_mktrace.c" || fail "cannot build import_mktrace (run make first)"
"$T/mktrace" "$T/c.bpt" 3000 1 || fail "mktrace c"
"$T/mktrace" "$T/r.bpt" 2000 2 replay || fail "mktrace r"
"$BLKPEAK" generate -q --count 5000 --read-pct 70 -o "$T/g.bpt" || fail "generate"

# Rows of trace ID through the view, against dump's JSON of FILE.
same_as_dump() { # DB ID FILE
	"$BLKPEAK" dump --format json "$3" >"$T/dump.json" || fail "dump $3"
	"$BLKPEAK" analyze query --db "$1" --json "SELECT i.*, d.name AS devname, p.comm AS comm
		FROM ios i JOIN devices d ON d.trace_id = i.trace_id AND d.idx = i.dev
		JOIN processes p ON p.trace_id = i.trace_id AND p.comm_id = i.comm_id
		WHERE i.trace_id = $2 ORDER BY i.idx" >"$T/rows.json" || fail "query trace $2"
	python3 - "$T/dump.json" "$T/rows.json" "$3" <<'EOF' || fail "trace $2 ($3): rows differ from dump"
import json, sys
from decimal import Decimal
dump = json.load(open(sys.argv[1]), parse_float=Decimal)
rows = json.load(open(sys.argv[2]))
ns = lambda us: int(Decimal(us) * 1000)
ops = ["read", "write", "flush", "discard", "write-zeroes"]
done = {"seen": 0, "reused": 1, "pending": 2}
assert len(dump) == len(rows) > 0, (len(dump), len(rows))
for i, (d, r) in enumerate(zip(dump, rows)):
    want = {"idx": i, "queue_ns": ns(d["queue_us"]), "issue_ns": ns(d["issue_us"]),
            "complete_ns": ns(d["complete_us"]), "devname": d["dev"], "sector": d["sector"],
            "bytes": d["bytes"], "op": ops.index(d["op"]),
            "flags": sum(1 << "SFPMA".index(c) for c in d["flags"]), "pid": d["pid"],
            "comm": d["comm"], "cgroup_id": d["cgroup"], "error": d["error"],
            "sched_ns": ns(d["sched_us"]) if "sched_us" in d else None,
            "source_index": d.get("source"), "member": d.get("member"),
            "completion": done[d.get("completion", "seen")]}
    got = dict(r, cgroup_id=r["cgroup_id"] % 2**64)
    for k, v in want.items():
        assert got[k] == v, (sys.argv[3], i, k, got[k], v)
print(len(rows), "rows equal", file=sys.stderr)
EOF
}

"$BLKPEAK" analyze import -q --db "$DB" "$T/c.bpt" "$T/r.bpt" "$T/g.bpt" || fail "import"
[ "$(sqlite3 "$DB" 'PRAGMA user_version')" = 11 ] || fail "schema version"
same_as_dump "$DB" 1 "$T/c.bpt"
same_as_dump "$DB" 2 "$T/r.bpt"
same_as_dump "$DB" 3 "$T/g.bpt"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM io_replay')" = 2000 ] || fail "io_replay rows (only the run's)"
# issue times are stored as deltas from their block's mark, the middle of
# the block's issue times (every block but one a previous trace began):
# no delta is more than half the block's span, and on the generated trace
# (g.bpt, dense) each fits in 3 bytes (SQLite's int24) where issue_ns
# takes 4 to 6
blocks="SELECT t.id AS id, r.rowid >> 6 AS blk, max(abs(r.issue_delta)) AS d,
	max(m.issue_ns + r.issue_delta) - min(m.issue_ns + r.issue_delta) AS span
	FROM traces t JOIN io_rows r ON r.rowid >= (t.io_base + 63) / 64 * 64
	AND r.rowid < t.io_base + t.ios JOIN io_marks m ON m.blk = r.rowid >> 6 GROUP BY t.id, blk"
[ "$(sqlite3 "$DB" "SELECT count(*), sum(d > (span + 1) / 2) FROM ($blocks)")" = \
  "$(sqlite3 "$DB" "SELECT sum((io_base + ios - 1) / 64 - (io_base + 63) / 64 + 1), 0 FROM traces")" ] ||
	fail "deltas not from the middle of their block: $(sqlite3 "$DB" "SELECT count(*), sum(d > (span + 1) / 2) FROM ($blocks)")"
[ "$(sqlite3 "$DB" "SELECT max(d) < 8388608, (SELECT max(issue_ns) >= 8388608 FROM ios WHERE trace_id = 3)
	FROM ($blocks) WHERE id = 3")" = "1|1" ] ||
	fail "g.bpt: issue times stored in more than 3 bytes"
[ "$(sqlite3 "$DB" "SELECT count(*) = (SELECT max(rowid) >> 6 FROM io_rows) + 1 FROM io_marks")" = 1 ] ||
	fail "not one mark per block of 64 I/Os"
# the report reads the tables, not the view: a block without its mark or
# an I/O of a kind not in io_kinds (a damaged database) is an error, not
# rows silently left out
cp "$DB" "$T/dmg.db"
sqlite3 "$T/dmg.db" "DELETE FROM io_marks WHERE blk = (SELECT (io_base + 100) >> 6 FROM traces WHERE id = 2)"
"$BLKPEAK" analyze report --db "$T/dmg.db" 2 >/dev/null 2>"$T/err" && fail "report without a mark"
grep -q "trace 2: the block of I/O rowid [0-9]* has no mark (io_marks)" "$T/err" || fail "no mark: $(cat "$T/err")"
cp "$DB" "$T/dmg.db"
sqlite3 "$T/dmg.db" "DELETE FROM io_kinds WHERE trace_id = 3 AND kind = 1"
"$BLKPEAK" analyze report --db "$T/dmg.db" 3 >/dev/null 2>"$T/err" && fail "report without a kind"
grep -q "trace 3: I/O rowid [0-9]*: kind 1 is not in io_kinds" "$T/err" || fail "no kind: $(cat "$T/err")"
note "views equal dump: $(sqlite3 "$DB" 'SELECT group_concat(n) FROM (SELECT count(*) AS n FROM io_kinds GROUP BY trace_id)') kinds"

# A database of schema version 7 (no file columns), 5 (absolute issue
# times in io_rows, no io_marks), 4 (3: without the measurement tables): traces 1 and 2 of $DB
# in the tables of those versions, made by taking the version-6 (and
# version-5) objects back out.
old_db() { # VERSION PATH
	cp "$DB" "$2"
	sqlite3 "$2" "DELETE FROM io_kinds WHERE trace_id = 3; DELETE FROM devices WHERE trace_id = 3;
		DELETE FROM processes WHERE trace_id = 3; DELETE FROM traces WHERE id = 3;
		DELETE FROM io_rows WHERE rowid >= (SELECT sum(ios) FROM traces) + 1" ||
		fail "take trace 3 out"
	if [ "$1" = 7 ]; then
		db_to_v7 "$2" || fail "make a v7 database"
		return
	fi
	if [ "$1" = 5 ]; then
		db_to_v5 "$2" || fail "make a v5 database"
		sqlite3 "$2" VACUUM
		return
	fi
	{ db_to_v4 "$2" && sqlite3 "$2" VACUUM; } || fail "make a v4 database"
	if [ "$1" = 3 ]; then
		sqlite3 "$2" "DROP TABLE measurement_points; DROP TABLE measurements; PRAGMA user_version = 3" ||
			fail "make a v3 database"
	fi
}
for v in 7 5 4 3; do
	old_db $v "$T/v$v.db"
	[ "$(sqlite3 "$T/v$v.db" "SELECT type FROM sqlite_master WHERE name = 'ios'")" = \
	  "$([ $v -ge 5 ] && echo view || echo table)" ] || fail "v$v: ios has the wrong type"
	[ "$(sqlite3 "$T/v$v.db" "SELECT count(*) FROM sqlite_master WHERE name = 'io_marks'")" = \
	  "$([ $v = 7 ] && echo 1 || echo 0)" ] || fail "v$v: io_marks is (not) there"
	[ "$(sqlite3 "$T/v$v.db" "SELECT count(*) FROM sqlite_master WHERE name = 'io_files'")" = 0 ] ||
		fail "v$v: io_files is there"
	"$BLKPEAK" analyze report --db "$T/v$v.db" 2 >/dev/null 2>"$T/err" && fail "v$v: read-only report did not ask for a migration"
	"$BLKPEAK" analyze import -q --db "$T/v$v.db" "$T/g.bpt" || fail "v$v: import (migration)"
	[ "$(sqlite3 "$T/v$v.db" 'PRAGMA user_version')" = 11 ] || fail "v$v: not migrated"
	[ "$(sqlite3 "$T/v$v.db" "SELECT type FROM sqlite_master WHERE name = 'ios'")" = view ] || fail "v$v: ios is no view"
	sqlite3 "$T/v$v.db" "SELECT count(*) FROM measurements" >/dev/null || fail "v$v: no measurement table"
	for id in 1 2; do
		[ "$(sqlite3 "$T/v$v.db" "SELECT * FROM ios WHERE trace_id = $id ORDER BY idx" | md5sum)" = \
		  "$(sqlite3 "$DB" "SELECT * FROM ios WHERE trace_id = $id ORDER BY idx" | md5sum)" ] ||
			fail "v$v: trace $id's rows changed in the migration"
		for cmd in "report --json" "export --csv"; do
			# shellcheck disable=SC2086
			[ "$("$BLKPEAK" analyze $cmd --db "$T/v$v.db" $id | md5sum)" = \
			  "$("$BLKPEAK" analyze $cmd --db "$DB" $id | md5sum)" ] || fail "v$v: $cmd $id differs"
		done
	done
	# the trace imported after the migration went after the converted rows
	same_as_dump "$T/v$v.db" 3 "$T/g.bpt"
	[ "$(sqlite3 "$T/v$v.db" "SELECT count(*) FROM traces")" = 3 ] || fail "v$v: g.bpt imported again"
done
note "v7, v5, v4 and v3 databases migrated, rows, reports and exports equal"
