#!/usr/bin/env python3
"""reproductions.py — write docs/reproductions.md from a `make reproduce`
run (scripts/reproduce.sh): each published table of the seeds beside
blkpeak's figure for the same set-up, the ratio that matters, and a
sentence on what differs and why.

  reproductions.py DIR [--seconds S] [--load L] [--parts "P ..."] [-o OUT]

DIR holds PART/NAME.json (blkpeak measure documents) and
ipeak/leaderboard.json (analyze leaderboard --json). A part whose results
are missing is listed as not run; nothing is invented. The published
figures below are quoted from issue 29 (the seeds' articles).
"""
import argparse
import json
import os
import sys


def load(dirname, part, name):
    path = os.path.join(dirname, part, name + '.json')
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def at_depth(doc, depth):
    for p in doc['points']:
        if p['depth'] == depth:
            return p['ios_per_s']
    return None


def fmt(x, nd=1):
    return '-' if x is None else ('%.*f' % (nd, x))


def ratio(a, b, nd=2):
    return '-' if a is None or b is None or b == 0 else ('%.*f' % (nd, a / b))


def table(head, rows):
    out = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    out += ['| ' + ' | '.join(str(c) for c in r) + ' |' for r in rows]
    return '\n'.join(out)


def twinstor(d):
    r = {k: load(d, 'twinstor', k) for k in
         ('read-single', 'read-raid0', 'read-raid1', 'write-single', 'write-raid1')}
    if any(v is None for v in r.values()):
        return None
    one1 = at_depth(r['read-single'], 1)
    one2 = at_depth(r['read-single'], 2)
    one32 = at_depth(r['read-single'], 32)
    r0_2 = at_depth(r['read-raid0'], 2)
    r1_2 = at_depth(r['read-raid1'], 2)
    r1_32 = at_depth(r['read-raid1'], 32)
    w1 = at_depth(r['write-single'], 1)
    wr1 = at_depth(r['write-raid1'], 1)
    rows = [
        ['one disk, random 8 KiB reads, QD 1', '66 IOPS', fmt(one1) + ' IOPS', '1', '1'],
        ['RAID 0 of two, QD 2', '99 IOPS', fmt(r0_2), '1.50', ratio(r0_2, one1)],
        ['RAID 1 of two, QD 2', '119 IOPS', fmt(r1_2), '1.80', ratio(r1_2, one1)],
        ['RAID 1 of two, QD 32, against one disk at QD 32', 'more than 2x', fmt(r1_32),
         '> 2', ratio(r1_32, one32)],
        ['RAID 1 writes against one disk (QD 1, write caches off)', 'about one disk',
         fmt(wr1), '~1', ratio(wr1, w1)],
    ]
    text = table(['set-up', 'published', 'blkpeak', 'published ratio to one disk',
                  'blkpeak ratio'], rows)
    text += ('\n\nOne disk is blkpeak\'s 7200 preset (WD Caviar WD400BB, 2002, no command '
             'queuing; schemas/disk-model.md), 40 GiB, reads over all of it; TwinStor\'s '
             'drive is not named in the paper, so the match of the single-disk figure '
             '(%s against 66 IOPS) is the preset\'s, not a fit. Without command queuing '
             'a disk gains nothing from a deeper queue (one disk: %s IOPS at QD 2, %s at '
             'QD 32), so all of the arrays\' gain is from spreading the requests over the '
             'members: RAID 0 sends each read to the member its chunk is on, so two '
             'outstanding reads land on different disks half the time (the paper\'s 66 + '
             '1/2 x 66); RAID 1 sends a read to the mirror with the fewest outstanding, ties '
             'to the one whose head is nearer (schemas/array-layouts.md), as '
             'TwinStor\'s own balancing does too. A RAID 1 write goes to both mirrors '
             'and waits for the slower one (%s against one disk\'s %s IOPS).'
             % (fmt(one1), fmt(one2), fmt(one32), fmt(wr1), fmt(w1)))
    if r0_2 and one1 and r0_2 / one1 < 1.35:
        text += (' The RAID 0 gain at QD 2 is below the paper\'s one and a half: '
                 'with no queuing in the disks, the second read waits behind the first '
                 'whenever both fall on one member, and the measured window is short '
                 '(%s I/Os a step).' % r['read-raid0']['ios_per_step'])
    return text


def pgbook(d):
    nc, c = load(d, 'pgbook', 'commit-nocache'), load(d, 'pgbook', 'commit-cache')
    sk = load(d, 'pgbook', 'seeks')
    z1, z3 = load(d, 'pgbook', 'zcav-single'), load(d, 'pgbook', 'zcav-raid0x3')
    if None in (nc, c, sk, z1, z3):
        return None
    ncr, cr = nc['points'][0]['ios_per_s'], c['points'][0]['ios_per_s']
    spans = {round(p['span_pct']): p['ios_per_s'] for p in sk['points']}
    zmb1 = [p['mb_per_s'] for p in z1['points']]
    zmb3 = [p['mb_per_s'] for p in z3['points']]
    rows = [
        ['commits/s, 7200 rpm, write cache off', '105 (just under 120)', fmt(ncr), '', ''],
        ['commits/s, write cache on', '1048 (~10x)', fmt(cr), '9.98', ratio(cr, ncr)],
        ['seeks/s over 4 GB (10% of 40 GiB here)', '232', fmt(spans.get(10)), '', ''],
        ['seeks/s over 16 GB (40% here)', '177', fmt(spans.get(40)), '0.76 (16 GB / 4 GB)',
         ratio(spans.get(40), spans.get(10))],
        ['ZCAV, RAID 0 of three: max MB/s against one disk', '230 / 77', fmt(max(zmb3)) +
         ' / ' + fmt(max(zmb1)), '2.99', ratio(max(zmb3), max(zmb1))],
        ['ZCAV, RAID 0 of three: min MB/s against one disk', '110 / 37', fmt(min(zmb3)) +
         ' / ' + fmt(min(zmb1)), '2.97', ratio(min(zmb3), min(zmb1))],
    ]
    text = table(['set-up', 'published', 'blkpeak', 'published ratio', 'blkpeak ratio'], rows)
    text += ('\n\nThe commit rate without write cache is one turn of the platter per commit '
             '(7200 rpm: 120/s), as the book says. With the cache on, each commit '
             'is a write and a flush; the emulated disk drains its cache at the media '
             'rate without moving the head (an optimistic simplification, '
             'schemas/disk-model.md), so a flush costs little more than the transfer: '
             '%s commits/s, %s times the rate without cache, where the book\'s disk gave '
             'about ten times. The seek rates are of the WD400BB preset over spans of a 40 GiB '
             'disk; the book\'s disk was larger and faster, so its figures are higher '
             'and the ratio of the two spans is the check. ZCAV: the array reads each '
             'zone from three members at once, so its rates are three disks\' in every '
             'zone (chunks of 64 KiB, 1 MiB reads at QD 1: each read spans all three).'
             % (fmt(cr), ratio(cr, ncr, 0)))
    return text


def storagemark(d):
    f360, f740 = load(d, 'storagemark', 'fileserver-raptor360'), load(d, 'storagemark',
                                                                      'fileserver-raptor740')
    rr, rw = load(d, 'storagemark', 'random-read-7200'), load(d, 'storagemark',
                                                             'random-write-7200')
    if None in (f360, f740, rr, rw):
        return None
    rows = []
    for q in (1, 4, 16, 64):
        a, b = at_depth(f360, q), at_depth(f740, q)
        rows.append(['file server, QD %d' % q, fmt(a), fmt(b), ratio(a, b)])
    text = table(['IOMeter file server (IOPS)', '10k SATA, no queuing (raptor360)',
                  '10k with queuing (raptor740)', 'ratio'], rows)
    text += ('\n\nPublished: the 10k SATA disk without command queuing equals a 10k SCSI '
             'disk at QD 1 and falls behind as the queue grows. blkpeak has no 10k SCSI '
             'preset; the WD740 (raptor740, 10k SATA with 32-command TCQ) stands in for '
             'the queuing disk (its average seek is 4.5 ms against the WD360\'s 5.2 ms, so '
             'the two differ a little without a queue: %s at QD 1); the ratio falls with '
             'depth (%s at QD 64) for the published reason: a disk that reorders its queue '
             'shortens its seeks, one without a queue cannot.\n\n'
             % (ratio(at_depth(f360, 1), at_depth(f740, 1)),
                ratio(at_depth(f360, 64), at_depth(f740, 64))))
    rows = [['random 4 KiB reads, QD 1', '-', fmt(at_depth(rr, 1))],
            ['random 4 KiB reads, QD 256', '~250', fmt(at_depth(rr, 256))],
            ['random 4 KiB writes, QD 256, write cache on', '~300-400', fmt(at_depth(rw, 256))]]
    text += table(['7200 rpm', 'published (IOPS)', 'blkpeak'], rows)
    text += ('\n\nThe published 7200 rpm figures are of a disk with native command queuing; '
             'blkpeak\'s 7200 preset (WD400BB, 2002) has none, so its QD 256 reads stay '
             'at its QD 1 rate. Its random writes with the cache on run at the media rate '
             '(%s IOPS), far above a real disk\'s: the model drains its cache without '
             'seeking (schemas/disk-model.md), where a real disk seeks for each destaged '
             'write; blkpeak overstates this figure.' % fmt(at_depth(rw, 256)))
    return text


IPEAK_ALONE = [('15k-raid5', 38.4), ('wd740-raid0', 39.4), ('wd360-raid0', 39.6),
               ('wd740-dual', 43.0), ('wd740', 44.1), ('wd360', 45.9)]
IPEAK_MIX = [('15k-raid5', 46.0), ('wd740-dual', 48.7), ('wd740-raid0', 58.7),
             ('wd740', 66.4), ('wd360-raid0', 70.8), ('wd360', 112.3)]
SHOWN = {'wd360': 'one WD360', 'wd360-raid0': 'RAID 0 of two WD360', 'wd740': 'one WD740',
         'wd740-raid0': 'RAID 0 of two WD740', 'wd740-dual': 'WD740 dual',
         '15k-raid5': 'RAID 5 of four 15k SCSI'}


def agreement(published, got, leave_out=()):
    """Pairs of configurations in the published order, of all pairs."""
    keys = [k for k, _ in published if k in got and k not in leave_out]
    agree = total = 0
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            total += 1
            agree += got[keys[i]] < got[keys[j]]
    return agree, total


def ordinal(k):
    return {1: 'first', 2: 'second', 3: 'third', 4: 'fourth', 5: 'fifth',
            6: 'sixth'}.get(k, '%dth' % k)


def ipeak(d, backup_scale=None):
    path = os.path.join(d, 'ipeak', 'leaderboard.json')
    if not os.path.exists(path):
        return None
    with open(path) as f:
        lb = json.load(f)
    w = {x['name']: {r['label']: r for r in x['results']} for x in lb['workloads']}
    out = []
    for title, wname, pub in (('photo-edit alone', 'photo-edit causal', IPEAK_ALONE),
                              ('photo-edit while backup', 'photo-edit-with-backup causal',
                               IPEAK_MIX)):
        res = w.get(wname, {})
        got = {k: res[k]['median'] for k in res}
        base_p = dict(pub)['wd360']
        base_g = got.get('wd360')
        rows = []
        for k, p in pub:
            r = res.get(k)
            rows.append([SHOWN[k], '%.1f s' % p,
                         '%.0f%%' % ((base_p - p) / base_p * 100),
                         '-' if not r else '%.3f s (%.3f-%.3f)' % (r['median'], r['min'], r['max']),
                         '-' if not r or not base_g else
                         '%.0f%%' % ((base_g - r['median']) / base_g * 100)])
        order = ' < '.join(SHOWN.get(k, k) for k in sorted(got, key=got.get))
        a, t = agreement(pub, got)
        a5, t5 = agreement(pub, got, ('15k-raid5',))
        out.append('### %s\n\n' % title + table(
            ['configuration (published order)', 'published', 'saved vs one WD360',
             'blkpeak median (min-max)', 'saved vs one WD360'], rows) +
            '\n\nblkpeak\'s order, fastest first: %s. Pairs of configurations in the '
            'published order: %d of %d; leaving RAID 5 out, %d of %d.' % (order, a, t, a5, t5))
    alone = {r['label']: r['median'] for r in w.get('photo-edit causal', {}).values()}
    mixed = {r['label']: r['median'] for r in w.get('photo-edit-with-backup causal', {}).values()}
    backup = w.get('backup causal', {}).get('wd360')
    slow = [mixed[k] / alone[k] - 1 for k in mixed if k in alone and alone[k] > 0]
    pub_slow = [dict(IPEAK_MIX)[k] / p - 1 for k, p in IPEAK_ALONE]
    if slow and backup:
        pe = alone.get('wd360', 0)
        out.append('Beside the backup, photo-edit took %.0f%% to %.0f%% longer than alone '
                   '(IPEAK: %.0f%% to %.0f%%). The mix is timed by photo-edit\'s own I/Os '
                   '(first issue to last completion; the manifest\'s `time = photo-edit`), '
                   'as IPEAK timed photo-edit while the backup ran. The backup is recorded '
                   'at --scale %s (%.1f s alone on one WD360, photo-edit %.1f s), so it %s; '
                   'the mix puts both recordings\' disks on the one target.' % (
                       100 * min(slow), 100 * max(slow), 100 * min(pub_slow),
                       100 * max(pub_slow), backup_scale or 'default', backup['median'], pe,
                       'loads the disks for all of photo-edit\'s run' if backup['median'] >= pe
                       else 'loads the disks for the first %.0f%% of photo-edit\'s run only'
                       % (100 * backup['median'] / pe if pe else 0)))
    r5 = []
    for wname in ('photo-edit causal', 'photo-edit-with-backup causal'):
        got = {r['label']: r['median'] for r in w.get(wname, {}).values()}
        if '15k-raid5' in got:
            r5.append(1 + sorted(got, key=got.get).index('15k-raid5'))
    raid5_rank = ('It comes %s of six alone and %s beside the backup (first in both in the '
                  'study)' % (ordinal(r5[0]), ordinal(r5[1])) if len(r5) == 2 else '')
    text = '\n\n'.join(out)
    text += ('\n\nThe recordings are of ImageMagick (workloads/photo-edit, a smaller set of '
             'pictures than IPEAK\'s 25) and tar (workloads/backup) on RAM-backed loop '
             'devices and a fast CPU, so the think time between I/Os is shorter and the '
             'disks\' share of the time larger than on the study\'s 2004 PCs: absolute '
             'times and savings differ, the ordering is the check. Causal timing replays '
             'each recording\'s dependencies; in the mix each recording keeps its own. '
             'The "dual" set-up moves the upper half of each recorded disk (where IPEAK '
             'had pagefile, scratch and temp) to a second WD740. RAID 5 is four emulated '
             '15k disks (the 15k preset, its own write cache off: schemas/disk-model.md) '
             'behind blkpeak\'s user-space RAID 5 with a controller\'s battery-backed '
             'write-back cache of 128 MiB (`cache=128m`, schemas/array-layouts.md, '
             '"Controller cache"): the study names neither its controller nor the '
             'cache size, so 128 MiB is assumed, of the order of the memory SCSI RAID '
             'controllers of the time carried. '
             'Writes complete in the cache and reach the members in the background, a row '
             'written whole as one full-stripe write without reads; a partial row is still '
             'a read-modify-write when it is destaged (blkpeak has no stripe cache of clean '
             'data: docs/replay.md).')
    if raid5_rank:
        text += ' ' + raid5_rank + '.'
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('--seconds', type=int, default=None)
    ap.add_argument('--load', default=None)
    ap.add_argument('--parts', default='twinstor pgbook storagemark ipeak')
    ap.add_argument('-o', '--output', default='-')
    ap.add_argument('--backup-scale', default=None)
    a = ap.parse_args()
    parts = [('IPEAK: photo editing on six configurations', 'ipeak', ipeak),
             ('TwinStor: RAID 1 and RAID 0 random reads', 'twinstor', twinstor),
             ('PostgreSQL 9.0 High Performance: commits, seeks, ZCAV', 'pgbook', pgbook),
             ('StorageMark and the drive makers\' sheets: queue depth', 'storagemark',
              storagemark)]
    doc = ['# Reproductions: the seeds\' tables, side by side',
           '',
           'Written by `make reproduce` (scripts/reproduce.sh, scripts/reproductions.py) '
           'from one run on emulated disks (`hdd:MODEL:FILE`, presets in replay/disk/, '
           'their data-sheet sources in schemas/disk-model.md) and blkpeak\'s virtual '
           'arrays; the run\'s figures and conditions are in bench/RESULTS.md. Each '
           'table sets the published figure beside blkpeak\'s for the same set-up and '
           'the ratio that matters; the sentence after it says what differs and why. '
           'Presets with figures assumed rather than taken from a data sheet (marked '
           '*assumed* in schemas/disk-model.md): raptor360 and raptor740 (track-to-track '
           'seek and command overhead), 15k (track-to-track and full seek, zone rates, '
           'queue depth, cache size); 7200\'s are all from its data sheet. The ssd preset '
           '(all assumed) is not used.']
    if a.seconds is not None:
        doc.append('')
        doc.append('This run: %d s%s.' % (a.seconds, '' if not a.load else
                                           ', load average at its end %s' % a.load))
    for title, key, fn in parts:
        doc += ['', '## ' + title, '']
        if key not in a.parts.split():
            text = None
        elif key == 'ipeak':
            text = fn(a.dir, a.backup_scale)
        else:
            text = fn(a.dir)
        doc.append(text if text else 'Not run in this reproduction (REPRO_PARTS).')
    text = '\n'.join(doc) + '\n'
    if a.output == '-':
        sys.stdout.write(text)
    else:
        with open(a.output + '.tmp', 'w') as f:
            f.write(text)
        os.replace(a.output + '.tmp', a.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
