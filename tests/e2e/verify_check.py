#!/usr/bin/env python3
"""The blk tracer's view of a replay, against replay --verify's.

verify_check.py BLKTRACE.bin RUN.csv MAJ,MIN START_MONO_NS: from the ftrace
blk tracer's binary stream (trace_clock mono, so its times are
CLOCK_MONOTONIC like the BPF programs'), the issue (D) of every I/O of the
run file on the device: prints 'present N of M' and 'p50 NS' of the issue
error (D time - due time), matching each I/O to the earliest D event of its
sector, size and direction issued between its submission and completion.
"""
import csv
import struct
import sys

BLK_TA_ISSUE = 7
BLK_TC_WRITE = 1 << 1
REC = struct.Struct("=IIQQIIIIIHH")  # struct blk_io_trace, 48 bytes

def issues(path, dev):
    data = open(path, "rb").read()
    out, pos = {}, 0
    while pos + REC.size <= len(data):
        (magic, _seq, t, sector, nbytes, action, _pid, device, _cpu, _err,
         pdu) = REC.unpack_from(data, pos)
        if magic & 0xffffff00 != 0x65617400:
            sys.exit("bad blktrace magic at %d" % pos)
        pos += REC.size + pdu
        if device != dev or action & 0xffff != BLK_TA_ISSUE or not nbytes:
            continue
        write = bool((action >> 16) & BLK_TC_WRITE)
        out.setdefault((sector, nbytes, write), []).append(t)
    for v in out.values():
        v.sort()
    return out

def main():
    bt, run, mm, start = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    ma, mi = (int(x) for x in mm.split(","))
    d = issues(bt, (ma << 20) | mi)
    errs, n = [], 0
    for r in csv.DictReader(open(run)):
        if r["op"] not in ("read", "write"):
            continue
        n += 1
        key = (int(r["sector"]), int(r["bytes"]), r["op"] == "write")
        sub = start + round(float(r["issue_us"]) * 1000)
        done = start + round(float(r["complete_us"]) * 1000)
        cand = [t for t in d.get(key, []) if sub - 20000 <= t <= done + 20000]
        if not cand:
            continue
        d[key].remove(cand[0])
        errs.append(cand[0] - (start + round(float(r["sched_us"]) * 1000)))
    errs.sort()
    print("present %d of %d" % (len(errs), n))
    print("p50 %d" % (errs[(len(errs) + 1) // 2 - 1] if errs else -1))

main()
