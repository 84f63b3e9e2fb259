#!/bin/bash
# Exports of a REAL capture read by the peers, and round trips. A fio
# mixed job (two random read/write processes, fsync flushes, discards) on
# a loop device is captured; then:
#  - --to blktrace: blkparse (Debian 12: 1.2.0) reads every event (no
#    "Bad fs action": cgroup ids only with --cgroup-ids), one Q, D and C
#    per I/O; btt pairs every I/O it can (not those overlapping another
#    in flight) exactly, and its Q2C and D2C means on them are the
#    report's; iowatcher draws it; btrecord + btreplay replay every read
#    and write; -o NAME.blktrace.0 is that file, .blktrace.1 refused;
#  - blktrace back to .bpt keeps every field blktrace carries for every
#    I/O, completion-not-seen ones included (their value and bound);
#    with --cgroup-ids the cgroup ids too;
#  - --to fio and back keeps issue time (µs), device, sector, length, op;
#  - a trace with 300,000 requests in flight goes out and back whole.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture
need_cmd fio blkparse btt btrecord btreplay iowatcher python3 zstd
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
# the cgroup column by its name: a capture's dump has more columns after it
python3 -c 'import csv, sys
sys.exit(not any(r["cgroup"] not in ("", "0") for r in csv.DictReader(open(sys.argv[1]))))' "$T/cap.csv" ||
	fail "no cgroup ids in the capture"
unseen=$(python3 -c 'import csv, sys
print(sum(r["completion"] != "seen" for r in csv.DictReader(open(sys.argv[1]))))' "$T/cap.csv")
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

# btt: on every I/O it can pair, btt's Q2C and D2C means and counts are
# the report's, to the ns. btt knows a request only by its sectors, so
# requests that overlap in flight (rare here, and any capture can hold
# them) are outside what it can pair whatever is written
# (schemas/foreign-formats.md): on the whole export every pairable I/O
# has its exact Q, D and C in btt's per-I/O output; the means are
# compared on the trace without the unpairable ones.
PAIR="$PY $(dirname "$0")/btt_pairable.py"
"$BLKPEAK" convert -q "$T/cap.bpt" --to csv-zst -o "$T/cap.csv.zst" || fail "--to csv-zst"
zstd -qdc "$T/cap.csv.zst" > "$T/capns.csv" || fail "zstd -d"
blkparse -q -D "$T/bt" -i "$N" -d "$T/bt.dump" -O >/dev/null 2>&1 || fail "blkparse -d"
# btt writes its iostat files (DEV_iops_fp.dat ...) where it runs: in $T
(cd "$T" && btt -i bt.dump -p perio.txt > btt.txt 2>/dev/null) || fail "btt"
r=$($PAIR perio "$T/capns.csv" "$T/perio.txt") || fail "btt per I/O"
set -- $r
ndata=$((n - $(grep -c ",flush," "$T/cap.csv")))
[ "$1" -ge $((ndata * 99 / 100)) ] || fail "btt paired $1 of $ndata I/Os exactly"
$PAIR subset "$T/capns.csv" "$T/pair.csv" > "$T/pair.n" || fail "pairable subset"
note "btt: $1 I/Os exact, $2 not; $(cut -d' ' -f1 "$T/pair.n") overlap in flight"
"$BLKPEAK" convert -q --from csv "$T/pair.csv" -o "$T/pair.bpt" || fail "pairable: csv back"
"$BLKPEAK" convert -q "$T/pair.bpt" --to blktrace -o "$T/pairbt" || fail "pairable: --to blktrace"
blkparse -q -D "$T/pairbt" -i "$N" -d "$T/pair.dump" -O >/dev/null 2>&1 || fail "pairable: blkparse -d"
(cd "$T" && btt -i pair.dump > pairbtt.txt 2>/dev/null) || fail "pairable: btt"
"$BLKPEAK" analyze report "$T/pair.bpt" --json > "$T/pair.json" || fail "pairable: report"
$PY - "$T/pairbtt.txt" "$T/pair.json" <<'EOF2' || fail "btt vs report"
import json, sys
btt = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 5 and p[0] in ("D2C", "Q2C") and p[0] not in btt:
        btt[p[0]] = (float(p[2]) * 1e9, int(p[4]))
lat = json.load(open(sys.argv[2]))["latency"]
# btt leaves zero-length requests (flushes) out
for name, kind in (("D2C", "service"), ("Q2C", "total")):
    ops = [lat[kind][o] for o in ("read", "write", "discard") if o in lat[kind]]
    count = sum(o["count"] for o in ops)
    mean = sum(o["count"] * o["mean_ns"] for o in ops) / count
    print("  %s: btt %.0f ns over %d, report %.1f ns over %d" % (name, *btt[name], mean, count))
    # btt prints whole ns, the report's means are to 0.1 ns
    if btt[name][1] != count or abs(btt[name][0] - mean) > 1.0:
        sys.exit("btt's %s is not the report's" % name)
EOF2
# iowatcher parses the files with blkparse itself: no event is refused,
# and its graphs of the I/Os are drawn
(cd "$T" && iowatcher -t "bt/$N" -o io.svg) >"$T/iow.out" 2>&1 || fail "iowatcher: $(tail -3 "$T/iow.out")"
grep -q "Bad fs action" "$T/iow.out" && fail "iowatcher: $(grep -m1 "Bad fs action" "$T/iow.out")"
for g in "Device IO" "IO Latency" "Queue Depth"; do
	grep -q ">$g<" "$T/io.svg" || fail "iowatcher drew no '$g' graph"
done
# btrecord and btreplay: every read and write replayed on the device the
# trace names, the test's loop device (btreplay -M, mapping it to
# another, aborts at its exit in blktrace 1.2.0 whatever the trace:
# schemas/foreign-formats.md). btreplay knows reads and writes only: a
# discard is a write for it (the kernel's discard action has the write
# bit too), a flush moves no data and is not replayed.
mkdir "$T/rec"
btrecord -d "$T/bt" -D "$T/rec" "$N" >/dev/null 2>&1 || fail "btrecord"
[ -s "$T/rec/$N.replay.0" ] || fail "btrecord wrote no $N.replay.0"
st() { awk '{ print $1 + $2, $5 + $6 }' "/sys/block/$N/stat"; }
read -r r0 w0 <<< "$(st)"
btreplay -d "$T/rec" -W "$N" >"$T/replay.out" 2>&1 || fail "btreplay: $(tail -3 "$T/replay.out")"
read -r r1 w1 <<< "$(st)"
nr=$(grep -c ",read," "$T/cap.csv")
nw=$(grep -c -E ",(write|discard)," "$T/cap.csv")
[ $((r1 - r0)) -eq "$nr" ] && [ $((w1 - w0)) -eq "$nw" ] ||
	fail "btreplay: $((r1 - r0)) reads and $((w1 - w0)) writes on $N, the capture has $nr and $nw"
note "btreplay: $nr reads, $nw writes (discards included) on $N"

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
