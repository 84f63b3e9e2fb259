#!/bin/bash
# The main job (`make demo`, scripts/demo.sh) runs through and shows a
# verified trace.
. "$(dirname "$0")/lib.sh"
DEMO_DIR=$E2E_TMP/demo BLKPEAK=$BLKPEAK "$(dirname "$0")/../../scripts/demo.sh" >"$E2E_TMP/out" 2>&1 ||
	fail "demo.sh failed: $(tail -5 "$E2E_TMP/out")"
grep -q "^verified: *every block checksum" "$E2E_TMP/out" || fail "demo shows no verified trace"
[ -s "$E2E_TMP/demo/fileserver.csv" ] || fail "demo wrote no CSV"
exit 0
