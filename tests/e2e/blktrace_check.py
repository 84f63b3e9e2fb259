#!/usr/bin/env python3
"""blktrace_check.py — checks for the blktrace end-to-end test
(71-formats-blktrace.sh), written from blkparse's output, independently of
formats/blktrace_*.c.

  blktrace_check.py issued BLKPARSE.txt DUMP.csv [MIN_SECTOR]
      The I/Os of a converted blktrace (DUMP.csv: `blkpeak dump --format
      csv`) are the requests blkparse shows issued (D events): the same
      count per operation, bytes per operation, time span from the first
      to the last issue, and the same (sector, length, operation) multiset.
      With MIN_SECTOR, every I/O with data lies at or past it (a partition
      trace keeps whole-disk sectors).
  blktrace_check.py same A.csv B.csv [--keys K,K...] [--times T,T...] [--tol US]
      Two dumps hold the same I/Os in the same order: the fields K (default
      dev,sector,bytes,op,flags,pid,comm,error) equal, the times T (default
      queue_us,issue_us,complete_us), relative to each trace's first issue,
      within US microseconds (default 0.001).
  blktrace_check.py events BLKPARSE.txt DUMP.csv
      blkparse read blkpeak's blktrace output: one Q and one D per I/O and
      one C per I/O whose completion was seen, with its sector and length.
  blktrace_check.py fio FIO.json DUMP.csv
      fio --read_iolog replayed every I/O: per direction, fio's issued
      count equals the dump's (write-zeroes counts as write, flush as sync).
"""
import collections
import csv
import json
import sys


def ops_of_rwbs(rwbs, nbytes):
    # blkparse's RWBS: F (flush) first, then D (discard), W, R or N (none).
    body = rwbs[1:] if rwbs.startswith("F") else rwbs
    if body.startswith("D"):
        return "discard"
    if rwbs.startswith("F") and nbytes == 0:
        return "flush"
    if body.startswith("W"):
        return "write"
    return "read"


def blkparse_events(path):
    """(action, time_s, sector, bytes, rwbs) of every I/O event line."""
    out = []
    with open(path) as f:
        for line in f:
            p = line.split()
            # "  8,0  1  5  0.000012345  123  D  WS 1000 + 8 [comm]"
            if len(p) < 7 or "," not in p[0] or not p[1].isdigit():
                continue
            try:
                t = float(p[3])
            except ValueError:
                continue
            act, rwbs = p[5], p[6]
            sector, nbytes = 0, 0
            if len(p) >= 10 and p[8] == "+":
                sector, nbytes = int(p[7]), int(p[9]) * 512
            out.append((act, t, sector, nbytes, rwbs))
    return out


def dump_rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def fail(msg):
    print("blktrace_check: " + msg, file=sys.stderr)
    sys.exit(1)


def issued(bp_path, dump_path, min_sector=None):
    ds = [e for e in blkparse_events(bp_path) if e[0] == "D"]
    rows = dump_rows(dump_path)
    if not ds:
        fail("blkparse shows no D event")
    want = collections.Counter((e[2], e[3], ops_of_rwbs(e[4], e[3])) for e in ds)
    got = collections.Counter((int(r["sector"]), int(r["bytes"]), r["op"]) for r in rows)
    # blkparse prints no sector for an event without data
    want = collections.Counter({(s if b else 0, b, o): n for (s, b, o), n in want.items()})
    got = collections.Counter({(s if b else 0, b, o): n for (s, b, o), n in got.items()})
    if want != got:
        fail("I/Os differ: only blkparse %s; only blkpeak %s" %
             (list((want - got).items())[:5], list((got - want).items())[:5]))
    per_op_n, per_op_b = collections.Counter(), collections.Counter()
    for s, b, o in want.elements():
        per_op_n[o] += 1
        per_op_b[o] += b
    got_n = collections.Counter(r["op"] for r in rows)
    got_b = collections.Counter()
    for r in rows:
        got_b[r["op"]] += int(r["bytes"])
    if per_op_n != got_n or per_op_b != got_b:
        fail("per op: blkparse %s %s, blkpeak %s %s" % (dict(per_op_n), dict(per_op_b),
                                                       dict(got_n), dict(got_b)))
    span_bp = (max(e[1] for e in ds) - min(e[1] for e in ds)) * 1e6
    iss = [float(r["issue_us"]) for r in rows]
    span_bk = max(iss) - min(iss)
    if abs(span_bp - span_bk) > 0.002:
        fail("issue time span: blkparse %.3f us, blkpeak %.3f us" % (span_bp, span_bk))
    if min_sector is not None:
        low = [r for r in rows if int(r["bytes"]) and int(r["sector"]) < min_sector]
        if low:
            fail("%d I/Os below sector %d (not whole-disk sectors), e.g. %s" %
                 (len(low), min_sector, low[0]["sector"]))
    print("%d I/Os %s, bytes %s, issue span %.3f us" %
          (len(rows), dict(sorted(got_n.items())), dict(sorted(got_b.items())), span_bk))


def same(a_path, b_path, keys, times, tol):
    a, b = dump_rows(a_path), dump_rows(b_path)
    if len(a) != len(b):
        fail("%s has %d I/Os, %s %d" % (a_path, len(a), b_path, len(b)))
    a0 = min(float(r["issue_us"]) for r in a) if a else 0
    b0 = min(float(r["issue_us"]) for r in b) if b else 0
    for i, (x, y) in enumerate(zip(a, b)):
        for k in keys:
            if x[k] != y[k]:
                fail("I/O %d: %s %s vs %s" % (i, k, x[k], y[k]))
        for k in times:
            if abs((float(x[k]) - a0) - (float(y[k]) - b0)) > tol:
                fail("I/O %d: %s %s vs %s (relative to the first issue)" % (i, k, x[k], y[k]))
    print("%d I/Os the same" % len(a))


def events(bp_path, dump_path):
    ev = blkparse_events(bp_path)
    rows = dump_rows(dump_path)
    for act in ("Q", "D", "C"):
        want = collections.Counter()
        for r in rows:
            if act == "C" and r.get("completion", "seen") != "seen":
                continue
            b = int(r["bytes"])
            want[(int(r["sector"]) if b else 0, b)] += 1
        got = collections.Counter((e[2] if e[3] else 0, e[3]) for e in ev if e[0] == act)
        if want != got:
            fail("%s events differ from the I/Os: only blkparse %s; only blkpeak %s" %
                 (act, list((got - want).items())[:3], list((want - got).items())[:3]))
    print("blkparse: %d Q, %d D, %d C" % tuple(sum(1 for e in ev if e[0] == a) for a in "QDC"))


def fio(json_path, dump_path):
    with open(json_path) as f:
        text = f.read()
    j = json.loads(text[text.index("{"):])
    job = j["jobs"][0]
    rows = dump_rows(dump_path)
    want = collections.Counter()
    for r in rows:
        want[{"write-zeroes": "write", "discard": "trim", "flush": "sync"}.get(r["op"], r["op"])] += 1
    got = {"read": job["read"]["total_ios"], "write": job["write"]["total_ios"],
           "trim": job["trim"]["total_ios"]}
    for d in ("read", "write", "trim"):
        if got[d] != want[d]:
            fail("fio %s: %d I/Os, the iolog has %d" % (d, got[d], want[d]))
    errs = job.get("error", 0)
    if errs:
        fail("fio reported error %s" % errs)
    print("fio replayed %s" % got)


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    cmd = argv[1]
    if cmd == "issued":
        issued(argv[2], argv[3], int(argv[4]) if len(argv) > 4 else None)
    elif cmd == "same":
        keys = "dev,sector,bytes,op,flags,pid,comm,error"
        times, tol = "queue_us,issue_us,complete_us", 0.001
        rest = argv[4:]
        while rest:
            if rest[0] == "--keys":
                keys = rest[1]
            elif rest[0] == "--times":
                times = rest[1]
            elif rest[0] == "--tol":
                tol = float(rest[1])
            else:
                fail("unknown option " + rest[0])
            rest = rest[2:]
        same(argv[2], argv[3], keys.split(","), [t for t in times.split(",") if t], tol)
    elif cmd == "events":
        events(argv[2], argv[3])
    elif cmd == "fio":
        fio(argv[2], argv[3])
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main(sys.argv)
