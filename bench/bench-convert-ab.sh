#!/bin/bash
# bench-convert-ab.sh — two blkpeak binaries (say main and a branch) on
# the same foreign inputs, runs interleaved, the least CPU time (user +
# system) of R runs each: on a loaded machine the minimum of interleaved
# runs moves far less than one run of each (issue 13's convert speed).
# Inputs, N records each (written once, in $BENCH_DIR, deleted at the end):
#   the CSV formats of bench-convert.sh (msr spc tencent alibaba systor17),
#   and a blktrace file of N/3 generated I/Os (Q, D, C each: N events).
# Each line: the command, OLD and NEW ms, and NEW's rate in M records
# (events for blktrace) per CPU second. The two .bpt outputs of every
# convert are compared byte for byte (the speed work must not change them).
#   flock /tmp/blkpeak-bench.lock bench/bench-convert-ab.sh OLD NEW [N] [R]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# (bench/run.sh runs every script without arguments: there is nothing to
# compare then)
[ $# -ge 2 ] || { echo "SKIP: usage: $0 OLD-BLKPEAK NEW-BLKPEAK [N] [RUNS]"; exit 77; }
OLD=$(realpath "$1") NEW=$(realpath "$2") N=${3:-1000000} R=${4:-5}
[ -x /usr/bin/time ] || { echo "SKIP: needs /usr/bin/time (Debian package time)"; exit 77; }
W=$(mktemp -d "${BENCH_DIR:-/var/tmp}/convert-ab.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

# the generator of bench-convert.sh
eval "$(sed -n '/^gen() {/,/^}/p' "$ROOT/bench/bench-convert.sh")"

# cpu_ms BIN ARGS...: user + system ms of one run (output to $W/out.BIN)
cpu_ms() {
	local b=$1
	shift
	/usr/bin/time -f '%U %S' -o "$W/time" "$b" "$@" >/dev/null 2>"$W/err" ||
		{ echo "FAIL: $b $*: $(tail -2 "$W/err")" >&2; exit 1; }
	awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$W/time"
}

# ab RECORDS LABEL ARGS... (ARGS end with the output file, replaced per binary)
ab() {
	local recs=$1 label=$2 mo=999999999 mn=999999999 t
	shift 2
	local args=("${@:1:$#-1}")
	for _ in $(seq "$R"); do
		t=$(cpu_ms "$OLD" "${args[@]}" "$W/old.bpt") || exit 1
		[ "$t" -lt "$mo" ] && mo=$t
		t=$(cpu_ms "$NEW" "${args[@]}" "$W/new.bpt") || exit 1
		[ "$t" -lt "$mn" ] && mn=$t
	done
	local same="outputs identical"
	cmp -s "$W/old.bpt" "$W/new.bpt" || same="OUTPUTS DIFFER"
	printf "%-34s old %6d ms  new %6d ms  new %5.2f M/CPU s  %s\n" "$label" "$mo" "$mn" \
		"$(awk -v n="$recs" -v c="$mn" 'BEGIN { print (c > 0 ? n / c / 1000 : 0) }')" "$same"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $R runs each, interleaved"
echo "old: $OLD  new: $NEW  ($N records per input)"
for fmt in msr spc tencent alibaba systor17; do
	gen "$fmt" "$N" >"$W/in.csv"
	ab "$N" "convert $fmt" convert -q "$W/in.csv" -o X
done
rm -f "$W/in.csv"
ios=$((N / 3))
"$NEW" generate -q --count "$ios" --read-pct 70 --queue-depth 8 --bs 4k:70,64k:30 \
	--span 64g --device-name sdx -o "$W/g.bpt" || exit 1
"$NEW" convert -q "$W/g.bpt" --to blktrace -o "$W/bt" || exit 1
ab "$((ios * 3 + 2))" "convert blktrace" convert -q "$W/bt/sdx" -o X
ab "$ios" ".bpt to .bpt (writer + reader)" convert -q "$W/g.bpt" -o X
