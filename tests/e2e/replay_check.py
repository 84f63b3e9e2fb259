#!/usr/bin/env python3
"""replay_check.py — checks for the replay end-to-end tests (30-replay-*.sh).

  replay_check.py parts SOURCE.csv RUN.csv BLKPARSE.txt LAYOUT CHUNK DEV...
      Every I/O of the source trace was replayed once with its sector,
      length and operation (run file), and the kernel saw exactly the parts
      the layout calls for (blkparse Q events): member device and member
      offset of every part, nothing more. LAYOUT is single, raid0, raid1,
      raid10 or linear; DEV... are the members as MAJ,MIN:SIZE_BYTES.
      Mirrored reads may go to any copy the run file's member mask names.
  replay_check.py causal SOURCE.csv RUN.csv
      No I/O of a causal replay was issued before every I/O that had
      completed before it in the recording had completed in the replay.
  replay_check.py depth RUN.csv N
      Never more than N I/Os outstanding in the run (issue to completion).
  replay_check.py timing SOURCE.csv BLKPARSE.txt DEV [SPEED]
      Issue-time error of a timed replay: D events matched to the source's
      I/Os by (sector, nth occurrence; a request merged from adjacent
      I/Os counts for each), aligned at the first; prints
      p50/p99/max absolute error in microseconds, the total drift (first
      to last I/O) and the window drift: the median signed error of the
      last tenth of the I/Os minus that of the first tenth, over the span
      between them, which one late I/O at either end cannot move (the
      figure a test may bound; the others are the bench's, bench/).
  replay_check.py ontime SOURCE.csv RUN.csv [SPEED]
      From a timed replay's run file, what holds under any load: every
      source I/O replayed once, due (sched_us) at its recorded time over
      SPEED, none issued before it was due, and issued in due order.
      Prints the lateness p50/p99/max (not checked: another process can
      make it anything).

  replay_check.py regions SOURCE.csv RUN.csv BLKPARSE.txt REST MAP...
      A replay with --map regions of one recorded disk: every sector of
      every source I/O reached the device its region names (REST:
      MAJ,MIN:NAME of the target of the rest of the disk, or '-'), at the
      region's offset there (MAP: START:END:AT:MAJ,MIN:NAME, bytes), as
      one piece per run of contiguous sectors on one device; the run file
      holds exactly those pieces under the I/O's source index, and the
      kernel saw exactly those parts (Q events), nothing more.
  replay_check.py mix RUN.csv BLKPARSE.txt DEV NAME=SOURCE.csv@OFFSET_US...
      A mixed replay (replay A.bpt B.bpt ...) on one device: the run file
      tags each I/O with its recording (comm NAME); every I/O of each
      recording replayed once, with its sector, length and operation, due
      (sched_us) at its recorded time plus its recording's offset, none
      issued before it was due, and issued in its recording's issue
      order; the recordings overlap in time (interleaved, not one after
      the other); and the kernel saw exactly those I/Os (blkparse D
      events: each sector read and written as many times as the run's
      I/Os cover it, so a request merged from adjacent I/Os counts for
      each). Prints each recording's lateness (not checked).

Option --warmup (first argument after the command): the replay did its
warm-up (docs/replay.md, "Timing"): each device's first event must be a 4 KiB
read at sector 0; it is checked and left out of the comparison.

The mapping here is written independently of replay/layout_*.c, from the
rules in schemas/array-layouts.md, so the two check each other.
"""
import collections
import math
import csv
import sys


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def blk_events(path, action):
    """(dev 'maj,min', rwbs, sector, nsectors, time_s) for each event."""
    out = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 6 and p[1] == action and ',' in p[0]:
                out.append((p[0], p[2], int(p[3]), int(p[4]), float(p[5])))
    return out


WARMUP = False


def blk_events_replay(path, action, devs):
    """blk_events() of the replay proper: with --warmup, each device's
    first event in time must be the warm-up read (4 KiB at sector 0) and
    is dropped; a device without one is an error."""
    ev = blk_events(path, action)
    if not WARMUP:
        return ev
    drop = set()
    for dev in devs:
        mine = sorted((e[4], i) for i, e in enumerate(ev) if e[0] == dev)
        if not mine:
            continue
        first = ev[mine[0][1]]
        if 'R' not in first[1] or first[2] != 0 or first[3] != 8:
            sys.exit('%s: first %s event is %s %d+%d, not the warm-up read (R 0+8)' % (
                dev, action, first[1], first[2], first[3]))
        drop.add(mine[0][1])
    return [e for i, e in enumerate(ev) if i not in drop]


def expected_parts(layout, chunk, sizes, off, length, op, mask):
    """[(candidate members, member offset, length)] for one request."""
    n = len(sizes)
    if layout == 'single':
        return [((0,), off, length)]
    if layout == 'raid1':
        if op == 'read':
            return [(tuple(m for m in range(n) if mask >> m & 1), off, length)]
        return [((m,), off, length) for m in range(n)]
    if layout == 'linear':
        parts, base, pos, end = [], 0, off, off + length
        for m, size in enumerate(sizes):
            if pos < base + size and pos < end:
                piece = min(end, base + size) - pos
                parts.append(((m,), pos - base, piece))
                pos += piece
            base += size
        return parts
    parts, pos, end = [], off, off + length
    while pos < end:
        k, inside = divmod(pos, chunk)
        piece = min(chunk - inside, end - pos)
        if layout == 'raid0':
            parts.append(((k % n,), (k // n) * chunk + inside, piece))
        else:  # raid10, near 2: chunk k in slots 2k and 2k+1
            copies = [((s % n), (s // n) * chunk + inside) for s in (2 * k, 2 * k + 1)]
            if op == 'read':
                parts.append((None, None, piece, copies))
            else:
                for m, moff in copies:
                    parts.append(((m,), moff, piece))
        pos += piece
    return parts


def check_parts(argv):
    src = read_csv(argv[0])
    run = read_csv(argv[1])
    layout, chunk = argv[3], int(argv[4])
    devs = [d.split(':')[0] for d in argv[5:]]
    sizes = [int(d.split(':')[1]) for d in argv[5:]]
    errors = []

    by_src = {}
    for r in run:
        i = int(r['source'])
        if i in by_src:
            errors.append('source I/O %d replayed twice' % i)
        by_src[i] = r
    for i, s in enumerate(src):
        r = by_src.get(i)
        if r is None:
            errors.append('source I/O %d not replayed' % i)
            continue
        for k in ('sector', 'bytes', 'op'):
            if r[k] != s[k]:
                errors.append('I/O %d: %s %s, source has %s' % (i, k, r[k], s[k]))
        if r['error'] != '0':
            errors.append('I/O %d failed: %s' % (i, r['error']))

    actual = collections.Counter()
    for dev, rwbs, sector, nsect, _ in blk_events_replay(argv[2], 'Q', devs):
        actual[(dev, 'read' if 'R' in rwbs else 'write', sector * 512, nsect * 512)] += 1
    # Parts with one possible place are taken first; mirrored reads whose
    # mask leaves a choice (a long raid10 read may use both copies of a
    # pair for different chunks) are then matched to what is left with
    # augmenting paths, so overlapping I/Os cannot steal each other's parts.
    nparts = 0
    ambiguous = []
    for r in run:
        off, length, op = int(r['sector']) * 512, int(r['bytes']), r['op']
        mask = int(r['member'])
        for part in expected_parts(layout, chunk, sizes, off, length, op, mask):
            nparts += 1
            if len(part) == 4:  # raid10 read: one of the copies in the mask
                options = [(m, moff) for m, moff in part[3] if mask >> m & 1]
            else:
                options = [(m, part[1]) for m in part[0]]
            keys = [(devs[m], op, moff, part[2]) for m, moff in options]
            desc = 'I/O %s (%s %d+%d): no part on %s at %s+%d' % (
                r['source'], op, off, length, '/'.join(devs[m] for m, _ in options),
                '/'.join(str(o) for _, o in options), part[2])
            if len(keys) == 1:
                if actual[keys[0]] > 0:
                    actual[keys[0]] -= 1
                else:
                    errors.append(desc)
            else:
                ambiguous.append((keys, desc))
    slots = [k for k in actual for _ in range(actual[k])]
    owner = [None] * len(slots)

    def place(i, seen):
        for j, k in enumerate(slots):
            if k in ambiguous[i][0] and j not in seen:
                seen.add(j)
                if owner[j] is None or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i, (_, desc) in enumerate(ambiguous):
        if not place(i, set()):
            errors.append(desc)
    actual = collections.Counter(k for j, k in enumerate(slots) if owner[j] is None)
    extra = [k for k, v in actual.items() for _ in range(v)]
    for k in extra[:10]:
        errors.append('unexpected I/O on %s: %s %d+%d' % k)
    if len(extra) > 10:
        errors.append('... %d unexpected I/Os in all' % len(extra))
    for e in errors[:20]:
        print(e)
    print('%d I/Os, %d parts checked, %d problems' % (len(src), nparts, len(errors)))
    return 1 if errors else 0


def region_pieces(rest, maps, off, length):
    """[(dev, name, offset, length)] of one I/O, found sector by sector
    (not by walking the region bounds, as replay/region.c does)."""
    pieces = []
    for sect in range(off // 512, (off + length) // 512):
        b = sect * 512
        hit = [m for m in maps if m[0] <= b < m[1]]
        if hit:
            dev, name, where = hit[0][3], hit[0][4], b - hit[0][0] + hit[0][2]
        elif rest:
            dev, name, where = rest[0], rest[1], b
        else:
            sys.exit('byte %d has no target' % b)
        if pieces and pieces[-1][0] == dev and pieces[-1][2] + pieces[-1][3] == where:
            pieces[-1][3] += 512
        else:
            pieces.append([dev, name, where, 512])
    return [tuple(p) for p in pieces]


def check_regions(argv):
    src = read_csv(argv[0])
    run = read_csv(argv[1])
    rest = None if argv[3] == '-' else tuple(argv[3].split(':'))
    maps = []
    for m in argv[4:]:
        start, end, at, dev, name = m.split(':')
        maps.append((int(start), int(end), int(at), dev, name))
    devs = sorted({m[3] for m in maps} | ({rest[0]} if rest else set()))
    errors = []
    by_src = collections.defaultdict(list)
    for r in run:
        by_src[int(r['source'])].append(r)
        if r['error'] != '0':
            errors.append('I/O %s failed: %s' % (r['source'], r['error']))
    expected = collections.Counter()
    cut = 0
    for i, s in enumerate(src):
        if s['op'] not in ('read', 'write'):
            continue
        want = region_pieces(rest, maps, int(s['sector']) * 512, int(s['bytes']))
        cut += len(want) > 1
        got = sorted((r['dev'], int(r['sector']) * 512, int(r['bytes']), r['op'])
                     for r in by_src.pop(i, []))
        if got != sorted((p[1], p[2], p[3], s['op']) for p in want):
            errors.append('I/O %d (%s %s+%s): run file has %s, expected %s' % (
                i, s['op'], s['sector'], s['bytes'], got, want))
        for p in want:
            expected[(p[0], s['op'], p[2], p[3])] += 1
    for i in list(by_src)[:5]:
        errors.append('run file has records of source I/O %d, which is not in the source' % i)
    actual = collections.Counter()
    for dev, rwbs, sector, nsect, _ in blk_events_replay(argv[2], 'Q', devs):
        if nsect:
            actual[(dev, 'read' if 'R' in rwbs else 'write', sector * 512, nsect * 512)] += 1
    for k in list((expected - actual).elements())[:10]:
        errors.append('no part on %s: %s %d+%d' % k)
    for k in list((actual - expected).elements())[:10]:
        errors.append('unexpected I/O on %s: %s %d+%d' % k)
    for e in errors[:20]:
        print(e)
    print('%d I/Os, %d cut at region bounds, %d parts checked, %d problems' % (
        len(src), cut, sum(expected.values()), len(errors)))
    return 1 if errors else 0


def pct(v, p):
    """The nearest-rank percentile of common/stats.h: the value of rank
    ceil(p/100 * n), 1-based, in ascending order (p in parts per million
    there, so the rank is computed from p * 10^4 rounded)."""
    v = sorted(v)
    return v[max(1, math.ceil(round(p * 10000) * len(v) / 1000000)) - 1]


def check_timing(argv):
    src = read_csv(argv[0])
    dev = argv[2]
    speed = float(argv[3]) if len(argv) > 3 else 1.0
    want = collections.defaultdict(list)
    nsect = collections.defaultdict(list)
    for s in sorted(src, key=lambda s: float(s['issue_us'])):
        want[int(s['sector'])].append(float(s['issue_us']) / 1e6 / speed)
        nsect[int(s['sector'])].append(max(1, int(s['bytes']) // 512))
    got = collections.defaultdict(list)
    for d, _, sector, n, t in sorted((e for e in blk_events_replay(argv[1], 'D', [dev])
                                      if e[0] == dev), key=lambda e: e[4]):
        # A request the block layer merged from adjacent I/Os (issued
        # together, e.g. after a stall) is one D event covering several:
        # each I/O it covers is taken as issued then.
        pos, end = sector, sector + max(n, 1)
        while pos < end:
            got[pos].append(t)
            k = len(got[pos]) - 1
            sizes = nsect.get(pos)
            if not sizes:
                break
            pos += sizes[min(k, len(sizes) - 1)]
    pairs = []
    for sector, times in want.items():
        for a, b in zip(times, sorted(got.get(sector, []))):
            pairs.append((a, b))
    if not pairs:
        print('no I/O matched')
        return 1
    pairs.sort()
    t0w, t0g = pairs[0]
    err = [abs((b - t0g) - (a - t0w)) * 1e6 for a, b in pairs]
    span_w = pairs[-1][0] - t0w
    span_g = pairs[-1][1] - t0g
    drift = (span_g - span_w) / span_w * 100 if span_w else 0.0
    # the same errors taken from the median offset instead of the first
    # I/O's, which shows how much of them is one constant offset
    signed = [((b - t0g) - (a - t0w)) * 1e6 for a, b in pairs]
    med = pct(signed, 50)
    err_m = [abs(e - med) for e in signed]
    print('matched %d of %d; abs issue error us: p50 %.1f p99 %.1f max %.1f; drift %+.4f%%; '
          'from the median offset: p99 %.1f max %.1f; window drift %+.4f%%' % (
              len(pairs), len(src), pct(err, 50), pct(err, 99), max(err), drift,
              pct(err_m, 99), max(err_m), window_drift(pairs)))
    return 0


def window_drift(pairs):
    """Drift in percent between the first and the last tenth of the
    (wanted, got) pairs, sorted by wanted time: the change of the median
    signed error over the span between the two tenths' medians."""
    k = max(1, len(pairs) // 10)
    head, tail = pairs[:k], pairs[-k:]
    span = pct([a for a, _ in tail], 50) - pct([a for a, _ in head], 50)
    if span <= 0:
        return 0.0
    late_head = pct([b - a for a, b in head], 50)
    late_tail = pct([b - a for a, b in tail], 50)
    return (late_tail - late_head) / span * 100


def check_ontime(argv):
    src = read_csv(argv[0])
    run = read_csv(argv[1])
    speed = float(argv[2]) if len(argv) > 2 else 1.0
    errors = []
    by_src = {}
    for r in run:
        i = int(r['source'])
        if i in by_src:
            errors.append('source I/O %d replayed twice' % i)
        by_src[i] = r
    missing = [i for i in range(len(src)) if i not in by_src]
    if missing:
        errors.append('%d source I/Os not replayed (the first: %d)' % (len(missing), missing[0]))
    t0 = min(float(s['issue_us']) for s in src)
    late, early, misdue = [], 0, 0
    for i, r in by_src.items():
        due = (float(src[i]['issue_us']) - t0) / speed
        sched, issue = float(r['sched_us']), float(r['issue_us'])
        if abs(sched - due) > 0.01:
            misdue += 1
            if misdue <= 5:
                errors.append('I/O %d due at %.3f us, the source says %.3f us' % (i, sched, due))
        if issue < sched:
            early += 1
            if early <= 5:
                errors.append('I/O %d issued at %.3f us, before it was due at %.3f us' % (
                    i, issue, sched))
        late.append(issue - sched)
    order = sorted(by_src.values(), key=lambda r: (float(r['sched_us']), int(r['source'])))
    out_of_order = sum(1 for a, b in zip(order, order[1:])
                       if float(b['issue_us']) < float(a['issue_us']))
    if out_of_order:
        errors.append('%d I/Os issued before one due earlier' % out_of_order)
    for e in errors[:20]:
        print(e)
    if late:
        print('%d I/Os, %d early, %d out of order; lateness us: p50 %.1f p99 %.1f max %.1f' % (
            len(by_src), early, out_of_order, pct(late, 50), pct(late, 99), max(late)))
    return 1 if errors else 0


def check_causal(argv):
    src = read_csv(argv[0])
    run = {int(r['source']): r for r in read_csv(argv[1])}
    if len(run) != len(src):
        print('%d of %d I/Os in the run' % (len(run), len(src)))
        return 1
    by_done = sorted(range(len(src)), key=lambda i: float(src[i]['complete_us']))
    by_issue = sorted(range(len(src)), key=lambda i: float(src[i]['issue_us']))
    j, latest, bad, waited = 0, 0.0, 0, 0
    for i in by_issue:
        t = float(src[i]['issue_us'])
        while j < len(by_done) and float(src[by_done[j]]['complete_us']) < t:
            latest = max(latest, float(run[by_done[j]]['complete_us']))
            j += 1
        if j:
            waited += 1
        if float(run[i]['issue_us']) < latest:
            bad += 1
            if bad <= 5:
                print('I/O %d issued at %s us, before a dependency completed at %.3f us' % (
                    i, run[i]['issue_us'], latest))
    print('%d I/Os, %d with dependencies, %d issued too early' % (len(src), waited, bad))
    return 1 if bad else 0


def check_depth(argv):
    run = read_csv(argv[0])
    limit = int(argv[1])
    ev = []
    for r in run:
        ev.append((float(r['issue_us']), 1))
        ev.append((float(r['complete_us']), -1))
    ev.sort()  # at equal times the completion (-1) comes first
    cur = most = 0
    for _, d in ev:
        cur += d
        most = max(most, cur)
    print('%d I/Os, at most %d outstanding (limit %d)' % (len(run), most, limit))
    return 1 if most > limit else 0


def check_mix(argv):
    run = read_csv(argv[0])
    dev = argv[2]
    recs = {}
    for a in argv[3:]:
        name, rest = a.split('=', 1)
        path, off = rest.rsplit('@', 1)
        recs[name] = (read_csv(path), float(off))
    errors = []
    rows = collections.defaultdict(list)  # name -> run rows, in file (issue) order
    for r in run:
        if r['comm'] not in recs:
            errors.append('a run I/O tagged %r, not a recording of the mix' % r['comm'])
            continue
        rows[r['comm']].append(r)
    spans = []
    for name, (src, off) in recs.items():
        mine = rows.get(name, [])
        seen = collections.Counter(int(r['source']) for r in mine)
        twice = [i for i, c in seen.items() if c > 1]
        missing = [i for i in range(len(src)) if i not in seen]
        if twice:
            errors.append('%s: %d I/Os replayed more than once (the first: %d)' % (
                name, len(twice), twice[0]))
        if missing:
            errors.append('%s: %d of %d I/Os not replayed (the first: %d)' % (
                name, len(missing), len(src), missing[0]))
        want = [i for _, i in sorted((float(s['issue_us']), i) for i, s in enumerate(src))]
        got = [int(r['source']) for r in mine]
        if not twice and not missing and got != want:
            k = next(k for k, (a, b) in enumerate(zip(got, want)) if a != b)
            errors.append('%s: issued out of its recording\'s order: the %dth I/O issued is '
                          'source I/O %d, its recording has %d there' % (name, k, got[k], want[k]))
        t0 = min(float(s['issue_us']) for s in src) if src else 0.0
        late, bad = [], 0
        for r in mine:
            i = int(r['source'])
            if i >= len(src):
                errors.append('%s: source index %d past its %d I/Os' % (name, i, len(src)))
                continue
            s = src[i]
            due = float(s['issue_us']) - t0 + off
            sched, issue = float(r['sched_us']), float(r['issue_us'])
            what = []
            if abs(sched - due) > 0.01:
                what.append('due at %.3f us, its recording says %.3f us' % (sched, due))
            if issue < sched:
                what.append('issued at %.3f us, before it was due at %.3f us' % (issue, sched))
            for k in ('sector', 'bytes', 'op'):
                if r[k] != s[k]:
                    what.append('%s %s, recorded %s' % (k, r[k], s[k]))
            if what:
                bad += 1
                if bad <= 5:
                    errors.append('%s I/O %d: %s' % (name, i, '; '.join(what)))
            late.append(issue - sched)
        if mine:
            spans.append((min(float(r['issue_us']) for r in mine),
                          max(float(r['complete_us']) for r in mine), name))
            print('%s: %d I/Os from %.3f s, lateness us: p50 %.1f p99 %.1f max %.1f' % (
                name, len(mine), spans[-1][0] / 1e6, pct(late, 50), pct(late, 99), max(late)))
    spans.sort()
    for a, b in zip(spans, spans[1:]):
        if b[0] >= a[1]:
            errors.append('%s starts at %.3f s, after %s ended at %.3f s: not interleaved' % (
                b[2], b[0] / 1e6, a[2], a[1] / 1e6))
    # the kernel's view: each (sector, direction) covered as often as the run's I/Os cover it
    want_cov, got_cov = collections.Counter(), collections.Counter()
    for r in run:
        if r['op'] not in ('read', 'write'):
            continue
        d = 'R' if r['op'] == 'read' else 'W'
        for x in range(int(r['sector']), int(r['sector']) + int(r['bytes']) // 512):
            want_cov[(x, d)] += 1
    for e in blk_events_replay(argv[1], 'D', [dev]):
        if e[0] != dev or e[3] == 0:
            continue
        d = 'W' if 'W' in e[1] else 'R'
        for x in range(e[2], e[2] + e[3]):
            got_cov[(x, d)] += 1
    diff = [(k, want_cov[k], got_cov[k]) for k in set(want_cov) | set(got_cov)
            if want_cov[k] != got_cov[k]]
    if diff:
        diff.sort()
        errors.append('the kernel saw %d sectors a different number of times than the run did '
                      '(the first: sector %d %s, run %d, kernel %d)' % (
                          len(diff), diff[0][0][0], diff[0][0][1], diff[0][1], diff[0][2]))
    print('%d I/Os of %d recordings; kernel D events cover %d sector reads/writes as the run does' % (
        len(run), len(recs), sum(want_cov.values())))
    for e in errors[:20]:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[2] == '--warmup':
        WARMUP = True
        del sys.argv[2]
    if len(sys.argv) > 1 and sys.argv[1] == 'mix':
        sys.exit(check_mix(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'causal':
        sys.exit(check_causal(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'depth':
        sys.exit(check_depth(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'regions':
        sys.exit(check_regions(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'parts':
        sys.exit(check_parts(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'ontime':
        sys.exit(check_ontime(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'timing':
        sys.exit(check_timing(sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
