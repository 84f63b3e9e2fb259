#!/bin/bash
# 26-progress-tty.sh — progress and status lines (issue 25), on a
# pseudo-terminal (e2e/ptyrun.py) as a user sees them, and nothing of them
# when stderr is not a terminal:
# - capture redraws one status line each second (elapsed, I/Os, IOPS,
#   MB/s, lost events) and erases it before its end line; --quiet (-q)
#   silences it;
# - measure shows the step it is at and the time left, from 2 s on (the
#   null engine's fixed latency makes its steps last at least 1.8, 0.9
#   and 0.45 s: the third starts after 2 s however fast the machine);
# - plot, html and convert: a line (with an ETA) when they run longer
#   than 3 s, none when they end within 1.5 s; never one when stderr is a
#   file. (The test asserts no duration: it checks what was printed
#   against how long the command took.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
need_cmd python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PTY="python3 $ROOT/tests/e2e/ptyrun.py"
T=$E2E_TMP
cd "$T" || fail "no temp dir"

# measure: the step and the time left
truncate -s 64M m.img
$PTY m.out "$BLKPEAK" measure qd-sweep --target m.img --engine null --null-latency 3ms \
	--ios 600 --depths 1,2,4 --no-store || fail "measure on a terminal: exit $?"
grep -aq $'\r\e\[Kmeasure qd-sweep: step 3 of 3, [0-9]* s so far, ETA [0-9]' m.out ||
	fail "measure showed no progress with an estimate: $(tr '\r' '\n' < m.out | head -3)"
grep -aq 'score:' m.out || fail "measure printed no result"
"$BLKPEAK" measure qd-sweep --target m.img --engine null --null-latency 3ms --ios 600 \
	--depths 1,2,4 --no-store > m.stdout 2> m.err || fail "measure: exit $?"
! grep -aq $'\r' m.err m.stdout || fail "measure drew a progress line on a file"

# plot, html, convert: a line when long, none when short or not a terminal
# (a terminal turns each "\n" into "\r\n": a drawn line is "\r\e[K")
"$BLKPEAK" generate -q -o big.bpt --count 400000 --seed 1 || fail "generate"
"$BLKPEAK" generate -q -o small.bpt --count 100 --seed 1 || fail "generate"
check_line() { # NAME OUTFILE SECONDS
	if awk -v s="$3" 'BEGIN { exit !(s > 3) }'; then
		grep -aq $'\r\e\[K.*ETA' "$2" || fail "$1 ran $3 s on a terminal without a progress line"
	elif awk -v s="$3" 'BEGIN { exit !(s < 1.5) }'; then
		! grep -aq $'\r\e\\[K' "$2" || fail "$1 ended within $3 s but drew a line: $(tr '\r' '\n' < "$2" | head -2)"
	fi
	note "$1: $3 s, $(grep -ac ETA "$2") progress output(s)"
}
timed() { # OUT CMD...: run on the pty, print the seconds it took
	local s e
	s=$(date +%s%N); $PTY "$@" > /dev/null || fail "$*: exit $?"; e=$(date +%s%N)
	awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'
}
for f in big small; do
	secs=$(timed "p-$f.out" "$BLKPEAK" analyze plot --kind latency-cdf -o "$f.svg" "$f.bpt")
	check_line "plot $f.bpt" "p-$f.out" "$secs"
	secs=$(timed "h-$f.out" "$BLKPEAK" analyze html -o "$f.html" "$f.bpt")
	check_line "html $f.bpt" "h-$f.out" "$secs"
	secs=$(timed "c-$f.out" "$BLKPEAK" convert "$f.bpt" --to fio -o "$f.iolog")
	check_line "convert $f.bpt" "c-$f.out" "$secs"
	secs=$(timed "r-$f.out" "$BLKPEAK" convert "$f.iolog" -o "$f-back.bpt")
	check_line "convert $f.iolog" "r-$f.out" "$secs"
done
"$BLKPEAK" analyze html -o big2.html big.bpt 2> h.err || fail "html: exit $?"
! grep -aq $'\r' h.err || fail "html drew a progress line on a file"

# capture: the status line each second; -q silences it
need_capture
L=$(make_loop 64M)
$PTY cap.out "$BLKPEAK" capture -o c.bpt -d "$L" -- sh -c "dd if=$L of=/dev/null bs=4k iflag=direct count=4000 2>/dev/null; sleep 2" ||
	fail "capture on a terminal: exit $?"
grep -aEq $'\r\e\\[Kcapture: [0-9]+ s, [0-9]+ I/Os, [0-9]+ IOPS, [0-9.]+ MB/s, [0-9]+ lost' cap.out ||
	fail "capture drew no status line: $(tr '\r' '\n' < cap.out | head -3)"
grep -aEq $'\r\e\\[Kcapture: [0-9]+ I/Os in [0-9.]+ s, 0 lost events' cap.out ||
	fail "the status line was not erased before the end line: $(tr '\r' '\n' < cap.out | tail -2)"
$PTY capq.out "$BLKPEAK" capture -q -o c.bpt -d "$L" -- sh -c "sleep 2" || fail "capture -q: exit $?"
! grep -aq 'IOPS' capq.out || fail "capture -q drew a status line"
"$BLKPEAK" capture -o c.bpt -d "$L" -- sh -c "sleep 2" 2> cap.err || fail "capture: exit $?"
! grep -aq $'\r' cap.err || fail "capture drew a status line on a file"
exit 0
