#!/bin/bash
# --select path:GLOB keeps the I/Os of the files whose name matches: a
# trace with file columns and a path table (select_mktrace.c: six files,
# one renamed, one inode number on two file systems, merged writeback,
# metadata, journal and unknown I/Os) replayed on the null engine and
# converted with path selections, alone, OR'd, and AND'd with op:; the
# I/Os kept (the run file's source column, the converted trace's rows)
# are the ones an independent computation from `blkpeak dump` selects in
# Python: class data and the file's name (its first path) matching a glob
# (fnmatch, '*' matches '/'). convert keeps the path table (and, without
# transforms, the lost events). A trace without file columns, and a glob
# no file's name matches, are refused by name, and nothing is written.
. "$(dirname "$0")/lib.sh"
need_cmd python3
T=$E2E_TMP
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cc_libbpt "$T/mktrace" "$ROOT/tests/e2e/select_mktrace.c" || fail "cannot build select_mktrace (run make first)"
"$T/mktrace" "$T/t.bpt" 3000 7 || fail "mktrace"
"$BLKPEAK" dump -f csv "$T/t.bpt" >"$T/t.csv" || fail "dump"
truncate -s 1G "$T/f.img"

n=0
while IFS= read -r sel; do
	args=()
	for s in $sel; do args+=(--select "$s"); done
	rm -f "$T/run.bpt" "$T/out.bpt"
	"$BLKPEAK" replay "$T/t.bpt" --target "$T/f.img" --engine null --timing afap "${args[@]}" \
		-o "$T/run.bpt" --json >"$T/run.json" 2>"$T/err" || fail "replay $sel: $(cat "$T/err")"
	"$BLKPEAK" dump -f csv "$T/run.bpt" >"$T/run.csv" || fail "dump run ($sel)"
	"$BLKPEAK" convert "$T/t.bpt" -o "$T/out.bpt" -q "${args[@]}" || fail "convert $sel"
	"$BLKPEAK" dump -f csv "$T/out.bpt" >"$T/out.csv" || fail "dump out ($sel)"
	python3 - "$T/t.csv" "$T/run.csv" "$T/out.csv" "$T/run.json" $sel <<'PY' || fail "$sel"
import csv, fnmatch, json, sys
src = list(csv.DictReader(open(sys.argv[1])))
run = list(csv.DictReader(open(sys.argv[2])))
out = list(csv.DictReader(open(sys.argv[3])))
summary = json.load(open(sys.argv[4]))
globs = [s[5:] for s in sys.argv[5:] if s.startswith("path:")]
ops = [o for s in sys.argv[5:] if s.startswith("op:") for o in s[3:].split(",")]
want = [i for i, r in enumerate(src)
        if r["file"] == "data" and any(fnmatch.fnmatchcase(r["path"], g) for g in globs)
        and (not ops or r["op"] in ops)]
assert want and len(want) < len(src), (sys.argv[5:], len(want))
got = sorted(int(r["source"]) for r in run)
assert got == want, f"replay kept {len(got)} I/Os, Python {len(want)}: first differing " \
    f"{next((a, b) for a, b in zip(got + [None] * len(want), want + [None] * len(got)) if a != b)}"
assert summary["ios"] == len(want) and summary["deselected"] == len(src) - len(want), summary
key = lambda r: (r["sector"], r["bytes"], r["op"], r["inode"], r["file_offset"], r["path"], r["path2"])
assert [key(r) for r in out] == [key(src[i]) for i in want], "convert kept other rows"
print(len(want))
PY
	n=$((n + 1))
done <<'CASES'
path:/data/*.db
path:*.log
path:/data/* op:write
path:/tmp/c.tmp path:/other/*
path:*/sub/*
path:/data/[ab].* op:read
path:*a.db*
CASES
note "$n selections kept the I/Os Python computed"

# convert keeps the path table (with or without a selection: the rows
# above had their paths) and, without transforms, the lost events
"$BLKPEAK" convert "$T/t.bpt" -o "$T/same.bpt" -q || fail "convert"
"$BLKPEAK" dump -f csv "$T/same.bpt" | cmp -s - "$T/t.csv" || fail "convert changed the rows or paths"
[ "$("$BLKPEAK" info "$T/same.bpt" | grep "lost events")" = "$("$BLKPEAK" info "$T/t.bpt" | grep "lost events")" ] &&
	"$BLKPEAK" info "$T/t.bpt" | grep -q "lost events: *3 in 1 window" || fail "convert lost the lost events"

# refusals: nothing written
"$BLKPEAK" generate -q -o "$T/g.bpt" --count 10 || fail "generate"
for t in g.bpt t.bpt; do
	rm -f "$T/o.bpt"
	case $t in g.bpt) sel='path:*' want="--select path:\\*: the trace has no file columns" ;;
		*) sel='path:data/*' want="--select path:data/\\*: no file of the trace's 7 paths matches (paths are absolute, e.g. /data/a.db" ;;
	esac
	"$BLKPEAK" replay "$T/$t" --target "$T/f.img" --engine null --select "$sel" -o "$T/o.bpt" \
		2>"$T/err" && fail "replay --select $sel of $t"
	grep -q "replay: $want" "$T/err" || fail "message: $(cat "$T/err")"
	"$BLKPEAK" convert "$T/$t" -o "$T/o.bpt" --select "$sel" 2>"$T/err" && fail "convert --select $sel of $t"
	grep -q "convert: $want" "$T/err" || fail "message: $(cat "$T/err")"
	[ -e "$T/o.bpt" ] && fail "a refused $t wrote its output"
done
exit 0
