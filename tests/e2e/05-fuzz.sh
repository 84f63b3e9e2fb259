#!/bin/bash
# Every fuzz target (tests/fuzz/run.sh: the trace reader, each foreign
# format of the registry and any of them compressed, target specs, --map,
# disk models and model files, generate and measure options, measurement
# results documents) under libFuzzer for a short while each
# (FUZZ_E2E_SECONDS, default 3), from the committed seeds: any crash,
# sanitizer report, leak or hang fails the test. `make fuzz
# FUZZ_SECONDS=N` runs the same targets for longer.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
need_cmd clang make
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
	> "$E2E_TMP/probe.c"
clang -fsanitize=fuzzer,address,undefined -o "$E2E_TMP/probe" "$E2E_TMP/probe.c" \
	>/dev/null 2>&1 || skip "clang's libFuzzer runtime is missing (Debian: libclang-rt-14-dev)"

make -s -C "$ROOT" -j2 fuzz-build >"$E2E_TMP/build.log" 2>&1 ||
	{ tail -20 "$E2E_TMP/build.log"; fail "cannot build the fuzz targets"; }
# The targets (run.sh's names) in two halves run side by side: one
# libFuzzer process per core halves the test's time.
mapfile -t names < <("$ROOT/tests/fuzz/run.sh" --list)
[ ${#names[@]} -gt 0 ] || fail "tests/fuzz/run.sh --list names no target"
half=$(( (${#names[@]} + 1) / 2 ))
bg_start env FUZZ_WORK="$E2E_TMP/work" FUZZ_ARTIFACTS="$ROOT/build/fuzz-crash" \
	"$ROOT/tests/fuzz/run.sh" "${FUZZ_E2E_SECONDS:-3}" "${names[@]:0:half}" >"$E2E_TMP/fuzz1.log" 2>&1
first=$BG_PID
FUZZ_WORK="$E2E_TMP/work" FUZZ_ARTIFACTS="$ROOT/build/fuzz-crash" \
	"$ROOT/tests/fuzz/run.sh" "${FUZZ_E2E_SECONDS:-3}" "${names[@]:half}" >"$E2E_TMP/fuzz2.log" 2>&1
rc=$?
wait "$first" || rc=1
cat "$E2E_TMP/fuzz1.log" "$E2E_TMP/fuzz2.log" > "$E2E_TMP/fuzz.log"
sed 's/^/  /' "$E2E_TMP/fuzz.log"
[ $rc -eq 0 ] || fail "a fuzz target found a problem (logs and inputs in build/fuzz-crash/)"
# every target ran (none lost between the halves)
for n in "${names[@]}"; do
	grep -qE "^(ok|FAIL) +$n:" "$E2E_TMP/fuzz.log" || fail "the fuzz target '$n' did not run"
done
# every reader of the registry was a target of its own
for f in $(FUZZ_FORMAT=list "$ROOT/build/tests/fuzz_foreign"); do
	grep -q "^ok   $f:" "$E2E_TMP/fuzz.log" || fail "no fuzz target ran for the format '$f'"
done
exit 0
