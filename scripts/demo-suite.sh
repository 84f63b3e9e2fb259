#!/bin/bash
# demo-suite.sh — the storage reviewer's job end to end, run by
# `make demo SUITE=1` (docs/suite.md walks through it):
#
#   1. record workload recipes into a suite folder (blkpeak suite record:
#      by default photo-edit, IPEAK's photo editing, and database, small
#      committed transactions), and write its manifest (blkpeak suite
#      init), edited for a short run: causal timing, DEMO_REPEAT repeats,
#      the IOMeter file-server and web-server qd-sweeps at depths 1, 4 and
#      16 weighted by photo-edit's own queue depths;
#   2. run the suite on each configuration of emulated 7200 rpm disks
#      (blkpeak's model of a desktop drive of IPEAK's time, hdd:7200:FILE,
#      schemas/disk-model.md): one disk (single), RAID 0 and RAID 1 of
#      two, RAID 5 of four (64 KiB chunks), and IPEAK's "dual" (the part
#      of each recorded disk from half the smallest recorded disk on, where
#      a scratch or swap partition would be, on a second disk: suite run
#      --map '*:START-=...', one START for every recording);
#   3. print the leaderboard (baseline: single) and write it to
#      DEMO_DIR/leaderboard.html.
#
# The emulated disks are sparse files in a temporary folder (DEMO_TMP,
# default /dev/shm), removed at the end, also on failure or Ctrl-C. The
# results stay in DEMO_DIR (default demo-suite/): the suite folder (its
# recordings, manifest and results/), the database suite.db and the HTML
# report; the files an earlier run wrote there (listed in its
# .blkpeak-demo-suite) are removed first.
#
# Environment: DEMO_RECIPES (default "photo-edit database"), DEMO_SCALE
# (the recipes' --scale; default theirs), DEMO_REPEAT (default 2),
# DEMO_TARGETS (from: single raid0 raid1 raid5 dual; default all five),
# DEMO_DIR, DEMO_TMP, BLKPEAK (the binary).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
DIR=${DEMO_DIR:-demo-suite}
RECIPES=${DEMO_RECIPES:-photo-edit database}
REPEAT=${DEMO_REPEAT:-2}
TARGETS=${DEMO_TARGETS:-single raid0 raid1 raid5 dual}

die() { echo "demo-suite: $*" >&2; exit 1; }
case "${1:-}" in
-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "demo-suite: takes no arguments (settings are environment variables; see --help)" >&2; exit 2 ;;
esac
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

[ "$(id -u)" -eq 0 ] || die "needs root (the recipes' loop devices, BPF): run it as root"
[ -x "$BLKPEAK" ] || die "$BLKPEAK: not built (run make)"
[[ $REPEAT =~ ^[1-9][0-9]?$ ]] || die "DEMO_REPEAT: '$REPEAT': not a whole number from 1 to 99"
for t in $TARGETS; do
	case $t in single|raid0|raid1|raid5|dual) ;; *) die "DEMO_TARGETS: '$t': not single, raid0, raid1, raid5 or dual" ;; esac
done
SCALE=()
if [ -n "${DEMO_SCALE:-}" ]; then SCALE=(--scale "$DEMO_SCALE"); fi

# DEMO_DIR holds only this demo's files: an earlier run's are removed.
mkdir -p "$DIR"
if [ -f "$DIR/.blkpeak-demo-suite" ]; then
	while read -r f; do
		case $f in ''|/*|*..*) continue ;; esac
		rm -rf -- "${DIR:?}/$f"
	done < "$DIR/.blkpeak-demo-suite"
fi
printf '%s\n' suite suite.db leaderboard.html > "$DIR/.blkpeak-demo-suite"
DB=$DIR/suite.db
S=$DIR/suite

WORK=$(mktemp -d "${DEMO_TMP:-/dev/shm}/blkpeak-demo-suite.XXXXXX")
cleanup() { rm -rf -- "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== 1. record the workloads ($RECIPES) into $S"
# shellcheck disable=SC2086
step "$BLKPEAK" suite record "$S" $RECIPES "${SCALE[@]}"
step "$BLKPEAK" suite init "$S" --name desktop
# a short run: the repeats asked for, three depths, 300 I/Os a step
sed -i -e "s/^repeat = 3$/repeat = $REPEAT/" -e 's/^depths = .*/depths = 1,4,16/' \
	-e 's/^ios = .*/ios = 300/' "$S/suite.ini"
FIRST=${RECIPES%% *}   # the sweeps weighted by the first recipe's queue depths
sed -i "s/^weights-from = .*/weights-from = $FIRST/" "$S/suite.ini"
echo "--- $S/suite.ini:"
grep -v '^#' "$S/suite.ini" | sed '/^$/d'

# The emulated disks: sparse files as large as the largest recorded
# device; dual's second disk takes each device from half the smallest on.
read -r SIZE SMALLEST < <(python3 "$ROOT/scripts/device-sizes.py" "$BLKPEAK" "$S"/*.bpt)
[ "${SMALLEST:-0}" -gt 0 ] || die "the recordings name no device size"
for d in a b c d e; do truncate -s "$SIZE" "$WORK/$d.img"; done
H=hdd:7200
declare -A TGT=(
	[single]="$H:$WORK/a.img"
	[raid0]="raid0:chunk=64k:$H:$WORK/a.img,$H:$WORK/b.img"
	[raid1]="raid1:$H:$WORK/a.img,$H:$WORK/b.img"
	[raid5]="raid5:chunk=64k:$H:$WORK/a.img,$H:$WORK/b.img,$H:$WORK/c.img,$H:$WORK/d.img"
	[dual]="$H:$WORK/a.img")
HALF=$((SMALLEST / 2 / 4096 * 4096))

echo ""
echo "== 2. run the suite on each configuration (emulated 7200 rpm disks)"
for t in $TARGETS; do
	MAP=()
	[ "$t" = dual ] && MAP=(--map "*:$HALF-=$H:$WORK/e.img")
	step "$BLKPEAK" suite run "$S" --target "${TGT[$t]}" "${MAP[@]}" --label "$t" --db "$DB"
done

echo ""
echo "== 3. the leaderboard"
BASE=single
case " $TARGETS " in *" single "*) ;; *) BASE=$(echo "$TARGETS" | awk '{ print $1 }') ;; esac
step "$BLKPEAK" analyze leaderboard "$S" --baseline "$BASE" --db "$DB"
step "$BLKPEAK" analyze html --leaderboard "$S" --baseline "$BASE" --db "$DB" \
	--title "blkpeak suite: desktop on emulated 7200 rpm disks" -o "$DIR/leaderboard.html"
echo ""
echo "Results: $S/results/, $DB; the report: $DIR/leaderboard.html"
