#!/bin/bash
# demo.sh — blkpeak's main job end to end, run by `make demo`:
#
#   1. record a real application's session, a workload recipe
#      (workloads/photo-edit: ImageMagick editing a batch of pictures with
#      its pixel cache on the disk, by default; WORKLOAD=NAME for another
#      recipe of workloads/) on loop-device "disks" with
#      `blkpeak capture -d DEV -- workloads/NAME ...`, and name the
#      programs that caused its I/O;
#   2. replay the trace with causal timing DEMO_REPEAT times on each
#      target (by default one disk, a RAID 0 and a RAID 1 of two other
#      disks: virtual arrays built by blkpeak), so every figure has a
#      median and a range;
#   3. import everything, print the comparison (its headline first: who
#      won, by how much, how sure; time saved in % as median and min-max
#      of the repeats), write demo/report.html with the charts.
#
# The "disks" are sparse files in /dev/shm behind loop devices. By default
# the replay targets are emulated disks (DEMO_DISK=7200: blkpeak's model
# of a 7200 rpm desktop drive of IPEAK's time, schemas/disk-model.md):
# blkpeak does each I/O on the loop device and holds its completion until
# the modelled disk, with its seeks, rotation, zones and caches, would have
# finished it; the RAID 0 and RAID 1 are built of two such disks. With
# DEMO_DISK=throttle the targets are instead capped by the kernel's block
# throttling (scripts/throttle.sh) at DEMO_MBPS MB/s and DEMO_IOPS I/Os per
# second each way, the replays running in a throttled cgroup; a throttle
# limits a rate but does not make an I/O take time, so it flatters RAID 0
# (the emulated disks do not). The recording is made on an unthrottled,
# unemulated device. Everything it makes (loop devices, mounts, the
# cgroup, temp files) is removed at the end, also on failure or Ctrl-C;
# the results stay in demo/ (or $DEMO_DIR), which holds only this demo's:
# the files an earlier demo wrote there (listed in its .blkpeak-demo) are
# removed first.
#
# Environment: WORKLOAD (a recipe of workloads/, default photo-edit; `make
# demo WORKLOAD=NAME`), DEMO_SCALE (multiplies the recipe's default size:
# it runs with --scale 0.05 x DEMO_SCALE; photo-edit at 1: 6 pictures of
# 0.6 megapixels; 20: IPEAK's 25 pictures of 12 megapixels), DEMO_DISK (a disk model, default
# 7200; or "throttle"), DEMO_MBPS (throttle: default 50), DEMO_IOPS
# (throttle: default 2000, high enough that the chunk-sized pieces of a
# RAID 0 are not charged like seeks, since the throttle counts I/Os before
# the block layer merges adjacent ones), DEMO_TARGETS (the replay
# targets, in order, from: single raid0 raid1 raid5 dual; default "single
# raid0 raid1"; raid5 is md's left-symmetric RAID 5 of four disks, 64 KiB
# chunks, whose parity reads and writes are real I/Os; dual is IPEAK's
# "two independent disks" with the scratch and temporary files on the
# second: the files of the recipe's WL_SCRATCH globs (photo-edit: its
# pixel cache and history states) packed on a second disk from byte 0,
# the rest on the first, replay --map path:GLOB=SPEC@0; for a recipe
# without scratch files the recorded disk's upper half, where a scratch
# or swap partition would be, replay --map DEV:START-=SPEC), DEMO_REPEAT
# (replays per target, default 3: replay --repeat; 1 for one run each),
# DEMO_DIR, DEMO_TMP (where its
# temporary folder blkpeak-demo.XXXXXX goes, default /dev/shm; a RAM file
# system keeps the "disks" fast), BLKPEAK (the binary).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
DIR=${DEMO_DIR:-demo}
SCALE=${DEMO_SCALE:-1}
IOPS=${DEMO_IOPS:-2000}
MBPS=${DEMO_MBPS:-50}
DISK=${DEMO_DISK:-7200}
TARGETS=${DEMO_TARGETS:-single raid0 raid1}
REPEAT=${DEMO_REPEAT:-3}
WL=${WORKLOAD:-photo-edit}
# shellcheck source=scripts/throttle.sh
. "$ROOT/scripts/throttle.sh"

die() { echo "demo: $*" >&2; exit 1; }
case "${1:-}" in
-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "demo: takes no arguments (settings are environment variables; see --help)" >&2; exit 2 ;;
esac
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
say() { printf '%s\n' "$*"; }

[ "$(id -u)" -eq 0 ] || die "needs root (loop devices, BPF, cgroups): run it as root"
[ -x "$BLKPEAK" ] || die "$BLKPEAK: not built (run make)"
awk -v s="$SCALE" 'BEGIN { exit !(s ~ /^[0-9]*\.?[0-9]+$/ && s > 0) }' ||
	die "DEMO_SCALE: '$SCALE': not a positive number"
case "$IOPS$MBPS" in *[!0-9]*) die "DEMO_IOPS and DEMO_MBPS must be whole numbers" ;; esac
case "$REPEAT" in ''|*[!0-9]*|0*) die "DEMO_REPEAT: '$REPEAT': not a whole number from 1" ;; esac
for t in $TARGETS; do
	case "$t" in single|raid0|raid1|raid5|dual) ;; *) die "DEMO_TARGETS: '$t': not one of single raid0 raid1 raid5 dual" ;; esac
done
[ -n "${TARGETS// /}" ] || die "DEMO_TARGETS: empty"
# a recipe is an executable workloads/NAME with the interface of
# workloads/common.sh (--workdir, --phase, --quiet, --scale)
case "$WL" in
''|*[!a-z0-9-]*|-*) die "WORKLOAD: '$WL': not a recipe name (see workloads/)" ;;
esac
if [ ! -f "$ROOT/workloads/$WL" ] || [ ! -x "$ROOT/workloads/$WL" ] || [ "$WL" = common.sh ]; then
	die "WORKLOAD: '$WL': no such recipe; there are: $(cd "$ROOT/workloads" &&
		for f in *; do [ -x "$f" ] && [ -f "$f" ] && printf '%s ' "$f"; done)"
fi
RECIPE=$ROOT/workloads/$WL
WL_SCALE=$(awk -v s="$SCALE" 'BEGIN { printf "%g", 0.05 * s }')

# what_targets: the targets in words, "one disk, RAID 0 and RAID 1"
what_targets() {
	local words=() t out=""
	for t in $TARGETS; do
		case $t in
		single) words+=("one disk") ;;
		raid0) words+=("RAID 0") ;;
		raid1) words+=("RAID 1") ;;
		raid5) words+=("RAID 5") ;;
		dual) words+=("two independent disks") ;;
		esac
	done
	for i in "${!words[@]}"; do
		if [ "$i" -eq 0 ]; then out=${words[0]}
		elif [ "$i" -eq $((${#words[@]} - 1)) ]; then out="$out and ${words[$i]}"
		else out="$out, ${words[$i]}"; fi
	done
	printf '%s' "$out"
}
WHAT=$(what_targets)

mkdir -p "$DIR"
DIR=$(realpath "$DIR")
# An earlier demo's files go (those it listed; an old demo/ of the tree
# from before the list: what the demo writes), so demo/ shows this one.
if [ -f "$DIR/.blkpeak-demo" ]; then
	while IFS= read -r f; do
		case "$f" in ''|*/*|.*) ;; *) rm -f -- "${DIR:?}/$f" ;; esac
	done < "$DIR/.blkpeak-demo"
elif [ "$DIR" = "$ROOT/demo" ]; then
	rm -f -- "$DIR"/*.bpt "$DIR"/*.svg "$DIR/report.html" "$DIR/blkpeak.db"
fi
: > "$DIR/.blkpeak-demo"
# wrote NAME...: files of DIR this demo made (the next one removes them)
wrote() { printf '%s\n' "$@" >> "$DIR/.blkpeak-demo"; }
WORK=$(mktemp -d "${DEMO_TMP:-/dev/shm}/blkpeak-demo.XXXXXX")
LOOPS=""
WL_UP=""

cleanup() {
	local rc=$?
	set +e
	trap - EXIT INT TERM
	thr_destroy     # first: ends what still runs in the cgroup (capture, replay)
	[ -n "$WL_UP" ] && "$RECIPE" --workdir "$WORK/wl" --phase teardown --quiet
	# only while our image backs it: a number alone may be another's device
	for d in $LOOPS; do
		case "$(losetup -n -O BACK-FILE "$d" 2>/dev/null)" in
		"$WORK"/*) losetup -d "$d" 2>/dev/null ;;
		esac
	done
	rm -rf "$WORK"
	[ $rc -eq 0 ] || echo "demo: stopped (exit $rc); loop devices, mounts and cgroup removed" >&2
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# new_disk NAME SIZE_BYTES: a loop device (throttled with
# DEMO_DISK=throttle), in $DEV (not printed: a $(...) subshell would lose
# LOOPS, and cleanup with it).
new_disk() {
	truncate -s "$2" "$WORK/$1.img"
	DEV=$(losetup -f --show --direct-io=on "$WORK/$1.img") || die "losetup $WORK/$1.img failed"
	LOOPS="$LOOPS $DEV"
	if [ "$DISK" = throttle ]; then
		thr_limit "$DEV" "$IOPS" "$IOPS" $((MBPS * 1000000)) $((MBPS * 1000000)) ||
			die "cannot throttle $DEV"
	fi
}
# emu PATH: PATH as a replay target member (an emulated disk unless throttled)
emu() { if [ "$DISK" = throttle ]; then echo "$1"; else echo "hdd:$DISK:$1"; fi; }

say "== blkpeak demo: the $WL workload (workloads/$WL) on $WHAT"
if [ "$DISK" = throttle ]; then
	thr_detect || die "block throttling is needed to make loop devices behave like disks"
	thr_create "blkpeak-demo-$$" || die "cannot create a cgroup under $THR_ROOT"
	say "Disks: RAM-backed loop devices. The replay targets are throttled by the kernel"
	say "(cgroup $THR_KIND $( [ "$THR_KIND" = v2 ] && echo io.max || echo 'blkio.throttle.*'), $THR_CG) to $MBPS MB/s and"
	say "$IOPS I/Os per second each way, like a modest disk; replays run in that cgroup."
	DISK_NOTE="each capped at $MBPS MB/s and $IOPS I/Os per second each way by the kernel's block throttling (cgroup $THR_KIND)"
else
	# the model is checked now, not after the recording (exit 2: a bad spec)
	rc=0; "$BLKPEAK" replay /nonexistent --target "hdd:$DISK:/nonexistent" 2> "$WORK/check.err" || rc=$?
	[ $rc -ne 2 ] || die "DEMO_DISK=$DISK: $(sed 's/^blkpeak: replay: //' "$WORK/check.err")"
	say "Disks: RAM-backed loop devices; each replay target is an emulated disk"
	say "(hdd:$DISK:DEVICE): blkpeak does the I/O on the loop device and holds its"
	say "completion until the modelled disk would have finished it (seek, rotation,"
	say "zones, caches; schemas/disk-model.md). Arrays are built of such disks."
fi

# 1. The workload's file systems, then its capture (all its devices).
say ""
say "== 1. record the $WL workload (workloads/$WL --scale $WL_SCALE)"
mkdir -p "$WORK/wl"
WL_UP=1
SETUP=$("$RECIPE" --workdir "$WORK/wl" --phase setup --quiet --scale "$WL_SCALE")
SRCS=$(printf '%s\n' "$SETUP" | awk '$1 == "device" { print $2 }')
# the recipe's scratch and temporary files, as a replay --map path: glob
SCRATCH=$(printf '%s\n' "$SETUP" | sed -n 's/^scratch //p')
[ -n "$SRCS" ] || die "the workload set-up made no device"
DEVOPTS=() SIZES=()
for d in $SRCS; do DEVOPTS+=(-d "$d"); SIZES+=("$(blockdev --getsize64 "$d")"); done
wrote "$WL.bpt"
step "$BLKPEAK" capture -o "$DIR/$WL.bpt" "${DEVOPTS[@]}" -- \
	"$RECIPE" --workdir "$WORK/wl" --phase run --quiet --scale "$WL_SCALE"
"$RECIPE" --workdir "$WORK/wl" --phase teardown --quiet
WL_UP=""
step "$BLKPEAK" info --verify "$DIR/$WL.bpt"

# 2. Three targets per recorded device: one disk, and two more for the
# arrays. A recipe with two disks (backup) gets each of its disks replayed
# on its own target (--map), as the two disks of a machine would be.
say ""
say "== 2. replay it, causal timing, $REPEAT time(s) on each target (disks of $((SIZES[0] >> 20)) MiB)"
ONE=() A=() B=() C=() D=()
for i in "${!SIZES[@]}"; do
	new_disk "single$i" "${SIZES[$i]}"; ONE+=("$DEV")
	new_disk "a$i" "${SIZES[$i]}"; A+=("$DEV")
	new_disk "b$i" "${SIZES[$i]}"; B+=("$DEV")
	case " $TARGETS " in *" raid5 "*)
		new_disk "c$i" "${SIZES[$i]}"; C+=("$DEV")
		new_disk "d$i" "${SIZES[$i]}"; D+=("$DEV") ;;
	esac
done
declare -A RUN
# spec KIND I: the target of recorded device I for a run of KIND
spec() {
	case $1 in
	single) emu "${ONE[$2]}" ;;
	raid0) echo "raid0:chunk=64k:$(emu "${A[$2]}"),$(emu "${B[$2]}")" ;;
	raid1) echo "raid1:$(emu "${A[$2]}"),$(emu "${B[$2]}")" ;;
	raid5) echo "raid5:chunk=64k:$(emu "${A[$2]}"),$(emu "${B[$2]}"),$(emu "${C[$2]}"),$(emu "${D[$2]}")" ;;
	esac
}
replay() { # KIND
	local run=("$BLKPEAK" replay --timing causal --allow-write)
	local i=0 src
	for src in $SRCS; do
		if [ "$1" = dual ] && [ -n "$SCRATCH" ]; then
			# the recorded disks on disks A; the scratch files packed
			# on the first disk B from byte 0 (they are files: --map
			# path:, docs/replay.md "Files and tasks")
			run+=(--map "$src=$(emu "${A[$i]}")")
			[ $i -gt 0 ] || run+=(--map "path:$SCRATCH=$(emu "${B[0]}")@0")
		elif [ "$1" = dual ]; then
			# recorded disk I on disk A, its upper half (from the sector
			# at half its size) on disk B, from byte 0 there
			run+=(--map "$src=$(emu "${A[$i]}")"
			      --map "$src:$((SIZES[i] / 1024))s-=$(emu "${B[$i]}")")
		elif [ $i -eq 0 ]; then
			run+=(--target "$(spec "$1" 0)")
		else
			run+=(--map "$src=$(spec "$1" $i)")
		fi
		i=$((i + 1))
	done
	run+=(-o "$DIR/run-$1.bpt" "$DIR/$WL.bpt")
	local files=("$DIR/run-$1.bpt")
	if [ "$REPEAT" -gt 1 ]; then
		run+=(--repeat "$REPEAT")
		files=()
		for k in $(seq "$REPEAT"); do files+=("$DIR/run-$1.$k.bpt"); done
	fi
	for k in "${files[@]}"; do wrote "${k##*/}"; done
	if [ "$DISK" = throttle ]; then
		printf '\n\033[1m$ %s\033[0m   (in the throttled cgroup)\n' "${run[*]}"
		thr_exec "${run[@]}"
	else
		printf '\n\033[1m$ %s\033[0m\n' "${run[*]}"
		local rc=0
		"${run[@]}" 2> "$WORK/one.err" || rc=$?
		cat "$WORK/one.err" >&2
		cat "$WORK/one.err" >> "$WORK/replay.err"
		[ $rc -eq 0 ] || exit $rc
	fi
	RUN[$1]=${files[*]}
}
for t in $TARGETS; do replay "$t"; done
if [ "$DISK" = throttle ]; then
	for d in "${ONE[@]}" "${A[@]}" "${B[@]}" "${C[@]}" "${D[@]}"; do
		read -r r w <<< "$(thr_ios "$d")"
		say "throttled cgroup submitted $r reads and $w writes to $d"
	done
else
	MODEL=$(sed -n 's/^replay: .*: emulated disk //p' "$WORK/replay.err" | head -1)
	[ -n "$MODEL" ] || die "the replays did not say which disk model they emulated"
	say ""
	say "Disk model: $MODEL"
	DISK_NOTE="each an emulated disk, model $MODEL"
fi

# 3. Analysis.
say ""
say "== 3. import, compare, report"
DB=$DIR/blkpeak.db
rm -f "$DB"
wrote blkpeak.db
# import FILE: prints the import line, sets ID to the trace's id.
import() {
	local line
	line=$("$BLKPEAK" analyze import --db "$DB" "$1") || die "cannot import $1"
	say "$line"
	ID=$(printf '%s\n' "$line" | sed -n 's/.* as trace \([0-9][0-9]*\).*/\1/p')
	[ -n "$ID" ] || die "no trace id in: $line"
}
printf '\n\033[1m$ %s\033[0m\n' "$BLKPEAK analyze import --db $DB FILE  (for each file)"
import "$DIR/$WL.bpt"; CAP=$ID
IDS=() FIRSTS=()
for t in $TARGETS; do
	n=0
	for f in ${RUN[$t]}; do
		import "$f"; IDS+=("$ID")
		[ $n -gt 0 ] || FIRSTS+=("$ID") # the charts draw each target's first run
		n=$((n + 1))
	done
done
step "$BLKPEAK" analyze compare --db "$DB" "${IDS[@]}"
say ""
FIRST=${TARGETS%% *}; [ "$FIRST" != single ] || FIRST="single disk"
say "Time saved against the $FIRST (same recorded I/O, causal timing; median of each"
say "target's $REPEAT run(s), min-max in brackets, against the median of the first's):"
# per label: the run of median time (nearest rank), its time saved, the range
"$BLKPEAK" analyze query --db "$DB" --csv \
	"WITH e AS (SELECT *, row_number() OVER (PARTITION BY label ORDER BY duration_ns) AS k,
	                  count(*) OVER (PARTITION BY label) AS n,
	                  min(position) OVER (PARTITION BY label) AS first
	           FROM comparison_entries WHERE comparison_id = (SELECT max(id) FROM comparisons)),
	      g AS (SELECT label, n, first, min(time_saved_pct) AS lo, max(time_saved_pct) AS hi
	           FROM e GROUP BY label)
	 SELECT printf('  %-*s %+6.1f %%  [%+.1f to %+.1f %%]  %.3f s, %d run%s', (SELECT max(length(label)) FROM e),
	               e.label, e.time_saved_pct, g.lo, g.hi, e.duration_ns / 1e9, g.n,
	               CASE g.n WHEN 1 THEN '' ELSE 's' END)
	 FROM e JOIN g ON g.label = e.label WHERE e.k = (e.n + 1) / 2 ORDER BY g.first" |
	tail -n +2 | sed 's/\r$//; s/^"//; s/"$//'
IPEAK_NOTE=""
if [ "$WL" = photo-edit ]; then
	IPEAK_NOTE="IPEAK measured a similar photo-editing session on real disks: one disk 45.9 s, RAID 0 of two 39.6 s (13.7% saved)."
	case " $TARGETS " in *" dual "*)
		IPEAK_NOTE="${IPEAK_NOTE%.}; two disks with the scratch and swap partitions on the second 43.0 s (6.3% saved)." ;;
	esac
	IPEAK_NOTE="$IPEAK_NOTE The figures here differ: IPEAK timed a 2004 CPU with real disks, while this recording ran on RAM-backed loop devices (its think times and I/O come from today's machine) and is replayed on models of disks of that time."
	say "For comparison: $IPEAK_NOTE"
fi

# The programs that caused the recorded I/O: analyze report's process
# tables, which credit writeback and journal commits to the task that
# dirtied or synced the data (the recording's cause columns, kept in the
# database since schema 8).
"$BLKPEAK" analyze report --db "$DB" "$CAP" > "$WORK/report.txt" || die "analyze report $CAP failed"
say ""
say "Programs that caused the I/O of the recording (analyze report $CAP):"
awk '/^top processes by/ { on = 1 } on && /^$/ { on = 0; print "" } on' "$WORK/report.txt" |
	sed 's/^/  /; s/^  $//'
# one line for the report: the five busiest programs (comm) by I/Os
PROGRAMS=$("$BLKPEAK" analyze query --db "$DB" --csv \
	"SELECT printf('%s (%d process%s): %d I/Os, %.1f MiB', who, count(DISTINCT wpid),
	               CASE count(DISTINCT wpid) WHEN 1 THEN '' ELSE 'es' END,
	               count(*), sum(bytes) / 1048576.0)
	 FROM (SELECT bytes, coalesce(cause_comm, comm) AS who, coalesce(cause_pid, pid) AS wpid
	       FROM io_detail WHERE trace_id = $CAP)
	 GROUP BY who ORDER BY count(*) DESC, sum(bytes) DESC LIMIT 5" | tail -n +2 | sed 's/\r$//; s/^"//; s/"$//' | paste -sd ';' | sed 's/;/; /g')
say "By program: $PROGRAMS"
[ -n "$PROGRAMS" ] || die "analyze report named no process"
for k in latency-cdf iops lba qd sizes; do
	wrote "$k.svg"
	"$BLKPEAK" analyze plot --db "$DB" --kind "$k" -o "$DIR/$k.svg" "${FIRSTS[@]}" "$CAP"
done
wrote report.html
step "$BLKPEAK" analyze html --db "$DB" -o "$DIR/report.html" \
	--title "blkpeak demo: the $WL workload on $WHAT" \
	--note "workloads/$WL --scale $WL_SCALE recorded with blkpeak capture on RAM-backed loop devices; the programs that caused its I/O (writeback credited to the writer; the five busiest by I/Os): $PROGRAMS. Replayed with causal timing, $REPEAT time(s) each, on $WHAT (arrays of loop devices, striped ones in 64 KiB chunks), $DISK_NOTE. $IPEAK_NOTE" \
	"${IDS[@]}" "$CAP"
say ""
say "Results in $DIR: $WL.bpt (the recording), run-*.bpt (the replays),"
say "blkpeak.db (SQLite), *.svg (charts), report.html (open it in a browser)."
