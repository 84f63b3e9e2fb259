#!/bin/bash
# blktrace in and out. Real traces made here with the ftrace blk tracer:
# a loop device driven from both CPUs (split into per-CPU files as
# blktrace writes them, read by prefix, as the files, and as the one
# stream), and a partition of a loop device (whole-disk sectors); each
# converted trace holds the requests blkparse shows issued (count and
# bytes per operation, issue time span, sectors and lengths). Hand-made
# v0x08 and byte-swapped files. Out: a .bpt as blktrace files that
# blkparse, btt, iowatcher and btrecord/btreplay read (btreplay replays
# every I/O onto a loop device), as a fio iolog fio replays whole; both
# read back into the same I/Os.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd blkparse btt btrecord btreplay fio python3 sfdisk partx taskset blkdiscard gzip
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs for a multi-CPU trace"
W=$E2E_TMP  # not T: lib.sh's blktrace helpers set T
# Debian's python3 when there is one: a pyenv shim first in PATH costs 2 s
# a call on this machine, and this test calls it a dozen times.
PY=$(command -v /usr/bin/python3 || command -v python3)
CHECK="$PY $(dirname "$0")/blktrace_check.py"
dump() { "$BLKPEAK" dump --format csv "$1" > "$2" || fail "dump $1"; }

# ---------------------------------------------------------------- capture
d=$(make_loop 64M)
n=$(basename "$d")
blktrace_start "$n" "$W/stream.bin"
taskset -c 0 dd if=/dev/zero of="$d" bs=4k count=64 oflag=direct status=none
taskset -c 1 dd if="$d" of=/dev/null bs=64k count=16 iflag=direct status=none
taskset -c 0 dd if=/dev/zero of="$d" bs=1M count=2 seek=4 oflag=direct status=none
taskset -c 1 dd if=/dev/zero of="$d" bs=4k count=256 seek=4096 conv=fsync status=none
taskset -c 0 blkdiscard -o 16M -l 1M "$d"
blktrace_stop

# Per-CPU files as blktrace writes them: each record by its cpu field.
mkdir "$W/set"
$PY - "$W/stream.bin" "$W/set/$n" <<'EOF' || fail "split by CPU"
import struct, sys
data = open(sys.argv[1], "rb").read()
out, off = {}, 0
while off < len(data):
    cpu, = struct.unpack_from("<I", data, off + 40)
    pdu, = struct.unpack_from("<H", data, off + 46)
    out.setdefault(cpu, bytearray()).extend(data[off:off + 48 + pdu])
    off += 48 + pdu
if len(out) < 2:
    sys.exit("events on %d CPU(s) only" % len(out))
for cpu, b in out.items():
    open("%s.blktrace.%d" % (sys.argv[2], cpu), "wb").write(b)
EOF
ls "$W/set"/"$n".blktrace.* >/dev/null || fail "no per-CPU files"

# By prefix, as the files (in any order), as the stream, compressed.
"$BLKPEAK" convert -q "$W/set/$n" -o "$W/prefix.bpt" || fail "convert by prefix"
"$BLKPEAK" convert -q $(ls "$W/set"/"$n".blktrace.* | sort -r) -o "$W/files.bpt" || fail "convert the files"
"$BLKPEAK" convert -q "$W/stream.bin" -o "$W/stream.bpt" || fail "convert the stream"
gzip -c "$W/stream.bin" > "$W/stream.bin.gz"
"$BLKPEAK" convert -q "$W/stream.bin.gz" -o "$W/streamgz.bpt" || fail "convert the gzip stream"
for t in prefix files stream streamgz; do dump "$W/$t.bpt" "$W/$t.csv"; done
$CHECK same "$W/prefix.csv" "$W/files.csv" >/dev/null || fail "by prefix and as the files differ"
$CHECK same "$W/stream.csv" "$W/streamgz.csv" >/dev/null || fail "gzip changed the stream"
blkparse -D "$W/set" -i "$n" > "$W/bp-set.txt" || fail "blkparse the set"
blkparse -i - < "$W/stream.bin" > "$W/bp-stream.txt" || fail "blkparse the stream"
note "per-CPU set: $($CHECK issued "$W/bp-set.txt" "$W/prefix.csv")" || fail "per-CPU set"
$CHECK issued "$W/bp-stream.txt" "$W/stream.csv" >/dev/null || fail "stream"
grep -q ",flush," "$W/prefix.csv" || fail "no flush from fsync"
grep -q ",discard," "$W/prefix.csv" || fail "no discard"
# Every command reads the prefix directly (the lib hook).
"$BLKPEAK" info "$W/set/$n" | grep -q "^records: *$(($(wc -l < "$W/prefix.csv") - 1)) " ||
	fail "info of the prefix: $("$BLKPEAK" info "$W/set/$n" 2>&1 | head -3)"

# ---------------------------------------------------------------- partition
pf="$W/part.img"
truncate -s 64M "$pf"
printf 'label: dos\nstart=2048, size=40960, type=83\n' | sfdisk -q "$pf" || fail "sfdisk"
pd=$(losetup -f --show -P --direct-io=on "$pf") || fail "losetup -P"
own_loop "$pd" "$pf"
partx -a "$pd" 2>/dev/null
for _ in $(seq 50); do [ -b "${pd}p1" ] && break; sleep 0.1; done
[ -b "${pd}p1" ] || fail "no partition ${pd}p1"
blktrace_start "$(basename "$pd")p1" "$W/part.bin"
taskset -c 0 dd if=/dev/zero of="${pd}p1" bs=8k count=32 oflag=direct status=none
taskset -c 1 dd if="${pd}p1" of=/dev/null bs=4k count=32 iflag=direct status=none
blktrace_stop
"$BLKPEAK" convert -q "$W/part.bin" -o "$W/part.bpt" || fail "convert the partition trace"
dump "$W/part.bpt" "$W/part.csv"
blkparse -i - < "$W/part.bin" > "$W/bp-part.txt" || fail "blkparse the partition"
note "partition: $($CHECK issued "$W/bp-part.txt" "$W/part.csv" 2048)" || fail "partition"

# ---------------------------------------------------------------- hand-made
# v0x08 (Linux 6.19's blk_io_trace2, 64-byte header, 64-bit action) and a
# big-endian v0x07 file: Q, D, C of one write-zeroes / discard each, with a
# payload to skip and a note before.
$PY - "$W/v8.bin" "$W/be.bin" <<'EOF' || fail "fixtures"
import struct, sys
TC = 16
def v2(t, code, cats, sector, nbytes, pid, pdu=b""):
    return struct.pack("<IIQQIIQIIHH12x", 0x65617408, 1, t, sector, nbytes, pid,
                       code | (cats << TC), (259 << 20) | 3, 0, 0, len(pdu)) + pdu
def v1be(t, code, cats, sector, nbytes, pid, pdu=b""):
    return struct.pack(">IIQQIIIIIHH", 0x65617407, 1, t, sector, nbytes, code | (cats << TC),
                       pid, (8 << 20) | 16, 1, 0, len(pdu)) + pdu
W, Q, I, C, WZ, NOTE, DISC = 1 << 1, 1 << 4, 1 << 6, 1 << 7, 1 << 22, 1 << 10, 1 << 13
with open(sys.argv[1], "wb") as f:
    f.write(v2(100, 0, NOTE, 0, 0, 42, b"mkfs\0" + b"\0" * 11))
    f.write(v2(1000, 1, Q | W | WZ, 4096, 1 << 20, 42))
    f.write(v2(1500, 7, I | W | WZ, 4096, 1 << 20, 42, b"xyz"))
    f.write(v2(9000, 8, C | W | WZ, 4096, 1 << 20, 0))
with open(sys.argv[2], "wb") as f:
    f.write(v1be(10, 2, NOTE, 0, 0, 7, b"a message"))
    f.write(v1be(2000, 1, Q | W | DISC, 8, 65536, 7))
    f.write(v1be(2100, 7, I | W | DISC, 8, 65536, 7))
    f.write(v1be(2600, 8, C | W | DISC, 8, 65536, 7))
EOF
"$BLKPEAK" convert -q "$W/v8.bin" -o "$W/v8.bpt" || fail "convert v0x08"
"$BLKPEAK" convert -q "$W/be.bin" -o "$W/be.bpt" || fail "convert big-endian"
dump "$W/v8.bpt" "$W/v8.csv"
dump "$W/be.bpt" "$W/be.csv"
# queue, issue, complete (us; time 0 is 1 ns before the first queue time),
# device, sector, bytes, op, pid, comm
$PY - "$W/v8.csv" "$W/be.csv" <<'EOF' || fail "hand-made fixtures"
import csv, sys
want = [[["0.001", "0.501", "8.001", "259,3", "4096", "1048576", "write-zeroes", "42", "mkfs"]],
        [["0.001", "0.101", "0.601", "8,16", "8", "65536", "discard", "7", ""]]]
for path, w in zip(sys.argv[1:], want):
    got = [[r[k] for k in ("queue_us", "issue_us", "complete_us", "dev", "sector", "bytes", "op",
                           "pid", "comm")] for r in csv.DictReader(open(path))]
    if got != w:
        sys.exit("%s: %s, expected %s" % (path, got, w))
EOF

# ------------------------------------------------------- out: blktrace, fio
r=$(make_loop 64M)
rn=$(basename "$r")
"$BLKPEAK" generate -q --count 3000 --read-pct 70 --queue-depth 8 --bs 4k:70,64k:30 \
	--span 32m --device-name "$rn" -o "$W/g.bpt" || fail "generate"
dump "$W/g.bpt" "$W/g.csv"
"$BLKPEAK" convert -q "$W/g.bpt" --to blktrace -o "$W/bt" || fail "convert --to blktrace"
[ -s "$W/bt/$rn.blktrace.0" ] || fail "no $rn.blktrace.0 in $(ls "$W/bt")"
"$BLKPEAK" convert -q "$W/bt/$rn" -o "$W/g2.bpt" || fail "read back the blktrace files"
dump "$W/g2.bpt" "$W/g2.csv"
note "bpt -> blktrace -> bpt: $($CHECK same "$W/g.csv" "$W/g2.csv")" || fail "blktrace round trip"
blkparse -D "$W/bt" -i "$rn" > "$W/bp-out.txt" || fail "blkparse"
$CHECK events "$W/bp-out.txt" "$W/g.csv" >/dev/null || fail "blkparse's events"
# btt pairs by sector and loses requests that overlap in flight: a
# sequential trace for it (and for btreplay).
"$BLKPEAK" generate -q --count 2000 --pattern sequential --queue-depth 4 --bs 4k:50,64k:50 \
	--span 32m --device-name "$rn" -o "$W/s.bpt" || fail "generate sequential"
"$BLKPEAK" convert -q "$W/s.bpt" --to blktrace -o "$W/bts" || fail "convert --to blktrace (sequential)"
blkparse -D "$W/bts" -i "$rn" -d "$W/bts.bin" -O > /dev/null || fail "blkparse -d"
(cd "$W" && btt -i "$W/bts.bin") > "$W/btt.txt" 2>&1 || fail "btt: $(tail -3 "$W/btt.txt")"
for m in Q2C D2C; do
	awk -v m=$m '$1 == m { n = $NF } END { exit n != 2000 }' "$W/btt.txt" ||
		fail "btt $m: $(grep $m "$W/btt.txt")"
done
if command -v iowatcher >/dev/null; then
	(cd "$W/bts" && iowatcher -t "$rn" -o "$W/io.svg" >/dev/null 2>&1) || fail "iowatcher"
	grep -q "<svg" "$W/io.svg" || fail "iowatcher wrote no SVG"
fi
mkdir "$W/rec"
btrecord -d "$W/bts" -D "$W/rec" "$rn" >/dev/null || fail "btrecord"
merged_ios() { awk '{ print $1 + $2 + $5 + $6 }' "/sys/block/$rn/stat"; }
before=$(merged_ios)
# btreplay ignores SIGTERM and may hang after its last I/O (PEERS.md):
# wait for the I/Os, then kill it.
btreplay -N -W -d "$W/rec" "$rn" >/dev/null 2>&1 &
bt_pid=$!
at_exit "kill -KILL $bt_pid 2>/dev/null"
for _ in $(seq 600); do
	[ $(( $(merged_ios) - before )) -ge 2000 ] && break
	kill -0 $bt_pid 2>/dev/null || break
	sleep 0.05
done
sleep 0.2
kill -KILL $bt_pid 2>/dev/null
wait $bt_pid 2>/dev/null
[ $(( $(merged_ios) - before )) -eq 2000 ] || fail "btreplay did $(( $(merged_ios) - before )) I/Os of 2000"

"$BLKPEAK" convert -q "$W/g.bpt" -o "$W/g.iolog" || fail "convert to fio iolog"
head -1 "$W/g.iolog" | grep -qx "fio version 3 iolog" || fail "iolog header"
fio --name=rp --read_iolog="$W/g.iolog" --replay_redirect="$r" --ioengine=libaio --direct=1 \
	--iodepth=16 --replay_no_stall=1 --output-format=json > "$W/fio.json" 2>"$W/fio.err" ||
	fail "fio: $(tail -3 "$W/fio.err")"
note "$($CHECK fio "$W/fio.json" "$W/g.csv")" || fail "fio replay"
"$BLKPEAK" convert -q "$W/g.iolog" -o "$W/g3.bpt" || fail "read back the iolog"
dump "$W/g3.bpt" "$W/g3.csv"
$CHECK same "$W/g.csv" "$W/g3.csv" --keys sector,bytes,op --times issue_us --tol 1.001 >/dev/null ||
	fail "bpt -> fio -> bpt"
exit 0
