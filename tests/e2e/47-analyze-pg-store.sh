#!/bin/bash
# The analysis database on PostgreSQL (issue 28), against a private
# server (tests/pg.sh): the same traces - a real capture, a replay run of
# it on another disk, a generated trace - imported into SQLite and into
# PostgreSQL give the same report --json and compare --json key by key,
# the same export, chart and html; label and the stored comparison reach
# the server; query runs read-only there (writes, a second statement and
# trace_ios refused); connection errors are one line without the
# password; merge of two SQLite databases of two hosts into PostgreSQL
# and into SQLite copies each thing once, keeps the hosts, and compares
# the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
. "$(dirname "$0")/../pg.sh"
need_capture
need_cmd sqlite3 python3 psql
T=$E2E_TMP
pg_start
PG=$PG_URI

# A real capture of files on ext4 (file, path and cause columns), and
# its replay on another disk.
need_cmd mkfs.ext4
A=$(make_loop 64M cap) && R=$(make_loop 64M run) || fail "loop devices"
mkfs.ext4 -q -F "$A" || fail "mkfs.ext4"
mkdir "$T/mnt" && mount "$A" "$T/mnt" || fail "mount"
at_exit "umount '$T/mnt' 2>/dev/null"
settle
"$BLKPEAK" capture -q -o "$T/cap.bpt" -d "$A" -- sh -c "
	dd if=/dev/urandom of=$T/mnt/photo.raw bs=64k count=200 conv=fsync status=none &&
	dd if=/dev/urandom of=$T/mnt/notes.txt bs=4k count=50 status=none && sync &&
	dd if=$T/mnt/photo.raw of=/dev/null bs=4k count=1000 iflag=direct status=none" \
	>/dev/null 2>"$T/cap.err" || fail "capture: $(cat "$T/cap.err")"
umount "$T/mnt" || fail "umount"
"$BLKPEAK" replay "$T/cap.bpt" --target "$R" --allow-write --timing afap -o "$T/run.bpt" >/dev/null 2>"$T/err" ||
	fail "replay: $(cat "$T/err")"
"$BLKPEAK" generate -q --count 50000 --read-pct 60 --queue-depth 8 --bs 4k:60,64k:40 \
	-o "$T/gen.bpt" || fail "generate"

for db in "$T/s.db" "$PG"; do
	"$BLKPEAK" analyze import -q "$T/cap.bpt" "$T/run.bpt" "$T/gen.bpt" --db "$db" 2>"$T/err" ||
		fail "import into $db: $(cat "$T/err")"
done
[ "$(pg_psql -c 'SELECT count(*) FROM traces')" = 3 ] || fail "not 3 traces on the server"
[ "$(pg_psql -c "SELECT count(*) FROM pg_inherits WHERE inhparent = 'io_rows'::regclass")" = 3 ] ||
	fail "not one partition per trace"
# schema 10: the run's replay columns and the capture's data I/Os' files
# are rows of their own tables, the generated trace has none
[ "$(pg_psql -c "SELECT string_agg(DISTINCT trace_id::text, ',') FROM io_replay")" = 2 ] ||
	fail "io_replay: $(pg_psql -c 'SELECT trace_id, count(*) FROM io_replay GROUP BY 1')"
[ "$(pg_psql -c "SELECT string_agg(DISTINCT trace_id::text, ',') FROM io_files")" = 1 ] ||
	fail "io_files: $(pg_psql -c 'SELECT trace_id, count(*) FROM io_files GROUP BY 1')"
q_all="SELECT trace_id, idx, queue_ns, issue_ns, complete_ns, sector, cgroup_id, pid, bytes,
	sched_ns, source_index, file_dev, inode, file_offset, file_bytes, file2_dev, inode2,
	file2_offset, file2_bytes, cause_pid, cause_cgroup, cause2_pid, cause2_cgroup, comm_id, dev,
	error, member, cause_comm_id, cause2_comm_id, op, flags, completion, file_class
	FROM ios ORDER BY trace_id, idx"
[ "$(sqlite3 -separator '|' "$T/s.db" "$q_all" | md5sum)" = "$(pg_psql -c "$q_all" | md5sum)" ] ||
	fail "the view ios differs from SQLite's"
[ "$(pg_psql -c 'SELECT count(*) FROM ios')" = "$(sqlite3 "$T/s.db" 'SELECT count(*) FROM ios')" ] ||
	fail "the I/O counts differ"
[ "$(pg_psql -c 'SELECT count(*) FROM traces WHERE host_id IS NULL OR imported_on IS NULL OR imported_by IS NULL')" = 0 ] ||
	fail "hosts or importer not recorded: $(pg_psql -c 'SELECT * FROM traces')"

# Every figure: report of each trace, compare of the capture and its run.
same_json() { python3 - "$1" "$2" "$3" <<'PY' || fail "$3: SQLite and PostgreSQL differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def walk(x, y, path):
    if type(x) != type(y):
        sys.exit(f"{sys.argv[3]}: {path}: {x!r} != {y!r}")
    if isinstance(x, dict):
        if x.keys() != y.keys():
            sys.exit(f"{sys.argv[3]}: {path}: keys {sorted(x.keys() ^ y.keys())}")
        for k in x:
            walk(x[k], y[k], f"{path}.{k}")
    elif isinstance(x, list):
        if len(x) != len(y):
            sys.exit(f"{sys.argv[3]}: {path}: {len(x)} != {len(y)} items")
        for i, (u, v) in enumerate(zip(x, y)):
            walk(u, v, f"{path}[{i}]")
    elif x != y:
        sys.exit(f"{sys.argv[3]}: {path}: {x!r} != {y!r}")
walk(a, b, "$")
PY
}
for id in 1 2 3; do
	"$BLKPEAK" analyze report "$id" --json --db "$T/s.db" >"$T/r$id.s.json" || fail "report $id (SQLite)"
	"$BLKPEAK" analyze report "$id" --json --db "$PG" >"$T/r$id.p.json" 2>"$T/err" ||
		fail "report $id (PostgreSQL): $(cat "$T/err")"
	same_json "$T/r$id.s.json" "$T/r$id.p.json" "report $id"
done
# A report places each row at its idx; the working copy (export, plot)
# reads a partition in its physical order, checked row by row, and one
# rewritten out of idx order (CLUSTER on a descending index) is read
# again sorted: the same report and export.
pg_psql -c "CREATE INDEX io_rows_t3_desc ON io_rows_t3 (idx DESC)" \
	-c "CLUSTER io_rows_t3 USING io_rows_t3_desc" >/dev/null || fail "cluster"
[ "$(pg_psql -c 'SELECT idx FROM io_rows_t3 LIMIT 1')" != 0 ] || fail "the partition is still in idx order"
"$BLKPEAK" analyze report 3 --json --db "$PG" >"$T/r3.c.json" || fail "report of a clustered partition"
same_json "$T/r3.s.json" "$T/r3.c.json" "report 3 after CLUSTER"
"$BLKPEAK" analyze export 3 --csv --db "$T/s.db" >"$T/e3.s.csv" &&
	"$BLKPEAK" analyze export 3 --csv --db "$PG" >"$T/e3.p.csv" || fail "export of a clustered partition"
cmp -s "$T/e3.s.csv" "$T/e3.p.csv" || fail "export 3 after CLUSTER differs"
# Service times of 2^31 ns or more (3 s and 2.5 s, an MSR trace) do not
# fit io_rows' 4-byte columns: io_wide holds them, the view and the
# report give them exactly.
printf '%s\n' 128166372003061629,hm,0,Read,383496192,32768,30000000 \
	128166372003061700,hm,0,Write,4096,4096,1500 128166372003061800,hm,0,Read,8192,4096,25000000 \
	>"$T/long.csv"
"$BLKPEAK" convert -q "$T/long.csv" -o "$T/long.bpt" || fail "convert long.csv"
pg_psql -c "CREATE DATABASE wide" >/dev/null
WIDE="postgresql://blkpeak@/wide?host=$PG_DIR"
n=0
for db in "$T/w.db" "$WIDE"; do
	n=$((n + 1))
	"$BLKPEAK" analyze import -q "$T/long.bpt" --db "$db" || fail "import long.bpt into $db"
	"$BLKPEAK" analyze report 1 --json --db "$db" >"$T/w$n.json" || fail "report of long.bpt from $db"
done
same_json "$T/w1.json" "$T/w2.json" "report of long.bpt"
[ "$(psql "$WIDE" -qAt -c 'SELECT idx, service_ns FROM io_wide ORDER BY idx' | tr '\n' ' ')" = "0|3000000000 2|2500000000 " ] ||
	fail "io_wide: $(psql "$WIDE" -qAt -c 'SELECT * FROM io_wide')"
q_t="SELECT idx, queue_ns, issue_ns, complete_ns FROM ios ORDER BY idx"
[ "$(sqlite3 "$T/w.db" "$q_t")" = "$(psql "$WIDE" -qAt -c "$q_t")" ] || fail "long times differ in ios"
"$BLKPEAK" analyze report 1 --files '*photo*' --json --db "$T/s.db" >"$T/f.s.json" &&
	"$BLKPEAK" analyze report 1 --files '*photo*' --json --db "$PG" >"$T/f.p.json" || fail "report --files"
same_json "$T/f.s.json" "$T/f.p.json" "report 1 --files"
# a run under --files: its I/Os kept by the files of the trace it
# replayed (both traces' rows held at once on PostgreSQL)
"$BLKPEAK" analyze report 2 --files '*photo*' --json --db "$T/s.db" >"$T/f2.s.json" &&
	"$BLKPEAK" analyze report 2 --files '*photo*' --json --db "$PG" >"$T/f2.p.json" || fail "report 2 --files"
same_json "$T/f2.s.json" "$T/f2.p.json" "report 2 --files"
q_files="SELECT file, count(*), sum(file_bytes), count(DISTINCT file_path), count(cause_comm)
	 FROM io_detail WHERE trace_id = 1 GROUP BY file ORDER BY file"
[ "$(sqlite3 "$T/s.db" "$q_files")" = "$(pg_psql -c "$q_files")" ] ||
	fail "file columns differ: $(sqlite3 "$T/s.db" "$q_files") / $(pg_psql -c "$q_files")"
pg_psql -c "SELECT count(*) FROM io_detail WHERE trace_id = 1 AND file_path LIKE '%photo.raw'" | grep -q '^[1-9]' ||
	fail "no I/O of photo.raw with its path on the server"
BLKPEAK_DB=$PG "$BLKPEAK" analyze report 3 --json >"$T/r3.env.json" || fail "report with BLKPEAK_DB=URI"
same_json "$T/r3.s.json" "$T/r3.env.json" "report 3 (BLKPEAK_DB)"
"$BLKPEAK" analyze compare 1 --json --no-store --db "$T/s.db" >"$T/c.s.json" || fail "compare (SQLite)"
"$BLKPEAK" analyze compare 1 --json --no-store --db "$PG" >"$T/c.p.json" || fail "compare (PostgreSQL)"
same_json "$T/c.s.json" "$T/c.p.json" "compare 1"
"$BLKPEAK" analyze export 2 --csv --db "$T/s.db" >"$T/e.s.csv" && "$BLKPEAK" analyze export 2 --csv --db "$PG" >"$T/e.p.csv" ||
	fail "export"
cmp -s "$T/e.s.csv" "$T/e.p.csv" || fail "export differs"
for k in latency-cdf qd lba; do
	"$BLKPEAK" analyze plot 1 --kind $k --db "$T/s.db" -o "$T/p.s.svg" &&
		"$BLKPEAK" analyze plot 1 --kind $k --db "$PG" -o "$T/p.p.svg" || fail "plot $k"
	cmp -s "$T/p.s.svg" "$T/p.p.svg" || fail "plot $k differs"
done
"$BLKPEAK" analyze html 1 --db "$T/s.db" -o "$T/h.s.html" && "$BLKPEAK" analyze html 1 --db "$PG" -o "$T/h.p.html" ||
	fail "html"
[ "$(diff "$T/h.s.html" "$T/h.p.html" | grep -c '^[<>]')" -le 2 ] || fail "html differs beyond its source line"

# A schema-7 store (made from a new one, as db_to_v6 does for SQLite: the
# I/Os back into one wide partitioned table `ios`, schema 9's, then the
# columns of 8 dropped) is refused read-only and migrated by the next
# import (7 -> 8 -> 9 -> 10: the rows move into io_rows and io_kinds).
pg_psql -c "CREATE DATABASE v7" >/dev/null
V7="postgresql://blkpeak@/v7?host=$PG_DIR"
"$BLKPEAK" analyze import -q "$T/gen.bpt" "$T/long.bpt" --db "$V7" || fail "import into v7"
psql "$V7" -qAt -v ON_ERROR_STOP=1 -c "CREATE TABLE ios_v9 (trace_id bigint NOT NULL,
	idx bigint NOT NULL, queue_ns bigint NOT NULL, issue_ns bigint NOT NULL,
	complete_ns bigint NOT NULL, sector bigint NOT NULL, cgroup_id bigint NOT NULL,
	pid bigint NOT NULL, bytes bigint NOT NULL, sched_ns bigint, source_index bigint,
	file_dev bigint, inode bigint, file_offset bigint, file_bytes bigint, file2_dev bigint,
	inode2 bigint, file2_offset bigint, file2_bytes bigint, cause_pid bigint,
	cause_cgroup bigint, cause2_pid bigint, cause2_cgroup bigint, comm_id integer NOT NULL,
	dev integer NOT NULL, error integer NOT NULL, member integer, cause_comm_id integer,
	cause2_comm_id integer, op smallint NOT NULL, flags smallint NOT NULL,
	completion smallint NOT NULL, file_class smallint) PARTITION BY LIST (trace_id);
	CREATE TABLE ios_t1 PARTITION OF ios_v9 FOR VALUES IN (1);
	CREATE TABLE ios_t2 PARTITION OF ios_v9 FOR VALUES IN (2);
	INSERT INTO ios_v9 SELECT * FROM ios;
	DROP VIEW io_detail; DROP VIEW ios;
	DROP TABLE io_rows, io_kinds, io_replay, io_files, io_files2, io_wide;
	ALTER TABLE ios_v9 RENAME TO ios;
	CREATE VIEW io_detail AS SELECT ios.* FROM ios; UPDATE blkpeak_schema SET version = 9" ||
	fail "making a schema-9 store"
psql "$V7" -qAt -v ON_ERROR_STOP=1 -c "DROP VIEW io_detail; ALTER TABLE ios DROP COLUMN file_dev,
	DROP COLUMN inode, DROP COLUMN file_offset, DROP COLUMN file_bytes, DROP COLUMN file2_dev,
	DROP COLUMN inode2, DROP COLUMN file2_offset, DROP COLUMN file2_bytes, DROP COLUMN cause_pid,
	DROP COLUMN cause_cgroup, DROP COLUMN cause2_pid, DROP COLUMN cause2_cgroup,
	DROP COLUMN cause_comm_id, DROP COLUMN cause2_comm_id, DROP COLUMN file_class;
	DROP TABLE suite_results, paths, file_classes; ALTER TABLE comparisons DROP COLUMN files;
	CREATE VIEW io_detail AS SELECT ios.* FROM ios; UPDATE blkpeak_schema SET version = 7" ||
	fail "making a schema-7 store"
"$BLKPEAK" analyze report 1 --db "$V7" 2>&1 >/dev/null | grep -q "old schema version 7" || fail "v7 read-only not refused"
"$BLKPEAK" analyze import -q "$T/cap.bpt" --db "$V7" 2>"$T/err" || fail "import migrating v7: $(cat "$T/err")"
[ "$(psql "$V7" -qAt -c "SELECT version FROM blkpeak_schema")" = 11 ] || fail "not migrated to 11"
"$BLKPEAK" analyze report 3 --json --db "$V7" >"$T/v7.json" &&
	"$BLKPEAK" analyze report 1 --json --db "$V7" >"$T/v7m.json" &&
	"$BLKPEAK" analyze report 2 --json --db "$V7" >"$T/v7w.json" || fail "report on the migrated store"
[ "$(psql "$V7" -qAt -c 'SELECT count(*) FROM io_wide WHERE trace_id = 2')" = 2 ] ||
	fail "the migration did not move long.bpt's times to io_wide"
for pair in "r1.s.json v7.json" "r3.s.json v7m.json" "w1.json v7w.json"; do
	# shellcheck disable=SC2086
	T=$T python3 - $pair <<'PY' || fail "the migrated store's report differs ($pair)"
import json, os, sys
a, b = (json.load(open(os.path.join(os.environ["T"], p))) for p in sys.argv[1:])
for d in (a, b):
    d["trace"].pop("id", None)
if a != b:
    sys.exit("keys differing: %s" % [k for k in a if a.get(k) != b.get(k)])
PY
done

# measure's results: stored by measure itself, or imported; the same view
# of them from both engines.
truncate -s 256M "$T/f.img"
"$BLKPEAK" measure qd-sweep --target "$T/f.img" --engine null --null-latency 20us --depths 1,2,4 \
	--ios 200 --warmup 20 --no-store -o "$T/qd.json" >/dev/null || fail "measure -o"
"$BLKPEAK" measure qd-sweep --target "$T/f.img" --engine null --null-latency 20us --depths 1,2 \
	--ios 100 --warmup 10 --db "$PG" >/dev/null 2>"$T/err" || fail "measure --db PostgreSQL: $(cat "$T/err")"
for db in "$T/s.db" "$PG"; do
	"$BLKPEAK" analyze import -q "$T/qd.json" --db "$db" || fail "import results into $db"
	"$BLKPEAK" analyze import -q "$T/qd.json" --db "$db" || fail "import results again into $db"
done
[ "$(pg_psql -c 'SELECT count(*) FROM measurements')" = 2 ] || fail "measurements on the server"
[ "$(pg_psql -c 'SELECT count(*) FROM measurement_points')" = 5 ] || fail "measurement points on the server"
"$BLKPEAK" analyze compare --measurements 1 --json --db "$T/s.db" >"$T/m.s.json" &&
	"$BLKPEAK" analyze compare --measurements 2 --json --db "$PG" >"$T/m.p.json" || fail "compare --measurements"
python3 - "$T/m.s.json" "$T/m.p.json" <<'PY' || fail "measurements differ between the engines"
import json, sys
a, b = (json.dumps(json.load(open(p)), sort_keys=True).replace('"measurement_id": 2', '"measurement_id": 1')
        for p in sys.argv[1:])
sys.exit(a != b and "%s\n%s" % (a[:600], b[:600]))
PY

# Suite results: a tagged import into PostgreSQL tags the run there (the
# checks of suite_store.c run in a working copy); the leaderboard of the
# suite is the same from both engines.
for db in "$T/s.db" "$PG"; do
	"$BLKPEAK" analyze label 2 "one disk" --db "$db" >/dev/null || fail "label for the suite ($db)"
	for r in 1 2; do
		"$BLKPEAK" analyze import -q "$T/run.bpt" --suite 0123456789abcdef --suite-name lab \
			--workload "cap original" --workload-kind replay --repeat-no $r --db "$db" 2>"$T/err" ||
			fail "tagged import into $db: $(cat "$T/err")"
	done
done
[ "$(pg_psql -c "SELECT count(*), min(label), min(trace_id) FROM suite_results")" = "2|one disk|2" ] ||
	fail "suite results on the server: $(pg_psql -c 'SELECT * FROM suite_results')"
"$BLKPEAK" analyze leaderboard lab --json --db "$T/s.db" >"$T/lb.s.json" &&
	"$BLKPEAK" analyze leaderboard lab --json --db "$PG" >"$T/lb.p.json" || fail "leaderboard"
same_json "$T/lb.s.json" "$T/lb.p.json" "leaderboard"

# Writes that reach the server: a label, a stored comparison.
"$BLKPEAK" analyze label 2 "replayed" --db "$PG" >/dev/null || fail "label"
[ "$(pg_psql -c 'SELECT label FROM traces WHERE id = 2')" = replayed ] || fail "label not on the server"
"$BLKPEAK" analyze compare 1 --json --db "$PG" >"$T/cs.json" || fail "compare (stored)"
[ "$(pg_psql -c 'SELECT count(*) FROM comparison_entries WHERE comparison_id = 1')" = 2 ] ||
	fail "comparison not stored on the server"
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["comparison_id"] != 1)' "$T/cs.json" ||
	fail "compare --json lacks the server's comparison id: $(head -c 300 "$T/cs.json")"

# query: read-only, one statement, no trace_ios.
"$BLKPEAK" analyze query "SELECT op, count(*) AS n, sum(bytes) AS b FROM ios WHERE trace_id = 3 GROUP BY op ORDER BY op" \
	--csv --db "$T/s.db" >"$T/q.s" && "$BLKPEAK" analyze query \
	"SELECT op, count(*) AS n, sum(bytes) AS b FROM ios WHERE trace_id = 3 GROUP BY op ORDER BY op" \
	--csv --db "$PG" >"$T/q.p" || fail "query"
cmp -s "$T/q.s" "$T/q.p" || fail "query differs: $(cat "$T/q.s" "$T/q.p")"
for sql in "DELETE FROM traces" "UPDATE traces SET label = 'x'" "CREATE TABLE x (a int)" \
	   "COMMIT; DELETE FROM traces" "SELECT 1; DROP TABLE traces CASCADE"; do
	"$BLKPEAK" analyze query "$sql" --db "$PG" >/dev/null 2>"$T/err" && fail "query '$sql' ran"
done
[ "$(pg_psql -c 'SELECT count(*) FROM traces')" = 3 ] || fail "a refused query changed the store"
"$BLKPEAK" analyze query "DELETE FROM traces" --db "$PG" 2>&1 | grep -q "read-only" || fail "no read-only message"
"$BLKPEAK" analyze query "SELECT count(*) FROM trace_ios('$T/gen.bpt')" --db "$PG" 2>&1 |
	grep -q "trace_ios('FILE') reads a trace file in place.*not on PostgreSQL" || fail "trace_ios on PostgreSQL not refused"

# Connection errors: one line each, never the password.
pw="s3cr3t-pw"
chk_err() { # WANT VALUE
	"$BLKPEAK" analyze report 1 --db "$2" >/dev/null 2>"$T/err" && fail "report on '$2' succeeded"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
	grep -q "$1" "$T/err" || fail "want '$1': $(cat "$T/err")"
	! grep -q "$pw" "$T/err" || fail "the password was printed: $(cat "$T/err")"
}
chk_err "authentication failed" "postgresql://pwuser:$pw@/blkpeak?host=$PG_DIR"
chk_err "database \"nodb\" does not exist" "postgresql://blkpeak:$pw@/nodb?host=$PG_DIR"
chk_err "server not reachable" "postgresql://blkpeak:$pw@/blkpeak?host=$T/nowhere"
chk_err "server not reachable" "host=$T/nowhere dbname=blkpeak password=$pw"
chk_err "server not reachable" "host=$T/nowhere password = '$pw x' dbname=blkpeak"
pg_psql -c "GRANT SELECT ON ALL TABLES IN SCHEMA public TO pwuser" >/dev/null # a reader role
PGPASSWORD=secret "$BLKPEAK" analyze report 3 --db "postgresql://pwuser@/blkpeak?host=$PG_DIR" >/dev/null 2>"$T/err" ||
	fail "password from PGPASSWORD: $(cat "$T/err")"
pg_psql -c "CREATE DATABASE other" -c "UPDATE blkpeak_schema SET version = 99" >/dev/null
chk_err "schema version 99 is newer" "$PG"
pg_psql -c "UPDATE blkpeak_schema SET version = 7" >/dev/null
psql "postgresql://blkpeak@/other?host=$PG_DIR" -qc "CREATE TABLE foreign_app (a int)" || fail "psql"
"$BLKPEAK" analyze import -q "$T/gen.bpt" --db "postgresql://blkpeak@/other?host=$PG_DIR" 2>"$T/err" &&
	fail "import into another application's database"
grep -q "not a blkpeak database" "$T/err" || fail "foreign database: $(cat "$T/err")"

# merge: two hosts' SQLite databases into PostgreSQL and into SQLite.
"$BLKPEAK" analyze import -q "$T/cap.bpt" "$T/run.bpt" "$T/qd.json" --db "$T/hostA.db" || fail "import A"
"$BLKPEAK" analyze import -q "$T/gen.bpt" "$T/cap.bpt" --db "$T/hostB.db" || fail "import B"
sqlite3 "$T/hostA.db" "UPDATE traces SET host = 'host-a'; UPDATE runs SET host = 'host-a'"
sqlite3 "$T/hostB.db" "UPDATE traces SET host = 'host-b' WHERE path LIKE '%gen.bpt'"
"$BLKPEAK" analyze compare 1 --db "$T/hostA.db" >/dev/null || fail "compare on A"
pg_psql -c "CREATE DATABASE merged" >/dev/null
M="postgresql://blkpeak@/merged?host=$PG_DIR"
for dst in "$M" "$T/merged.db"; do
	"$BLKPEAK" analyze merge "$T/hostA.db" "$T/hostB.db" --db "$dst" --json >"$T/m1.json" 2>"$T/err" ||
		fail "merge into $dst: $(cat "$T/err")"
	"$BLKPEAK" analyze merge "$T/hostA.db" "$T/hostB.db" --db "$dst" --json >"$T/m2.json" ||
		fail "merge again into $dst"
	python3 - "$T/m1.json" "$T/m2.json" <<'PY' || fail "merge counts into $dst: $(cat "$T/m1.json" "$T/m2.json")"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert [(x["traces"], x["traces_there"], x["comparisons"], x["measurements"]) for x in a] == \
    [(2, 0, 1, 1), (1, 1, 0, 0)], a
assert all(x["traces"] == 0 and x["comparisons"] == 0 and x["measurements"] == 0 for x in b), b
assert b[0]["measurements_there"] == 1, b
assert [x["traces_there"] for x in b] == [2, 2], b
PY
done
q_hosts="SELECT host, count(*) FROM traces GROUP BY host ORDER BY host"
[ "$(psql "$M" -qAt -c "$q_hosts")" = "$(sqlite3 "$T/merged.db" "$q_hosts")" ] || fail "hosts differ"
[ "$(psql "$M" -qAt -c "$q_hosts" | tr '\n' ' ')" = "host-a|2 host-b|1 " ] ||
	fail "hosts not kept: $(psql "$M" -qAt -c "$q_hosts")"
[ "$(psql "$M" -qAt -c "SELECT count(*) FROM hosts WHERE name IN ('host-a', 'host-b')")" = 2 ] || fail "hosts table"
"$BLKPEAK" analyze compare 1 --json --no-store --db "$M" >"$T/mc.p.json" &&
	"$BLKPEAK" analyze compare 1 --json --no-store --db "$T/merged.db" >"$T/mc.s.json" || fail "compare merged"
same_json "$T/mc.s.json" "$T/mc.p.json" "compare of the merged store"
python3 - "$T/mc.p.json" "$T/c.s.json" <<'PY' || fail "the merged comparison is not the original's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("entries", "headline"):
    if k in a and json.dumps(a[k], sort_keys=True) != json.dumps(b[k], sort_keys=True):
        sys.exit(k)
PY
"$BLKPEAK" analyze merge "$PG" --db "$T/x.db" 2>&1 | grep -q "a source is a SQLite file" || fail "merge from PostgreSQL not refused"
"$BLKPEAK" analyze merge "$T/merged.db" --db "$T/merged.db" 2>&1 | grep -q "is the destination itself" || fail "merge into itself"
exit 0
