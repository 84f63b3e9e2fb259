#!/bin/bash
# bench-db-files.sh — what the file and cause columns (schema 8) cost in
# the analysis database: each TRACE is imported into a new database by
# this build's blkpeak and, when OLD names another blkpeak binary (e.g.
# main's, schema 7, which stores no file columns), by that one too; for
# each the database's bytes per I/O (file size / I/Os, as bench-analyze.sh
# counts them), the bytes per I/O of the I/O tables (SQLite's dbstat:
# io_rows, io_marks, io_kinds, io_replay, io_files, io_files2, paths) and
# the import's wall time.
# Files go to $BENCH_DIR (default: a temporary folder in /dev/shm).
# Usage: [OLD=/path/to/blkpeak] bench/bench-db-files.sh TRACE...
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
[ $# -ge 1 ] || { echo "usage: [OLD=BINARY] $0 TRACE..." >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "SKIP: needs the sqlite3 shell"; exit 77; }
W=$(mktemp -d "${BENCH_DIR:-/dev/shm}/blkpeak-bench-db-files.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
exec 8>/tmp/blkpeak-bench.lock
flock 8

# one BINARY LABEL TRACE: import TRACE with BINARY into a new database and
# print its figures
one() {
	rm -f "$W/db"
	TIMEFORMAT="%R"
	t=$({ time "$1" analyze import -q --db "$W/db" "$3" >/dev/null 2>"$W/err"; } 2>&1) ||
		{ echo "FAIL: $2: $(cat "$W/err")"; exit 1; }
	n=$(sqlite3 "$W/db" "SELECT sum(ios) FROM traces")
	size=$(stat -c %s "$W/db")
	tables=$(sqlite3 "$W/db" "SELECT group_concat(name || ' ' || printf('%.2f', b * 1.0 / $n), ', ')
		FROM (SELECT name, sum(pgsize) AS b FROM dbstat WHERE name IN ('io_rows', 'io_marks',
		'io_kinds', 'io_replay', 'io_files', 'io_files2', 'paths') GROUP BY name ORDER BY name)")
	files=$(sqlite3 "$W/db" "SELECT count(*) FROM pragma_table_info('io_kinds') WHERE name = 'file_class'")
	printf '%s  %s: %d I/Os, database %d bytes, %.2f bytes per I/O (tables per I/O: %s), import %s s%s\n' \
		"$(basename "$3")" "$2" "$n" "$size" "$(awk "BEGIN { print $size / $n }")" "$tables" "$t" \
		"$([ "$files" = 1 ] && echo ", kinds $(sqlite3 "$W/db" 'SELECT count(*) FROM io_kinds')")"
}

for tr in "$@"; do
	[ -n "${OLD:-}" ] && one "$OLD" old "$tr"
	one "$BLKPEAK" new "$tr"
done
