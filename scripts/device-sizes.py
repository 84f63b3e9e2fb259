#!/usr/bin/env python3
"""device-sizes.py BLKPEAK TRACE...: the largest and the smallest size of
the devices the traces record (from `blkpeak info --json`), in bytes, on
one line: "MAX MIN". The suite scripts size their emulated disks by it."""
import json
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: device-sizes.py BLKPEAK TRACE...")
sizes = []
for trace in sys.argv[2:]:
    run = subprocess.run([sys.argv[1], "info", "--json", trace], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(run.stderr.strip() or f"device-sizes.py: {trace}: blkpeak info failed")
    info = json.loads(run.stdout)
    sizes += [d["size_bytes"] for d in info["devices"]]
if not sizes:
    sys.exit("device-sizes.py: the traces name no device")
print(max(sizes), min(sizes))
