#!/bin/bash
# Each I/O credited to its file: on ext4 and on xfs (loop devices made
# here), known processes write, overwrite, append to, mmap, fsync and
# write/read with O_DIRECT known files, and one deletes a file before its
# writeback (files_workload.py). Every data I/O of the capture must name
# one of those files, with its path, at offsets whose blocks FIEMAP puts
# where the I/O went (files_check.py); >= 99% of the data bytes must be
# credited so; journal and metadata I/O are classed as such; the database
# holds the same (db_checks). (On xfs the
# flusher's plug merges the end of one file's writeback with the start of
# the next into one request: it is credited to both, for their parts.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
need_capture
need_cmd python3 filefrag mkfs.ext4
with_kernel_lock

run_fs() {
	fs=$1 share=$2
	M=$T/mnt-$fs
	mount_fs_loop "$fs" "$M"
	L=$FS_LOOP
	"$BLKPEAK" capture -o "$T/$fs.bpt" -d "$L" -- python3 "$HERE/files_workload.py" "$M" \
		2>"$T/$fs.err" || fail "$fs: capture failed: $(cat "$T/$fs.err")"
	"$BLKPEAK" dump --format csv "$T/$fs.bpt" > "$T/$fs.csv" || fail "$fs: dump failed"
	python3 "$HERE/files_check.py" "$T/$fs.csv" "$M" "$(majmin "$L" | tr , :)" "$share" \
		> "$T/$fs.out" || { cat "$T/$fs.out"; fail "$fs: files credited wrongly"; }
	note "$fs: $(cat "$T/$fs.out")"
	# journal and metadata I/O are classed as such
	for c in journal metadata; do
		grep -q "$c=[1-9]" "$T/$fs.out" || fail "$fs: no I/O classed $c"
	done
	# the deleted file: nothing credited to any other path on its behalf,
	# and data written by nobody else is never "unknown"
	unknown=$(awk -F, 'NR > 1 && $7 != "flush" && $6 > 0 && $16 == "unknown"' "$T/$fs.csv" | wc -l)
	[ "$unknown" -eq 0 ] || fail "$fs: $unknown I/Os with data classed unknown"
	# analyze report: the busiest files are the workload's, by path
	"$BLKPEAK" analyze report "$T/$fs.bpt" > "$T/$fs.report" 2>&1 || fail "$fs: analyze report"
	# (the tables name the folder all their paths share once, "paths
	# below DIR/", and show the rest: whole paths put back together here)
	whole() { sed -n "/^busiest $1/,/^\$/p" "$T/$fs.report" |
		awk '/^  paths below / { below = $3; next } /%/ { print below $NF }'; }
	for f in write.dat overwrite.dat sub/append.dat mmap.dat fsync.dat direct.dat; do
		whole files | grep -qx "$M/$f" ||
			fail "$fs: report: $f is not among the busiest files: $(cat "$T/$fs.report")"
	done
	whole directories | grep -qx "$M/sub" ||
		fail "$fs: report: no directory $M/sub: $(cat "$T/$fs.report")"
	awk 'length($0) > 100' "$T/$fs.report" | grep -q . &&
		fail "$fs: report: lines over 100 columns: $(awk 'length($0) > 100' "$T/$fs.report")"
	# trace_ios(): the file and cause columns, as dump has them
	q=$("$BLKPEAK" analyze query --csv "SELECT sum(file_bytes) FROM trace_ios('$T/$fs.bpt')
		WHERE file_path = '$M/direct.dat' AND cause_comm = 'bpw-direct' AND op_name = 'write'") ||
		fail "$fs: query trace_ios"
	[ "$(echo "$q" | tail -1 | tr -d "\r")" = $(( 2 << 20 )) ] ||
		fail "$fs: trace_ios: direct.dat's writes by bpw-direct: $q, want 2 MiB"
	db_checks "$fs"
	umount "$M" || fail "umount $M"
}

# The database carries the file and cause columns (schema 8): every row's
# file and cause fields in io_detail are trace_ios()'s, and `report --db`
# gives what `report FILE` gives (files, directories, By program by cause).
db_checks() {
	fs=$1 db=$T/$1.db
	"$BLKPEAK" analyze import -q --db "$db" "$T/$fs.bpt" || fail "$fs: import"
	c="idx, file, file_dev, inode, file_offset, file_bytes, file_path, file2_dev, inode2,
	   file2_offset, file2_bytes, file2_path, cause_pid, cause_comm, cause_cgroup, cause2_pid,
	   cause2_comm, cause2_cgroup"
	"$BLKPEAK" analyze query --db "$db" --csv "SELECT $c FROM trace_ios('$T/$fs.bpt') ORDER BY idx" \
		>"$T/$fs.vt" || fail "$fs: query trace_ios"
	"$BLKPEAK" analyze query --db "$db" --csv "SELECT $c FROM io_detail WHERE trace_id = 1 ORDER BY idx" \
		>"$T/$fs.view" || fail "$fs: query io_detail"
	cmp -s "$T/$fs.vt" "$T/$fs.view" ||
		{ diff "$T/$fs.vt" "$T/$fs.view" | head -5; fail "$fs: io_detail's file columns differ from trace_ios()"; }
	grep -q "^[0-9]*,data,[0-9]*,[0-9]*,[0-9]*,[0-9]*,$M/direct.dat," "$T/$fs.view" ||
		fail "$fs: io_detail names no data I/O of direct.dat"
	"$BLKPEAK" analyze report --json "$T/$fs.bpt" >"$T/$fs.fjson" || fail "$fs: report --json FILE"
	"$BLKPEAK" analyze report --json --db "$db" 1 >"$T/$fs.djson" || fail "$fs: report --json --db"
	python3 - "$T/$fs.fjson" "$T/$fs.djson" <<'PY' || fail "$fs: report --db differs from report FILE"
import json, sys
f, d = (json.load(open(p)) for p in sys.argv[1:3])
assert f["trace"].pop("id") is None and d["trace"].pop("id") == 1
assert f["top_files"]["files"], "no files in the report"
assert f == d, [k for k in f if f[k] != d[k]]
PY
	files_checks "$fs"
}

# --files: report and compare restricted to files (and classes), from the
# file and from the database alike; a replay run of the capture is
# matched by the capture's files (its I/Os' source_index).
files_checks() {
	fs=$1 db=$T/$1.db
	# the rows that should match, counted in SQL (a request of two files
	# counts when either matches)
	want() {
		"$BLKPEAK" analyze query --db "$db" --csv "SELECT count(*) FROM io_detail WHERE trace_id = 1
			AND ($1)" | tail -1 | tr -d '\r'
	}
	for spec in "sub|file_path GLOB '$M/sub/*' OR file2_path GLOB '$M/sub/*'" \
		    "journal|file = 'journal'" \
		    "both|file = 'metadata' OR file_path = '$M/fsync.dat' OR file2_path = '$M/fsync.dat'"; do
		name=${spec%%|*} cond=${spec#*|}
		case $name in
		sub) args=(--files "$M/sub/*") ;;
		journal) args=(--files :journal) ;;
		both) args=(--files :metadata --files "$M/fsync.dat") ;;
		esac
		"$BLKPEAK" analyze report --json "${args[@]}" "$T/$fs.bpt" >"$T/$fs.$name.f" ||
			fail "$fs: report --files ($name) FILE"
		"$BLKPEAK" analyze report --json "${args[@]}" --db "$db" 1 >"$T/$fs.$name.d" ||
			fail "$fs: report --files ($name) --db"
		python3 "$ROOT/tests/e2e/json_schema_check.py" "$ROOT/schemas/analyze-report.schema.json" \
			"$T/$fs.$name.f" || fail "$fs: report --files --json does not match its schema"
		python3 - "$T/$fs.$name.f" "$T/$fs.$name.d" "$(want "$cond")" \
			"$(want 1)" <<'PY' || fail "$fs: report --files ($name): wrong I/Os"
import json, sys
f, d = (json.load(open(p)) for p in sys.argv[1:3])
f["trace"].pop("id"), d["trace"].pop("id")
assert f == d, [k for k in f if f[k] != d[k]]
want, total = int(sys.argv[3]), int(sys.argv[4])
assert 0 < want < total, (want, total)
assert f["ios"] == want and f["files_filter"]["ios_of_trace"] == total, (f["ios"], want, total)
PY
	done
	# a run of the capture, matched by the capture's files
	truncate -s 1G "$T/$fs.target"
	"$BLKPEAK" replay "$T/$fs.bpt" --target "$T/$fs.target" --timing afap -o "$T/$fs.run.bpt" \
		>/dev/null 2>"$T/$fs.replay.err" || fail "$fs: replay: $(cat "$T/$fs.replay.err")"
	"$BLKPEAK" analyze import -q --db "$T/$fs.run.db" "$T/$fs.run.bpt" || fail "$fs: import the run"
	"$BLKPEAK" analyze report --db "$T/$fs.run.db" 1 --files :data >/dev/null 2>"$T/$fs.err" &&
		fail "$fs: report --files of a run whose trace is not in the database"
	grep -q "not in the database: import it first" "$T/$fs.err" || fail "$fs: $(cat "$T/$fs.err")"
	"$BLKPEAK" analyze import -q --db "$db" "$T/$fs.run.bpt" || fail "$fs: import the run"
	w=$(want "file_path = '$M/direct.dat' OR file2_path = '$M/direct.dat'")
	"$BLKPEAK" analyze compare --json --no-store --files "$M/direct.dat" --db "$db" 1 2 \
		>"$T/$fs.cmp.d" || fail "$fs: compare --files --db"
	"$BLKPEAK" analyze compare --json --files "$M/direct.dat" "$T/$fs.bpt" "$T/$fs.run.bpt" \
		>"$T/$fs.cmp.f" || fail "$fs: compare --files FILE FILE"
	python3 "$ROOT/tests/e2e/json_schema_check.py" "$ROOT/schemas/analyze-compare.schema.json" \
		"$T/$fs.cmp.f" || fail "$fs: compare --files --json does not match its schema"
	python3 - "$T/$fs.cmp.d" "$T/$fs.cmp.f" "$w" <<'PY' || fail "$fs: compare --files: wrong I/Os"
import json, sys
d, f = (json.load(open(p)) for p in sys.argv[1:3])
want = int(sys.argv[3])
assert want > 0
for c in (d, f):
    assert c["files_filter"] == {"patterns": [c["files_filter"]["patterns"][0]]}
    assert [e["ios"] for e in c["entries"]] == [want, want], ([e["ios"] for e in c["entries"]], want)
    assert c["entries"][0]["ios_of_trace"] == c["entries"][1]["ios_of_trace"]
PY
	# the HTML report: a Files section with the capture's busiest files
	# (escaped, structured as every chart), and --files said on the page
	"$BLKPEAK" analyze html --db "$db" 1 2 -o "$T/$fs.html" || fail "$fs: html"
	n=$(python3 "$ROOT/tests/e2e/chartcheck.py" html-svgs "$T/$fs.html") || fail "$fs: html charts: $n"
	for id in chart-files-0 chart-dirs-0; do
		grep -q "<figure id=\"$id\">" "$T/$fs.html" || fail "$fs: html: no $id"
	done
	grep -q "<title>$M/direct.dat</title>" "$T/$fs.html" || fail "$fs: html: direct.dat is not among the busiest files"
	"$BLKPEAK" analyze html --db "$db" 1 2 --files "$M/sub/*" -o "$T/$fs.sub.html" || fail "$fs: html --files"
	grep -q "Only the I/Os of files matching <code>$M/sub/\*</code>" "$T/$fs.sub.html" ||
		fail "$fs: html --files does not say so"
	grep -q "<title>$M/direct.dat</title>" "$T/$fs.sub.html" && fail "$fs: html --files shows direct.dat"
	grep -q "<title>$M/sub/append.dat</title>" "$T/$fs.sub.html" || fail "$fs: html --files: no append.dat"
	# its charts show those I/Os only: latency over time has at most a
	# point per data I/O whose completion was seen (one per occupied cell)
	seen="bytes > 0 AND completion = 0 AND complete_ns > issue_ns"
	python3 - "$T/$fs.html" "$T/$fs.sub.html" \
		"$(want "($seen) AND (file_path GLOB '$M/sub/*' OR file2_path GLOB '$M/sub/*')")" \
		"$(want "$seen")" <<'PY' || fail "$fs: html --files: the charts show other I/Os"
import re, sys
def lba(p):
    page = open(p, encoding="utf-8").read()
    fig = page[page.index('<figure id="chart-latency-time">'):]
    fig = fig[:fig.index("</figure>")]
    return [int(n) for n in re.findall(r'data-points="(\d+)"', fig)]
every, sub = lba(sys.argv[1]), lba(sys.argv[2])
want_sub, want_all = int(sys.argv[3]), int(sys.argv[4])
assert 0 < want_sub < want_all, (want_sub, want_all)
assert all(0 < n <= want_sub for n in sub) and max(every) > want_sub, (every, sub, want_sub)
PY
	# a database of schema 7 migrated: the capture's I/Os are kept without
	# their files and causes, and the report says so
	cp "$T/$fs.run.db" "$T/$fs.v7.db"
	"$BLKPEAK" analyze import -q --db "$T/$fs.v7.db" "$T/$fs.bpt" || fail "$fs: import into v7.db"
	db_to_v7 "$T/$fs.v7.db" || fail "$fs: make a schema-7 database"
	"$BLKPEAK" generate -o "$T/$fs.gen.bpt" --count 10 >/dev/null 2>&1 || fail "$fs: generate"
	"$BLKPEAK" analyze import -q --db "$T/$fs.v7.db" "$T/$fs.gen.bpt" || fail "$fs: migrate 7 -> 8"
	"$BLKPEAK" analyze report --db "$T/$fs.v7.db" 2 >"$T/$fs.v7.txt" || fail "$fs: report after the migration"
	grep -q "note: imported before schema 8, which kept no file or cause columns" "$T/$fs.v7.txt" ||
		fail "$fs: the migrated capture's report does not say it has no files: $(head -5 "$T/$fs.v7.txt")"
}

run_fs ext4 0.99
if command -v mkfs.xfs >/dev/null 2>&1; then
	run_fs xfs 0.99
else
	# under CI the xfs half is required (install-deps.sh --tests installs it)
	[ "${CI:-}" = true ] && fail "xfs: no mkfs.xfs under CI (apt-get install xfsprogs)"
	note "xfs: skipped (no mkfs.xfs; apt-get install xfsprogs)"
fi
