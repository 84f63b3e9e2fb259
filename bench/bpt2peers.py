#!/usr/bin/env python3
"""bpt2peers.py — hand a blkpeak trace to the peers (bench-replay.sh).

  bpt2peers.py fio    DUMP.csv DEV OUT.log     fio iolog v2 (order kept, no times)
  bpt2peers.py blk    DUMP.csv DEV OUT.bin     blktrace binary: a Q (queue, read
                                               by fio --read_iolog) and a D (issue,
                                               read by btrecord) event per I/O at
                                               its recorded issue time (device =
                                               DEV's number)

DUMP.csv is `blkpeak dump --format csv`; I/Os are written in issue order.
"""
import csv
import os
import struct
import sys

MAGIC = 0x65617400 | 0x07
TA_QUEUE, TA_ISSUE = 1, 7
TC_READ, TC_WRITE, TC_SYNC, TC_QUEUE, TC_ISSUE = 1 << 0, 1 << 1, 1 << 3, 1 << 4, 1 << 6


def rows(path):
    with open(path) as f:
        r = list(csv.DictReader(f))
    r.sort(key=lambda x: float(x['issue_us']))
    return r


def main():
    kind, src, dev, out = sys.argv[1:5]
    ios = rows(src)
    if kind == 'fio':
        with open(out, 'w') as f:
            f.write('fio version 2 iolog\n%s add\n%s open\n' % (dev, dev))
            for r in ios:
                f.write('%s %s %d %s\n' % (dev, 'read' if r['op'] == 'read' else 'write',
                                           int(r['sector']) * 512, r['bytes']))
            f.write('%s close\n' % dev)
        return 0
    st = os.stat(dev)
    devno = (os.major(st.st_rdev) << 20) | os.minor(st.st_rdev)
    t0 = float(ios[0]['issue_us'])
    with open(out, 'wb') as f:
        for seq, r in enumerate(ios):
            tc = TC_READ if r['op'] == 'read' else TC_WRITE | TC_SYNC
            # times start at 1 us: btrecord takes a time of 0 for "unset"
            t = 1000 + int(round((float(r['issue_us']) - t0) * 1000))
            for k, (act, cat) in enumerate(((TA_QUEUE, TC_QUEUE), (TA_ISSUE, TC_ISSUE))):
                f.write(struct.pack('<IIQQIIIIIHH', MAGIC, 2 * seq + k, t, int(r['sector']),
                                    int(r['bytes']), act | ((tc | cat) << 16), 1, devno,
                                    0, 0, 0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
