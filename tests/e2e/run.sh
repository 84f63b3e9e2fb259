#!/bin/bash
# run.sh — run the end-to-end tests one after another and total them.
# A test exits 0 (pass), 77 (skip, printing why) or anything else (fail).
# Under CI=true a skip counts as a failure: CI has root and BPF, so a
# skip there means a broken prerequisite, not a missing one.
# Usage: tests/e2e/run.sh [PATTERN]   (PATTERN filters test file names)
# A test gets 300 s, or what a "# e2e-timeout: SECONDS" line in it says.
cd "$(dirname "$0")" || exit 1
pass=0 failn=0 skipn=0 failed=""

# Loop devices left behind: backed by a blkpeak test file
# ("/dev/shm/blkpeak-...") that is already deleted, i.e. its test removed
# its folder but not the device. A test must detach all it attached; one
# that appears during a test (given a second for a lazy detach to finish)
# fails that test and is detached here, so one leak does not pile up over
# runs. Devices of tests still running elsewhere (another checkout) still
# have their files and are not counted. A lazy detach (the device was
# still open, e.g. by udev's probe) finishes when the last user closes
# it, which a loaded machine can delay: up to 10 s are allowed.
test_loops() {
	losetup -n -O NAME,BACK-FILE 2>/dev/null |
		awk '$2 ~ /blkpeak-/ && / \(deleted\)$/ {print $1}' | sort
}
# Files a test leaves in the source tree (a database or trace written to
# the working folder instead of the test's temporary one): the untracked
# files git sees, before and after each test, when this is a git checkout.
tree_files() {
	git -C ../.. ls-files --others --exclude-standard 2>/dev/null | sort
}
for t in [0-9][0-9]-*.sh; do
	case "$t" in *${1:-}*) ;; *) continue ;; esac
	start=$(date +%s)
	before=$(test_loops)
	tree_before=$(tree_files)
	limit=$(sed -n 's/^# e2e-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -1)
	out=$(timeout "${limit:-300}" bash "$t" 2>&1)
	rc=$?
	left=$(comm -13 <(echo "$before") <(test_loops))
	for _ in $(seq 50); do
		[ -n "$left" ] || break
		sleep 0.2
		left=$(comm -13 <(echo "$before") <(test_loops))
	done
	if [ -n "$left" ]; then
		out="$out
left loop devices attached: $(losetup -n -O NAME,BACK-FILE $left | tr '\n' ' ')"
		[ $rc -eq 0 ] && rc=1
		for d in $left; do losetup -d "$d"; done
	fi
	litter=$(comm -13 <(echo "$tree_before") <(tree_files))
	if [ -n "$litter" ]; then
		out="$out
left files in the source tree: $(echo "$litter" | tr '\n' ' ')"
		[ $rc -eq 0 ] && rc=1
	fi
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "ok    $t (${secs}s)"
	elif [ $rc -eq 77 ] && [ "${CI:-}" != "true" ]; then
		skipn=$((skipn + 1)); echo "skip  $t: $(echo "$out" | grep '^SKIP' | tail -1)"
	else
		failn=$((failn + 1)); failed="$failed $t"
		echo "FAIL  $t (exit $rc, ${secs}s)"; echo "$out" | tail -30 | sed 's/^/      /'
	fi
done
echo "e2e: $pass passed, $failn failed, $skipn skipped"
[ $failn -eq 0 ]
