#!/usr/bin/env python3
"""roundtrip_check.py — a trace converted out and back holds the same I/Os.

  roundtrip_check.py A.csv B.csv [--keys K,K...] [--times T,T...] [--us]

A.csv and B.csv are `blkpeak dump --format csv` of the trace and of its
round trip. Order does not matter (a capture's records are in completion
order, a converted trace's in issue order): both are compared as
multisets of (times, keys). Times T (default queue_us,issue_us,
complete_us) are taken relative to each trace's first issue, exactly in
ns, or with --us in whole microseconds of the original's clock (formats
that keep µs: each time is cut to the µs before taking the difference).
Keys K (default dev,sector,bytes,op,flags,pid,comm,error,completion)
must be equal; a flush's P (preflush) flag is left out with --flush-p
(blktrace has one FLUSH bit for both: a flush op reads back without it). Prints the number of I/Os compared; exits 1 naming the
first I/O that differs.
"""
import csv
import sys


def ns(s):
    """'123.456' (µs with 3 decimals) -> 123456 ns, exactly."""
    whole, _, frac = s.partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


def load(path, keys, times, us, flush_p):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return []
    conv = (lambda s: ns(s) // 1000) if us else ns
    first = min(conv(r["issue_us"]) for r in rows)
    if flush_p:
        for r in rows:
            if r.get("op") == "flush":
                r["flags"] = r["flags"].replace("P", "")
    return sorted(tuple(conv(r[t]) - first for t in times) + tuple(r[k] for k in keys)
                  for r in rows)


def main(argv):
    keys = "dev,sector,bytes,op,flags,pid,comm,error,completion".split(",")
    times = "queue_us,issue_us,complete_us".split(",")
    us = False
    flush_p = False
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--keys":
            keys = [k for k in argv[i + 1].split(",") if k]
            i += 2
        elif argv[i] == "--times":
            times = [t for t in argv[i + 1].split(",") if t]
            i += 2
        elif argv[i] == "--flush-p":
            flush_p = True
            i += 1
        elif argv[i] == "--us":
            us = True
            i += 1
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        sys.exit(__doc__)
    a = load(args[0], keys, times, us, flush_p)
    b = load(args[1], keys, times, us, flush_p)
    names = times + keys
    if len(a) != len(b):
        sys.exit("roundtrip_check: %d I/Os vs %d" % (len(a), len(b)))
    for n, (x, y) in enumerate(zip(a, b)):
        if x != y:
            diff = [f"{k}: {u} vs {v}" for k, u, v in zip(names, x, y) if u != v]
            sys.exit("roundtrip_check: I/O %d (sorted) differs: %s\n  %s\n  %s"
                     % (n, "; ".join(diff), x, y))
    print(len(a))


main(sys.argv[1:])
