#!/usr/bin/env python3
"""formats_expect.py FORMAT FIXTURE DUMP.csv [...] — compare `blkpeak dump
--format csv` of a converted foreign trace with an independent reading of
the fixture, written here from each format's definition (not from
formats/): the I/O count and bytes per operation, the time span of the
issue times (exact to the ns), and every I/O's device, sector, length and
operation. Prints one summary line; exits 1 with the difference."""
import calendar
import csv
import datetime
import struct
import sys
from collections import Counter
from decimal import Decimal

NS = Decimal(10) ** 9


def msr(lines):
    for l in lines:
        ts, host, disk, typ, off, size, resp = l.split(",")
        yield int(ts) * 100, f"{host}_{disk}", typ.lower(), int(off) // 512, int(size)


def spc(lines):
    for l in lines:
        f = l.split(",")
        op = {"r": "read", "w": "write"}[f[3].lower()]
        yield int(Decimal(f[4]) * NS), f"asu{f[0]}", op, int(f[1]), int(f[2])


def alibaba(lines):
    for l in lines:
        dev, op, off, length, ts = l.split(",")
        if dev == "device_id":
            continue
        yield int(ts) * 1000, f"dev{dev}", {"R": "read", "W": "write"}[op], int(off) // 512, int(length)


def tencent(lines):
    for l in lines:
        ts, off, size, typ, vol = l.split(",")
        yield int(ts) * 10**9, f"vol{vol}", "write" if typ == "1" else "read", int(off), int(size) * 512


def systor17(lines):
    for l in lines:
        f = l.split(",")
        if f[0] == "Timestamp":
            continue
        op = {"R": "read", "W": "write"}[f[2]]
        yield int(Decimal(f[0]) * NS), f"lun{f[3]}", op, int(f[4]) // 512, int(f[5])


def fiu(lines):
    for l in lines:
        f = l.split()
        op = {"R": "read", "W": "write"}[f[-4]]
        yield int(f[0]), f"{f[-3]},{f[-2]}", op, int(f[-6]), int(f[-5]) * 512


def fio(lines):
    v3 = lines[0] == "fio version 3 iolog"
    t = 0
    for l in lines[1:]:
        f = l.split()
        if v3:
            t = int(f[0]) * 1000
            f = f[1:]
        name = f[0].rstrip("/").split("/")[-1]
        act = f[1]
        if act in ("add", "open", "close"):
            continue
        if act == "wait":
            if not v3:
                t += int(f[2]) * 1000
            continue
        if act in ("sync", "datasync"):
            yield t, name, "flush", 0, 0
            continue
        op = {"read": "read", "write": "write", "trim": "discard"}[act]
        yield t, name, op, int(f[2]) // 512, int(f[3])


def biosnoop(lines):
    que = False
    seen = False
    for l in lines:
        if l.startswith("TIME(s)"):
            seen, que = True, "QUE(ms)" in l
            continue
        if not seen:
            continue
        f = l.split()
        lat = Decimal(f[-1]) * 10**6
        k = len(f) - (2 if que else 1)
        op = {"R": "read", "W": "write"}[f[k - 3][0]]
        yield int(Decimal(f[0]) * NS - lat), f[k - 4], op, int(f[k - 2]), int(f[k - 1])


def blkparse(lines):
    """One I/O per C line, issued at the last D of its device and sector
    (a D without a C is still pending at the end)."""
    issued = {}
    for l in lines:
        f = l.split()
        if not f or "," not in f[0] or len(f) < 7 or not f[1].isdigit():
            if f and (f[0].startswith("CPU") or f[0] == "Total"):
                break
            continue
        dev, t, act, rwbs = f[0], int(Decimal(f[3]) * NS), f[5], f[6]
        plus = len(f) > 9 and f[8] == "+"
        sector = int(f[7]) if plus else None
        nbytes = int(f[9]) * 512 if plus else 0
        # rwbs: [F]op[letters]; D (discard) or E (secure erase, 2.6.36-4.9)
        # anywhere after the op's letter make a discard (kernels to 2.6.35
        # could flag a discard W too)
        body = rwbs[1:] if rwbs.startswith("F") and len(rwbs) > 1 and rwbs[1] in "WRDFN" else rwbs
        if nbytes == 0:
            op = "flush"
        elif body[0] == "D" or "D" in body[1:] or "E" in body[1:]:
            op = "discard"
        else:
            op = {"R": "read", "W": "write"}[body[0]]
        if act == "D":
            issued[(dev, sector)] = (t, op, nbytes)
        elif act == "C":
            ti = issued.pop((dev, sector), (t,))[0]
            yield ti, dev, op, sector or 0, nbytes
    for (dev, sector), (t, op, nbytes) in issued.items():
        yield t, dev, op, sector or 0, nbytes


# SCSI operation codes (SBC-3) of the vscsi records.
SCSI_OPS = {0x08: "read", 0x28: "read", 0xa8: "read", 0x88: "read",
            0x0a: "write", 0x2a: "write", 0xaa: "write", 0x8a: "write",
            0x2e: "write", 0xae: "write", 0x8e: "write",
            0x35: "flush", 0x91: "flush", 0x42: "discard", 0x41: "write-zeroes", 0x93: "write-zeroes"}


def vscsi(lines):
    """The fixture is the records in hex (the test turns it into the
    binary): v2 when the second byte pair holds version 2."""
    data = bytes.fromhex("".join("".join(lines).split()))
    v2 = data[3] == 2
    size = 40 if v2 else 32
    for i in range(0, len(data), size):
        r = data[i:i + size]
        if v2:
            cmd, ver, sn, length, nsg, lbn, ts, rt = struct.unpack("<HHIIIQQQ", r)
        else:
            sn, length, nsg, cmd, ver, lbn, ts = struct.unpack("<IIIHHQQ", r)
        op = SCSI_OPS.get(cmd)
        if op is None:
            continue
        if op == "flush":
            lbn, length = 0, 0
        yield ts * 1000, "vscsi", op, lbn, length


def mqsim(lines):
    for l in lines:
        t, dev, lba, size, typ = l.split()
        yield int(t), f"dev{dev}", "read" if typ == "1" else "write", int(lba), int(size) * 512


def disksim(lines):
    for l in lines:
        t, dev, blk, size, flags = l.split()
        yield int(Decimal(t) * 10**6), f"dev{dev}", "read" if int(flags) & 1 else "write", int(blk), int(size) * 512


def k5cloud(lines):
    for l in lines:
        vid, ts, typ, off, length = l.split(",")
        if vid == "ID":
            continue
        yield int(Decimal(ts) * NS), f"vol{vid}", {"R": "read", "W": "write"}[typ], int(off) // 512, int(length)


def iotracer(lines):
    """Completion time (local time, taken as UTC) minus the latency."""
    for l in lines:
        f = l.split(",")
        if f[0].lower() == "timestamp":
            continue
        fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in f[0] else "%Y-%m-%d %H:%M:%S"
        d = datetime.datetime.strptime(f[0], fmt)
        t = calendar.timegm(d.timetuple()) * NS + d.microsecond * 1000
        t -= int(Decimal(f[6]) * 10**6)
        op, size, sector = f[4], int(f[5]), int(f[3])
        if op == "none":
            continue
        if op not in ("read", "write", "flush", "discard"):
            op = {"R": "read", "W": "write", "D": "discard"}.get(op.lstrip("F")[:1], "flush")
            if op == "write" and size == 0:
                op = "flush"
        if op == "flush" and size == 0:
            sector = 0
        dev = f[10].replace(":", ",") if len(f) == 13 else "iotracer"
        yield t, dev, op, sector, size


READERS = dict(msr=msr, spc=spc, alibaba=alibaba, tencent=tencent, systor17=systor17,
               fiu=fiu, fio=fio, biosnoop=biosnoop, blkparse=blkparse, vscsi=vscsi,
               mqsim=mqsim, disksim=disksim, k5cloud=k5cloud, iotracer=iotracer)


def check(fmt, fixture, dump):
    lines = [l.rstrip("\r\n") for l in open(fixture) if l.strip() and not l.startswith("#")]
    want = list(READERS[fmt](lines))
    got = []
    for r in csv.DictReader(open(dump)):
        got.append((int(Decimal(r["issue_us"]) * 1000), r["dev"], r["op"], int(r["sector"]), int(r["bytes"])))

    def summary(recs):
        n, b = Counter(), Counter()
        for _, _, op, _, nbytes in recs:
            n[op] += 1
            b[op] += nbytes
        ts = [r[0] for r in recs]
        return dict(count=dict(n), bytes=dict(b), span_ns=max(ts) - min(ts) if ts else 0,
                    ios=sorted(r[1:] for r in recs))

    w, g = summary(want), summary(got)
    for k in w:
        if w[k] != g[k]:
            print(f"{fixture}: {k}: expected {w[k]}, blkpeak gave {g[k]}")
            sys.exit(1)
    print(f"{fmt}: {sum(w['count'].values())} I/Os {w['count']}, bytes {w['bytes']}, span {w['span_ns']} ns")


args = sys.argv[1:]
if not args or len(args) % 3:
    sys.exit("usage: formats_expect.py FORMAT FIXTURE DUMP.csv [...]")
for i in range(0, len(args), 3):
    check(*args[i:i + 3])
