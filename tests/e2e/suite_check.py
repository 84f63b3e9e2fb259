#!/usr/bin/env python3
"""suite_check.py — the leaderboard's figures computed again, independently.

usage: suite_check.py LEADERBOARD.json RESULTS_DIR BLKPEAK

RESULTS_DIR is a suite run's DIR/results/DIGEST: one folder per label,
holding KEY.bpt run files (KEY = NAME.TIMING.REPEAT) and KEY.json qd-sweep
results. From them alone (blkpeak dump --format csv of each run; the
points of each sweep) this computes per workload and label the time
(max completion - min issue) or the weighted IOPS (sum of weight x IOPS
over the weights' sum), the median by nearest rank (the ceil(n/2)-th
smallest), min and max, the ratios to the leaderboard's baseline, time
saved and the score (geometric mean of the ratios), and checks that every
figure of LEADERBOARD.json equals them (relative 1e-6; 1e-4 where a
sweep's IOPS, which its document rounds to 0.001, enter) and that the ranks
follow the scores. Exits 1 naming the first difference.
"""
import csv
import io
import json
import math
import os
import subprocess
import sys


def fail(msg):
    print("suite_check: " + msg, file=sys.stderr)
    sys.exit(1)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)


def run_seconds(blkpeak, path):
    out = subprocess.run([blkpeak, "dump", "--format", "csv", path], check=True,
                         capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    if not rows:
        fail(path + ": no I/O")
    first = min(float(r["issue_us"]) for r in rows)
    last = max(float(r["complete_us"]) for r in rows)
    return (last - first) / 1e6


def sweep_iops(path):
    d = json.load(open(path))
    pts = d["points"]
    wsum = sum(p["weight"] for p in pts)
    return sum(p["weight"] * p["ios_per_s"] for p in pts) / wsum


def main():
    lb = json.load(open(sys.argv[1]))
    rdir, blkpeak = sys.argv[2], sys.argv[3]
    figs = {}  # (workload, label) -> [values]
    kinds = {}
    for label_dir in sorted(os.listdir(rdir)):
        st = os.path.join(rdir, label_dir, "state")
        label = [l[6:].rstrip("\n") for l in open(st) if l.startswith("label ")][0]
        done = {l.split()[1] for l in open(st) if l.startswith("done ")}
        for key in done:
            parts = key.split(".")
            if os.path.exists(os.path.join(rdir, label_dir, key + ".bpt")):
                wl = parts[0] + " " + parts[1]
                v = run_seconds(blkpeak, os.path.join(rdir, label_dir, key + ".bpt"))
                kinds[wl] = "s"
            else:
                wl = parts[0]
                v = sweep_iops(os.path.join(rdir, label_dir, key + ".json"))
                kinds[wl] = "ios_per_s"
            figs.setdefault((wl, label), []).append(v)
    base = lb["baseline"]
    want_cfg = {}
    seen = set()
    for w in lb["workloads"]:
        name = w["name"]
        if w["unit"] != kinds.get(name):
            fail("%s: unit %s, the files say %s" % (name, w["unit"], kinds.get(name)))
        for r in w["results"]:
            vals = sorted(figs.get((name, r["label"]), []))
            if len(vals) != r["repeats"]:
                fail("%s on %s: %d repeats, %d files" % (name, r["label"], r["repeats"], len(vals)))
            med = vals[math.ceil(len(vals) / 2) - 1]
            # a sweep's document gives IOPS to 0.001: its weighted IOPS, as
            # stored, is the rounded sum; allow that rounding
            rel = 1e-4 if w["unit"] == "ios_per_s" else 1e-6
            for k, x in (("median", med), ("min", vals[0]), ("max", vals[-1])):
                if not close(r[k], x, rel):
                    fail("%s on %s: %s %r, computed %r" % (name, r["label"], k, r[k], x))
            bv = sorted(figs[(name, base)])
            bmed = bv[math.ceil(len(bv) / 2) - 1]
            ratio = med / bmed if w["unit"] == "ios_per_s" else bmed / med
            if not close(r["ratio"], ratio, rel):
                fail("%s on %s: ratio %r, computed %r" % (name, r["label"], r["ratio"], ratio))
            if w["unit"] == "s" and not close(r["time_saved_pct"], (bmed - med) / bmed * 100):
                fail("%s on %s: time saved %r" % (name, r["label"], r["time_saved_pct"]))
            want_cfg.setdefault(r["label"], []).append(ratio)
            seen.add((name, r["label"]))
    if seen != set(figs):
        fail("results in the files but not in the leaderboard: %s" % sorted(set(figs) - seen))
    last = None
    for i, c in enumerate(lb["configurations"]):
        rs = want_cfg[c["label"]]
        score = math.exp(sum(math.log(x) for x in rs) / len(rs))
        if not close(c["score"], score, 1e-4) or c["workloads_scored"] != len(rs):
            fail("%s: score %r of %d, computed %r of %d" % (c["label"], c["score"],
                 c["workloads_scored"], score, len(rs)))
        if c["rank"] != i + 1 or (last is not None and score > last * (1 + 1e-9)):
            fail("%s: rank %d does not follow the scores" % (c["label"], c["rank"]))
        last = score
    print("suite_check: %d workloads x %d configurations agree" % (len(lb["workloads"]),
          len(lb["configurations"])))


main()
