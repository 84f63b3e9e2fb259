"""files_check.py CSV MNT FSDEV SHARE: check a capture's file columns (dump
--format csv) against the file system: every data I/O must name a known
file, its path, and the physical blocks FIEMAP gives for its offsets
(nothing credited to the wrong file or offset); at least SHARE of the data
bytes, and of each file's blocks, must be credited that way. A request
that merged the writeback of two files is credited to each for its part
(file_bytes, file2_bytes); bytes of a third file count as not credited.
The deleted file must get no data I/O at all (its pages were dropped). Prints a
summary; exits 1 with the reasons otherwise.
"""
import csv, os, re, subprocess, sys

csv_path, mnt, fsdev, share = sys.argv[1:5]
share = float(share)
# each file and the task (files_workload.py's step) that wrote it
FILES = {"write.dat": "bpw-write", "overwrite.dat": "bpw-overwrite",
         "sub/append.dat": "bpw-append", "mmap.dat": "bpw-mmap", "fsync.dat": "bpw-fsync",
         "direct.dat": "bpw-direct"}
BLK = 512  # FIEMAP's extents in sectors: ext4 on a small device has 1 KiB blocks
bad = []


def extents(path):
    """logical sector -> physical sector, from filefrag -v."""
    out = subprocess.run(["filefrag", "-v", "-b%d" % BLK, path], check=True,
                         capture_output=True, text=True).stdout
    m = {}
    for line in out.splitlines():
        g = re.match(r"\s*\d+:\s+(\d+)\.\.\s*(\d+):\s+(\d+)\.\.\s*(\d+):", line)
        if g:
            lo, hi, p = int(g.group(1)), int(g.group(2)), int(g.group(3))
            for k in range(lo, hi + 1):
                m[k] = p + k - lo
    return m


known = {}
writer = {}
for f, task in FILES.items():
    p = os.path.join(mnt, f)
    st = os.stat(p)
    known[st.st_ino] = (p, st.st_size, extents(p))
    writer[st.st_ino] = task

rows = list(csv.DictReader(open(csv_path)))
data_bytes = ok_bytes = merged = task_ok = task_wrong = 0
journal_by = {}
classes = {}
covered = {ino: set() for ino in known}
for r in rows:
    nbytes = int(r["bytes"])
    classes[r["file"]] = classes.get(r["file"], 0) + nbytes
    if r["file"] == "journal":
        journal_by[r["cause_comm"]] = journal_by.get(r["cause_comm"], 0) + 1
    if r["file"] != "data":
        continue
    data_bytes += nbytes
    if r["file_dev"] != fsdev:
        bad.append("data I/O on file system %s, not %s: %s" % (r["file_dev"], fsdev, r))
        continue
    ino = int(r["inode"])
    sec = int(r["sector"])
    merged += bool(r["file2_bytes"])
    pieces = [(ino, r["path"], int(r["file_offset"]), int(r["file_bytes"]), sec,
               r["cause_comm"])]
    if r["file2_bytes"]:
        pieces.append((int(r["inode2"]), r["path2"], int(r["file2_offset"]),
                       int(r["file2_bytes"]), sec + int(r["file_bytes"]) // 512,
                       r["cause2_comm"]))
    for ino, ppath, off, fb, s0, cause in pieces:
        if ino not in known:
            bad.append("data I/O of an unknown file (inode %d, path %r)" % (ino, ppath))
            continue
        path, size, ext = known[ino]
        if ppath != path:
            bad.append("inode %d: path %r, not %r" % (ino, ppath, path))
            continue
        if off % BLK:
            bad.append("unaligned data I/O: %s" % r)
            continue
        wrong = 0
        for k in range(fb // BLK):
            lb = off // BLK + k
            if ext.get(lb) != s0 + k:
                wrong += 1
            elif r["op"] == "write":
                covered[ino].add(lb)
        if wrong:
            bad.append("%s: %d of %d blocks at offset %d are not where FIEMAP has them"
                       % (path, wrong, fb // BLK, off))
        else:
            ok_bytes += fb
        # the task: its writer; "" (not known) is no error, another task is
        if cause == writer[ino]:
            task_ok += fb
        elif cause:
            task_wrong += fb
            bad.append("%s: %d bytes credited to %r, its writer is %s"
                       % (path, fb, cause, writer[ino]))
if task_ok < share * data_bytes:
    bad.append("%d of %d data bytes credited to the task that wrote them"
               % (task_ok, data_bytes))
if not any(c.startswith("bpw-") for c in journal_by):
    bad.append("no journal I/O credited to a task of the workload: %s" % journal_by)
for ino, (path, size, ext) in known.items():
    want = (size + BLK - 1) // BLK
    if len(covered[ino]) < share * want:
        bad.append("%s: writes cover %d of its %d blocks" % (path, len(covered[ino]), want))
if data_bytes == 0 or ok_bytes < share * data_bytes:
    bad.append("%d of %d data bytes credited to the right file and offset"
               % (ok_bytes, data_bytes))
print("classes (bytes): %s; data bytes credited to the right file: %d of %d (%.2f%%), "
      "to the right task: %d (%.2f%%); %d requests of two files; journal I/Os by cause: %s" %
      (" ".join("%s=%d" % kv for kv in sorted(classes.items())), ok_bytes, data_bytes,
       100.0 * ok_bytes / max(data_bytes, 1), task_ok, 100.0 * task_ok / max(data_bytes, 1),
       merged, " ".join("%s=%d" % (k or "-", v) for k, v in sorted(journal_by.items()))))
for b in bad[:20]:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
