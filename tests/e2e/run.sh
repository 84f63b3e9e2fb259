#!/bin/bash
# run.sh — run the end-to-end tests one after another and total them.
# A test exits 0 (pass), 77 (skip, printing why) or anything else (fail).
# Under CI=true a skip counts as a failure: CI has root and BPF, so a
# skip there means a broken prerequisite, not a missing one.
# Usage: tests/e2e/run.sh [PATTERN]   (PATTERN filters test file names)
cd "$(dirname "$0")" || exit 1
pass=0 failn=0 skipn=0 failed=""
for t in [0-9][0-9]-*.sh; do
	case "$t" in *${1:-}*) ;; *) continue ;; esac
	start=$(date +%s)
	out=$(timeout 300 bash "$t" 2>&1)
	rc=$?
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
