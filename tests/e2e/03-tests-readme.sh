#!/bin/bash
# 03-tests-readme.sh — tests/README.md lists exactly the tests that exist:
# every unit test file (tests/unit/test_*.c), end-to-end test
# (tests/e2e/NN-*.sh) and fuzz target (tests/fuzz/fuzz_NAME.c, listed as
# NAME with '_' as '-') has its row in its section, and every row names
# one that exists. A row's first column holds the names, in backquotes.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
R=$ROOT/tests/README.md
[ -f "$R" ] || fail "no tests/README.md"

# listed HEADING: the backquoted names in the first column of the table
# rows of the section whose "## " heading starts with HEADING
listed() {
	awk -v h="$1" '
		/^## / { on = index($0, "## " h) == 1; next }
		on && /^\| / {
			split($0, col, "|")
			s = col[2]
			while (match(s, /`[^`]+`/)) {
				print substr(s, RSTART + 1, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
		}' "$R" | sort -u
}

# compare WHAT LISTED EXISTING: both sorted lists, one name a line
bad=0
compare() {
	local extra missing
	missing=$(comm -13 <(echo "$2") <(echo "$3"))
	extra=$(comm -23 <(echo "$2") <(echo "$3"))
	if [ -n "$missing" ]; then
		echo "tests/README.md: $1 not listed:" $missing >&2
		bad=1
	fi
	if [ -n "$extra" ]; then
		echo "tests/README.md: $1 listed but not in the tree:" $extra >&2
		bad=1
	fi
}

unit_have=$(cd "$ROOT/tests/unit" && ls test_*.c | sort -u)
unit_said=$(listed "Unit tests" | grep -x 'test_.*\.c')
[ -n "$unit_said" ] || fail "no unit test rows found under '## Unit tests'"
compare "unit test files" "$unit_said" "$unit_have"

e2e_have=$(cd "$ROOT/tests/e2e" && ls [0-9][0-9]-*.sh | sort -u)
e2e_said=$(listed "End-to-end tests" | grep -x '[0-9][0-9]-.*\.sh')
[ -n "$e2e_said" ] || fail "no e2e rows found under '## End-to-end tests'"
compare "end-to-end tests" "$e2e_said" "$e2e_have"

# The fuzz section's first column names targets (and, in one row, the
# formats FUZZ_FORMAT picks: those are not files) and their files.
fuzz_have=$(cd "$ROOT/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//; s/_/-/g' | sort -u)
fuzz_rows=$(awk '/^## / { on = index($0, "## Fuzz targets") == 1; next }
	on && /^\| / && !/FUZZ_FORMAT=/' "$R")
fuzz_said=$(echo "$fuzz_rows" | awk '{
		split($0, col, "|"); s = col[2]
		while (match(s, /`[^`]+`/)) {
			print substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		} }' | grep -v '\.c$' | sort -u)
[ -n "$fuzz_said" ] || fail "no fuzz target rows found under '## Fuzz targets'"
compare "fuzz targets" "$fuzz_said" "$fuzz_have"
# a file a fuzz row names exists
for f in $(echo "$fuzz_rows" | grep -o '`fuzz_[a-z_]*\.c`' | tr -d '`' | sort -u); do
	[ -f "$ROOT/tests/fuzz/$f" ] || { echo "tests/README.md names tests/fuzz/$f, which is not in the tree" >&2; bad=1; }
done
[ $bad -eq 0 ] || fail "tests/README.md does not match the tests in the tree"
note "$(echo "$unit_have" | wc -l) unit test files, $(echo "$e2e_have" | wc -l) e2e tests, $(echo "$fuzz_have" | wc -l) fuzz targets listed"
exit 0
