#!/bin/bash
# "Dual" placement by file and by task: a capture of known files on ext4
# (files_workload.py, as 21-capture-files.sh makes it) replayed with
# --map path:GLOB=SPEC (at the recorded offsets, and packed from @OFFSET)
# and --map comm:NAME=SPEC onto two loop devices under the blk tracer:
# every byte of the matched files' I/O must land on the second device,
# where the model of filemap_check.py puts it, and nothing else; what
# stays (other files, metadata, journal) on the first; flushes on both.
# Then the refusals: path: on a trace without file columns or path table,
# globs that match nothing, the same glob twice, a file two maps take,
# overlapping packed areas, bad keys, a huge glob, the trace as target.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
W=$E2E_TMP
HERE=$(cd "$(dirname "$0")" && pwd)
need_capture
need_cmd python3 blkparse mkfs.ext4

A=$(make_loop 512M a); B=$(make_loop 512M b)
devid() { echo "$(printf '%d,%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"):$(basename "$1")"; }

# placed NAME SELECTOR AT MAP_ARG: replay with --map MAP_ARG --target A
# under the blk tracer on A and B, then the model's check
placed() {
	_n=$1 _sel=$2 _at=$3 _map=$4
	blktrace_start "$A" "$W/$_n.bin"
	echo 1 > "/sys/block/$(basename "$B")/trace/enable"
	at_exit "echo 0 > /sys/block/$(basename "$B")/trace/enable"
	"$BLKPEAK" replay "$W/t.bpt" --target "$A" --map "$_map" --allow-write --timing afap \
		--queue-depth 8 --no-warmup --json -o "$W/$_n.bpt" > "$W/$_n.json" 2> "$W/$_n.err" ||
		{ cat "$W/$_n.err"; fail "$_n: replay failed"; }
	echo 0 > "/sys/block/$(basename "$B")/trace/enable"
	blktrace_stop
	blkparse -i - -f "%D %a %d %S %n %T.%9t\n" < "$W/$_n.bin" > "$W/$_n.txt"
	"$BLKPEAK" dump --format csv "$W/$_n.bpt" > "$W/$_n.csv" || fail "$_n: dump run"
	python3 "$HERE/filemap_check.py" "$W/src.csv" "$W/$_n.csv" "$W/$_n.txt" "$(devid "$A")" \
		"$(devid "$B")" "$_sel" "$_at" > "$W/$_n.check" ||
		{ cat "$W/$_n.check"; fail "$_n: I/O placed wrongly"; }
	note "$_n: $(tail -1 "$W/$_n.check")"
}

# capture FS: known files on FS on a loop device, into $W/t.bpt
capture() {
	M=$W/mnt-$1
	mount_fs_loop "$1" "$M"
	"$BLKPEAK" capture -o "$W/t.bpt" -d "$FS_LOOP" -- python3 "$HERE/files_workload.py" "$M" \
		2>"$W/cap.err" || fail "$1: capture failed: $(cat "$W/cap.err")"
	umount "$M" || fail "umount $M"
	"$BLKPEAK" dump --format csv "$W/t.bpt" > "$W/src.csv" || fail "dump"
}

# xfs first (its flusher merges the writeback of adjacent files into one
# request: cut I/Os), then ext4, whose trace the refusals use
if command -v mkfs.xfs >/dev/null 2>&1; then
	capture xfs
	G="$M/sub/*|*/mmap.dat|*/write.dat"
	placed xfs "path:$G" - "path:$G=$B"
	placed xfs-packed "path:$G" 4096 "path:$G=$B@4k"
else
	# under CI the xfs half is required (install-deps.sh --tests installs it)
	[ "${CI:-}" = true ] && fail "xfs: no mkfs.xfs under CI (apt-get install xfsprogs)"
	note "xfs: skipped (no mkfs.xfs; apt-get install xfsprogs)"
fi
capture ext4

# 1. two files and a directory at their recorded offsets
G="$M/sub/*|*/mmap.dat"
placed same "path:$G" - "path:$G=$B"
grep -q "\"map\":\"path:$M/sub/\*|\*/mmap.dat\"" "$W/same.json" ||
	fail "same: the summary names no placement: $(cat "$W/same.json")"
# the summary's counts are the run file's
want=$(awk -F, -v b="$(basename "$B")" 'NR > 1 && $4 == b' "$W/same.csv" | wc -l)
python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["placements"]
assert p[0]["ios"] == int(sys.argv[2]) and p[0]["files"] == 2, p
assert p[1]["map"] is None and p[1]["ios"] > 0, p' "$W/same.json" "$want" ||
	fail "same: the summary's placements differ from the run file ($want I/Os on B)"
python3 "$HERE/json_schema_check.py" "$HERE/../../schemas/replay.schema.json" "$W/same.json" ||
	fail "same: --json does not match schemas/replay.schema.json"

# 2. the same files packed from 1 MiB (and every file of the capture but
# write.dat, so more than two files are laid out)
G2="$M/sub/*|*/mmap.dat|*/fsync.dat|*/overwrite.dat|*/direct.dat"
placed packed "path:$G2" $((1 << 20)) "path:$G2=$B@1M"

# 3. by task: what bpw-direct and bpw-mmap caused (the kworker's writeback
# of mmap.dat included), packed at 0
placed comm "comm:bpw-direct|bpw-mmap" 0 "comm:bpw-direct|bpw-mmap=$B@0"

# 4. refusals: each with its message and exit status
refused() { # WANT_RC PATTERN ARGS...
	_rc=0 _want=$1 _pat=$2
	shift 2
	"$BLKPEAK" replay "$@" > "$W/r.out" 2> "$W/r.err" || _rc=$?
	[ "$_rc" -eq "$_want" ] || fail "replay $*: exit $_rc, not $_want: $(cat "$W/r.err")"
	grep -q -- "$_pat" "$W/r.err" || fail "replay $*: no '$_pat' in: $(cat "$W/r.err")"
}
IMG=$W/plain.img
truncate -s 512M "$IMG"
"$BLKPEAK" generate -o "$W/g.bpt" --count 50 --span 16m -q || fail "generate"
refused 1 "g.bpt: --map path:\*: the trace has no file columns" "$W/g.bpt" --target "$IMG" \
	--map "path:*=$IMG"
# a capture cut before its footer has no path table
head -c $(( $(stat -c %s "$W/t.bpt") - 200 )) "$W/t.bpt" > "$W/cut.bpt"
refused 1 "no path table" "$W/cut.bpt" --target "$IMG" --map "path:*=$IMG"
refused 1 "no path of the trace's [0-9]* matches (paths are absolute" "$W/t.bpt" \
	--target "$IMG" --map "path:mmap.dat=$IMG"
refused 1 "no I/O to replay (other than metadata and journal) is credited to a task matching 'photoshop' (tasks: " \
	"$W/t.bpt" --target "$IMG" --map "comm:photoshop=$IMG"
refused 2 "is mapped already" "$W/t.bpt" --target "$IMG" --map "path:*=$IMG" --map "path:*=$IMG"
refused 1 "file $M/mmap.dat matches --map path:\*/mmap.dat and --map path:\*.dat: ambiguous" \
	"$W/t.bpt" --target "$IMG" --map "path:*/mmap.dat=$IMG" --map "path:*.dat=$W/c.img"
refused 1 "is taken by --map path:\*/direct.dat and by --map comm:bpw-direct: ambiguous" \
	"$W/t.bpt" --target "$IMG" --map "path:*/direct.dat=$IMG" --map "comm:bpw-direct=$W/c.img"
refused 1 "packed areas (bytes 0-.*) overlap on one target" "$W/t.bpt" --target "$IMG" \
	--map "path:*/mmap.dat=$W/c.img@0" --map "path:*/direct.dat=$W/c.img@4k"
refused 2 "expected path:GLOB=SPEC" "$W/t.bpt" --target "$IMG" --map "path:*"
refused 2 "no path glob after 'path:'" "$W/t.bpt" --target "$IMG" --map "path:=$IMG"
refused 2 "empty alternative" "$W/t.bpt" --target "$IMG" --map "path:a||b=$IMG"
refused 2 "is not a whole number of 512-byte sectors" "$W/t.bpt" --target "$IMG" \
	--map "path:*=$IMG@1000"
refused 2 "(at most 4095)" "$W/t.bpt" --target "$IMG" --map "path:$(head -c 5000 /dev/zero | tr '\0' '*')=$IMG"
refused 1 "the trace is also a member of the target" "$W/t.bpt" --target "$IMG" \
	--map "path:*/mmap.dat=$W/t.bpt"
# c.img was never created, nothing was written to b.img
[ ! -e "$W/c.img" ] || fail "a refused replay created $W/c.img"
[ "$(stat -c %b "$IMG")" -eq 0 ] || fail "a refused replay wrote to $IMG (sparse before)"
note "refusals: 14 checked"
