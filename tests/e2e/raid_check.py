#!/usr/bin/env python3
"""raid_check.py — checks of replayed raid5/raid6 arrays (38-replay-raid5.sh).

  raid_check.py parts [--warmup] SOURCE.csv RUN.csv BLKPARSE.txt LEVEL ALGO CHUNK MISSING DEV...
      Every I/O of the source was replayed once (run file, internal 0),
      and the kernel saw exactly the member I/Os the array calls for
      (blkparse Q events): data and parity, reads and writes, on the right
      member at the right offset, nothing more. The run file's internal
      records (internal 1) are exactly the array-internal ones of each
      request. LEVEL 5 or 6; ALGO an md layout name; MISSING a comma list
      of member indexes or '-'; DEV... the members as MAJ,MIN (the
      missing ones included: nothing may reach them).
  raid_check.py parity LEVEL ALGO CHUNK FILE...
      Recompute P (and Q) of every row from the members' contents and
      count the rows where they differ from what is stored.
  raid_check.py data LEVEL ALGO CHUNK RUN.csv FILE...
      The array's data (its data chunks, read from the members by the
      geometry) is what the run's writes put there, applied in issue
      order (the run file's order) onto zeroes, byte j of a write being
      (131 j + 7) mod 256: a controller cache's writes reached the
      members by the end of the replay.

Written from schemas/array-layouts.md, independently of
replay/layout_raid5*.c: geometry from md's placement formulas, the column
ranges found sector by sector, Q by Horner's rule with a table of
multiplication by 2.
"""
import collections
import csv
import sys

SECTOR = 512


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def geometry(level, algo, n, row):
    """(data members in data-index order, P member, Q member or None)."""
    p = level - 4  # parity chunks: 1 or 2
    d = n - p
    r = row % n
    left = algo in ('left-asymmetric', 'left-symmetric')
    right = algo in ('right-asymmetric', 'right-symmetric')
    if left:
        pd = n - 1 - r
    elif right:
        pd = r
    elif algo == 'parity-first':
        pd = 0
    else:
        pd = d
    if level == 5:
        if algo.endswith('-symmetric'):
            data = [(pd + 1 + i) % n for i in range(d)]
        else:
            data = [m for m in range(n) if m != pd]
        return data, pd, None
    if algo.endswith('-symmetric'):
        qd = (pd + 1) % n
        data = [(pd + 2 + i) % n for i in range(d)]
    elif algo in ('parity-first', 'parity-last'):
        qd = pd + 1
        data = [m for m in range(n) if m not in (pd, qd)]
    elif pd == n - 1:
        qd = 0
        data = list(range(1, n - 1))
    else:
        qd = pd + 1
        data = [m for m in range(n) if m not in (pd, qd)]
    return data, pd, qd


def q_slots(n, data, pd, qd):
    """Syndrome slot of each data member: counted from the member after Q."""
    slots, k = {}, 0
    for j in range(n):
        m = (qd + 1 + j) % n
        if m not in (pd, qd):
            slots[m] = k
            k += 1
    return slots


def expected(level, algo, chunk, n, missing, off, length, op):
    """[(member, op, member offset, length, internal)] of one request."""
    p = level - 4
    d = n - p
    rowb = d * chunk
    out = []
    end = off + length
    row = off // rowb
    while row * rowb < end:
        r0 = row * rowb
        data, pd, qd = geometry(level, algo, n, row)
        par = [pd] + ([qd] if qd is not None else [])
        # the set of data indexes the request covers, column by column
        cols = []
        for x in range(0, chunk, SECTOR):
            t = frozenset(i for i in range(d) if off <= r0 + i * chunk + x < end)
            if cols and cols[-1][2] == t:
                cols[-1][1] += SECTOR
            else:
                cols.append([x, SECTOR, t])
        mergeable = []  # direct reads and data writes of this row
        for x0, ln, t in cols:
            if not t:
                continue
            moff = row * chunk + x0
            w = {data[i] for i in t}
            alld = set(data)
            pp = {m for m in par if m not in missing}
            if op == 'read':
                if not (w & missing):
                    for m in sorted(w):
                        mergeable.append([m, 'read', moff, ln])
                    continue
                lost = alld & missing
                rd = alld - missing
                if len(lost) == 2:
                    rd |= pp
                else:
                    rd |= {pd} if pd in pp else pp
                for m in sorted(rd):
                    out.append((m, 'read', moff, ln, 0 if m in w else 1))
                continue
            rest = alld - w
            if not rest:
                reads, writes = set(), (w | pp) - missing
            elif not pp:
                reads, writes = set(), w - missing
            else:
                rmw_ok, rcw_ok = not (w & missing), not (rest & missing)
                if rmw_ok and (not rcw_ok or len(w | pp) < len(rest)):
                    reads = w | pp
                elif rcw_ok:
                    reads = rest
                else:
                    reads = (alld | set(par)) - missing
                writes = (w | pp) - missing
            for m in sorted(reads):
                out.append((m, 'read', moff, ln, 1))
            for m in sorted(writes - set(par)):
                mergeable.append([m, 'write', moff, ln])
            for m in sorted(writes & set(par)):
                out.append((m, 'write', moff, ln, 1))
        # a member's data parts that continue each other are one part
        mergeable.sort(key=lambda e: (e[0], e[1], e[2]))
        merged = []
        for e in mergeable:
            if merged and merged[-1][0] == e[0] and merged[-1][1] == e[1] and \
                    merged[-1][2] + merged[-1][3] == e[2]:
                merged[-1][3] += e[3]
            else:
                merged.append(list(e))
        out += [(m, o, mo, ln, 0) for m, o, mo, ln in merged]
        row += 1
    return out


def blk_q(path, devs, warmup):
    ev = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 6 and p[1] == 'Q' and ',' in p[0]:
                ev.append((p[0], 'read' if 'R' in p[2] else 'write', int(p[3]) * SECTOR,
                           int(p[4]) * SECTOR, float(p[5])))
    if warmup:  # each device's first event is the 4 KiB warm-up read at 0
        drop = set()
        for dev in devs:
            mine = sorted((e[4], i) for i, e in enumerate(ev) if e[0] == dev)
            if mine:
                first = ev[mine[0][1]]
                if first[1:4] != ('read', 0, 4096):
                    sys.exit('%s: first event is not the warm-up read' % dev)
                drop.add(mine[0][1])
        ev = [e for i, e in enumerate(ev) if i not in drop]
    return collections.Counter(e[:4] for e in ev)


def check_parts(argv):
    warmup = argv[0] == '--warmup'
    if warmup:
        argv = argv[1:]
    src, run = read_csv(argv[0]), read_csv(argv[1])
    level, algo, chunk = int(argv[3]), argv[4], int(argv[5])
    missing = set() if argv[6] == '-' else {int(x) for x in argv[6].split(',')}
    devs = argv[7:]
    n = len(devs)
    errors = []
    reqs, internal = {}, collections.defaultdict(collections.Counter)
    for r in run:
        i = int(r['source'])
        if r['internal'] == '1':
            m = int(r['member']).bit_length() - 1
            internal[i][(m, r['op'], int(r['sector']) * SECTOR, int(r['bytes']))] += 1
            continue
        if i in reqs:
            errors.append('source I/O %d replayed twice' % i)
        reqs[i] = r
    want = collections.Counter()
    nparts = nint = 0
    for i, s in enumerate(src):
        r = reqs.get(i)
        if r is None:
            errors.append('source I/O %d not replayed' % i)
            continue
        for k in ('sector', 'bytes', 'op'):
            if r[k] != s[k]:
                errors.append('I/O %d: %s %s, source has %s' % (i, k, r[k], s[k]))
        if r['error'] != '0':
            errors.append('I/O %d failed: %s' % (i, r['error']))
        parts = expected(level, algo, chunk, n, missing, int(s['sector']) * SECTOR,
                         int(s['bytes']), s['op'])
        mask = 0
        for m, op, mo, ln, intl in parts:
            want[(devs[m], op, mo, ln)] += 1
            if not intl:
                mask |= 1 << m
        if int(r['member']) != mask:
            errors.append('I/O %d: member mask %s, expected %d' % (i, r['member'], mask))
        wint = collections.Counter((m, op, mo, ln) for m, op, mo, ln, intl in parts if intl)
        if wint != internal.get(i, collections.Counter()):
            errors.append('I/O %d: internal records %s, expected %s' % (
                i, sorted(internal.get(i, {}).elements()), sorted(wint.elements())))
        nparts += len(parts)
        nint += sum(wint.values())
    got = blk_q(argv[2], devs, warmup)
    for k in (want - got):
        errors.append('missing on %s: %s %d+%d' % k)
    for k in (got - want):
        errors.append('unexpected on %s: %s %d+%d' % k)
    for m in missing:
        if any(k[0] == devs[m] for k in got):
            errors.append('the missing member %s was touched' % devs[m])
    for e in errors[:20]:
        print(e)
    print('%d I/Os, %d member I/Os (%d array-internal) checked, %d problems' % (
        len(src), nparts, nint, len(errors)))
    return 1 if errors else 0


MUL2 = bytes(((v << 1) ^ (0x1d if v & 0x80 else 0)) & 0xff for v in range(256))


def xor(a, b):
    return (int.from_bytes(a, 'little') ^ int.from_bytes(b, 'little')).to_bytes(len(a), 'little')


def check_parity(argv):
    level, algo, chunk = int(argv[0]), argv[1], int(argv[2])
    files = argv[3:]
    n = len(files)
    blobs = [open(f, 'rb').read() for f in files]
    rows = min(len(b) for b in blobs) // chunk
    bad = 0
    for row in range(rows):
        data, pd, qd = geometry(level, algo, n, row)
        at = slice(row * chunk, (row + 1) * chunk)
        p = bytes(chunk)
        for m in data:
            p = xor(p, blobs[m][at])
        ok = p == blobs[pd][at]
        if qd is not None:
            slots = q_slots(n, data, pd, qd)
            q = bytes(chunk)
            for m in sorted(data, key=lambda m: -slots[m]):  # Horner, top slot first
                q = xor(q.translate(MUL2), blobs[m][at])
            ok = ok and q == blobs[qd][at]
        bad += not ok
    print('%d rows, %d with wrong parity' % (rows, bad))
    return 1 if bad else 0


def pattern(length):
    return bytes((131 * j + 7) % 256 for j in range(256)) * (length // 256) + \
        bytes((131 * j + 7) % 256 for j in range(length % 256))


def check_data(argv):
    level, algo, chunk, run = int(argv[0]), argv[1], int(argv[2]), read_csv(argv[3])
    files = argv[4:]
    n = len(files)
    d = n - (level - 4)
    blobs = [open(f, 'rb').read() for f in files]
    rows = min(len(b) for b in blobs) // chunk
    got = bytearray()
    for row in range(rows):
        data, _, _ = geometry(level, algo, n, row)
        for m in data:
            got += blobs[m][row * chunk:(row + 1) * chunk]
    want = bytearray(rows * d * chunk)
    writes = 0
    for r in run:
        if r['internal'] != '0' or r['op'] != 'write':
            continue
        if r['error'] != '0':
            sys.exit('a write failed: %s' % r)
        off, ln = int(r['sector']) * SECTOR, int(r['bytes'])
        want[off:off + ln] = pattern(ln)
        writes += 1
    bad = [i for i in range(0, len(want), SECTOR) if want[i:i + SECTOR] != got[i:i + SECTOR]]
    for i in bad[:10]:
        print('array byte %d (sector %d): members hold other data than the writes put '
              'there' % (i, i // SECTOR))
    print('%d writes, %d bytes of array data, %d sectors differ' % (writes, len(want), len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    cmd = sys.argv[1] if len(sys.argv) > 1 else ''
    if cmd == 'parts':
        sys.exit(check_parts(sys.argv[2:]))
    if cmd == 'parity':
        sys.exit(check_parity(sys.argv[2:]))
    if cmd == 'data':
        sys.exit(check_data(sys.argv[2:]))
    sys.exit(__doc__)
