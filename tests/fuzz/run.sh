#!/bin/bash
# Run the fuzz targets: tests/fuzz/run.sh SECONDS [NAME...]
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
# Prints one line per target (executions, coverage); exits 1 when a
# target found a problem (after running the others), 2 on bad usage.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${FUZZ_BUILD:-$ROOT/build}
WORK=${FUZZ_WORK:-$BUILD/fuzz-corpus}
ART=${FUZZ_ARTIFACTS:-$BUILD/fuzz-crash}
SECS=${1:?usage: run.sh SECONDS [NAME...]}
shift
WANT=" $* "

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

failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/blkpeak-fuzz-run.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$ART"
while read -r name bin format; do
	[ "$WANT" = "  " ] || [[ "$WANT" == *" $name "* ]] || continue
	mkdir -p "$WORK/$name" "$tmp/$name"
	args=(-max_total_time="$SECS" -rss_limit_mb=1024 -timeout=10 -close_fd_mask=3
	      -print_final_stats=1 -artifact_prefix="$ART/$name-")
	[ -f "$ROOT/tests/fuzz/dict/$name.dict" ] && args+=(-dict="$ROOT/tests/fuzz/dict/$name.dict")
	seeds=()
	[ -d "$ROOT/tests/fuzz/corpus/$name" ] && seeds+=("$ROOT/tests/fuzz/corpus/$name")
	FUZZ_FORMAT=$format TMPDIR=$tmp/$name "$bin" "${args[@]}" "$WORK/$name" "${seeds[@]}" \
		>"$tmp/log" 2>&1
	rc=$?
	stats=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$tmp/log" | tail -1 |
		sed -E 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+cov: ([0-9]+) ft: ([0-9]+) corp: ([^ ]+).*/runs \1 cov \2 ft \3 corp \4/')
	if [ $rc -ne 0 ]; then
		failed=1
		echo "FAIL $name (exit $rc): $(grep -m1 -E 'SUMMARY|ERROR' "$tmp/log")"
		grep -E 'Test unit written' "$tmp/log" | sed 's/^/  /'
	else
		echo "ok   $name: ${stats:-no stats}"
	fi
	cp "$tmp/log" "$ART/$name.log"
done < <(targets)
exit $failed
