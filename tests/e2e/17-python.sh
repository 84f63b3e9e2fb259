#!/bin/bash
# 17-python.sh — the Python module (python/blkpeak/, docs/python.md) under
# Debian's python3 and pytest: `make python` builds it over libbpt, then
# python/tests/test_blkpeak.py reads the capture fixture, MSR and blkparse
# traces and generated ones, and compares with blkpeak info and dump.
# The output's closing line is pytest's.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
need_cmd make cc "$PY"
"$PY" -c 'import numpy, pandas, pytest' 2>/dev/null ||
	skip "needs Debian's python3-numpy, python3-pandas, python3-pytest (scripts/install-deps.sh --tests)"
[ -e /usr/include/python3.11/Python.h ] || ls /usr/include/python3*/Python.h >/dev/null 2>&1 ||
	skip "needs python3-dev (scripts/install-deps.sh --tests)"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(dirname "$BLKPEAK")
make -s -C "$ROOT" --no-print-directory python BUILD="$BUILD_DIR" PYTHON="$PY" >"$E2E_TMP/make.log" 2>&1 ||
	fail "make python failed: $(cat "$E2E_TMP/make.log")"
# no bytecode nor pytest cache in the source tree; the module as built
cd "$E2E_TMP" || fail "no $E2E_TMP"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$BUILD_DIR/python" BLKPEAK="$BLKPEAK" \
	"$PY" -m pytest -p no:cacheprovider -q --basetemp="$E2E_TMP/pytest" "$ROOT/python/tests"
