#!/bin/bash
# 16-hostile-input.sh — issue 27, the defects hostile input found, tried
# with the binary as a user would (the parsers' own cases are unit tests:
# tests/unit/test_hostile*.c):
#  - a NUL byte in a text trace: every command refuses it naming
#    file:line (it crashed), --skip-bad skips it;
#  - convert --device naming no device of the input, and --from bpt on a
#    file that is no .bpt trace, are refused (an empty trace, or another
#    format silently detected);
#  - replay --map: a key given twice is refused naming both; a digit
#    after '@' that is no offset creates no file of that name;
#  - blkparse text with issues (D) and no completions (C), 100k I/Os:
#    info and convert read it (it failed "out of time order"), every I/O
#    pending, in time order; info takes --window as convert does.
. "$(dirname "$0")/lib.sh"
need_cmd timeout
T=$E2E_TMP
HERE=$(cd "$(dirname "$0")" && pwd)
FX=$HERE/../fixtures/formats

# refused WHAT RC MESSAGE CMD...: exit RC within 60 s, MESSAGE on stderr
refused() {
	what=$1 want=$2 msg=$3
	shift 3
	timeout 60 "$@" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "$what: exit $rc, want $want ($(cat "$T/err"))"
	grep -qF -- "$msg" "$T/err" || fail "$what: no '$msg' in: $(cat "$T/err")"
}

# Group 1: a NUL byte (it crashed every command, or put the I/O on the
# device of the line before).
printf 'fio version 2 iolog\n\0 read 0 4096\n' >"$T/n.iolog"
printf 'fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda read 0 4096\n\0 read 8192 4096\n' >"$T/n2.iolog"
refused "convert NUL" 1 "n.iolog:2: line: a NUL byte at column 1" "$BLKPEAK" convert "$T/n.iolog" -o "$T/x.bpt"
refused "info NUL" 1 "n.iolog:2: line: a NUL byte" "$BLKPEAK" info "$T/n.iolog"
refused "dump NUL" 1 "n.iolog:2: line: a NUL byte" "$BLKPEAK" dump "$T/n.iolog"
refused "convert NUL after sda" 1 "n2.iolog:5: line: a NUL byte" "$BLKPEAK" convert "$T/n2.iolog" -o "$T/x.bpt"
[ ! -e "$T/x.bpt" ] || fail "a refused conversion left its output"
"$BLKPEAK" convert --skip-bad "$T/n2.iolog" -o "$T/x.bpt" >"$T/out" || fail "--skip-bad: $(cat "$T/out")"
grep -q "1 I/Os on 1 device" "$T/out" || fail "--skip-bad: $(cat "$T/out")"
{ head -3 "$FX/biosnoop.txt"; printf '0.000004    supervise      1950   xv\0da1   W 13092560   4096      0.74\n'; } >"$T/n.biosnoop"
refused "biosnoop NUL in DISK" 1 "n.biosnoop:4: line: a NUL byte" "$BLKPEAK" info "$T/n.biosnoop"

# Group 10: --device naming nothing, --from bpt on another format.
refused "convert --device nope" 1 "--device nope: no such device in $FX/msr.csv (it has: hm_0, hm_1)" \
	"$BLKPEAK" convert --device nope "$FX/msr.csv" -o "$T/d.bpt"
[ ! -e "$T/d.bpt" ] || fail "convert --device nope wrote a trace"
"$BLKPEAK" convert --device hm_1 "$FX/msr.csv" -o "$T/d.bpt" >/dev/null || fail "convert --device hm_1"
refused "convert --from bpt CSV" 1 "--from bpt: $FX/msr.csv: not a .bpt trace" \
	"$BLKPEAK" convert --from bpt "$FX/msr.csv" -o "$T/f.bpt"
[ ! -e "$T/f.bpt" ] || fail "convert --from bpt of a CSV wrote a trace"
"$BLKPEAK" convert --from bpt "$T/d.bpt" -o "$T/f.bpt" >/dev/null || fail "convert --from bpt of a .bpt"

# Group 8: --map keys once; @OFFSET an offset.
"$BLKPEAK" generate -q --count 100 --span 32m -o "$T/g.bpt" || fail "generate"
truncate -s 64M "$T/q.img" "$T/s.img"
refused "--map key twice" 2 "--map gen0=$T/s.img: gen0 is mapped already (--map gen0=$T/q.img)" \
	"$BLKPEAK" replay "$T/g.bpt" --map "gen0=$T/q.img" --map "gen0=$T/s.img" --engine null
refused "--map /dev/key twice" 2 "is mapped already" \
	"$BLKPEAK" replay "$T/g.bpt" --map "gen0=$T/q.img" --map "/dev/gen0=$T/s.img" --engine null
refused "--map @64zz" 2 "@64zz is not an offset" \
	"$BLKPEAK" replay "$T/g.bpt" --map "gen0:0-32m=$T/q.img@64zz" --engine null --create 64m
[ ! -e "$T/q.img@64zz" ] || fail "--map ...@64zz created a file of that name"
"$BLKPEAK" replay "$T/g.bpt" --map "gen0:0-32m=$T/q.img@64k" --engine null >/dev/null ||
	fail "--map ...@64k"
# Group 5: D without C.
awk 'BEGIN { for (i = 0; i < 100000; i++) { t = 1000 * (i + 1);
	printf "  8,0    0 %8d %5d.%09d  100  Q   R %d + 8 [fio]\n", 2 * i + 1, int(t / 1e9), t % 1e9, 8 * i;
	printf "  8,0    0 %8d %5d.%09d  100  D   R %d + 8 [fio]\n", 2 * i + 2, int((t + 100) / 1e9), (t + 100) % 1e9, 8 * i } }' \
	>"$T/noc.txt"
"$BLKPEAK" info "$T/noc.txt" >"$T/info.out" 2>&1 || fail "info of D-without-C blkparse: $(cat "$T/info.out")"
grep -q "^records: *100000 in" "$T/info.out" || fail "info: $(grep records "$T/info.out")"
grep -q "100000 pending at the end" "$T/info.out" || fail "info: $(grep completions "$T/info.out")"
"$BLKPEAK" convert "$T/noc.txt" -o "$T/noc.bpt" >"$T/out" 2>&1 || fail "convert D-without-C: $(cat "$T/out")"
"$BLKPEAK" dump --format csv "$T/noc.bpt" | awk -F, 'NR > 1 { if ($2 + 0 < last) bad++; last = $2 + 0; n++ }
	END { if (bad || n != 100000) { print n " records, " bad " out of order"; exit 1 } }' ||
	fail "convert D-without-C: not every I/O, or not in time order"
# Group 5: info takes --window as convert does.
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do echo "0,$((11 - i)),512,r,$((11 - i)).0"; done >"$T/rev.spc"
refused "info beyond --window" 1 "out of time order by more than the reorder window of 4" \
	"$BLKPEAK" info --window 4 "$T/rev.spc"
"$BLKPEAK" info --window 16 "$T/rev.spc" >"$T/info.out" 2>&1 || fail "info --window 16: $(cat "$T/info.out")"
grep -q "^records: *12 in" "$T/info.out" || fail "info --window: $(grep records "$T/info.out")"
refused "info --window 0" 2 "--window: '0': not a number of records from 1 to 16777216" \
	"$BLKPEAK" info --window 0 "$T/rev.spc"
exit 0
