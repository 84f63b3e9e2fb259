#!/bin/bash
# demo.sh — blkpeak's main job end to end, run by `make demo`:
#
#   1. record IPEAK's photo-editing session (workloads/photo-edit) on a
#      loop-device "disk" with `blkpeak capture -- ...`;
#   2. replay the trace with causal timing on one disk, on a RAID 0 and on
#      a RAID 1 of two other disks (virtual arrays built by blkpeak);
#   3. import everything, print the comparison (time saved in %), write
#      demo/report.html with the charts.
#
# The "disks" are sparse files in /dev/shm behind loop devices, made to
# behave like disks by the kernel's block throttling (scripts/throttle.sh):
# every process of the demo runs in a cgroup that caps each device at
# DEMO_IOPS read and write IOPS and DEMO_MBPS MB/s. Everything it makes
# (loop devices, mounts, the cgroup, temp files) is removed at the end,
# also on failure or Ctrl-C; the results stay in demo/ (or $DEMO_DIR).
#
# Environment: DEMO_SCALE (1: 25 pictures of 256 KiB and a 51 MiB scratch
# file; 20: IPEAK's 25 x 5 MB and 1 GB), DEMO_IOPS (default 400),
# DEMO_MBPS (default 80), DEMO_DIR, BLKPEAK (the binary).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
DIR=${DEMO_DIR:-demo}
SCALE=${DEMO_SCALE:-1}
IOPS=${DEMO_IOPS:-400}
MBPS=${DEMO_MBPS:-80}
. "$ROOT/scripts/throttle.sh"

die() { echo "demo: $*" >&2; exit 1; }
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
say() { printf '%s\n' "$*"; }

[ "$(id -u)" -eq 0 ] || die "needs root (loop devices, BPF, cgroups): run it as root"
[ -x "$BLKPEAK" ] || die "$BLKPEAK: not built (run make)"
awk -v s="$SCALE" 'BEGIN { exit !(s ~ /^[0-9]*\.?[0-9]+$/ && s > 0) }' ||
	die "DEMO_SCALE: '$SCALE': not a positive number"
case "$IOPS$MBPS" in *[!0-9]*) die "DEMO_IOPS and DEMO_MBPS must be whole numbers" ;; esac
WL_SCALE=$(awk -v s="$SCALE" 'BEGIN { printf "%g", 0.05 * s }')

mkdir -p "$DIR"
DIR=$(realpath "$DIR")
WORK=$(mktemp -d /dev/shm/blkpeak-demo.XXXXXX)
LOOPS=""
WL_UP=""

cleanup() {
	local rc=$?
	set +e
	trap - EXIT INT TERM
	thr_destroy     # first: ends what still runs in the cgroup (capture, replay)
	[ -n "$WL_UP" ] && "$ROOT/workloads/photo-edit" --workdir "$WORK/wl" --phase teardown --quiet
	for d in $LOOPS; do losetup -d "$d" 2>/dev/null; done
	rm -rf "$WORK"
	[ $rc -eq 0 ] || echo "demo: stopped (exit $rc); loop devices, mounts and cgroup removed" >&2
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# new_disk NAME SIZE_BYTES: a throttled loop device, in $DISK (not printed:
# a $(...) subshell would lose LOOPS, and cleanup with it).
new_disk() {
	truncate -s "$2" "$WORK/$1.img"
	DISK=$(losetup -f --show --direct-io=on "$WORK/$1.img") || die "losetup $WORK/$1.img failed"
	LOOPS="$LOOPS $DISK"
	thr_limit "$DISK" "$IOPS" "$IOPS" $((MBPS * 1000000)) $((MBPS * 1000000)) ||
		die "cannot throttle $DISK"
}

say "== blkpeak demo: IPEAK's photo-editing session on one disk, RAID 0 and RAID 1"
thr_detect || die "block throttling is needed to make loop devices behave like disks"
thr_create "blkpeak-demo-$$" || die "cannot create a cgroup under $THR_ROOT"
say "Disks: RAM-backed loop devices, each throttled by the kernel (cgroup $THR_KIND"
say "$( [ "$THR_KIND" = v2 ] && echo io.max || echo blkio.throttle.*) in $THR_CG) to $IOPS read + $IOPS write IOPS"
say "and $MBPS MB/s each way: a modest disk. Every command below runs in that cgroup."

# 1. The workload's file system, then its capture.
say ""
say "== 1. record the photo-editing session (workloads/photo-edit --scale $WL_SCALE)"
mkdir -p "$WORK/wl"
WL_UP=1
SRC=$("$ROOT/workloads/photo-edit" --workdir "$WORK/wl" --phase setup --quiet --scale "$WL_SCALE" |
	awk '$1 == "device" { print $2 }')
[ -n "$SRC" ] || die "the workload set-up made no device"
thr_limit "$SRC" "$IOPS" "$IOPS" $((MBPS * 1000000)) $((MBPS * 1000000)) || die "cannot throttle $SRC"
SIZE=$(blockdev --getsize64 "$SRC")
step thr_exec "$BLKPEAK" capture -o "$DIR/photo-edit.bpt" -d "$SRC" -- \
	"$ROOT/workloads/photo-edit" --workdir "$WORK/wl" --phase run --quiet --scale "$WL_SCALE"
"$ROOT/workloads/photo-edit" --workdir "$WORK/wl" --phase teardown --quiet
WL_UP=""
step "$BLKPEAK" info "$DIR/photo-edit.bpt"

# 2. Three targets: one disk, and two more for the arrays.
say ""
say "== 2. replay it, causal timing, on three targets (disks of $((SIZE >> 20)) MiB)"
new_disk single "$SIZE"; ONE=$DISK
new_disk a "$SIZE"; A=$DISK
new_disk b "$SIZE"; B=$DISK
declare -A RUN
replay() { # NAME TARGET
	step thr_exec "$BLKPEAK" replay --timing causal --allow-write --target "$2" \
		-o "$DIR/run-$1.bpt" "$DIR/photo-edit.bpt"
	RUN[$1]=$DIR/run-$1.bpt
}
replay single "$ONE"
replay raid0 "raid0:chunk=64k:$A,$B"
replay raid1 "raid1:$A,$B"
for d in $ONE $A $B; do
	read -r r w <<< "$(thr_ios "$d")"
	say "throttled cgroup submitted $r reads and $w writes to $d"
done

# 3. Analysis.
say ""
say "== 3. import, compare, report"
DB=$DIR/blkpeak.db
rm -f "$DB"
step "$BLKPEAK" analyze import --db "$DB" "$DIR/photo-edit.bpt" "${RUN[single]}" \
	"${RUN[raid0]}" "${RUN[raid1]}"
id_of() {
	"$BLKPEAK" analyze query --db "$DB" --format csv \
		"SELECT id FROM traces WHERE path LIKE '%/$(basename "$1")'" | tail -n 1
}
CAP=$(id_of "$DIR/photo-edit.bpt")
S=$(id_of "${RUN[single]}")
R0=$(id_of "${RUN[raid0]}")
R1=$(id_of "${RUN[raid1]}")
step "$BLKPEAK" analyze compare --db "$DB" "$S" "$R0" "$R1"
for k in latency-cdf iops lba qd sizes; do
	"$BLKPEAK" analyze plot --db "$DB" --kind "$k" -o "$DIR/$k.svg" "$S" "$R0" "$R1" "$CAP"
done
step "$BLKPEAK" analyze html --db "$DB" -o "$DIR/report.html" \
	--title "blkpeak demo: photo-editing session on one disk, RAID 0 and RAID 1" \
	--note "Recorded with blkpeak capture on a throttled RAM-backed loop device, replayed with causal timing on one, RAID 0 (64 KiB chunks) and RAID 1 of two such devices, each capped at $IOPS IOPS and $MBPS MB/s each way by the kernel's block throttling (cgroup $THR_KIND). Workload scale $WL_SCALE." \
	"$S" "$R0" "$R1" "$CAP"
say ""
say "Results in $DIR: photo-edit.bpt (the recording), run-*.bpt (the replays),"
say "blkpeak.db (SQLite), *.svg (charts), report.html (open it in a browser)."
