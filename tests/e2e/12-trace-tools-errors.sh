#!/bin/bash
# Every error path of info, dump and generate: one clear line on stderr
# and the right exit code (1 failure, 2 usage); --help exits 0.
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP

# expect RC PATTERN CMD...: run, check the exit code and that stderr is
# one line starting "blkpeak: " and matching PATTERN.
expect() {
	want=$1 pat=$2
	shift 2
	"$BLKPEAK" "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exits $rc, want $want: $(cat "$T/err")"
	head -1 "$T/err" | grep -q "^blkpeak: " || fail "'$*': message not prefixed: $(cat "$T/err")"
	grep -q -- "$pat" "$T/err" || fail "'$*': message '$(cat "$T/err")' lacks '$pat'"
	[ "$(grep -vc '^see ' "$T/err")" -eq 1 ] || fail "'$*': more than one error line: $(cat "$T/err")"
}

"$BLKPEAK" generate --count 100 -q -o "$T/ok.bpt" || fail "generate"
echo "hello, not a trace" >"$T/text.bpt"
: >"$T/empty.bpt"

for c in info dump generate; do
	"$BLKPEAK" $c --help | grep -q "^usage: blkpeak $c" || fail "$c --help"
done

expect 1 "$T/missing.bpt" info "$T/missing.bpt"
expect 1 "$T/missing.bpt" dump "$T/missing.bpt"
expect 1 "$T/text.bpt" info "$T/text.bpt"
expect 1 "$T/text.bpt" dump "$T/text.bpt"
expect 1 "$T/empty.bpt" info "$T/empty.bpt"
expect 1 "$T/empty.bpt" info --verify "$T/empty.bpt"
expect 2 "no trace file" info
expect 2 "one trace file" info "$T/ok.bpt" "$T/ok.bpt"
expect 2 "'--frob': unknown option" info --frob "$T/ok.bpt"
expect 2 "no trace file" dump
expect 2 "--format: 'xml'" dump --format xml "$T/ok.bpt"
expect 2 "needs a value" dump "$T/ok.bpt" --format
expect 2 "--start: '5x'" dump --start 5x "$T/ok.bpt"
expect 2 "--end must be after --start" dump --start 2s --end 1s "$T/ok.bpt"
expect 2 "no output file" generate --count 10
expect 2 "--bs: '4q': not a size" generate -o "$T/x.bpt" --bs 4q
expect 2 "--bs: '512:10,3000:5'" generate -o "$T/x.bpt" --bs 512:10,3000:5
expect 2 "--read-pct: '200'" generate -o "$T/x.bpt" --read-pct 200
expect 2 "--pattern: 'zipf'" generate -o "$T/x.bpt" --pattern zipf
expect 2 "--span: smaller" generate -o "$T/x.bpt" --bs 64k --span 32k
expect 2 "--count and --duration" generate -o "$T/x.bpt" --count 5 --duration 1s
expect 2 "--arrival: 'burst'" generate -o "$T/x.bpt" --arrival burst
expect 2 "--queue-depth: '0'" generate -o "$T/x.bpt" --queue-depth 0
expect 1 "/dev/null: a character device, refusing to write a trace there" generate -o /dev/null --count 10
[ ! -e "$T/x.bpt" ] || fail "a failed generate left $T/x.bpt"
expect 1 "$T/nodir/x.bpt" generate -o "$T/nodir/x.bpt" --count 10
ls -A "$T" | grep -q "tmp\|lock" && fail "a failed generate left a temporary file"

# generate replaces an older trace only once the new one is complete
cp "$T/ok.bpt" "$T/keep.bpt"
expect 2 "--bs" generate -o "$T/keep.bpt" --bs 4q
cmp -s "$T/ok.bpt" "$T/keep.bpt" || fail "a failed generate changed the existing file"
exit 0
