#!/bin/bash
# reproduce.sh — `make reproduce`: the seeds' published tables (issue 29)
# run again on blkpeak's emulated disks and virtual arrays, and written
# side by side with the published figures into docs/reproductions.md
# (scripts/reproductions.py writes it from the results kept here).
#
# Parts (REPRO_PARTS, in this order by default):
#   twinstor     3ware's TwinStor RAID 1 paper: random 8 KiB reads at queue
#                depths 1, 2 and 32 on one emulated 7200 rpm disk, a RAID 0
#                and a RAID 1 of two (measure qd-sweep --like a generated
#                trace of such reads); random 8 KiB writes (write caches
#                off) on one disk and the RAID 1
#   pgbook       "PostgreSQL 9.0 High Performance": commits per second of a
#                7200 rpm disk with its write cache off and on (measure
#                commit); seeks per second over 10% and 40% of a 40 GiB disk
#                (measure seeks: the book's 4 GB and 16 GB spans); ZCAV of one
#                disk and of a RAID 0 of three (measure zcav)
#   storagemark  Tweakers' StorageMark and the HGST/Seagate sheets: the
#                IOMeter file-server pattern at QD 1-64 on a 10k SATA disk
#                without command queuing (raptor360) and one with it
#                (raptor740); random 4 KiB reads and writes of a 7200 rpm
#                disk at QD 1 and 256
#   ipeak        the IPEAK desktop study: photo-edit and backup recorded
#                (blkpeak suite record; needs root and BPF), replayed with
#                causal timing alone and mixed (photo-edit while backup,
#                a [mix]) on the study's six configurations: one WD360,
#                RAID 0 of two, one WD740, RAID 0 of two, WD740 "dual"
#                (the upper half of each recorded disk on a second disk)
#                and RAID 5 of four 15k disks behind a controller's
#                128 MiB write-back cache (cache=128m); the ordering is
#                compared. The backup is recorded larger than its recipe's
#                default (REPRO_BACKUP_SCALE) so that it outlasts
#                photo-edit and loads the disk throughout, as IPEAK's did;
#                the mix's time is photo-edit's own (its I/Os' first issue
#                to last completion: the manifest's time = photo-edit)
#
# Every disk is a sparse file in REPRO_TMP (default /dev/shm) behind an
# emulated disk (hdd:MODEL:FILE, presets in replay/disk/, data-sheet
# sources in schemas/disk-model.md), removed at the end, also on failure
# or Ctrl-C. The results stay in REPRO_DIR (default reproduce/): one JSON
# document per measurement, the IPEAK suite folder, its database and
# leaderboard; docs/reproductions.md (REPRO_OUT) is written from them.
#
# Environment: REPRO_PARTS, REPRO_IOS (I/Os per measured step, default
# 400), REPRO_REPEAT (IPEAK's repeats, default 2), REPRO_SCALE (the
# recipes' --scale, default theirs), REPRO_BACKUP_SCALE (the backup's,
# default REPRO_SCALE, else 0.25: 500 files, ~60 MiB, five times the recipe's
# default), REPRO_DIR, REPRO_TMP, REPRO_OUT,
# BLKPEAK (the binary).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BLKPEAK=${BLKPEAK:-$ROOT/build/blkpeak}
DIR=${REPRO_DIR:-reproduce}
OUT=${REPRO_OUT:-docs/reproductions.md}
PARTS=${REPRO_PARTS:-twinstor pgbook storagemark ipeak}
IOS=${REPRO_IOS:-400}
REPEAT=${REPRO_REPEAT:-2}
BACKUP_SCALE=${REPRO_BACKUP_SCALE:-${REPRO_SCALE:-0.25}}

die() { echo "reproduce: $*" >&2; exit 1; }
case "${1:-}" in
-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "reproduce: takes no arguments (settings are environment variables; see --help)" >&2; exit 2 ;;
esac
[ -x "$BLKPEAK" ] || die "$BLKPEAK: not built (run make)"
[[ $IOS =~ ^[1-9][0-9]{0,6}$ ]] || die "REPRO_IOS: '$IOS': not a whole number from 1 to 9999999"
[[ $REPEAT =~ ^[1-9][0-9]?$ ]] || die "REPRO_REPEAT: '$REPEAT': not a whole number from 1 to 99"
[[ $BACKUP_SCALE =~ ^[0-9]{1,3}(\.[0-9]{1,6})?$ ]] ||
	die "REPRO_BACKUP_SCALE: '$BACKUP_SCALE': not a number such as 0.2"
for p in $PARTS; do
	case $p in twinstor|pgbook|storagemark|ipeak) ;;
	*) die "REPRO_PARTS: '$p': not twinstor, pgbook, storagemark or ipeak" ;; esac
done
case " $PARTS " in *" ipeak "*) [ "$(id -u)" -eq 0 ] ||
	die "the ipeak part records workloads (loop devices, BPF): run as root, or leave it out of REPRO_PARTS" ;;
esac
command -v python3 >/dev/null || die "needs python3 (scripts/reproductions.py writes the page)"

mkdir -p "$DIR"
WORK=$(mktemp -d "${REPRO_TMP:-/dev/shm}/blkpeak-reproduce.XXXXXX")
cleanup() { rm -rf -- "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
step() { printf '$ %s\n' "$*"; "$@"; }
disk() { truncate -s "$2" "$WORK/$1.img" && echo "$WORK/$1.img"; } # NAME SIZE: a sparse file
# measure KIND NAME ARGS...: one measurement into DIR/PART/NAME.json
measure() {
	local kind=$1 name=$2
	shift 2
	step "$BLKPEAK" measure "$kind" "$@" --no-store -o "$DIR/$PART/$name.json" > "$WORK/last.txt"
	sed 's/^/    /' "$WORK/last.txt"
}
START=$(date +%s)

for PART in $PARTS; do
	mkdir -p "$DIR/$PART"
	rm -f "$DIR/$PART"/*.json
	echo "== $PART"
	case $PART in
	twinstor)
		A=$(disk a 40G) B=$(disk b 40G)
		step "$BLKPEAK" generate -q -o "$WORK/r8k.bpt" --count 1000 --bs 8k --read-pct 100 --span 1g --seed 1
		step "$BLKPEAK" generate -q -o "$WORK/w8k.bpt" --count 1000 --bs 8k --read-pct 0 --span 1g --seed 2
		measure qd-sweep read-single --like "$WORK/r8k.bpt" --depths 1,2,32 --ios "$IOS" --target "hdd:7200:$A"
		measure qd-sweep read-raid0 --like "$WORK/r8k.bpt" --depths 1,2,32 --ios "$IOS" \
			--target "raid0:chunk=64k:hdd:7200:$A,hdd:7200:$B"
		measure qd-sweep read-raid1 --like "$WORK/r8k.bpt" --depths 1,2,32 --ios "$IOS" \
			--target "raid1:hdd:7200:$A,hdd:7200:$B"
		# writes with the disks' write caches off: each one a media access
		measure qd-sweep write-single --like "$WORK/w8k.bpt" --depths 1,2 --ios "$IOS" \
			--target "hdd:7200,wcache=off:$A"
		measure qd-sweep write-raid1 --like "$WORK/w8k.bpt" --depths 1,2 --ios "$IOS" \
			--target "raid1:hdd:7200,wcache=off:$A,hdd:7200,wcache=off:$B"
		;;
	pgbook)
		A=$(disk a 40G) B=$(disk b 40G) C=$(disk c 40G)
		measure commit commit-nocache --ios "$IOS" --target "hdd:7200,wcache=off:$A"
		measure commit commit-cache --ios "$IOS" --target "hdd:7200,wcache=on:$A"
		measure seeks seeks --spans 10,40 --ios "$IOS" --target "hdd:7200:$A"
		measure zcav zcav-single --zones 8 --ios 16 --target "hdd:7200:$A"
		measure zcav zcav-raid0x3 --zones 8 --ios 16 \
			--target "raid0:chunk=64k:hdd:7200:$A,hdd:7200:$B,hdd:7200:$C"
		;;
	storagemark)
		A=$(disk a 40G)
		step "$BLKPEAK" generate -q -o "$WORK/w4k.bpt" --count 1000 --bs 4k --read-pct 0 --span 1g --seed 3
		measure qd-sweep fileserver-raptor360 --pattern fileserver --depths 1,4,16,64 --ios "$IOS" \
			--target "hdd:raptor360:$A"
		measure qd-sweep fileserver-raptor740 --pattern fileserver --depths 1,4,16,64 --ios "$IOS" \
			--target "hdd:raptor740:$A"
		measure qd-sweep random-read-7200 --pattern random --depths 1,256 --ios "$IOS" --target "hdd:7200:$A"
		measure qd-sweep random-write-7200 --like "$WORK/w4k.bpt" --depths 1,256 --ios "$IOS" \
			--target "hdd:7200:$A"
		;;
	ipeak)
		S=$DIR/ipeak/suite
		DB=$DIR/ipeak/suite.db
		rm -rf -- "$S" "$DB"
		SCALE=()
		if [ -n "${REPRO_SCALE:-}" ]; then SCALE=(--scale "$REPRO_SCALE"); fi
		step "$BLKPEAK" suite record "$S" photo-edit "${SCALE[@]}" --workloads "$ROOT/workloads"
		step "$BLKPEAK" suite record "$S" backup --scale "$BACKUP_SCALE" \
			--workloads "$ROOT/workloads"
		cat > "$S/suite.ini" <<INI
# IPEAK's photo-editing test alone and beside a backup (scripts/reproduce.sh)
[suite]
name = ipeak
[recording photo-edit]
file = photo-edit.bpt
timing = causal
repeat = $REPEAT
[recording backup]
file = backup.bpt
timing = causal
repeat = 1
[mix photo-edit-with-backup]
recordings = photo-edit, backup
# IPEAK timed photo-edit while the backup ran: photo-edit's own I/Os
time = photo-edit
timing = causal
repeat = $REPEAT
INI
		# disks as large as the largest recorded device; dual's second
		# disk takes each recorded device from half the smallest on
		read -r SIZE SMALLEST < <(python3 "$ROOT/scripts/device-sizes.py" "$BLKPEAK" "$S"/*.bpt)
		[ "${SMALLEST:-0}" -gt 0 ] || die "the recordings name no device size"
		for d in a b c d e; do disk "$d" "$SIZE" > /dev/null; done
		W=$WORK
		HALF=$((SMALLEST / 2 / 4096 * 4096))
		declare -A TGT=(
			[wd360]="hdd:raptor360:$W/a.img"
			[wd360-raid0]="raid0:chunk=64k:hdd:raptor360:$W/a.img,hdd:raptor360:$W/b.img"
			[wd740]="hdd:raptor740:$W/a.img"
			[wd740-raid0]="raid0:chunk=64k:hdd:raptor740:$W/a.img,hdd:raptor740:$W/b.img"
			[wd740-dual]="hdd:raptor740:$W/a.img"
			[15k-raid5]="raid5:chunk=64k:cache=128m:hdd:15k:$W/a.img,hdd:15k:$W/b.img,hdd:15k:$W/c.img,hdd:15k:$W/d.img")
		for t in wd360 wd360-raid0 wd740 wd740-raid0 wd740-dual 15k-raid5; do
			MAP=()
			[ "$t" = wd740-dual ] && MAP=(--map "*:$HALF-=hdd:raptor740:$W/e.img")
			step "$BLKPEAK" suite run "$S" --target "${TGT[$t]}" "${MAP[@]}" --label "$t" --db "$DB"
		done
		step "$BLKPEAK" analyze leaderboard "$S" --baseline wd360 --db "$DB"
		"$BLKPEAK" analyze leaderboard "$S" --baseline wd360 --db "$DB" --json > "$DIR/ipeak/leaderboard.json"
		;;
	esac
done
END=$(date +%s)
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
step python3 scripts/reproductions.py "$DIR" --seconds $((END - START)) --load "$LOAD" \
	--parts "$PARTS" --backup-scale "$BACKUP_SCALE" -o "$OUT"
echo "reproduce: $OUT written ($((END - START)) s; load average at the end $LOAD)"
