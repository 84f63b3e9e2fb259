#!/bin/bash
# A multi-volume trace, whole (format 1.3's device table): a Tencent CBS
# file of 2,038 volumes in 50,000 lines (the size of a public sample)
# converts in one command, and info, dump, analyze report and import,
# trace_ios() grouped by device, replay, measure --like and --to
# fio/blktrace (under ulimit -n 64 too) read every volume; so do they with the
# most the format holds, 65,536; replay --map takes a
# glob or a list of volumes to one target and refuses a device two --map
# keys name.
. "$(dirname "$0")/lib.sh"
need_cmd python3
T=$E2E_TMP
PY=$(command -v /usr/bin/python3 || command -v python3)
$PY - "$T/cbs.csv" <<'EOF2'
import random, sys
random.seed(2)
with open(sys.argv[1], "w") as f:
    for i in range(50000):
        vol = i if i < 2038 else random.randrange(2038)
        f.write("%d,%d,%d,%d,%d\n" % (1538323200 + i // 1000, random.randrange(1 << 20) * 8,
                                      8 * random.choice([1, 2, 4, 8]), random.randrange(2),
                                      1000 + vol))
EOF2
"$BLKPEAK" convert "$T/cbs.csv" -o "$T/cbs.bpt" >"$T/out" 2>&1 || fail "convert: $(cat "$T/out")"
grep -q "50000 I/Os on 2038 devices" "$T/out" || fail "summary: $(cat "$T/out")"
"$BLKPEAK" info "$T/cbs.bpt" >"$T/info" || fail "info"
grep -q "^devices: *2038$" "$T/info" || fail "info: $(grep devices "$T/info")"
grep -Eq "format 1\.[3-9]" "$T/info" || fail "info: not format 1.3 or later: $(head -3 "$T/info")"
grep -q "^ *2037 vol3037 " "$T/info" || fail "info: no device 2037 vol3037"
# the per-device counts add up to every I/O
sum=$(awk '/^ +[0-9]+ vol[0-9]+ / { s += $(NF - 1) } END { print s }' "$T/info")
[ "$sum" = 50000 ] || fail "info: per-device I/Os add up to $sum"
n=$("$BLKPEAK" dump --format csv "$T/cbs.bpt" | tail -n +2 | cut -d, -f4 | sort -u | wc -l)
[ "$n" -eq 2038 ] || fail "dump: $n devices"
"$BLKPEAK" analyze report "$T/cbs.bpt" >"$T/rep" || fail "report"
grep -q "vol1000: span" "$T/rep" || fail "report has no per-device section"
# every volume has its figures (not the first 64 only), from the file and
# from the database alike: 2,038 devices whose data I/Os add up to all
for src in "$T/cbs.bpt" DB; do
	if [ "$src" = DB ]; then
		"$BLKPEAK" analyze import --db "$T/r.db" "$T/cbs.bpt" >/dev/null 2>&1 || fail "import r.db"
		"$BLKPEAK" analyze report --db "$T/r.db" --json 1 >"$T/rep.json" || fail "report --json (db)"
	else
		"$BLKPEAK" analyze report --json "$src" >"$T/rep.json" || fail "report --json"
	fi
	$PY - "$T/rep.json" <<'EOF3' || fail "report --json ($src): devices"
import json, sys
r = json.load(open(sys.argv[1]))
d = r["seek"]["devices"]
names = {x["name"] for x in d}
assert len(d) == 2038 and "vol3037" in names, (len(d), sorted(names)[-3:])
assert sum(x["data_ios"] for x in d) == 50000, sum(x["data_ios"] for x in d)
EOF3
done
grep -q "vol3037: span" "$T/rep" || fail "report: no figures for the last volume"
"$BLKPEAK" analyze import --db "$T/a.db" "$T/cbs.bpt" >"$T/imp" 2>&1 || fail "import: $(cat "$T/imp")"
grep -q "50000 I/Os" "$T/imp" || fail "import: $(cat "$T/imp")"
"$BLKPEAK" convert -q "$T/cbs.bpt" --to fio -o "$T/cbs.iolog" || fail "--to fio"
[ "$(grep -c ' add$' "$T/cbs.iolog")" -eq 2038 ] || fail "iolog: not 2038 files added"
# trace_ios() grouped by device: every volume's count, as info counts it
"$BLKPEAK" info --json "$T/cbs.bpt" >"$T/info.json" || fail "info --json"
# (in $T: no ./blkpeak.db of the caller's is opened)
(cd "$T" && "$BLKPEAK" analyze query --csv "SELECT dev, count(*) FROM trace_ios('$T/cbs.bpt') GROUP BY dev") \
	>"$T/bydev.csv" || fail "trace_ios() GROUP BY dev"
$PY - "$T/info.json" "$T/bydev.csv" <<'EOF3' || fail "trace_ios() per device"
import csv, json, sys
want = {d["index"]: d["ios"] for d in json.load(open(sys.argv[1]))["devices"]}
got = {int(r["dev"]): int(r["count(*)"]) for r in csv.DictReader(open(sys.argv[2]))}
assert len(want) == 2038 and got == want, (len(got), sum(got.values()))
EOF3
# one blktrace file per volume (two descriptors each while open): all at
# once where the limit allows (a soft limit of 64 is raised up to the
# hard one); under a hard limit of 64, through a spool in batches that
# fit, the same files; below what one batch needs, refused before
# anything is created; a batch that fails takes the placed ones with it
need=$((2038 * 2 + 64))
if [ "$(ulimit -H -n)" = unlimited ] || [ "$(ulimit -H -n)" -ge $need ]; then
	(ulimit -S -n 64 && "$BLKPEAK" convert -q "$T/cbs.csv" --to blktrace -o "$T/bt") ||
		fail "--to blktrace under ulimit -S -n 64"
	[ "$(ls "$T/bt" | wc -l)" -eq 2038 ] || fail "blktrace: $(ls "$T/bt" | wc -l) files"
else
	note "hard limit $(ulimit -H -n) < $need: all at once not tried"
fi
(ulimit -n 64 && "$BLKPEAK" convert -q "$T/cbs.csv" --to blktrace -o "$T/bt64") 2>"$T/err" ||
	fail "--to blktrace under ulimit -n 64: $(cat "$T/err")"
[ "$(ls -A "$T/bt64" | wc -l)" -eq 2038 ] || fail "ulimit -n 64: $(ls -A "$T/bt64" | wc -l) files"
[ ! -d "$T/bt" ] || diff -r "$T/bt" "$T/bt64" >/dev/null || fail "ulimit -n 64: other files than all at once"
# every I/O of the last volume in its file
c=$(blkparse -q -i "$T/bt64/vol3037" -f "%a\n" 2>/dev/null | grep -c "^C$")
w=$(awk -F, '$5 == 3037' "$T/cbs.csv" | wc -l)
! command -v blkparse >/dev/null || [ "$c" -eq "$w" ] || fail "vol3037: $c completions for $w I/Os"
(ulimit -n 12 && "$BLKPEAK" convert -q "$T/cbs.bpt" --to blktrace -o "$T/bt12") 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "writing 2 files at once needs [0-9]* open files; the limit is 12" "$T/err" ||
	fail "ulimit -n 12: rc $rc: $(cat "$T/err")"
[ ! -e "$T/bt12" ] || fail "ulimit -n 12: $T/bt12 was created"
mkdir "$T/btl"
$PY - "$T/btl/.vol3000.blktrace.0.lock" "$BLKPEAK" "$T/cbs.bpt" "$T/btl" <<'EOF3' >"$T/err" 2>&1 ||
import fcntl, os, subprocess, sys
# another writer holds vol3000's file, in a batch after the first
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
r = subprocess.run(["bash", "-c", 'ulimit -n 64 && "$0" convert -q "$1" --to blktrace -o "$2"',
                    sys.argv[2], sys.argv[3], sys.argv[4]], capture_output=True, text=True)
print(r.stderr.strip())
sys.exit(r.returncode != 1 or "vol3000.blktrace.0: in use by" not in r.stderr)
EOF3
	fail "a batch that fails: $(cat "$T/err")"
[ "$(ls "$T/btl" | wc -l)" -eq 0 ] || fail "a batch that fails: $(ls "$T/btl" | wc -l) files left"
# measure --like takes the mix of every volume's I/Os
truncate -s 1G "$T/m.img"
"$BLKPEAK" measure qd-sweep --target "$T/m.img" --like "$T/cbs.bpt" --engine null --ios 200 --no-store \
	--depths 1 >"$T/like" 2>&1 || fail "measure --like: $(cat "$T/like")"
grep -q "like the trace: " "$T/like" || fail "measure --like: $(head -3 "$T/like")"

# the most devices the format holds, 65,536, one I/O each: info, dump,
# trace_ios(), replay and measure --like read all of them
$PY -c 'import sys
with open(sys.argv[1], "w") as f:
    for i in range(65536):
        f.write("%d,%d,8,%d,%d\n" % (1538323200 + i // 4096, i * 8, i % 2, 100000 + i))' "$T/v64k.csv"
"$BLKPEAK" convert -q "$T/v64k.csv" -o "$T/v64k.bpt" || fail "65536 volumes: convert"
"$BLKPEAK" info --json "$T/v64k.bpt" | $PY -c 'import json, sys
d = json.load(sys.stdin)["devices"]
assert len(d) == 65536 and all(x["ios"] == 1 for x in d) and d[-1]["name"] == "vol165535", len(d)' ||
	fail "65536 volumes: info"
n=$("$BLKPEAK" dump --format csv "$T/v64k.bpt" | tail -n +2 | cut -d, -f4 | sort -u | wc -l)
[ "$n" -eq 65536 ] || fail "65536 volumes: dump shows $n devices"
n=$(cd "$T" && "$BLKPEAK" analyze query --csv "SELECT count(*) FROM (SELECT dev FROM trace_ios('$T/v64k.bpt') GROUP BY dev HAVING count(*) = 1)" | tail -1 | tr -d '\r')
[ "$n" -eq 65536 ] || fail "65536 volumes: trace_ios() groups $n devices of one I/O"
"$BLKPEAK" replay "$T/v64k.bpt" --engine null --timing afap --allow-write --target "$T/m.img" \
	-o "$T/run64k.bpt" >"$T/out" 2>&1 || fail "65536 volumes: replay: $(tail -3 "$T/out")"
"$BLKPEAK" info "$T/run64k.bpt" | grep -q "run.done=65536" || fail "65536 volumes: replay did not do every I/O"
"$BLKPEAK" measure qd-sweep --target "$T/m.img" --like "$T/v64k.bpt" --engine null --ios 200 --no-store \
	--depths 1 >"$T/like" 2>&1 || fail "65536 volumes: measure --like: $(cat "$T/like")"
grep -q "like the trace: 50.0% read" "$T/like" || fail "65536 volumes: measure --like: $(head -3 "$T/like")"

# replay: a glob and a list to one target each, the rest to --target
truncate -s 8G "$T/a.img" "$T/b.img"
R() { "$BLKPEAK" replay "$T/cbs.bpt" --engine null --timing afap --allow-write -o "$T/run.bpt" "$@"; }
R --map "vol1*=$T/a.img" --map "vol20*|vol3000=$T/a.img" --target "$T/b.img" >"$T/out" 2>&1 ||
	fail "replay with a glob and a list: $(cat "$T/out")"
"$BLKPEAK" info "$T/run.bpt" | grep -q "run.done=50000" || fail "replay did not do every I/O"
R --map "vol1*=$T/a.img" --map "vol10*=$T/b.img" --target "$T/b.img" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "both name recorded device vol1000: ambiguous" "$T/err" ||
	fail "overlapping --map: rc $rc: $(cat "$T/err")"
R --map "vol1*=$T/a.img" >/dev/null 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "recorded device vol2000 (0:0) has no target" "$T/err" ||
	fail "unmapped volumes: rc $rc: $(cat "$T/err")"
echo ok
