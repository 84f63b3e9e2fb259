#!/bin/bash
# Damaged traces: a flipped byte is caught by info --verify and by dump
# (exit 1, naming the offset); a cut-off trace reads up to its last
# complete block with a warning on stderr, and fails --verify.
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP

# ~30 blocks: a block closes at least every second of trace time.
"$BLKPEAK" generate --count 30000 --iops 1000 --pattern fileserver -q -o "$T/g.bpt" ||
	fail "generate"
"$BLKPEAK" info --verify "$T/g.bpt" >/dev/null || fail "--verify on a good file"
size=$(stat -c %s "$T/g.bpt")

# Flip one byte in the middle (inside a record block).
cp "$T/g.bpt" "$T/bad.bpt"
off=$((size / 2))
byte=$(dd if="$T/bad.bpt" bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $(( (byte ^ 0x55) & 255 )))" |
	dd of="$T/bad.bpt" bs=1 seek=$off count=1 conv=notrunc 2>/dev/null
cmp -s "$T/g.bpt" "$T/bad.bpt" && fail "the byte flip did not change the file"
"$BLKPEAK" info --verify "$T/bad.bpt" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "info --verify on a damaged file exits $rc, want 1"
grep -q "offset [0-9]" "$T/err" || fail "--verify error names no offset: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "--verify error is not one line: $(cat "$T/err")"
note "damaged: $(cat "$T/err")"
"$BLKPEAK" dump "$T/bad.bpt" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "dump of a damaged file exits $rc, want 1"
grep -q "offset [0-9]" "$T/err" || fail "dump error names no offset: $(cat "$T/err")"

# Cut the file at 60%: the complete blocks read back, with a warning.
head -c $((size * 6 / 10)) "$T/g.bpt" >"$T/cut.bpt"
"$BLKPEAK" info "$T/cut.bpt" >"$T/info.txt" 2>"$T/err" || fail "info on a cut file: $(cat "$T/err")"
grep -q "warning: .*truncated" "$T/err" || fail "no truncation warning: $(cat "$T/err")"
grep -q "^status: *TRUNCATED" "$T/info.txt" || fail "info status of a cut file"
n=$(sed -n 's/^records: *\([0-9]*\) .*/\1/p' "$T/info.txt")
[ "$n" -gt 0 ] && [ "$n" -lt 30000 ] || fail "cut file shows $n records"
"$BLKPEAK" dump -f csv "$T/cut.bpt" >"$T/cut.csv" 2>"$T/err" || fail "dump of a cut file"
grep -q "warning: .*truncated" "$T/err" || fail "dump gives no truncation warning"
[ $(($(wc -l <"$T/cut.csv") - 1)) -eq "$n" ] || fail "dump of the cut file: $(wc -l <"$T/cut.csv") lines for $n records"
# the records it shows are exactly the first n of the whole file
"$BLKPEAK" dump -f csv "$T/g.bpt" | head -n $((n + 1)) | cmp -s - "$T/cut.csv" ||
	fail "cut file's records differ from the original's"
# --start on a file without its footer seeks by scanning the blocks
"$BLKPEAK" dump -f csv --start 3s "$T/cut.bpt" 2>/dev/null | sed 1d >"$T/cut-3s.csv"
awk -F, 'NR > 1 && $2 >= 3000000' "$T/cut.csv" | cmp -s - "$T/cut-3s.csv" ||
	fail "dump --start 3s of the cut file differs from the filtered whole"
[ -s "$T/cut-3s.csv" ] || fail "dump --start 3s of the cut file is empty"
"$BLKPEAK" info --verify "$T/cut.bpt" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "info --verify on a cut file exits $rc, want 1"
exit 0
