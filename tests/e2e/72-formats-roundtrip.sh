#!/bin/bash
# Exports of a REAL capture read by the peers, and round trips. A fio
# mixed job (two random read/write processes, fsync flushes, discards) on
# a loop device is captured; then:
#  - --to blktrace: blkparse (Debian 12: 1.2.0) reads every event (no
#    "Bad fs action": cgroup ids only with --cgroup-ids), one Q, D and C
#    per I/O; btt's D2C mean is the report's service mean; iowatcher and
#    btrecord read it; -o NAME.blktrace.0 is that file, .blktrace.1 refused;
#  - blktrace back to .bpt keeps every field blktrace carries for every
#    I/O, completion-not-seen ones included (their value and bound);
#    with --cgroup-ids the cgroup ids too;
#  - --to fio and back keeps issue time (µs), device, sector, length, op;
#  - a trace with 300,000 requests in flight goes out and back whole.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture
need_cmd fio blkparse btt btrecord iowatcher python3
PY=$(command -v /usr/bin/python3 || command -v python3)
RT="$PY $(dirname "$0")/roundtrip_check.py"
dump() { "$BLKPEAK" dump --format csv "$1" > "$2" || fail "dump $1"; }

L=$(make_loop 256M)
N=$(basename "$L")
settle
cat > "$T/job.fio" <<J
[global]
filename=$L
direct=1
ioengine=libaio
size=200M
number_ios=6000
[rw]
rw=randrw
bs=4k
iodepth=16
numjobs=2
[wr]
rw=randwrite
bs=16k
iodepth=4
fsync=8
number_ios=2000
[trim]
rw=randtrim
bs=64k
iodepth=2
number_ios=500
J
"$BLKPEAK" capture -d "$L" -o "$T/cap.bpt" -- fio --minimal "$T/job.fio" >/dev/null 2>"$T/cap.err" ||
	fail "capture: $(cat "$T/cap.err")"
dump "$T/cap.bpt" "$T/cap.csv"
n=$(($(wc -l < "$T/cap.csv") - 1))
[ "$n" -ge 14000 ] || fail "capture holds $n I/Os"
grep -q ",flush," "$T/cap.csv" || fail "no flush in the capture"
grep -q ",discard," "$T/cap.csv" || fail "no discard in the capture"
[ "$(cut -d, -f9 "$T/cap.csv" | sort -u | wc -l)" -ge 4 ] || fail "fewer than 3 processes"
grep -q ",[1-9][0-9]*,[0-9.]*,[0-9.]*,[-0-9]*,[a-z]*$" "$T/cap.csv" || fail "no cgroup ids in the capture"
unseen=$(grep -c -v ",seen$" "$T/cap.csv")
note "capture: $n I/Os, $unseen with the completion not seen"

# ---------------------------------------------------------------- blktrace
"$BLKPEAK" convert -q "$T/cap.bpt" --to blktrace -o "$T/bt" || fail "--to blktrace"
blkparse -D "$T/bt" -i "$N" -f "%a\n" > "$T/acts.txt" 2>"$T/bp.err" || fail "blkparse"
grep -q "Bad fs action" "$T/bp.err" "$T/acts.txt" && fail "blkparse: $(head -2 "$T/bp.err")"
for a in Q D C; do
	c=$(grep -c "^$a\$" "$T/acts.txt")
	[ "$c" -eq "$n" ] || fail "blkparse shows $c $a events for $n I/Os"
done
# -o as a blktrace user gives it
"$BLKPEAK" convert -q "$T/cap.bpt" -o "$T/one/$N.blktrace.0" 2>/dev/null && fail "no directory: must fail"
mkdir "$T/one"
"$BLKPEAK" convert -q "$T/cap.bpt" -o "$T/one/$N.blktrace.0" || fail "-o NAME.blktrace.0"
[ -f "$T/one/$N.blktrace.0" ] || fail "-o NAME.blktrace.0 is no file"
cmp -s "$T/one/$N.blktrace.0" "$T/bt/$N.blktrace.0" || fail "-o NAME.blktrace.0 differs from the directory's file"
"$BLKPEAK" convert -q "$T/cap.bpt" -o "$T/one/x.blktrace.1" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "give NAME.blktrace.0, or a directory" "$T/err" ||
	fail ".blktrace.1: rc $rc: $(cat "$T/err")"
# back, every field blktrace carries (a flush's preflush bit is the
# FLUSH category itself), completion-not-seen ones included
"$BLKPEAK" convert -q "$T/bt/$N.blktrace.0" -o "$T/back.bpt" || fail "blktrace back"
dump "$T/back.bpt" "$T/back.csv"
note "blktrace round trip: $($RT "$T/cap.csv" "$T/back.csv" --flush-p) I/Os" ||
	fail "blktrace round trip"
"$BLKPEAK" convert -q --cgroup-ids "$T/cap.bpt" --to blktrace -o "$T/btcg" || fail "--cgroup-ids"
"$BLKPEAK" convert -q "$T/btcg/$N.blktrace.0" -o "$T/backcg.bpt" || fail "blktrace back (cgroup)"
dump "$T/backcg.bpt" "$T/backcg.csv"
$RT "$T/cap.csv" "$T/backcg.csv" --flush-p \
	--keys dev,sector,bytes,op,flags,pid,comm,cgroup,error,completion >/dev/null ||
	fail "round trip with --cgroup-ids"
"$BLKPEAK" convert -q --cgroup-ids "$T/cap.bpt" -o "$T/x.iolog" 2>/dev/null; rc=$?
[ "$rc" -eq 2 ] || fail "--cgroup-ids with --to fio: rc $rc, not a usage error"

# btt: D2C mean = the report's mean service time (btt leaves zero-length
# requests, the flushes, out; a completion not seen is a C at its D's
# time for btt, latency 0: 1 in 1000s here, within the bound).
blkparse -q -D "$T/bt" -i "$N" -d "$T/bt.dump" -O >/dev/null 2>&1 || fail "blkparse -d"
btt -i "$T/bt.dump" > "$T/btt.txt" 2>/dev/null || fail "btt"
"$BLKPEAK" analyze report "$T/cap.bpt" --json > "$T/report.json" || fail "report"
$PY - "$T/btt.txt" "$T/cap.csv" <<'EOF2' || fail "btt vs report"
import csv, sys
btt = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 5 and p[0] in ("D2C", "Q2C") and p[0] not in btt:
        btt[p[0]] = (float(p[2]) * 1e6, int(p[4]))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["op"] != "flush"]
seen = [r for r in rows if r["completion"] == "seen"]
d2c = sum(float(r["service_us"]) for r in seen) / len(seen)
print("  btt D2C %.3f us over %d, blkpeak %.3f us over %d" % (btt["D2C"][0], btt["D2C"][1], d2c, len(seen)))
if abs(btt["D2C"][0] - d2c) > 0.005 * d2c:
    sys.exit("btt's D2C mean is not blkpeak's")
if btt["D2C"][1] < 0.99 * len(rows):
    sys.exit("btt paired %d of %d requests" % (btt["D2C"][1], len(rows)))
EOF2
iowatcher -t "$T/bt/$N" -o "$T/io.svg" >/dev/null 2>&1 || fail "iowatcher"
[ -s "$T/io.svg" ] || fail "iowatcher wrote nothing"
mkdir "$T/rec"
btrecord -d "$T/bt" -D "$T/rec" "$N" >/dev/null 2>&1 || fail "btrecord"
ls "$T/rec"/* >/dev/null 2>&1 || fail "btrecord wrote nothing"

# ---------------------------------------------------------------- fio
"$BLKPEAK" convert -q "$T/cap.bpt" --to fio -o "$T/cap.iolog" || fail "--to fio"
"$BLKPEAK" convert -q "$T/cap.iolog" -o "$T/backfio.bpt" || fail "fio back"
dump "$T/backfio.bpt" "$T/backfio.csv"
$RT "$T/cap.csv" "$T/backfio.csv" --us --keys dev,sector,bytes,op --times issue_us >/dev/null ||
	fail "fio round trip"

# ---------------------------------------------------------------- deep
# 300,000 requests in flight at once (MSR CSV: 100 ns ticks, response 0.1 s).
$PY - "$T/deep.csv" <<'EOF2'
import random, sys
random.seed(1)
with open(sys.argv[1], "w") as f:
    for i in range(300000):
        typ = "Read" if random.random() < 0.7 else "Write"
        f.write("%d,hm,0,%s,%d,4096,1000000\n" % (128166372000000000 + 2 * i, typ,
                                                 random.randrange(1 << 18) * 4096))
EOF2
"$BLKPEAK" convert -q "$T/deep.csv" -o "$T/deep.bpt" || fail "deep: msr"
"$BLKPEAK" convert -q "$T/deep.bpt" --to blktrace -o "$T/deepbt" || fail "deep: --to blktrace"
"$BLKPEAK" convert -q "$T/deepbt/hm_0.blktrace.0" -o "$T/deepback.bpt" || fail "deep: back"
dump "$T/deep.bpt" "$T/deep1.csv"
dump "$T/deepback.bpt" "$T/deep2.csv"
$RT "$T/deep1.csv" "$T/deep2.csv" --keys dev,sector,bytes,op,flags,error,completion >/dev/null ||
	fail "deep round trip"
echo "ok"
