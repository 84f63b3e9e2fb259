#!/bin/bash
# capture's command line: usage errors (exit 2), the errors that must be
# one clear line and exit 1 (not root, unknown device, unwritable output,
# no BTF), `-- CMD` mode and its exit status, --duration (and its old
# spelling -t, with a warning), -d NAME, --json.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP

# usage: exit 2 with a message, --help exit 0
"$BLKPEAK" capture --help | grep -q '^usage: blkpeak capture' || fail "--help"
expect_usage() { # MESSAGE ARGS...
	msg=$1; shift
	"$BLKPEAK" capture "$@" >/dev/null 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] || fail "capture $*: exit $rc, want 2"
	grep -q -- "$msg" "$T/err" || fail "capture $*: no '$msg' in: $(cat "$T/err")"
}
expect_usage "-o FILE is required" -d 7:0
expect_usage "longer than a task name" -o "$T/x" -c abcdefghijklmnopq
expect_usage "out of range" -o "$T/x" --buffer-size 0
expect_usage "not a size" -o "$T/x" --buffer-size lots
expect_usage "not a duration" -o "$T/x" --duration soon
expect_usage "not a process id" -o "$T/x" -p 0
expect_usage "a command goes after --" -o "$T/x" fio

need_capture
L=$(make_loop 64M)
settle

# errors: exactly one line on stderr, exit 1, no libbpf chatter
expect_error() { # MESSAGE ARGS...
	msg=$1; shift
	"$BLKPEAK" capture "$@" >/dev/null 2>"$T/err"; rc=$?
	[ $rc -eq 1 ] || fail "capture $*: exit $rc, want 1 ($(cat "$T/err"))"
	[ "$(wc -l < "$T/err")" -eq 1 ] || fail "capture $*: not one line: $(cat "$T/err")"
	grep -q -- "^blkpeak: capture: .*$msg" "$T/err" ||
		fail "capture $*: no '$msg' in: $(cat "$T/err")"
	note "$(cat "$T/err")"
}
expect_error "/dev/no-such-disk: No such file or directory" -o "$T/x.bpt" -d /dev/no-such-disk
expect_error "no such block device (250:250)" -o "$T/x.bpt" -d 250:250
expect_error "/dev/null: not a block device" -o "$T/x.bpt" -d /dev/null
expect_error "$T/no/dir/x.bpt: cannot create: No such file or directory" -o "$T/no/dir/x.bpt" -d "$L"
[ -e "$T/x.bpt" ] && fail "a failed capture left an output file"
expect_error "the kernel has no BTF\|--btf: '$T/none.btf': No such file" -o "$T/x.bpt" -d "$L" --btf "$T/none.btf"
[ -e "$T/x.bpt" ] && fail "a capture that failed to load left an output file"
# an existing file is left alone when the capture fails before starting
echo precious > "$T/keep.bpt"
expect_error "--btf" -o "$T/keep.bpt" -d "$L" --btf "$T/none.btf"
[ "$(cat "$T/keep.bpt")" = precious ] || fail "a failed capture clobbered an existing file"
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$BLKPEAK" capture -o /tmp/blkpeak-nonroot.bpt -d "$L" 2>"$T/err"; rc=$?
	[ $rc -eq 1 ] && grep -q '^blkpeak: capture: needs root' "$T/err" &&
		[ "$(wc -l < "$T/err")" -eq 1 ] || fail "as a user: exit $rc: $(cat "$T/err")"
fi

# -- CMD: the capture lasts as long as CMD and exits with its status
"$BLKPEAK" capture -o "$T/c.bpt" -d "$L" -- sh -c 'exit 3' 2>/dev/null; rc=$?
[ $rc -eq 3 ] || fail "-- sh -c 'exit 3': exit $rc, want 3"
"$BLKPEAK" capture -o "$T/c.bpt" -d "$L" -- /no/such/cmd 2>"$T/err"; rc=$?
[ $rc -eq 127 ] || fail "-- /no/such/cmd: exit $rc, want 127"
grep -q "capture: /no/such/cmd: No such file or directory" "$T/err" || fail "missing-CMD message: $(cat "$T/err")"
"$BLKPEAK" capture -o "$T/c.bpt" -d "$L" --json -- \
	dd if="$L" of=/dev/null bs=4k count=300 iflag=direct status=none > "$T/sum.json" ||
	fail "-- dd: exit $?"
grep -q '"ios":300,' "$T/sum.json" || fail "--json summary: $(cat "$T/sum.json")"
grep -q '"lost_events":0,' "$T/sum.json" || fail "--json lost: $(cat "$T/sum.json")"
grep -q '"cmd_status":0' "$T/sum.json" || fail "--json cmd_status: $(cat "$T/sum.json")"
"$BLKPEAK" dump --format csv "$T/c.bpt" | tail -n +2 | awk -F, '$10 != "dd" || $7 != "read" || $6 != 4096' |
	grep -q . && fail "-- dd: records other than dd's 4 KiB reads"
note "-- dd: $(cat "$T/sum.json")"

# -t: ends by itself; the end line has every figure
start=$(date +%s%N)
# (a bound on wall time is only against a hang: loading the programs on a
# loaded machine can take seconds; the reported span counts from before
# loading, so it is at least 1 s)
timeout 60 "$BLKPEAK" capture -o "$T/t.bpt" -d "$L" --duration 1 2>"$T/err" || fail "-t 1: exit $?: $(cat "$T/err")"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $ms -ge 1000 ] || fail "-t 1 took $ms ms"
grep -Eq '^capture: 0 I/Os in [1-9]\.[0-9]+ s, 0 lost events, .*t\.bpt [0-9.]+ [KMG]?i?B, 0\.0 bytes per I/O$' "$T/err" ||
	fail "end line: $(cat "$T/err")"
"$BLKPEAK" info --verify "$T/t.bpt" >/dev/null || fail "an empty capture does not verify"

# -t, the old spelling of --duration: the same, with a warning; -d takes
# the kernel's name as --map does
timeout 60 "$BLKPEAK" capture -o "$T/n.bpt" -d "$(basename "$L")" -t 10ms 2>"$T/err" ||
	fail "-d $(basename "$L") -t 10ms: exit $?: $(cat "$T/err")"
grep -q "warning: capture: -t is deprecated, use --duration" "$T/err" || fail "-t: no warning: $(cat "$T/err")"
"$BLKPEAK" info "$T/n.bpt" | grep -q "$(basename "$L")" || fail "-d NAME did not record $(basename "$L"): $("$BLKPEAK" info "$T/n.bpt")"

# -v: says what it attached
"$BLKPEAK" capture -v -o "$T/v.bpt" -d "$L" --duration 10ms 2>"$T/err" || fail "-v"
grep -q "capture: attaching tp_btf:block_io_start" "$T/err" || fail "-v: $(grep capture: "$T/err")"
exit 0
