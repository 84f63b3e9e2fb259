#!/bin/bash
# demo.sh — the main job of blkpeak, run by `make demo`. For now: make a
# synthetic trace of Intel's IOMeter file-server workload, look at it, and
# print its first I/Os. (It grows into capture -> replay -> compare.)
#
# Output goes to demo/ (or $DEMO_DIR). BLKPEAK names the binary (make
# sets it; default build/blkpeak).
set -euo pipefail
cd "$(dirname "$0")/.."
BLKPEAK=${BLKPEAK:-build/blkpeak}
DIR=${DEMO_DIR:-demo}
mkdir -p "$DIR"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

echo "== 1. a synthetic trace: 1M I/Os of the IOMeter file-server mix,"
echo "      20k IOPS Poisson arrivals on a 32-deep device, 8 GiB span"
step "$BLKPEAK" generate --pattern fileserver --count 1000000 --iops 20000 \
	--arrival poisson --queue-depth 32 --span 8g --seed 1 -o "$DIR/fileserver.bpt"

echo
echo "== 2. what the trace holds, every block checksum verified"
step "$BLKPEAK" info --verify "$DIR/fileserver.bpt"

echo
echo "== 3. its first millisecond, one line per I/O"
step "$BLKPEAK" dump --end 1ms "$DIR/fileserver.bpt"

echo
echo "== 4. the whole trace as CSV, for a spreadsheet or pandas"
"$BLKPEAK" dump --format csv "$DIR/fileserver.bpt" >"$DIR/fileserver.csv"
echo "$DIR/fileserver.csv: $(($(wc -l <"$DIR/fileserver.csv") - 1)) I/Os," \
	"$(du -h "$DIR/fileserver.csv" | cut -f1) as CSV," \
	"$(du -h "$DIR/fileserver.bpt" | cut -f1) as .bpt"
