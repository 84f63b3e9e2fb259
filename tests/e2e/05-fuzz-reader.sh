#!/bin/bash
# The trace reader under libFuzzer for a short while (FUZZ_E2E_SECONDS,
# default 15): any crash, sanitizer report, leak or hang fails the test.
# `make fuzz FUZZ_SECONDS=N` runs the same fuzzer for longer.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
need_cmd clang make
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
	> "$E2E_TMP/probe.c"
clang -fsanitize=fuzzer,address,undefined -o "$E2E_TMP/probe" "$E2E_TMP/probe.c" \
	>/dev/null 2>&1 || skip "clang's libFuzzer runtime is missing (Debian: libclang-rt-14-dev)"

make -s -C "$ROOT" build/tests/fuzz_reader >"$E2E_TMP/build.log" 2>&1 ||
	{ cat "$E2E_TMP/build.log"; fail "cannot build the fuzzer"; }
mkdir -p "$E2E_TMP/corpus"
"$ROOT/build/tests/fuzz_reader" -max_total_time="${FUZZ_E2E_SECONDS:-15}" \
	-rss_limit_mb=1024 -timeout=10 -artifact_prefix="$ROOT/build/" "$E2E_TMP/corpus" "$ROOT/tests/fuzz/corpus" \
	>"$E2E_TMP/fuzz.log" 2>&1
rc=$?
grep -E '^(INFO|#[0-9]+ *DONE|Done)' "$E2E_TMP/fuzz.log" | tail -2 | sed 's/^/  /'
if [ $rc -ne 0 ]; then
	grep -E 'ERROR|SUMMARY|Test unit written' "$E2E_TMP/fuzz.log" | head -5
	fail "fuzzer found a problem (exit $rc)"
fi
exit 0
