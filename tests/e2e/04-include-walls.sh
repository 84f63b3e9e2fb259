#!/bin/bash
# 04-include-walls.sh — the build's walls between parts hold: with the
# include paths the Makefile gives a part, a header of another part does
# not compile, while lib/ (the trace format) and common/ (the shared
# layer) do. docs/development.md "Layout": parts meet only through lib/ and common/.
. "$(dirname "$0")/lib.sh"
need_cmd cc make
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || fail "no $ROOT"

# One header that only its own part may include.
declare -A OWN=([cli]=trace_open.h [generate]=gen_model.h [capture]=capture.h
	[replay]=replay_run.h [analyze]=stats_report.h [bpf]=capture_events.h
	[measure]=figures.h [formats]=foreign.h [suite]=manifest.h [transform]=xform.h)
try() { # PART HEADER: compiles "#include HEADER" with PART's include paths
	echo "#include \"$2\"" > "$E2E_TMP/t.c"
	# shellcheck disable=SC2046
	cc -fsyntax-only -D_GNU_SOURCE $(make -s --no-print-directory print-INC_$1) "$E2E_TMP/t.c" 2>/dev/null
}
for part in common lib cli generate capture replay analyze measure formats suite transform; do
	for other in "${!OWN[@]}"; do
		[ "$other" = "$part" ] && continue
		[ "$part" = capture ] && [ "$other" = bpf ] && continue  # capture loads the BPF side
		# transform/ is a layer replay and formats (convert) share
		if [ "$other" = transform ] && { [ "$part" = replay ] || [ "$part" = formats ]; }; then
			try "$part" xform.h || fail "$part/ cannot include transform/'s xform.h"
			continue
		fi
		if try "$part" "${OWN[$other]}"; then
			fail "$part/ can include $other/'s ${OWN[$other]}"
		fi
	done
	if [ "$part" != common ] && ! try "$part" cliutil.h; then fail "$part/ cannot include common/cliutil.h"; fi
	case $part in common|lib) ;; *) try "$part" bpt.h || fail "$part/ cannot include lib/bpt.h" ;; esac
done
# common/ sees no part, not even the trace format
try common bpt.h && fail "common/ can include lib/bpt.h"
note "walls hold for 11 parts"
exit 0
