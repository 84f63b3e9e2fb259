#!/usr/bin/env python3
"""btt_pairable.py — which I/Os of a trace btt can pair, and did it.

  btt_pairable.py subset IN.csv OUT.csv
  btt_pairable.py perio IN.csv PERIO.txt

IN.csv is blkpeak's CSV table of a trace (`convert --to csv-zst`,
decompressed: ns times, sectors). btt (blktrace 1.2.0) knows a request
only by its device and sectors: a Q at the start sector of a Q it still
holds takes that one's place, and its search for the Qs inside a D's or
C's range misses a Q that lies under a larger in-flight one
(schemas/foreign-formats.md, "btt"). So an I/O is pairable when its
completion was seen and no other request of its device overlaps its
sectors while both are in flight (queue to completion, ends included).

subset writes the pairable rows of IN.csv to OUT.csv (same columns) and
prints "OVERLAPPING DROPPED".

perio reads btt's per-I/O output (btt -p PERIO.txt) of IN.csv's export
and checks that every I/O btt shows with the Q, D and C times of an I/O
of IN.csv (to the ns) is one, that each I/O it gets wrong or leaves out
overlaps, or shares sectors with, an I/O that is not pairable, and that
every pairable I/O is shown exactly; prints "EXACT WRONG"; exits 1
naming the first I/O that breaks the rule.
"""
import csv
import sys
from collections import defaultdict


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def span(r):
    issue = int(r["issue_ns"])
    return (int(r["queue_ns"] or issue), max(int(r["complete_ns"] or 0), issue))


def sectors(r):
    s = int(r["sector"])
    return s, s + int(r["bytes"]) // 512


def overlapping(rows):
    """Indexes of the data requests that overlap another of their device
    in sectors while both are in flight."""
    order = sorted((i for i, r in enumerate(rows) if int(r["bytes"]) > 0),
                   key=lambda i: span(rows[i]))
    over, active = set(), []
    for i in order:
        q, _ = span(rows[i])
        active = [j for j in active if span(rows[j])[1] >= q]
        s, e = sectors(rows[i])
        for j in active:
            os_, oe = sectors(rows[j])
            if rows[j]["dev"] == rows[i]["dev"] and os_ < e and s < oe:
                over.update((i, j))
        active.append(i)
    return over


def cmd_subset(src, dst):
    rows = load(src)
    over = overlapping(rows)
    keep = [r for i, r in enumerate(rows) if i not in over and r["completion"] == "seen"]
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(keep)
    print(len(over), len(rows) - len(keep))


def perio(path):
    """btt -p records: dicts of Q, D, C times (ns from btt's first event)
    and the Q's (sector, sectors)."""
    recs, cur = [], None
    for line in open(path):
        p = line.split()
        if len(p) < 3 or p[-2] not in ("Q", "D", "C"):
            continue
        s, n = p[-1].split("+")
        sec, frac = p[-3].split(".")
        t = int(sec) * 1000000000 + int(frac)
        if p[-2] == "Q":
            cur = {"Q": t, "key": (int(s), int(n))}
            recs.append(cur)
        elif cur is not None:
            cur[p[-2]] = t
    return recs


def cmd_perio(src, path):
    rows = load(src)
    data = [r for r in rows if int(r["bytes"]) > 0]
    over = overlapping(data)
    bad = [data[i] for i in over] + [r for r in data if r["completion"] != "seen"]
    by = defaultdict(list)
    for r in data:
        s, e = sectors(r)
        by[(s, e - s)].append(r)
    recs = perio(path)
    # btt's times count from the first event it reads: the offset most
    # Qs agree on (an I/O's sectors and queue time name it)
    votes = defaultdict(int)
    for b in recs[:2000]:
        for r in by[b["key"]]:
            votes[span(r)[0] - b["Q"]] += 1
    t0 = max(votes, key=votes.get) if votes else 0
    shown = set()
    exact = wrong = 0
    for b in recs:
        cand = [r for r in by[b["key"]] if span(r)[0] - t0 == b["Q"]]
        r = cand[0] if len(cand) == 1 else None
        if r is not None and b.get("D") == int(r["issue_ns"]) - t0 and \
                b.get("C") == int(r["complete_ns"]) - t0 and r["completion"] == "seen":
            exact += 1
            shown.add(id(r))
            continue
        wrong += 1
        if r is None:
            sys.exit("btt shows a Q at %d ns, sector %d+%d, of no I/O" % (b["Q"], *b["key"]))
    pairable = [r for i, r in enumerate(data) if i not in over and r["completion"] == "seen"]
    for r in pairable:
        if id(r) in shown:
            continue
        s, e = sectors(r)
        # a Q btt lost under a larger one stays in its tree and may
        # take a later request over its sectors
        if not any(o["dev"] == r["dev"] and sectors(o)[0] < e and s < sectors(o)[1] for o in bad):
            sys.exit("btt does not show I/O %s (sector %s, %s bytes, queued %s ns) exactly, "
                     "and it shares no sectors with an I/O btt cannot pair"
                     % (r["op"], r["sector"], r["bytes"], r["queue_ns"]))
    print(exact, wrong)


def main(argv):
    if len(argv) == 4 and argv[1] == "subset":
        cmd_subset(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "perio":
        cmd_perio(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
