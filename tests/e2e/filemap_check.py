#!/usr/bin/env python3
"""filemap_check.py — the check of 39-replay-files.sh (replay --map path:/comm:).

  filemap_check.py SOURCE.csv RUN.csv BLKPARSE.txt REST TARGET SELECTOR AT

SOURCE.csv and RUN.csv are `blkpeak dump --format csv` of the capture and
of the run; BLKPARSE.txt is blkparse -f "%D %a %d %S %n %T.%9t\\n" of the
blk tracer on both targets. REST and TARGET are MAJ,MIN:NAME of the
target of what stays and of the map's target; SELECTOR is path:GLOB or
comm:GLOB ('|' between alternatives); AT is '-' (recorded offsets) or
the packed area's first byte.

Written from the rules of docs/replay.md ("Files and tasks"), not from
replay/filemap.c: each data I/O is split into the bytes of its file, of
its second file and the rest; a part goes to TARGET when its file's path
(or its task: the cause, else the submitter; not metadata or journal)
matches, else to REST at its own offset. Packed: files in the order of
their first matched byte's I/O (issue time, record index, part), each
whole from its start (4 KiB-rounded end of its last byte touched), a part
with no file offset in its recorded device's "file". Then, sector by
sector: the run file must hold exactly those pieces under each I/O's
source index, every flush must reach both targets, and the kernel (Q
events) must have seen exactly those sectors on each device, nothing more.
"""
import collections
import csv
import fnmatch
import sys

ALIGN = 4096


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def ns(us):
    whole, _, frac = us.partition('.')
    return int(whole) * 1000 + int((frac + '000')[:3])


def matches(globs, s):
    return s is not None and any(fnmatch.fnmatchcase(s, g) for g in globs)


def parts(s):
    """[(off, len, path, unit, file_off, task, cls)] of a read or write."""
    n = int(s['bytes'])
    credit = s['cause_comm'] if s['cause_pid'] not in ('', '0') else s['comm']
    if s['file'] != 'data':
        return [(0, n, None, None, None, credit, s['file'])]
    fb1 = min(int(s['file_bytes'] or 0), n)
    fb2 = min(int(s['file2_bytes'] or 0), n - fb1)
    out = []
    if fb1:
        out.append((0, fb1, s['path'] or None, (s['file_dev'], s['inode']),
                    int(s['file_offset']) if s['file_offset'] else None, credit, 'data'))
    if fb2:
        task2 = s['cause2_comm'] if s['cause2_pid'] not in ('', '0') else s['comm']
        out.append((fb1, fb2, s['path2'] or None, (s['file2_dev'], s['inode2']),
                    int(s['file2_offset']) if s['file2_offset'] else None, task2, 'data'))
    if fb1 + fb2 < n:
        out.append((fb1 + fb2, n - fb1 - fb2, None, None, None, s['comm'], 'data'))
    return out


def main(argv):
    src, run = read_csv(argv[0]), read_csv(argv[1])
    rest_dev, rest_name = argv[3].split(':')
    tgt_dev, tgt_name = argv[4].split(':')
    kind, _, glob = argv[5].partition(':')
    globs = glob.split('|')
    at = None if argv[6] == '-' else int(argv[6])

    def taken(p):
        if kind == 'path':
            return matches(globs, p[2])
        return p[6] not in ('metadata', 'journal') and matches(globs, p[5])

    # the packed layout
    units = {}
    for i, s in enumerate(src):
        if s['op'] not in ('read', 'write'):
            continue
        for k, p in enumerate(parts(s)):
            if not taken(p):
                continue
            if p[3] is not None and p[4] is not None:
                key, off = ('file',) + p[3], p[4]
            else:
                key, off = ('dev', s['dev']), int(s['sector']) * 512 + p[0]
            first, span = units.get(key, ((1 << 64,), 0))
            units[key] = (min(first, (ns(s['issue_us']), i, k)), max(span, off + p[1]))
    base, pos = {}, at or 0
    for key, (first, span) in sorted(units.items(), key=lambda kv: kv[1][0]):
        base[key] = pos
        pos += (span + ALIGN - 1) // ALIGN * ALIGN

    problems, by_src = [], collections.defaultdict(list)
    for r in run:
        by_src[int(r['source'])].append(r)
        if r['error'] != '0':
            problems.append('I/O %s failed: %s' % (r['source'], r['error']))
    want_sect = collections.Counter()
    n_taken = bytes_taken = cut = flushes = 0
    for i, s in enumerate(src):
        got = by_src.pop(i, [])
        if s['op'] == 'flush':
            flushes += 1
            if sorted(r['dev'] for r in got) != sorted([rest_name, tgt_name]):
                problems.append('flush %d went to %s, not to both targets' % (
                    i, [r['dev'] for r in got]))
            continue
        if s['op'] not in ('read', 'write'):
            continue
        pieces = []  # [dev, name, offset, len], sector by sector
        for k, p in enumerate(parts(s)):
            t = taken(p)
            n_taken += t
            bytes_taken += p[1] if t else 0
            for b in range(p[0], p[0] + p[1], 512):
                where = int(s['sector']) * 512 + b
                dev, name = rest_dev, rest_name
                if t:
                    dev, name = tgt_dev, tgt_name
                    if at is not None:
                        if p[3] is not None and p[4] is not None:
                            where = base[('file',) + p[3]] + p[4] + b - p[0]
                        else:
                            where = base[('dev', s['dev'])] + where
                if pieces and pieces[-1][0] == dev and pieces[-1][2] + pieces[-1][3] == where:
                    pieces[-1][3] += 512
                else:
                    pieces.append([dev, name, where, 512])
        cut += len(pieces) > 1
        want = sorted((p[1], p[2], p[3], s['op']) for p in pieces)
        have = sorted((r['dev'], int(r['sector']) * 512, int(r['bytes']), r['op']) for r in got)
        if want != have:
            problems.append('I/O %d (%s %s+%s, %s): run file has %s, expected %s' % (
                i, s['op'], s['sector'], s['bytes'], s['path'], have, want))
        for p in pieces:
            for b in range(p[2], p[2] + p[3], 512):
                want_sect[(p[0], s['op'], b // 512)] += 1
    for i in list(by_src)[:5]:
        problems.append('run file has records of source I/O %d, which is not in the source' % i)
    seen = collections.Counter()
    with open(argv[2]) as f:
        for line in f:
            p = line.split()
            if len(p) != 6 or p[1] != 'Q' or p[0] not in (rest_dev, tgt_dev) or p[4] == '0':
                continue
            op = 'read' if 'R' in p[2] else 'write'
            for sect in range(int(p[3]), int(p[3]) + int(p[4])):
                seen[(p[0], op, sect)] += 1
    for k in list((want_sect - seen))[:8]:
        problems.append('the kernel saw no %s of sector %d on %s' % (k[1], k[2], k[0]))
    for k in list((seen - want_sect))[:8]:
        problems.append('the kernel saw an unexpected %s of sector %d on %s' % (k[1], k[2], k[0]))
    if not bytes_taken:
        problems.append('the selector took nothing: the check would prove nothing')
    for p in problems[:20]:
        print(p)
    on_tgt = sum(v for k, v in want_sect.items() if k[0] == tgt_dev)
    print('%d I/Os, %d parts (%d bytes) on %s, %d cut, %d flushes to both, %d sectors seen on '
          'the target, %d problems' % (len(src), n_taken, bytes_taken, tgt_name, cut, flushes,
                                       on_tgt, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
