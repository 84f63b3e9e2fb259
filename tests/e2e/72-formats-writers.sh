#!/bin/bash
# The cache-simulator and data-frame writers of convert. oracle: a
# libCacheSim oracleGeneral file that is, byte for byte, what an
# independent Python reading of the trace's dump builds from the
# published struct (one request a 4 KiB block, the 1-based number of the
# block's next request or -1), for a generated trace with reuse and
# multi-block I/Os and for a multi-device foreign trace; its name or --to
# selects it. csv-zst: a .csv.zst that pandas reads as it is
# (pd.read_csv on the path) and Python's csv module reads after zstd
# decompression, row for row the I/Os of `dump --format csv`, also with
# quoted device and process names; and it converts back to the same I/Os
# (the csv reader). DuckDB is not in Debian: not run.
# Both refuse the input as output and leave nothing on failure.
. "$(dirname "$0")/lib.sh"
need_cmd zstd
HERE=$(cd "$(dirname "$0")" && pwd)
T=$E2E_TMP
FX=$HERE/../fixtures/formats
# pandas comes from Debian (python3-pandas, python3-zstandard), for
# Debian's python3; a python3 first in PATH may be another one.
PY=
for p in /usr/bin/python3 python3; do
	command -v "$p" >/dev/null && "$p" -c 'import pandas, zstandard' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { PY=$(command -v /usr/bin/python3 || command -v python3) || skip "needs python3"
	note "pandas or zstandard missing (apt-get install python3-pandas python3-zstandard): csv module only"; }
CHECK="$PY $HERE/writers_expect.py"

# A trace with reuse: 20000 I/Os in 8 MiB, 1k..16k (a 16k I/O is 4 blocks).
"$BLKPEAK" generate -q -o "$T/g.bpt" --count 20000 --span 8m --bs 4k:70,16k:20,1k:10 --read-pct 60 ||
	fail "generate"
"$BLKPEAK" dump --format csv "$T/g.bpt" >"$T/g.csv" && "$BLKPEAK" info --json "$T/g.bpt" >"$T/g.json" ||
	fail "dump/info g.bpt"
"$BLKPEAK" convert "$T/g.bpt" -o "$T/g.oracleGeneral" >"$T/out" || fail "convert to .oracleGeneral"
grep -q "written as oracle" "$T/out" || fail "suffix did not select oracle: $(cat "$T/out")"
$CHECK oracle "$T/g.json" "$T/g.csv" "$T/g.oracleGeneral" >"$T/chk" || fail "$(cat "$T/chk")"
note "$(cat "$T/chk")"

# Several devices (obj_id's top 16 bits), flushes and discards left out,
# whole seconds of clock_time (the iotracer fixture spans 13 hours).
for f in mqsim.txt iotracer.csv iotracer13.csv; do
	"$BLKPEAK" convert -q "$FX/$f" -o "$T/$f.bpt" && "$BLKPEAK" dump --format csv "$T/$f.bpt" >"$T/$f.csv" &&
		"$BLKPEAK" info --json "$T/$f.bpt" >"$T/$f.json" || fail "$f to .bpt"
	"$BLKPEAK" convert -q --to oracle "$T/$f.bpt" -o "$T/$f.og" || fail "--to oracle $f"
	$CHECK oracle "$T/$f.json" "$T/$f.csv" "$T/$f.og" >"$T/chk" || fail "$(cat "$T/chk")"
	note "$f: $(cat "$T/chk")"
done

# csv-zst, selected by the name; quoted names: "8,16", a comm with a comma,
# a quote and a tab (fiu keeps the process names, spaces and all).
"$BLKPEAK" convert "$T/g.bpt" -o "$T/g.csv.zst" >"$T/out" || fail "convert to .csv.zst"
grep -q "written as csv-zst" "$T/out" || fail "suffix did not select csv-zst: $(cat "$T/out")"
zstd -t -q "$T/g.csv.zst" || fail "not a valid zstd file"
$CHECK csv "$T/g.csv" "$T/g.csv.zst" >"$T/chk" || fail "$(cat "$T/chk")"
note "$(cat "$T/chk")"
printf '100 7 a,b "c"\tz 64 8 W 8 16 e\n200 8 plain 72 8 R 8 16 e\n' >"$T/names.fiu"
"$BLKPEAK" convert -q --from fiu "$T/names.fiu" -o "$T/names.bpt" || fail "names.fiu"
"$BLKPEAK" dump --format csv "$T/names.bpt" >"$T/names.csv" || fail "dump names"
"$BLKPEAK" convert -q --to csv-zst "$T/names.bpt" -o "$T/names.zst" || fail "--to csv-zst"
$CHECK csv "$T/names.csv" "$T/names.zst" >"$T/chk" || fail "$(cat "$T/chk")"
zstd -dc "$T/names.zst" | grep -q '^0,0,0,"8,16",64,4096,write,-,7,"a,b ""c""\\tz",0,0,pending$' ||
	fail "quoted names: $(zstd -dc "$T/names.zst")"

# What csv-zst wrote converts back (the csv reader): the same I/Os, every
# field the table holds, also the quoted device names of iotracer13.csv.
"$BLKPEAK" convert "$T/g.csv.zst" -o "$T/back.bpt" >"$T/out" || fail "csv-zst back to .bpt: $(cat "$T/out")"
grep -q "20000 I/Os.*from csv" "$T/out" || fail "csv-zst back: $(cat "$T/out")"
"$BLKPEAK" dump --format csv "$T/back.bpt" | cut -d, -f1-14 | cmp -s - "$T/g.csv" ||
	fail "csv-zst round trip differs: $("$BLKPEAK" dump --format csv "$T/back.bpt" | cut -d, -f1-14 | diff - "$T/g.csv" | head -4)"
"$BLKPEAK" convert -q "$T/iotracer13.csv.bpt" -o "$T/it.csv.zst" && "$BLKPEAK" dump "$T/it.csv.zst" >"$T/a" &&
	"$BLKPEAK" dump "$T/iotracer13.csv.bpt" >"$T/b" || fail "iotracer13 through csv-zst"
cmp -s "$T/a" "$T/b" || fail "iotracer13 round trip differs: $(diff "$T/a" "$T/b" | head -4)"
{ zstd -dc "$T/g.csv.zst" | head -3; echo "5,5,9,gen0,8,4096,scribble,-,1,x,0,0,seen"; } >"$T/bad.csv"
"$BLKPEAK" convert "$T/bad.csv" -o "$T/bad.bpt" 2>"$T/err" && fail "a bad csv line converted"
grep -q "^blkpeak: convert: $T/bad.csv:4: op: not read, write, flush, discard or write-zeroes" "$T/err" ||
	fail "csv bad line: $(cat "$T/err")"

# -o - is standard output, the summary on standard error.
"$BLKPEAK" convert "$T/g.bpt" --to oracle -o - >"$T/so.og" 2>"$T/err" || fail "--to oracle -o -"
cmp -s "$T/so.og" "$T/g.oracleGeneral" || fail "oracle on standard output differs (summary in it?)"
grep -q "^-: 20000 I/Os.*written as oracle" "$T/err" || fail "summary not on standard error: $(cat "$T/err")"
"$BLKPEAK" convert "$T/g.bpt" --to csv-zst -o - 2>/dev/null | zstd -dc | cmp -s - <(zstd -dc "$T/g.csv.zst") ||
	fail "csv-zst on standard output differs"

# Refusals: the input as the output; nothing left on failure.
cp "$T/g.bpt" "$T/in.bpt"
"$BLKPEAK" convert "$T/in.bpt" --to oracle -o "$T/in.bpt" 2>"$T/err" && fail "oracle over its input"
"$BLKPEAK" convert "$T/in.bpt" --to csv-zst -o "$T/in.bpt" 2>"$T/err" && fail "csv-zst over its input"
cmp -s "$T/in.bpt" "$T/g.bpt" || fail "the input was changed"
printf '0 0 1000 8 2\n' >"$T/bad.txt"
"$BLKPEAK" convert --from mqsim "$T/bad.txt" -o "$T/bad.csv.zst" 2>/dev/null && fail "bad input converted"
[ ! -e "$T/bad.csv.zst" ] || fail "a failed conversion left its .csv.zst"
"$BLKPEAK" convert --list | grep -q "^  oracle " || fail "--list: no oracle"
"$BLKPEAK" convert --list | grep -q "^  csv-zst " || fail "--list: no csv-zst"
exit 0
