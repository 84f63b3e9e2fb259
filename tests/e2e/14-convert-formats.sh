#!/bin/bash
# 14-convert-formats.sh — foreign traces (tests/fixtures/formats, written
# by hand from each format's definition): `blkpeak convert` of every
# format gives, per operation, the I/O count and bytes, the time span and
# the offsets an independent Python reading of the fixture gives
# (formats_expect.py); info/dump/replay/analyze import read the files
# directly; compressed copies read the same; bad lines name file:line:field
# and --skip-bad counts them into the meta (a binary record: file, record,
# byte offset and field; a cut record); the completions, non-I/O counts
# and bad fields of vscsi (binary fixtures kept as hex), mqsim, disksim,
# k5cloud and iotracer; the reorder window, --device, the 65536-device
# limit, and the refusals.
. "$(dirname "$0")/lib.sh"
need_cmd python3 gzip bzip2 xz zstd
T=$E2E_TMP
HERE=$(cd "$(dirname "$0")" && pwd)
FX=$HERE/../fixtures/formats

# unhex FIXTURE.hex OUT: the bytes of a fixture kept as hex ('#' comments)
unhex() {
	python3 -c 'import sys; open(sys.argv[2], "wb").write(bytes.fromhex("".join(
		l for l in open(sys.argv[1]) if not l.startswith("#"))))' "$1" "$2" || fail "unhex $1"
}

# One Python run checks them all (Python starts slowly on a busy machine).
set -- msr msr.csv spc spc.csv alibaba alibaba.csv tencent tencent.csv systor17 systor.csv \
	fiu fiu.txt fio fio2.iolog fio fio3.iolog biosnoop biosnoop.txt biosnoop biosnoop-q.txt \
	blkparse blkparse.txt vscsi vscsi1.hex vscsi vscsi2.hex mqsim mqsim.txt disksim disksim.txt \
	k5cloud k5cloud.csv iotracer iotracer.csv iotracer iotracer13.csv \
	blkparse blkparse-old.txt
args=()
while [ $# -gt 0 ]; do
	in=$FX/$2
	case $2 in # a binary fixture is kept as hex: its bytes, written by hand
	*.hex) unhex "$in" "$T/$2.bin"; in=$T/$2.bin ;;
	esac
	"$BLKPEAK" convert "$in" -o "$T/$2.bpt" >"$T/conv.out" 2>&1 || fail "convert $2: $(cat "$T/conv.out")"
	grep -q "from $1" "$T/conv.out" || fail "convert $2 summary: $(cat "$T/conv.out")"
	"$BLKPEAK" dump --format csv "$T/$2.bpt" >"$T/$2.csv" || fail "dump $2"
	args+=("$1" "$FX/$2" "$T/$2.csv")
	shift 2
done
python3 "$HERE/formats_expect.py" "${args[@]}" >"$T/expect.out" || fail "$(cat "$T/expect.out")"
while read -r l; do note "$l"; done <"$T/expect.out"

# Old kernels' rwbs letters keep their meaning: B (barrier) a preflush,
# an empty barrier a flush, E a (secure) discard, FWFS preflush + FUA.
# (the device "8,16" is quoted: one comma more)
flags=$(awk -F, 'NR > 1 { printf "%s:%s:%s ", $6, $8, $9 }' "$T/blkparse-old.txt.csv")
[ "$flags" = "2048:write:SP 4096:read:A 0:flush:P 100:write:SM 8192:discard:S 16384:discard: 0:flush: 300:write:SFP " ] ||
	fail "old rwbs letters: $flags"

# A request queued 3 s before its issue (a throttled cgroup) goes out to
# blktrace and back: the writer holds events as long as the input needs.
printf '%s\n' \
	"  8,0    0        1     0.000000000   100  Q   W 800 + 8 [slow]" \
	"  8,0    0        2     1.000000000   101  Q   R 64 + 8 [fast]" \
	"  8,0    0        3     1.000001000   101  D   R 64 + 8 [fast]" \
	"  8,0    0        4     1.000100000     0  C   R 64 + 8 [0]" \
	"  8,0    0        5     3.000000000   100  D   W 800 + 8 [slow]" \
	"  8,0    0        6     3.000200000     0  C   W 800 + 8 [0]" >"$T/slow.txt"
"$BLKPEAK" convert -q "$T/slow.txt" -o "$T/slow.bpt" || fail "convert slow.txt"
"$BLKPEAK" convert -q "$T/slow.bpt" --to blktrace -o "$T/slowbt" || fail "queued 3 s early: --to blktrace"
"$BLKPEAK" convert -q "$T/slowbt/8,0.blktrace.0" -o "$T/slowback.bpt" || fail "queued 3 s early: back"
"$BLKPEAK" dump --format csv "$T/slow.bpt" | cut -d, -f1-3,5- >"$T/s1.csv"
"$BLKPEAK" dump --format csv "$T/slowback.bpt" | cut -d, -f1-3,5- >"$T/s2.csv"
cmp -s "$T/s1.csv" "$T/s2.csv" || fail "queued 3 s early: $(diff "$T/s1.csv" "$T/s2.csv")"

# Every command reads the foreign file itself, with the same records.
"$BLKPEAK" dump --format csv "$FX/msr.csv" >"$T/direct.csv" || fail "dump msr.csv directly"
cmp -s "$T/direct.csv" "$T/msr.csv.csv" || fail "dump of msr.csv differs from dump of its conversion"
"$BLKPEAK" info --verify "$FX/blkparse.txt" >"$T/info.txt" || fail "info --verify blkparse.txt"
grep -q "^records: *6 in" "$T/info.txt" || fail "info: $(grep records "$T/info.txt")"
grep -q "import.format=blkparse" "$T/info.txt" || fail "info meta: $(cat "$T/info.txt")"
truncate -s 8G "$T/target.img"
"$BLKPEAK" replay "$FX/msr.csv" --target "$T/target.img" --engine null --timing afap \
	--allow-write -o "$T/run.bpt" >"$T/replay.out" 2>&1 || fail "replay msr.csv: $(cat "$T/replay.out")"
"$BLKPEAK" info "$T/run.bpt" | grep -q "run.done=5" || fail "replay of msr.csv did not do 5 I/Os"
"$BLKPEAK" analyze import --db "$T/a.db" "$FX/systor.csv" "$T/run.bpt" >"$T/imp.out" 2>&1 ||
	fail "analyze import: $(cat "$T/imp.out")"
grep -q "systor.csv: imported as trace 1: 5 I/Os" "$T/imp.out" || fail "import: $(cat "$T/imp.out")"

# Compressed copies: the same records (the digest is the content's).
want=$("$BLKPEAK" info "$FX/fiu.txt" | grep '^digest:')
for z in "gzip .gz" "bzip2 .bz2" "xz .xz" "zstd .zst"; do
	set -- $z
	$1 -c "$FX/fiu.txt" >"$T/fiu$2"
	got=$("$BLKPEAK" info "$T/fiu$2" | grep '^digest:')
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "$2: $got, plain $want"
done

# Bad lines: the error names file, line and field; --skip-bad counts.
{ head -2 "$FX/msr.csv"; echo "128166372003090000,hm,0,Read,12x4,4096,10"; tail -n +3 "$FX/msr.csv"; } >"$T/bad.csv"
"$BLKPEAK" convert "$T/bad.csv" -o "$T/bad.bpt" 2>"$T/err" && fail "a bad line converted"
grep -q "^blkpeak: convert: $T/bad.csv:3: Offset: not a number" "$T/err" || fail "bad line message: $(cat "$T/err")"
[ ! -e "$T/bad.bpt" ] || fail "a failed conversion left its output"
"$BLKPEAK" convert --skip-bad "$T/bad.csv" -o "$T/bad.bpt" >"$T/out" || fail "--skip-bad"
grep -q "1 bad line skipped" "$T/out" || fail "--skip-bad summary: $(cat "$T/out")"
"$BLKPEAK" info "$T/bad.bpt" | grep -q "import.bad_lines=1" || fail "bad line count not in the meta"

# The new readers: completions where the format has them, non-I/O
# records counted, and bad input named by file, line (or record) and field.
"$BLKPEAK" dump --format csv "$T/vscsi2.hex.bpt" | grep -q "^0.000,0.000,150.000,vscsi,100,4096,read,.*,seen$" ||
	fail "vscsi v2: response time not the completion: $("$BLKPEAK" dump --format csv "$T/vscsi2.hex.bpt")"
"$BLKPEAK" info "$T/vscsi2.hex.bpt" | grep -q "note.vscsi_other_commands=1" || fail "vscsi: INQUIRY not counted"
"$BLKPEAK" dump --format csv "$T/iotracer13.csv.bpt" | grep -q "^408.001,410.001,910.001,\"8,16\",0,131072,read,A,600,dd," ||
	fail "iotracer: queue/issue/completion: $("$BLKPEAK" dump --format csv "$T/iotracer13.csv.bpt")"
"$BLKPEAK" info "$T/iotracer.csv.bpt" | grep -q "note.iotracer_none=1" || fail "iotracer: 'none' not counted"
tail -n +2 "$FX/k5cloud.csv" >"$T/k5-nohead.csv"
"$BLKPEAK" convert "$T/k5-nohead.csv" -o "$T/k5.bpt" >"$T/out" 2>&1 || fail "k5cloud without header: $(cat "$T/out")"
grep -q "5 I/Os on 2 devices.*from k5cloud" "$T/out" || fail "k5cloud without header: $(cat "$T/out")"
# bad_case NAME INPUT 'MESSAGE REGEX': convert fails naming it, nothing left
bad_case() {
	"$BLKPEAK" convert "$2" -o "$T/bad-$1.bpt" 2>"$T/err" && fail "$1: bad input converted"
	grep -q "^blkpeak: convert: $3" "$T/err" || fail "$1: message: $(cat "$T/err")"
	[ ! -e "$T/bad-$1.bpt" ] || fail "$1: a failed conversion left its output"
}
head -c 180 "$T/vscsi1.hex.bin" >"$T/vscsi-cut.bin"
bad_case vscsi-cut "$T/vscsi-cut.bin" "$T/vscsi-cut.bin: record 6 at byte 160: 20 bytes, a 32-byte record cut short"
{ head -c 40 "$T/vscsi2.hex.bin"; printf '\x01\x01'; tail -c +43 "$T/vscsi2.hex.bin"; } >"$T/vscsi-cmd.bin"
bad_case vscsi-cmd "$T/vscsi-cmd.bin" "$T/vscsi-cmd.bin: cmd: record 2 at byte 40: 0x101 is no SCSI operation code"
"$BLKPEAK" convert --skip-bad "$T/vscsi-cmd.bin" -o "$T/vs.bpt" >"$T/out" || fail "vscsi --skip-bad"
grep -q "3 I/Os.*from vscsi" "$T/out" && grep -q "1 bad line skipped" "$T/out" || fail "vscsi --skip-bad: $(cat "$T/out")"
{ head -2 "$FX/mqsim.txt"; echo "4871300 2 1000 8 2"; } >"$T/mq.txt"
bad_case mqsim "$T/mq.txt" "$T/mq.txt:3: type: not 0 (write) or 1 (read) ('4871300 2 1000 8 2')"
{ head -1 "$FX/disksim.txt"; echo "1.2.3 0 2000 16 0"; } >"$T/ds.txt"
bad_case disksim "$T/ds.txt" "$T/ds.txt:2: time: not decimal milliseconds"
{ head -2 "$FX/k5cloud.csv"; echo "12,0.5,X,4096,4096"; } >"$T/k5.csv"
bad_case k5cloud "$T/k5.csv" "$T/k5.csv:3: Type: not R or W"
{ head -2 "$FX/iotracer.csv"; echo "2024-01-15 10:30:4x.1,1,a,0,read,512,0.1,1,1,0,0"; } >"$T/it.csv"
bad_case iotracer "$T/it.csv" "$T/it.csv:3: timestamp: not YYYY-MM-DD HH:MM:SS.ffffff"
{ head -1 "$FX/iotracer13.csv"; echo "2025-06-01 08:00:00.000300,500,fio,16384,write,65536,0.250,501,3,1,259-0,,"; } >"$T/it13.csv"
bad_case iotracer13 "$T/it13.csv" "$T/it13.csv:2: Device: not MAJ:MIN"
long=$(printf 'x%.0s' $(seq 64))
{ head -2 "$FX/iotracer.csv"; echo "2024-01-15 10:30:45.5,1,$long,0,read,512,0.1,1,1,0,0"; } >"$T/itl.csv"
bad_case iotracer-comm "$T/itl.csv" "$T/itl.csv:3: command: longer than 63 bytes"

# The reorder window: SYSTOR's rows are unsorted; a window of 1 is too small.
"$BLKPEAK" convert --window 1 "$FX/systor.csv" -o "$T/w.bpt" 2>"$T/err" && fail "window 1 sorted systor.csv"
grep -q "line 4: out of time order by more than the reorder window of 1 records" "$T/err" ||
	fail "window message: $(cat "$T/err")"

# Devices: --device keeps some; more than 65536 need it (64 before 1.3).
"$BLKPEAK" convert --device vol77 "$FX/tencent.csv" -o "$T/v.bpt" >"$T/out" || fail "--device"
grep -q "2 I/Os on 1 device" "$T/out" || fail "--device summary: $(cat "$T/out")"
grep -q "3 I/Os of other devices left out" "$T/out" || fail "--device dropped: $(cat "$T/out")"
seq 0 69 | awk '{ printf "1538323200,%d,8,0,%d\n", $1 * 8, $1 }' >"$T/vols.csv"
"$BLKPEAK" info "$T/vols.csv" | grep -q "^devices: *70$" || fail "70 volumes: $("$BLKPEAK" info "$T/vols.csv" 2>&1 | head -3)"
seq 0 65536 | awk '{ printf "1538323200,%d,8,0,%d\n", $1 * 8, $1 }' >"$T/vols.csv"
"$BLKPEAK" info "$T/vols.csv" >/dev/null 2>"$T/err" && fail "65537 volumes read without --device"
grep -q "more than 65536 devices.*--device" "$T/err" || fail "device limit message: $(cat "$T/err")"

# Refusals: no format; an input as the output; a FIFO; unknown --to.
echo "hello" >"$T/hello.txt"
"$BLKPEAK" info "$T/hello.txt" 2>"$T/err" && fail "info read hello.txt"
grep -q "not a .bpt trace (bad magic), nor a foreign trace (tried .*fio, biosnoop, .*msr" "$T/err" ||
	fail "no-format message: $(cat "$T/err")"
"$BLKPEAK" convert "$FX/spc.csv" "$FX/spc.csv" -o "$T/twice.bpt" 2>"$T/err" && fail "one input given twice converted"
grep -q "given twice" "$T/err" || fail "twice message: $(cat "$T/err")"
cp "$FX/spc.csv" "$T/in.csv"
"$BLKPEAK" convert "$T/in.csv" -o "$T/in.csv" 2>"$T/err" && fail "converted over its input"
cmp -s "$T/in.csv" "$FX/spc.csv" || fail "the input was changed"
mkfifo "$T/fifo"
"$BLKPEAK" convert "$T/fifo" -o "$T/f.bpt" 2>"$T/err" </dev/null && fail "converted a FIFO"
grep -q "fifo" "$T/err" || fail "FIFO message: $(cat "$T/err")"
"$BLKPEAK" convert "$FX/spc.csv" --to nosuch -o "$T/x" 2>/dev/null; [ $? -eq 2 ] || fail "--to nosuch: not a usage error"
"$BLKPEAK" convert --list | grep -q "^  tencent " || fail "--list"
"$BLKPEAK" convert --json -q "$FX/msr.csv" -o "$T/j.bpt" >"$T/j.json" || fail "--json -q"
exit 0
