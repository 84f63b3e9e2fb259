#!/bin/bash
# The dispatcher: --help, --version, unknown command and exit codes.
. "$(dirname "$0")/lib.sh"

"$BLKPEAK" --help | grep -q '^  capture' || fail "--help lists no commands"
"$BLKPEAK" --version | grep -q '^blkpeak [0-9]' || fail "--version"
"$BLKPEAK" frobnicate 2>"$E2E_TMP/err"; rc=$?
[ $rc -eq 2 ] || fail "unknown command exits $rc, want 2"
grep -q "'frobnicate' is not a blkpeak command" "$E2E_TMP/err" || fail "unknown command message"
"$BLKPEAK" 2>/dev/null; [ $? -eq 2 ] || fail "no command should exit 2"
exit 0
