#!/bin/bash
# Run the fuzz targets: tests/fuzz/run.sh SECONDS [NAME...]
#                        tests/fuzz/run.sh --list   (the names, one a line)
#
# Every build/tests/fuzz_* binary is a target named after it (fuzz_map ->
# "map", fuzz_measure_json -> "measure-json"); fuzz_foreign is the target
# "foreign" (any registry row, any compression) and one target per
# foreign-format reader of the registry ("msr", "blktrace", ...: the
# binary lists them). Each runs SECONDS with the seeds of
# tests/fuzz/corpus/NAME and the words of tests/fuzz/dict/NAME.dict when
# they exist; the inputs it finds go to $FUZZ_WORK/NAME (default
# build/fuzz-corpus/NAME), a crash to $FUZZ_ARTIFACTS/NAME-crash-*
# (default build/fuzz-crash/). The defects listed in
# tests/fuzz/known-defects are steered around (FUZZ_AVOID).
#
# Prints one line per target (executions, coverage: libFuzzer's cov/ft
# at the end, the corpus, the seconds); exits 1 when a target found a
# problem (after running the others), 2 on bad usage. FUZZ_KEEP_GOING=1
# restarts a target after a finding until its SECONDS are used up.
# FUZZ_TIMEOUT (default 10 s) is the time one input may take before it
# counts as a hang: a campaign at nice 19 on a loaded machine runs 20-30x
# slower than alone, so it wants more (bench/RESULTS.md, the campaign).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${FUZZ_BUILD:-$ROOT/build}
WORK=${FUZZ_WORK:-$BUILD/fuzz-corpus}
ART=${FUZZ_ARTIFACTS:-$BUILD/fuzz-crash}
USAGE="usage: run.sh SECONDS [NAME...] | run.sh --list"
[ $# -ge 1 ] || { echo "$USAGE" >&2; exit 2; }

# (FUZZ_AVOID= set empty: steer around nothing, to see the known defects)
[ "${FUZZ_AVOID+set}" ] ||
	FUZZ_AVOID=$(sed -e 's/#.*//' -e 's/[[:space:]].*//' "$ROOT/tests/fuzz/known-defects" | grep . | paste -sd,)
export FUZZ_AVOID

targets() {
	for bin in "$BUILD"/tests/fuzz_*; do
		[ -x "$bin" ] || continue
		name=$(basename "$bin" | sed 's/^fuzz_//; s/_/-/g')
		echo "$name $bin"
		if [ "$name" = foreign ]; then
			FUZZ_FORMAT=list "$bin" | while read -r f; do echo "$f $bin $f"; done
		fi
	done
}

if [ "$1" = --list ]; then
	targets | cut -d' ' -f1
	exit 0
fi
SECS=$1
[[ "$SECS" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: SECONDS '$SECS' is not a whole number of seconds; $USAGE" >&2; exit 2; }
shift
WANT=" $* "
known=" $(targets | cut -d' ' -f1 | paste -sd' ') "
for n in "$@"; do
	[[ "$known" == *" $n "* ]] ||
		{ echo "run.sh: no fuzz target '$n' in $BUILD/tests (run.sh --list names them)" >&2; exit 2; }
done

failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/blkpeak-fuzz-run.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$ART"
while read -r name bin format; do
	[ "$WANT" = "  " ] || [[ "$WANT" == *" $name "* ]] || continue
	mkdir -p "$WORK/$name" "$tmp/$name"
	args=(-rss_limit_mb=1024 -timeout="${FUZZ_TIMEOUT:-10}" -close_fd_mask=3
	      -print_final_stats=1 -artifact_prefix="$ART/$name-")
	[ -f "$ROOT/tests/fuzz/dict/$name.dict" ] && args+=(-dict="$ROOT/tests/fuzz/dict/$name.dict")
	seeds=()
	[ -d "$ROOT/tests/fuzz/corpus/$name" ] && seeds+=("$ROOT/tests/fuzz/corpus/$name")
	# FUZZ_KEEP_GOING=1 (a campaign): after a finding, start again on
	# the grown corpus until SECONDS are used up
	start=$(date +%s) runs=0 found=0 first=
	while :; do
		left=$((SECS - ($(date +%s) - start)))
		[ $left -ge 1 ] || break
		FUZZ_FORMAT=$format TMPDIR=$tmp/$name "$bin" -max_total_time=$left "${args[@]}" \
			"$WORK/$name" "${seeds[@]}" >"$tmp/log" 2>&1
		rc=$?
		cat "$tmp/log" >>"$tmp/all.log"
		last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|NEW|REDUCE|pulse|INITED)' "$tmp/log" | tail -1)
		runs=$((runs + $(echo "$last" | sed -E 's/^#([0-9]+).*/\1/; t; s/.*/0/')))
		stats=$(echo "$last" | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([^ ]+).*/cov \1 ft \2 corp \3/')
		[ $rc -eq 0 ] && break
		found=$((found + 1))
		[ -n "$first" ] || first=$(grep -m1 -E 'SUMMARY|ERROR' "$tmp/log")
		grep -E 'Test unit written' "$tmp/log" | sed 's/^/  /'
		[ "${FUZZ_KEEP_GOING:-0}" = 1 ] || break
	done
	if [ $found -ne 0 ]; then
		failed=1
		echo "FAIL $name: $found finding(s), runs $runs $stats $(($(date +%s) - start)) s: $first"
	else
		echo "ok   $name: runs $runs $stats $(($(date +%s) - start)) s"
	fi
	mv "$tmp/all.log" "$ART/$name.log"
done < <(targets)
exit $failed
