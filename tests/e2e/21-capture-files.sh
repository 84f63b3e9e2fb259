#!/bin/bash
# Each I/O credited to its file: on ext4 and on xfs (loop devices made
# here), known processes write, overwrite, append to, mmap, fsync and
# write/read with O_DIRECT known files, and one deletes a file before its
# writeback (files_workload.py). Every data I/O of the capture must name
# one of those files, with its path, at offsets whose blocks FIEMAP puts
# where the I/O went (files_check.py); >= 99% of the data bytes must be
# credited so; journal and metadata I/O are classed as such. (On xfs the
# flusher's plug merges the end of one file's writeback with the start of
# the next into one request: it is credited to both, for their parts.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
HERE=$(cd "$(dirname "$0")" && pwd)
need_capture
need_cmd python3 filefrag mkfs.ext4

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
	for f in write.dat overwrite.dat sub/append.dat mmap.dat fsync.dat direct.dat; do
		sed -n '/^busiest files/,/^$/p' "$T/$fs.report" | grep -q " $M/$f\$" ||
			fail "$fs: report: $f is not among the busiest files: $(cat "$T/$fs.report")"
	done
	sed -n '/^busiest directories/,/^$/p' "$T/$fs.report" | grep -q " $M/sub\$" ||
		fail "$fs: report: no directory $M/sub: $(cat "$T/$fs.report")"
	# trace_ios(): the file and cause columns, as dump has them
	q=$("$BLKPEAK" analyze query --csv "SELECT sum(file_bytes) FROM trace_ios('$T/$fs.bpt')
		WHERE file_path = '$M/direct.dat' AND cause_comm = 'bpw-direct' AND op_name = 'write'") ||
		fail "$fs: query trace_ios"
	[ "$(echo "$q" | tail -1 | tr -d "\r")" = $(( 2 << 20 )) ] ||
		fail "$fs: trace_ios: direct.dat's writes by bpw-direct: $q, want 2 MiB"
	umount "$M" || fail "umount $M"
}

run_fs ext4 0.99
if command -v mkfs.xfs >/dev/null 2>&1; then
	run_fs xfs 0.99
else
	note "xfs: skipped (no mkfs.xfs; apt-get install xfsprogs)"
fi
