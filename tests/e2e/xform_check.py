#!/usr/bin/env python3
"""xform_check.py — the what-if transforms computed independently of
blkpeak from `blkpeak dump -f csv` of the input, and compared with the
dump of what convert wrote or replay ran (tests/e2e/39-replay-transforms.sh).

  xform_check.py make OUT.txt                      a biosnoop text trace
  xform_check.py convert IN.csv OUT.csv OPTION...  convert's output
  xform_check.py replay IN.csv RUN.csv SPEED OPTION...  replay's run file

Counts, operations, devices, processes, sectors and times must match:
sectors exactly, times within 2 ns (the dump prints 1 ns)."""
import csv
import fnmatch
import math
import random
import sys

NS = 1000  # dump times are microseconds with 3 decimals


def ns(s):
    return round(float(s) * NS)


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    out = []
    for i, r in enumerate(rows):
        out.append(dict(idx=i, queue=ns(r["queue_us"]), issue=ns(r["issue_us"]),
                        complete=ns(r["complete_us"]), dev=r["dev"], sector=int(r["sector"]),
                        bytes=int(r["bytes"]), op=r["op"], pid=int(r["pid"]), comm=r["comm"],
                        sched=ns(r["sched_us"]) if "sched_us" in r else None))
    return out


def duration(s):
    for unit, mult in (("ms", 10**6), ("us", 10**3), ("ns", 1), ("s", 10**9), ("m", 60 * 10**9)):
        if s.endswith(unit):
            return round(float(s[:-len(unit)]) * mult)
    return round(float(s) * 10**9)


def size(s):
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def parse(opts):
    o = dict(select=[], loop=1, loop_offset=0, spread=None, shift=0, w2r=False, r2w=False,
             ramp=None)
    it = iter(opts)
    for a in it:
        if a == "--select":
            o["select"].append(next(it))
        elif a == "--loop":
            o["loop"] = int(next(it))
        elif a == "--loop-offset":
            o["loop_offset"] = size(next(it))
        elif a == "--spread":
            o["spread"] = float(next(it))
        elif a == "--shift":
            o["shift"] = size(next(it))
        elif a == "--writes-as-reads":
            o["w2r"] = True
        elif a == "--reads-as-writes":
            o["r2w"] = True
        elif a == "--ramp":
            f, t = next(it).split(":")
            o["ramp"] = (float(f), float(t))
        else:
            sys.exit(f"xform_check: unknown option {a}")
    return o


def selected(r, o, first):
    kinds = {}
    for s in o["select"]:
        kind, _, val = s.partition(":") if ":" in s else ("time", None, s)
        kinds.setdefault(kind, []).append(val)
    for kind, vals in kinds.items():
        if kind == "time":
            lo, hi = vals[0].split("-")
            lo = duration(lo) if lo else 0
            hi = duration(hi) if hi else 1 << 64
            if not lo <= r["issue"] - first < hi:
                return False
        elif kind == "dev" and r["dev"] not in vals:
            return False
        elif kind == "comm" and not any(fnmatch.fnmatchcase(r["comm"], v) for v in vals):
            return False
        elif kind == "pid" and str(r["pid"]) not in vals:
            return False
        elif kind == "op" and r["op"] not in ",".join(vals).split(","):
            return False
    return True


def record_level(rows, o, align):
    first = min(r["issue"] for r in rows)
    out = []
    for r in rows:
        if not selected(r, o, first):
            continue
        r = dict(r)
        if o["w2r"] and r["op"] in ("write", "discard", "write-zeroes"):
            if r["op"] != "write":
                continue
            r["op"] = "read"
        elif o["r2w"] and r["op"] == "read":
            r["op"] = "write"
        if r["op"] != "flush" and (o["spread"] is not None or o["shift"]):
            b = r["sector"] * 512
            if o["spread"] is not None:
                b = int(b * o["spread"]) // align * align
            r["sector"] = (b + o["shift"]) // 512
        out.append(r)
    return out


def tau(o, u, total):
    if not o["ramp"]:
        return u
    a, b = o["ramp"]
    if a == b or not total:
        return u / a
    return total / (b - a) * math.log1p((b - a) * u / (a * total))


def compare(want, got, key, what):
    if len(want) != len(got):
        sys.exit(f"xform_check: {what}: {len(got)} I/Os, want {len(want)}")
    for w, g in zip(want, got):
        for k in key:
            tol = 2 if k in ("issue", "complete", "queue", "sched") else 0
            if abs(w[k] - g[k]) > tol if isinstance(w[k], (int, float)) else w[k] != g[k]:
                sys.exit(f"xform_check: {what}: I/O {w['idx']} of the input: {k} {g[k]}, "
                         f"want {w[k]}\n  want {w}\n  got  {g}")


def check_convert(inp, outp, opts):
    o = parse(opts)
    rows = record_level(load(inp), o, 512)
    if not rows:
        sys.exit("xform_check: nothing kept (a test that cannot fail)")
    base = min(r["issue"] for r in rows)
    span = max(max(r["complete"], r["issue"]) for r in rows) - base
    total = o["loop"] * span
    want = []

    def move(t, p):
        if t >= base:
            return base + round(tau(o, t - base + p * span, total))
        return max(base + round(tau(o, p * span, total)) - (base - t), 0)

    for p in range(o["loop"]):
        for r in rows:
            w = dict(r)
            if p or o["ramp"]:
                w["issue"] = move(r["issue"], p)
                w["complete"] = move(r["complete"], p) if r["complete"] >= r["issue"] else w["issue"]
                w["queue"] = w["issue"] - (r["issue"] - r["queue"])
            if r["op"] != "flush":
                w["sector"] = r["sector"] + p * o["loop_offset"] // 512
            want.append(w)
    got = load(outp)
    compare(want, got, ("issue", "complete", "queue", "dev", "sector", "bytes", "op", "pid",
                        "comm"), "convert " + " ".join(opts))
    print(f"ok {len(got)} I/Os: convert {' '.join(opts)}")


def check_replay(inp, runp, speed, opts):
    o = parse(opts)
    rows = record_level(load(inp), o, 512)
    if not rows:
        sys.exit("xform_check: nothing kept (a test that cannot fail)")
    rows.sort(key=lambda r: (r["issue"], r["idx"]))
    base = rows[0]["issue"]
    span = max(max(r["complete"], r["issue"]) for r in rows) - base
    total = o["loop"] * span
    want = []
    for p in range(o["loop"]):
        for r in rows:
            w = dict(r)
            w["sched"] = round(round(tau(o, r["issue"] - base + p * span, total)) / speed)
            if r["op"] != "flush":
                w["sector"] = r["sector"] + p * o["loop_offset"] // 512
            want.append(w)
    got = load(runp)
    got.sort(key=lambda r: (r["sched"], r["idx"]))
    compare(want, got, ("sched", "sector", "bytes", "op"), "replay " + " ".join(opts))
    print(f"ok {len(got)} I/Os: replay --speed {speed} {' '.join(opts)}")


def make(path):
    """A biosnoop text trace: two disks, four processes, reads and
    writes, 600 I/Os over about 6 s, at times that do not come in order
    of issue (biosnoop prints completions)."""
    rnd = random.Random(33)
    procs = [("dd", 1001), ("tar", 1002), ("kworker/0:1H", 21), ("tarball", 1003)]
    lines = []
    for i in range(600):
        t = i * 0.01 + rnd.random() * 0.004
        comm, pid = procs[rnd.randrange(4)]
        disk = "sda" if rnd.random() < 0.6 else "sdb"
        op = "R" if rnd.random() < 0.55 else "W"
        sector = rnd.randrange(0, 1 << 21) * 8
        nbytes = 4096 * rnd.choice((1, 1, 2, 16))
        lat = 0.05 + rnd.random() * 2
        lines.append(f"{t + lat / 1000:.6f}    {comm:<14} {pid:<6} {disk:<7} {op} "
                     f"{sector:<10} {nbytes:<9} {lat:.2f}")
    lines.sort(key=lambda s: float(s.split()[0]))
    with open(path, "w") as f:
        f.write("TIME(s)     COMM           PID    DISK    T SECTOR     BYTES  LAT(ms)\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2])
    elif cmd == "convert":
        check_convert(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "replay":
        check_replay(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5:])
    else:
        sys.exit(__doc__)
