#!/usr/bin/env python3
"""writers_expect.py KIND ... — check what `blkpeak convert` wrote against
an independent reading of the same trace (its `blkpeak dump --format csv`
and `info --json`), written here from the published definitions, not from
formats/:

  oracle INFO.json DUMP.csv OUT.oracleGeneral
      libCacheSim oracleGeneral: 24-byte records (u32 clock_time, u64
      obj_id, u32 obj_size, i64 next_access_vtime), one per 4 KiB block an
      I/O touches (reads, writes, write-zeroes), obj_id = device index
      << 48 | block, next_access_vtime the 1-based number of the next
      request for the same block, -1 when none (exact: the trace is
      shorter than the writer's look-ahead).
  csv DUMP.csv OUT.csv.zst
      the zstd CSV read by pandas as it is (pd.read_csv on the path) and
      by Python's csv module over zstd decompression (the zstandard module,
      or the zstd program): the same I/Os as the dump, column by column.

Prints one summary line; exits 1 with the difference."""
import csv
import io
import json
import struct
import subprocess
import sys
from decimal import Decimal

BLOCK = 4096


def dump_rows(path):
    return list(csv.DictReader(open(path)))


def ns(us):
    return int(Decimal(us) * 1000)


def oracle(info, dump, out):
    devs = {d["name"]: d["index"] for d in json.load(open(info))["devices"]}
    reqs = []
    for r in dump_rows(dump):
        if r["op"] in ("flush", "discard") or int(r["bytes"]) == 0:
            continue
        start = int(r["sector"]) * 512
        for b in range(start // BLOCK, (start + int(r["bytes"]) - 1) // BLOCK + 1):
            reqs.append([ns(r["issue_us"]) // 10**9, devs[r["dev"]] << 48 | b, BLOCK, -1])
    last = {}
    for i in range(len(reqs) - 1, -1, -1):
        obj = reqs[i][1]
        if obj in last:
            reqs[i][3] = last[obj] + 1
        last[obj] = i
    want = b"".join(struct.pack("<IQIq", *r) for r in reqs)
    got = open(out, "rb").read()
    if got != want:
        n = min(len(got), len(want)) // 24
        first = next((i for i in range(n) if got[i * 24:i * 24 + 24] != want[i * 24:i * 24 + 24]), n)
        print(f"{out}: {len(got)} bytes, expected {len(want)}; record {first + 1}: "
              f"got {struct.unpack('<IQIq', got[first * 24:first * 24 + 24]) if len(got) > first * 24 else None}, "
              f"expected {tuple(reqs[first]) if first < len(reqs) else None}")
        sys.exit(1)
    reused = sum(1 for r in reqs if r[3] != -1)
    print(f"oracle: {len(reqs)} block requests, {reused} with a next access, {len(last)} blocks")


def unzstd(path):
    try:
        import zstandard
        with open(path, "rb") as f:
            return zstandard.ZstdDecompressor().stream_reader(f).read().decode()
    except ImportError:
        return subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout.decode()


def csvzst(dump, out):
    want = dump_rows(dump)
    rows = list(csv.DictReader(io.StringIO(unzstd(out))))

    def same(got, how):
        if len(got) != len(want):
            print(f"{out} ({how}): {len(got)} rows, expected {len(want)}")
            sys.exit(1)
        for i, (g, w) in enumerate(zip(got, want)):
            exp = dict(queue_ns=ns(w["queue_us"]), issue_ns=ns(w["issue_us"]),
                       complete_ns=ns(w["complete_us"]), dev=w["dev"], sector=int(w["sector"]),
                       bytes=int(w["bytes"]), op=w["op"], flags=w["flags"] or "-", pid=int(w["pid"]),
                       comm=w["comm"], cgroup=int(w["cgroup"]), error=int(w["error"]),
                       completion=w.get("completion", "seen"))
            for k, v in exp.items():
                gv = g[k]
                if isinstance(v, int):
                    gv = int(gv)
                elif gv != gv:  # pandas: an empty field is NaN
                    gv = ""
                if gv != v:
                    print(f"{out} ({how}): row {i + 1}: {k}: {gv!r}, expected {v!r}")
                    sys.exit(1)

    same(rows, "csv module")
    how = "csv module"
    try:
        import pandas
    except ImportError:
        pandas = None
    if pandas is not None:
        df = pandas.read_csv(out, keep_default_na=False, dtype={"comm": str, "dev": str})
        same(df.to_dict("records"), "pandas")
        how += f", pandas {pandas.__version__} (dtypes: issue_ns {df['issue_ns'].dtype}, sector {df['sector'].dtype})"
    print(f"csv-zst: {len(rows)} rows read by {how}")


args = sys.argv[1:]
if args[:1] == ["oracle"] and len(args) == 4:
    oracle(*args[1:])
elif args[:1] == ["csv"] and len(args) == 3:
    csvzst(*args[1:])
else:
    sys.exit(__doc__)
