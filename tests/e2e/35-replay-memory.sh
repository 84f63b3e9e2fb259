#!/bin/bash
# Replay's memory stays flat and its order is the full load's: (1) a
# capture-like trace (completion order) whose first I/O stays outstanding
# to the end is replayed in every timing mode with a run file, which
# lists the I/Os in issue order (ties by record), every one of them; (2)
# generated traces of 0.5M and 2M I/Os are replayed on the null engine in
# every timing mode and the peak RSS may grow by less than 32 MiB between
# them (the whole-trace load grew by ~190 MiB: ~128 bytes per I/O). No
# timing is asserted.
. "$(dirname "$0")/lib.sh"
need_cmd cc /usr/bin/time
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cc_libbpt "$E2E_TMP/mktrace" "$ROOT/tests/e2e/replay_mktrace.c" || fail "cannot build replay_mktrace (run make first)"
truncate -s 1g "$E2E_TMP/target.img"

# (1) 3000 I/Os 10 us apart, 100 us each, in completion order; I/O 0
# (issued first) completes after all the others
awk 'BEGIN {
	for (i = 1; i < 3000; i++)
		printf "0 %d %d %d 4096 %s -\n", i * 10, i * 10 + 100, (i * 7919 % 100000) * 8,
			i % 3 ? "read" : "write"
	print "0 0 999999 8 4096 read -"
}' | "$E2E_TMP/mktrace" "$E2E_TMP/t.bpt" || fail "mktrace"
"$BLKPEAK" dump --format csv "$E2E_TMP/t.bpt" |
	awk -F, 'NR > 1 { printf "%s %d\n", $2, NR - 2 }' | sort -k1,1n -k2,2n |
	awk '{ print $2 }' > "$E2E_TMP/want"
[ "$(head -n 1 "$E2E_TMP/want")" = 2999 ] || fail "the long I/O is not first in issue order"
for mode in afap original causal; do
	"$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$E2E_TMP/target.img" --timing "$mode" \
		--engine null -o "$E2E_TMP/run-$mode.bpt" > "$E2E_TMP/out" 2>&1 ||
		{ cat "$E2E_TMP/out"; fail "$mode replay"; }
	"$BLKPEAK" dump --format csv "$E2E_TMP/run-$mode.bpt" |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["source"] }' \
		> "$E2E_TMP/got"
	cmp -s "$E2E_TMP/want" "$E2E_TMP/got" ||
		fail "$mode: run file not in issue order: $(diff "$E2E_TMP/want" "$E2E_TMP/got" | head -5)"
done
note "a far-reaching I/O: issue order kept in afap, original and causal"

# (2) peak RSS, 0.5M against 2M I/Os
rss() { # COUNT MODE ARGS...: peak RSS in KiB of one replay
	local n=$1 mode=$2
	shift 2
	/usr/bin/time -f %M -o "$E2E_TMP/rss" "$BLKPEAK" replay "$E2E_TMP/g$n.bpt" \
		--target "$E2E_TMP/target.img" --engine null --timing "$mode" "$@" \
		-o "$E2E_TMP/run.bpt" > "$E2E_TMP/out" 2>&1 || { cat "$E2E_TMP/out"; fail "replay $n $mode"; }
	tail -n 1 "$E2E_TMP/rss"
}
for n in 500000 2000000; do
	"$BLKPEAK" generate -o "$E2E_TMP/g$n.bpt" --count "$n" --read-pct 70 --queue-depth 4 -q ||
		fail "generate $n"
done
for mode in afap original causal; do
	args=()
	[ "$mode" = afap ] || args=(--speed 1000)
	a=$(rss 500000 "$mode" "${args[@]}")
	b=$(rss 2000000 "$mode" "${args[@]}")
	note "$mode: peak RSS $((a / 1024)) MiB at 0.5M I/Os, $((b / 1024)) MiB at 2M"
	[ $((b - a)) -lt $((32 * 1024)) ] ||
		fail "$mode: peak RSS grew by $(((b - a) / 1024)) MiB from 0.5M to 2M I/Os"
done
rm -f "$E2E_TMP"/g*.bpt "$E2E_TMP/run.bpt"
