# lib.sh — shared by the end-to-end tests (tests/e2e/NN-name.sh).
#
# A test sources this file, calls its prerequisites (need_root, need_bpf,
# need_cmd) and then uses the helpers. Exit status: 0 pass, 77 skip (with
# the reason printed), anything else fail. Under CI=true a skip is turned
# into a failure by run.sh.
#
# Everything a test creates is registered and removed by the EXIT trap,
# also when the test fails: loop devices (only those it attached), temp
# files, background processes (killed by pid), the blk tracer.

set -u

BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/../.." && pwd)/build/blkpeak}
E2E_TMP=$(mktemp -d /dev/shm/blkpeak-e2e.XXXXXX)
# Attached loop devices are listed in a file, not a variable: make_loop
# runs inside $(...) subshells, whose variables the EXIT trap never sees.
_LOOPS_FILE="$E2E_TMP/.loops"
: > "$_LOOPS_FILE"
_PIDS=""
_BLKTRACE_ON=""
_CLEANUPS=""

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "  $*"; }

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }

# cc_libbpt OUT SRC: builds a small C program (tests/e2e/*_mktrace.c,
# bench/bpt_from_text.c) against the trace-format library as a user links
# it: the static libbpt.a `make` builds beside the blkpeak under test (the
# tree's build/ when that has none) and its libraries (libbpt.pc's).
# (the tree is found when lib.sh is sourced: a test may cd away later)
_E2E_TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cc_libbpt() {
	local a
	a=$(dirname "$BLKPEAK")/libbpt.a
	[ -f "$a" ] || a=$_E2E_TREE/build/libbpt.a
	${CC:-cc} -O2 -I"$_E2E_TREE/lib" -I"$_E2E_TREE/common" -I"$_E2E_TREE/tests/e2e" -o "$1" "$2" "$a" -lzstd -lz -lbz2 -llzma -lm
}
need_cmd() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 || skip "needs $c"; done; }
need_bpf() {
	need_root
	[ -r /sys/kernel/btf/vmlinux ] || skip "needs kernel BTF (/sys/kernel/btf/vmlinux)"
}

# target_refused WANT SPEC: `replay --target SPEC` (of a one-I/O trace)
# fails, saying WANT (grep pattern); no device is touched, the spec is
# refused first.
target_refused() {
	[ -f "$E2E_TMP/none.bpt" ] ||
		"$BLKPEAK" generate -o "$E2E_TMP/none.bpt" --count 1 -q || fail "generate"
	if "$BLKPEAK" replay "$E2E_TMP/none.bpt" --target "$2" > "$E2E_TMP/bad.out" 2>&1; then
		fail "'$2' accepted"
	fi
	grep -q -- "$1" "$E2E_TMP/bad.out" || { cat "$E2E_TMP/bad.out"; fail "'$2': no '$1'"; }
}

# at_exit CMD: run CMD (a string) during cleanup, last registered first.
at_exit() { _CLEANUPS="$1
$_CLEANUPS"; }

# make_loop SIZE [NAME]: sparse file in the test's temp dir, attached with
# direct I/O; prints the loop device.
make_loop() {
	_f="$E2E_TMP/${2:-disk$(date +%s%N)}.img"
	truncate -s "$1" "$_f" || fail "cannot create $_f"
	_d=$(losetup -f --show --direct-io=on "$_f") || fail "losetup $_f failed"
	own_loop "$_d" "$_f"
	echo "$_d"
}

# own_loop DEV BACKING: detach DEV at exit, if BACKING still backs it then.
own_loop() { echo "$1 $2" >> "$_LOOPS_FILE"; }

# loop_detach DEV BACKING: detach DEV only while BACKING backs it. A loop
# device is known by its number alone: once this test has detached it
# (30, 31 and 33 do, on purpose), the number may belong to another test
# or a demo running at the same time, whose device must not be touched.
loop_detach() {
	_bf=$(losetup -n -O BACK-FILE "$1" 2>/dev/null) || return 0
	case "$_bf" in
	"$2" | "$2 (deleted)") losetup -d "$1" 2>/dev/null ;;
	esac
}

# dev_ios DEV: reads + writes the block device DEV has completed so far
# (/sys/block/NAME/stat).
dev_ios() { awk '{ print $1 + $5 }' "/sys/block/$(basename "$1")/stat"; }

# wait_dev_ios DEV N [PID]: wait (up to 60 s) until DEV has completed N
# more I/Os than when called: a point in a run given by its progress, not
# by a time a loaded machine may not keep. Fails after 60 s or, with PID,
# when that process ends first.
wait_dev_ios() {
	_base=$(dev_ios "$1")
	_deadline=$(( $(date +%s) + 60 ))
	while [ $(( $(dev_ios "$1") - _base )) -lt "$2" ]; do
		[ -z "${3:-}" ] || kill -0 "$3" 2>/dev/null || fail "process $3 ended before $1 did $2 I/Os"
		[ "$(date +%s)" -lt $_deadline ] || fail "$1 did not do $2 I/Os in 60 s"
		sleep 0.02
	done
}

# each_engine: run this test once per replay engine of E2E_ENGINES
# (default "io_uring libaio"), each time with BLKPEAK pointing at a
# wrapper that puts --engine NAME first in every `blkpeak replay` (an
# --engine of the test's own comes later on the line and wins). Called
# right after sourcing lib.sh; the first engine that fails ends the test.
each_engine() {
	if [ -z "${E2E_ENGINE:-}" ]; then
		for _e in ${E2E_ENGINES:-io_uring libaio}; do
			echo "engine $_e:"
			E2E_ENGINE=$_e bash "$0" "$@" || exit $?
		done
		exit 0
	fi
	_w="$E2E_TMP/blkpeak-$E2E_ENGINE"
	printf '#!/bin/bash\nif [ "${1:-}" = replay ]; then shift; exec %q replay --engine %q "$@"; fi\nexec %q "$@"\n' \
		"$BLKPEAK" "$E2E_ENGINE" "$BLKPEAK" > "$_w"
	chmod +x "$_w"
	BLKPEAK=$_w
}

# bg_start CMD...: start in the background, remember its pid in $BG_PID.
bg_start() { "$@" & BG_PID=$!; _PIDS="$BG_PID $_PIDS"; }

# with_kernel_lock: take the lock for global kernel state (blk tracer,
# drop_caches) for the rest of the test, so such tests never overlap,
# even when two checkouts run their tests at once.
with_kernel_lock() {
	exec 9>/tmp/blkpeak-kernel-state.lock
	flock 9
}

# blktrace_start DEV OUTFILE: record DEV (a disk or a partition) with the
# kernel's ftrace blk tracer in blktrace binary format. Takes the
# kernel-state lock: the tracer is one per machine, shared by every
# checkout running tests.
blktrace_start() {
	with_kernel_lock
	T=/sys/kernel/tracing
	[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null || skip "cannot mount tracefs"
	_bt_dev=$(basename "$1")
	echo 16384 > $T/buffer_size_kb
	# the binary records carry the ring buffer's time stamps, by default
	# the "local" clock of each CPU, which need not agree between CPUs
	# (tens of µs here): an issuer on one CPU and requests dispatched on
	# another would seem that far apart. "mono" is one clock for all.
	echo mono > $T/trace_clock
	echo 1 > /sys/class/block/$_bt_dev/trace/enable
	echo blk > $T/current_tracer
	echo bin > $T/trace_options
	echo nocontext-info > $T/trace_options
	echo > $T/trace
	_BLKTRACE_ON=$_bt_dev
	_BT_OUT=$2
}

# blktrace_stop: stop tracing and write the binary stream to OUTFILE.
# The buffer is drained until empty (a non-blocking read of trace_pipe
# says EAGAIN once every CPU's buffer is read), not for a fixed time that
# a loaded machine may not give the reader.
blktrace_stop() {
	[ -n "$_BLKTRACE_ON" ] || return 0
	T=/sys/kernel/tracing
	echo 0 > /sys/class/block/$_BLKTRACE_ON/trace/enable
	python3 -c '
import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
with open(sys.argv[2], "wb") as out:
    while True:
        try:
            b = os.read(fd, 1 << 20)
        except OSError as e:
            if e.errno != errno.EAGAIN:
                raise
            break
        out.write(b)' $T/trace_pipe "$_BT_OUT" || echo "blk tracer: reading $T/trace_pipe failed" >&2
	if grep -q 'entries: [1-9]' $T/per_cpu/cpu*/stats; then
		echo "blk tracer: events left unread in $T/trace_pipe" >&2
	fi
	if grep -q 'overrun: [1-9]' $T/per_cpu/cpu*/stats; then
		echo "blk tracer overran" >&2
	fi
	_blktrace_reset
}

_blktrace_reset() {
	T=/sys/kernel/tracing
	echo 0 > /sys/class/block/$_BLKTRACE_ON/trace/enable 2>/dev/null
	echo nobin > $T/trace_options 2>/dev/null
	echo context-info > $T/trace_options 2>/dev/null
	echo nop > $T/current_tracer 2>/dev/null
	echo local > $T/trace_clock 2>/dev/null
	echo 1408 > $T/buffer_size_kb 2>/dev/null
	_BLKTRACE_ON=""
}

_cleanup() {
	_rc=$?
	set +e
	echo "$_CLEANUPS" | while IFS= read -r c; do [ -n "$c" ] && eval "$c"; done
	for p in $_PIDS; do kill "$p" 2>/dev/null; done
	for p in $_PIDS; do wait "$p" 2>/dev/null; done
	[ -n "$_BLKTRACE_ON" ] && _blktrace_reset
	tac "$_LOOPS_FILE" 2>/dev/null | while read -r d f; do loop_detach "$d" "$f"; done
	rm -rf "$E2E_TMP"
	exit $_rc
}
trap _cleanup EXIT
trap 'exit 130' INT TERM

# The io_detail view as schemas 4 to 7 had it (on the old ios view), for
# the db_to_vN helpers below.
OLD_IO_DETAIL="CREATE VIEW io_detail AS SELECT ios.*, ops.name AS op_name, processes.comm AS comm,
			ios.complete_ns - ios.issue_ns AS service_ns, ios.complete_ns - ios.queue_ns AS total_ns
			FROM ios JOIN ops ON ops.op = ios.op LEFT JOIN processes
			ON processes.trace_id = ios.trace_id AND processes.comm_id = ios.comm_id;"

# db_to_v7 DB: turn an analysis database of schema 8 into schema 7's
# shape (no file and cause columns, no io_files, io_files2, paths,
# file_classes, comparisons.files; the views as version 7 had them, no
# trigger).
db_to_v7() {
	sqlite3 "$1" "DROP VIEW io_detail; DROP VIEW ios;
		ALTER TABLE io_kinds DROP COLUMN file_class; ALTER TABLE io_kinds DROP COLUMN file_dev;
		ALTER TABLE io_kinds DROP COLUMN file_bytes;
		ALTER TABLE io_kinds DROP COLUMN cause_pid; ALTER TABLE io_kinds DROP COLUMN cause_comm_id;
		ALTER TABLE io_kinds DROP COLUMN cause_cgroup; ALTER TABLE comparisons DROP COLUMN files;
		DROP TABLE io_files; DROP TABLE io_files2; DROP TABLE paths; DROP TABLE file_classes;
		CREATE VIEW ios AS SELECT t.id AS trace_id, r.rowid - t.io_base AS idx,
			m.issue_ns + r.issue_delta - r.wait_ns AS queue_ns,
			CAST(m.issue_ns + r.issue_delta AS INTEGER) AS issue_ns,
			m.issue_ns + r.issue_delta + r.service_ns AS complete_ns, k.dev AS dev,
			r.sector AS sector, k.bytes AS bytes, k.op AS op, k.flags AS flags,
			k.pid AS pid, k.comm_id AS comm_id, k.cgroup_id AS cgroup_id,
			k.error AS error, x.sched_ns AS sched_ns,
			x.source_index AS source_index, x.member AS member,
			k.completion AS completion FROM traces t
			CROSS JOIN io_rows r ON r.rowid >= t.io_base AND r.rowid < t.io_base + t.ios
			CROSS JOIN io_marks m ON m.blk = r.rowid >> 6
			CROSS JOIN io_kinds k ON k.trace_id = t.id AND k.kind = r.kind
			LEFT JOIN io_replay x ON x.io = r.rowid;
		$OLD_IO_DETAIL
		PRAGMA user_version = 7"
}

# db_to_v6 DB: turn an analysis database of schema 8 into schema 6's
# shape (no labels).
db_to_v6() {
	db_to_v7 "$1" || return
	sqlite3 "$1" "ALTER TABLE traces DROP COLUMN label; ALTER TABLE measurements DROP COLUMN label;
		PRAGMA user_version = 6"
}

# db_to_v4 DB: turn an analysis database of schema 8 into the shape of
# schema 4 (the I/Os in a table `ios`, no io_rows/io_kinds/io_marks/
# io_replay, no traces.io_base), rows kept, so a test can make an older
# database and check that the next import migrates it.
db_to_v4() {
	db_to_v6 "$1" || return
	sqlite3 "$1" "CREATE TABLE ios_v4 (trace_id INTEGER NOT NULL, idx INTEGER NOT NULL,
			queue_ns INTEGER NOT NULL, issue_ns INTEGER NOT NULL, complete_ns INTEGER NOT NULL,
			dev INTEGER NOT NULL, sector INTEGER NOT NULL, bytes INTEGER NOT NULL,
			op INTEGER NOT NULL, flags INTEGER NOT NULL, pid INTEGER NOT NULL,
			comm_id INTEGER NOT NULL, cgroup_id INTEGER NOT NULL, error INTEGER NOT NULL,
			sched_ns INTEGER, source_index INTEGER, member INTEGER,
			completion INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (trace_id, idx)) WITHOUT ROWID;
		INSERT INTO ios_v4 SELECT * FROM ios;
		DROP VIEW io_detail; DROP VIEW ios; DROP TABLE io_rows; DROP TABLE io_kinds;
		DROP TABLE io_replay; DROP TABLE io_marks; ALTER TABLE traces DROP COLUMN io_base;
		ALTER TABLE ios_v4 RENAME TO ios;
		$OLD_IO_DETAIL
		PRAGMA user_version = 4"
}

# db_to_v5 DB: turn an analysis database of schema 8 into schema 5's
# shape: io_rows holds the absolute issue_ns, no io_marks; the views and
# the trigger as version 5 had them.
db_to_v5() {
	db_to_v6 "$1" || return
	sqlite3 "$1" "DROP VIEW io_detail; DROP VIEW ios;
		CREATE TABLE io_rows_v5 (issue_ns INTEGER NOT NULL, wait_ns INTEGER NOT NULL,
			service_ns INTEGER NOT NULL, sector INTEGER NOT NULL, kind INTEGER NOT NULL);
		INSERT INTO io_rows_v5 (rowid, issue_ns, wait_ns, service_ns, sector, kind)
			SELECT r.rowid, m.issue_ns + r.issue_delta, r.wait_ns, r.service_ns, r.sector, r.kind
			FROM io_rows r JOIN io_marks m ON m.blk = r.rowid >> 6 ORDER BY r.rowid;
		DROP TABLE io_rows; DROP TABLE io_marks; ALTER TABLE io_rows_v5 RENAME TO io_rows;
		CREATE VIEW ios AS SELECT t.id AS trace_id, r.rowid - t.io_base AS idx,
			r.issue_ns - r.wait_ns AS queue_ns, r.issue_ns AS issue_ns,
			r.issue_ns + r.service_ns AS complete_ns, k.dev AS dev, r.sector AS sector,
			k.bytes AS bytes, k.op AS op, k.flags AS flags, k.pid AS pid,
			k.comm_id AS comm_id, k.cgroup_id AS cgroup_id, k.error AS error,
			x.sched_ns AS sched_ns, x.source_index AS source_index, x.member AS member,
			k.completion AS completion FROM traces t
			CROSS JOIN io_rows r ON r.rowid >= t.io_base AND r.rowid < t.io_base + t.ios
			CROSS JOIN io_kinds k ON k.trace_id = t.id AND k.kind = r.kind
			LEFT JOIN io_replay x ON x.io = r.rowid;
		$OLD_IO_DETAIL
		PRAGMA user_version = 5"
}
