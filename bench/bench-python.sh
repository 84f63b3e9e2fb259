#!/bin/bash
# bench-python.sh — the Python module's speed (issue 32: >= 10 M records
# per second into numpy on one core) against the way a Python user reads
# a trace without it, `blkpeak dump --format csv` read by pandas.read_csv,
# in the same run on the same trace:
#   1. blkpeak generate writes N I/Os (fileserver preset, default 5 M);
#   2. build/bench/read_loop: bpt_reader_next() alone (the floor);
#   3. blkpeak.read() of every column, and of four (issue_ns,
#      complete_ns, bytes, op); blkpeak.to_pandas() of every column;
#   4. blkpeak dump --format csv to a file, then pandas.read_csv of it.
# CPU seconds (user + system, of the process or of the child), best of
# 3; records per CPU second. Debian's python3 (/usr/bin/python3) with the
# module from `make python`. Run it under the benchmark lock:
#   flock /tmp/blkpeak-bench.lock bench/bench-python.sh [N]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
BLKPEAK=${BLKPEAK:-$BUILD/blkpeak}
PY=/usr/bin/python3
N=${1:-5000000}
# make names its targets as BUILD is spelled: relative to the tree when inside it
rel=${BUILD#"$ROOT"/}
make -s -C "$ROOT" --no-print-directory BUILD="$rel" python "$rel/bench/read_loop" >/dev/null ||
	{ echo "FAIL: make python"; exit 1; }
W=$(mktemp -d /dev/shm/bench-python.XXXXXX)
trap 'rm -rf "$W"' EXIT
"$BLKPEAK" generate --pattern fileserver --count "$N" -o "$W/t.bpt" >/dev/null || { echo "FAIL: generate"; exit 1; }
echo "trace: $N I/Os, $(stat -c %s "$W/t.bpt") bytes; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "read_loop (bpt_reader_next alone): $("$BUILD/bench/read_loop" "$W/t.bpt" 3)"
PYTHONPATH=$BUILD/python BLKPEAK=$BLKPEAK "$PY" - "$W/t.bpt" "$W/t.csv" <<'PY'
import os, resource, subprocess, sys, time
import pandas as pd
import blkpeak

trace, csv = sys.argv[1], sys.argv[2]
n = blkpeak.info(trace)["stats"]["records"]

def best(fn, runs=3):
    b = None
    for _ in range(runs):
        t = time.process_time()
        fn()
        t = time.process_time() - t
        b = t if b is None or t < b else b
    return b

def line(what, secs):
    print(f"{what:44s} {secs:8.3f} CPU s  {n / secs / 1e6:7.2f} M records/s")

ncols = len(blkpeak.columns(trace))
line(f"blkpeak.read, all {ncols} columns", best(lambda: blkpeak.read(trace)))
four = ["issue_ns", "complete_ns", "bytes", "op"]
line("blkpeak.read, 4 columns", best(lambda: blkpeak.read(trace, columns=four)))
line(f"blkpeak.to_pandas, all {ncols} columns", best(lambda: blkpeak.to_pandas(trace)))

def dump():
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(csv, "w") as f:
        subprocess.run([os.environ["BLKPEAK"], "dump", "--format", "csv", trace], stdout=f, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
d = min(dump() for _ in range(3))
line("blkpeak dump --format csv (to a file)", d)
r = best(lambda: pd.read_csv(csv))
line("pandas.read_csv of it", r)
line("dump + read_csv", d + r)
PY
