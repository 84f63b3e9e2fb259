#!/bin/bash
# 90-demo.sh — `make demo`'s script (scripts/demo.sh) runs to completion at
# a small size on emulated 7200 rpm disks, records the real photo-edit
# recipe (ImageMagick) and names the programs that did its I/O, refuses a
# WORKLOAD that is not a recipe, names the disk model, replays each
# target DEMO_REPEAT times and prints the comparison (a headline first,
# medians and ranges, within 100 columns) with the time saved by RAID 0
# and by the "dual" set-up (photo-edit's pixel cache and history files
# packed on a second disk by replay --map path:) next to IPEAK's figures
# and why they differ, titles itself
# after DEMO_TARGETS, removes an earlier demo's files from its folder,
# writes valid charts and a report that renders in headless Chromium,
# and leaves no loop device, mount, cgroup or temp dir behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser.sh"
need_bpf
need_cmd mkfs.ext4 losetup python3 sqlite3 lsblk
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHECK="python3 $ROOT/tests/e2e/chartcheck.py"
. "$ROOT/scripts/throttle.sh"
thr_detect 2>/dev/null || THR_ROOT=""
with_kernel_lock

# The demo's temporary folder goes inside this test's (DEMO_TMP) and its
# cgroup is named after its pid, so what it leaves behind is told apart
# from what another demo running at the same time has (the lead's `make
# demo`, another checkout's test).
OUT=$E2E_TMP/demo
mkdir "$E2E_TMP/tmp" "$OUT" || fail "mkdir"
# an earlier demo's files (listed in its .blkpeak-demo) go; others stay
printf 'run-raid5.bpt\nold.svg\n' > "$OUT/.blkpeak-demo"
touch "$OUT/run-raid5.bpt" "$OUT/old.svg" "$OUT/mine.txt"
DEMO_TARGETS="single raid0 dual" DEMO_TMP=$E2E_TMP/tmp DEMO_DIR=$OUT DEMO_SCALE=0.4 DEMO_REPEAT=2 \
	BLKPEAK=$BLKPEAK "$ROOT/scripts/demo.sh" \
	> "$E2E_TMP/demo.log" 2>&1 &
pid=$!
wait $pid
rc=$?
[ $rc -eq 0 ] || { tail -30 "$E2E_TMP/demo.log"; fail "the demo failed (exit $rc)"; }

# (a lazy detach ends when the last user closes the device: a few seconds
# are allowed on a loaded machine)
for _ in $(seq 50); do
	losetup -n -O BACK-FILE | grep -q "^$E2E_TMP/tmp/" || break
	sleep 0.2
done
! losetup -n -O BACK-FILE | grep -q "^$E2E_TMP/tmp/" || fail "the demo left loop devices: $(losetup -a | grep "$E2E_TMP/tmp/")"
[ ! -e "$THR_ROOT/blkpeak-demo-$pid" ] || fail "the demo left its cgroup $THR_ROOT/blkpeak-demo-$pid"
! grep -q "$E2E_TMP/tmp/" /proc/mounts || fail "the demo left a mount: $(grep "$E2E_TMP/tmp/" /proc/mounts)"
[ -z "$(ls -A "$E2E_TMP/tmp")" ] || fail "the demo left files: $(ls -A "$E2E_TMP/tmp")"

# the recording is ImageMagick's, and the demo says so (output and report)
grep -q '^== 1. record the photo-edit workload (workloads/photo-edit' "$E2E_TMP/demo.log" ||
	fail "the demo does not name its recipe"
# the writeback of ImageMagick's files is credited to it (issue 26), so
# convert, not a kworker, comes first
grep -Eq '^By program: convert \([0-9]+ process(es)?\): [1-9][0-9]* I/Os' "$E2E_TMP/demo.log" ||
	fail "the demo does not credit ImageMagick first: $(grep -A3 'By program' "$E2E_TMP/demo.log")"
grep -q '^top processes by I/Os' <(sed 's/^ *//' "$E2E_TMP/demo.log") ||
	fail "the demo does not print the top processes"
grep -q 'the programs that caused its I/O (writeback credited to the writer; the five busiest by I/Os): convert (' "$OUT/report.html" ||
	fail "the report does not name the programs that caused the I/O"
grep -q '^Disk model: 7200 (WD Caviar WD400BB' "$E2E_TMP/demo.log" || fail "the demo does not name its disk model"
grep -q 'hdd:7200:/dev/loop' "$E2E_TMP/demo.log" || fail "the demo does not replay onto emulated disks"
grep -q 'IPEAK measured .*45.9 s, RAID 0 of two 39.6 s (13.7% saved)' "$E2E_TMP/demo.log" ||
	fail "the demo does not show IPEAK's figures"
grep -q 'emulated disk, model 7200' "$OUT/report.html" || fail "the report does not name the disk model"
grep -q 'time saved' "$E2E_TMP/demo.log" || fail "no time saved in the demo's output"
grep -q '^verified: *every block checksum' "$E2E_TMP/demo.log" || fail "the demo shows no verified recording"
for f in photo-edit.bpt run-single.1.bpt run-single.2.bpt run-raid0.1.bpt run-raid0.2.bpt \
	run-dual.1.bpt run-dual.2.bpt blkpeak.db report.html; do
	[ -s "$OUT/$f" ] || fail "the demo did not write $f"
done
[ ! -e "$OUT/run-raid5.bpt" ] && [ ! -e "$OUT/old.svg" ] || fail "an earlier demo's files stayed: $(ls "$OUT")"
[ -e "$OUT/mine.txt" ] || fail "the demo removed a file it had not written"
grep -q '^== blkpeak demo: the photo-edit workload (workloads/photo-edit) on one disk, RAID 0 and two independent disks$' \
	"$E2E_TMP/demo.log" || fail "the demo's title: $(grep '^== blkpeak demo' "$E2E_TMP/demo.log")"
# the comparison: its headline first, medians of 2 runs, within 100 columns
sed -n '/analyze compare --db/,/^Time saved against/p' "$E2E_TMP/demo.log" | sed '1d;$d' > "$E2E_TMP/cmp.txt"
sed -n 1p "$E2E_TMP/cmp.txt" | grep -qE '(finishes [0-9.]+% (sooner|later) than|is the fastest:) .*(median of 2|$)' ||
	fail "compare's headline: $(head -3 "$E2E_TMP/cmp.txt")"
grep -qE '^runs +2 +2 +2$' "$E2E_TMP/cmp.txt" || fail "compare: not 2 runs each: $(cat "$E2E_TMP/cmp.txt")"
python3 -c 'import sys; w = max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")); sys.exit(w > 100)' \
	"$E2E_TMP/cmp.txt" || fail "the demo's compare is wider than 100 columns: $(cat "$E2E_TMP/cmp.txt")"
grep -q '^  raid0 x2 64k .*\[.* to .* %\] .*, 2 runs$' "$E2E_TMP/demo.log" ||
	fail "the time saved with its range: $(grep -A4 '^Time saved' "$E2E_TMP/demo.log")"
# dual: the scratch and history files (and only they) on the second disk
grep -Eq "^  placed      path:$E2E_TMP/tmp/blkpeak-demo\.[^/]*/wl/mnt1/scratch/\*\|[^ ]*/wl/mnt1/history/\* -> hdd:7200:/dev/loop[0-9]+ \([1-9][0-9]* files packed at bytes 0-[0-9]+\): [1-9][0-9]* I/Os" \
	"$E2E_TMP/demo.log" || fail "dual: no scratch files placed on the second disk: $(grep -m2 placed "$E2E_TMP/demo.log")"
grep -q '^  dual hdd:7200 .*\[.* to .* %\] .*, 2 runs$' "$E2E_TMP/demo.log" ||
	fail "dual's time saved: $(grep -A4 '^Time saved' "$E2E_TMP/demo.log")"
grep -q 'two disks with the scratch and swap partitions on the second 43.0 s (6.3% saved)' \
	"$E2E_TMP/demo.log" || fail "the demo does not show IPEAK's dual figure"
grep -q 'IPEAK timed a 2004 CPU with real disks, while this recording ran on RAM-backed loop devices' \
	"$E2E_TMP/demo.log" || fail "the demo does not say why its figures differ from IPEAK's"
# Four series (single, raid0, dual, the recording) in every chart.
for k in latency-cdf iops lba qd sizes; do
	$CHECK svg "$OUT/$k.svg" 4 || fail "$k.svg"
done
# 11 charts of the runs, and the recording's busiest files and directories
n=$($CHECK html-svgs "$OUT/report.html") || fail "report.html"
[ "$n" -eq 13 ] || fail "report has $n charts, expected 13"
grep -Eq '<figure id="chart-files-[0-9]+">' "$OUT/report.html" || fail "report.html: no files chart of the recording"
if command -v "$CHROMIUM" >/dev/null 2>&1; then
	check_report_in_browser "$OUT/report.html" 13
	[ -n "${KEEP_SCREENSHOT:-}" ] && cp "$OUT/report.png" "$KEEP_SCREENSHOT"
else
	[ "${CI:-}" = true ] && fail "chromium is missing (scripts/install-deps.sh installs it)"
	note "chromium missing: browser check not run"
fi
# WORKLOAD names a recipe of workloads/; anything else is refused before
# anything is made, with the list of recipes.
rc=0
WORKLOAD=../Makefile DEMO_TMP=$E2E_TMP/tmp DEMO_DIR=$E2E_TMP/bad BLKPEAK=$BLKPEAK "$ROOT/scripts/demo.sh" \
	> "$E2E_TMP/bad.log" 2>&1 || rc=$?
[ $rc -eq 1 ] && grep -q "WORKLOAD: '../Makefile': not a recipe name" "$E2E_TMP/bad.log" ||
	fail "WORKLOAD=../Makefile: exit $rc: $(cat "$E2E_TMP/bad.log")"
rc=0
WORKLOAD=nosuch DEMO_TMP=$E2E_TMP/tmp DEMO_DIR=$E2E_TMP/bad BLKPEAK=$BLKPEAK "$ROOT/scripts/demo.sh" \
	> "$E2E_TMP/bad.log" 2>&1 || rc=$?
[ $rc -eq 1 ] && grep -q "WORKLOAD: 'nosuch': no such recipe; there are: .*photo-edit" "$E2E_TMP/bad.log" ||
	fail "WORKLOAD=nosuch: exit $rc: $(cat "$E2E_TMP/bad.log")"
! grep -q common.sh "$E2E_TMP/bad.log" || fail "common.sh is listed as a recipe"
# the title follows DEMO_TARGETS (it is printed before a bad DEMO_DISK stops the demo)
rc=0
DEMO_TARGETS="single raid0 raid5 dual" DEMO_DISK=nosuch DEMO_TMP=$E2E_TMP/tmp DEMO_DIR=$E2E_TMP/bad \
	BLKPEAK=$BLKPEAK "$ROOT/scripts/demo.sh" > "$E2E_TMP/bad.log" 2>&1 || rc=$?
[ $rc -eq 1 ] && grep -q '^== blkpeak demo: the photo-edit workload (workloads/photo-edit) on one disk, RAID 0, RAID 5 and two independent disks$' \
	"$E2E_TMP/bad.log" || fail "DEMO_TARGETS title: exit $rc: $(cat "$E2E_TMP/bad.log")"
rm -rf "$E2E_TMP/bad"
[ -z "$(ls -A "$E2E_TMP/tmp")" ] && [ ! -e "$E2E_TMP/bad" ] ||
	fail "a refused WORKLOAD left files: $(ls -A "$E2E_TMP/tmp") $(ls -d "$E2E_TMP/bad" 2>/dev/null)"

# The point of the demo: on emulated disks, RAID 0 finishes sooner than one disk.
saved=$(sqlite3 "$OUT/blkpeak.db" "SELECT round(max(time_saved_pct), 1) FROM comparison_entries
	WHERE label LIKE 'raid0 x2 64k%' AND comparison_id = (SELECT max(id) FROM comparisons)")
awk -v s="$saved" 'BEGIN { exit !(s > 0) }' || fail "RAID 0 saved no time ($saved %)"
grep -E 'raid0|raid1' "$E2E_TMP/demo.log" | grep '%' | sed 's/^/  /' | head -4
exit 0
