#!/bin/bash
# run.sh — run the benchmarks: bench/run.sh [NAME...] runs bench/NAME.sh,
# all bench/bench-*.sh when no name is given. Each prints its figures and
# the ratio to its peer; copy them into bench/RESULTS.md with the command.
cd "$(dirname "$0")" || exit 1
if [ $# -eq 0 ]; then set -- $(ls bench-*.sh 2>/dev/null | sed 's/\.sh$//'); fi
rc=0
for b in "$@"; do
	echo "== $b"
	bash "./${b%.sh}.sh" || rc=1
done
exit $rc
