#!/bin/bash
# make reproduce, tiny (scripts/reproduce.sh with REPRO_PARTS=twinstor and
# a few I/Os a step; the full run is not part of make check): the page it
# writes holds the TwinStor table, each blkpeak figure and ratio equal to
# the measurement documents it kept (an independent reading of the JSON),
# the parts not run said so; bad settings are refused by name.
. "$(dirname "$0")/lib.sh"
need_cmd python3
W=$E2E_TMP
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

REPRO_PARTS=twinstor REPRO_IOS=12 REPRO_DIR="$W/r" REPRO_OUT="$W/repro.md" REPRO_TMP="$W" \
	BLKPEAK="$BLKPEAK" "$ROOT/scripts/reproduce.sh" > "$W/out" 2>&1 || { cat "$W/out"; fail "reproduce"; }
python3 - "$W/repro.md" "$W/r/twinstor" <<'PY' || fail "the page's figures differ from the measurements"
import json, re, sys
md = open(sys.argv[1]).read()
def iops(name, depth):
    d = json.load(open('%s/%s.json' % (sys.argv[2], name)))
    return [p['ios_per_s'] for p in d['points'] if p['depth'] == depth][0]
def row(start):
    for line in md.splitlines():
        if line.startswith('| ' + start):
            return [c.strip() for c in line.strip('|').split('|')]
    sys.exit('no row ' + start)
one = iops('read-single', 1)
checks = [('one disk, random 8 KiB reads, QD 1', one, None),
          ('RAID 0 of two, QD 2', iops('read-raid0', 2), iops('read-raid0', 2) / one),
          ('RAID 1 of two, QD 2', iops('read-raid1', 2), iops('read-raid1', 2) / one),
          ('RAID 1 of two, QD 32', iops('read-raid1', 32),
           iops('read-raid1', 32) / iops('read-single', 32)),
          ('RAID 1 writes against one disk', iops('write-raid1', 1),
           iops('write-raid1', 1) / iops('write-single', 1))]
for name, value, ratio in checks:
    r = row(name)
    got = float(r[2].split()[0])
    if abs(got - value) > 0.051:
        sys.exit('%s: page %s, measurement %.3f' % (name, r[2], value))
    if ratio is not None and abs(float(r[4]) - ratio) > 0.0051:
        sys.exit('%s: ratio %s on the page, %.4f from the measurements' % (name, r[4], ratio))
if md.count('Not run in this reproduction') != 3:
    sys.exit('the three parts not run are not said so')
print('page agrees with %d measurements' % len(checks))
PY
REPRO_PARTS=nosuch "$ROOT/scripts/reproduce.sh" > /dev/null 2> "$W/err" && fail "REPRO_PARTS=nosuch accepted"
grep -q "REPRO_PARTS: 'nosuch'" "$W/err" || fail "refusal: $(cat "$W/err")"
REPRO_IOS=0 "$ROOT/scripts/reproduce.sh" > /dev/null 2> "$W/err" && fail "REPRO_IOS=0 accepted"
grep -q "REPRO_IOS: '0'" "$W/err" || fail "refusal: $(cat "$W/err")"
REPRO_BACKUP_SCALE=1e3 "$ROOT/scripts/reproduce.sh" > /dev/null 2> "$W/err" &&
	fail "REPRO_BACKUP_SCALE=1e3 accepted"
grep -q "REPRO_BACKUP_SCALE: '1e3'" "$W/err" || fail "refusal: $(cat "$W/err")"
exit 0
