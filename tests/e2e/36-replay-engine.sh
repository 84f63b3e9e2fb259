#!/bin/bash
# The engine without --engine is libaio (measured the faster here,
# bench/RESULTS.md), with no warning; the run file names the engine used.
# io_uring is made unusable for one process by a seccomp filter
# (replay_noring.c) answering io_uring_setup with EPERM
# (kernel.io_uring_disabled and container filters say that) or ENOSYS
# (no io_uring in the kernel): the default still replays on libaio; an
# explicit --engine io_uring is refused before any I/O (exit 1); an
# unknown engine is a usage error naming the engines; replay --list prints
# the same table of engines.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd cc
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cc -O1 -o "$E2E_TMP/noring" "$ROOT/tests/e2e/replay_noring.c" || fail "cannot build replay_noring"
"$BLKPEAK" generate -o "$E2E_TMP/t.bpt" --count 2000 --read-pct 70 --bs 4k --span 8m -q || fail "generate"
L=$(make_loop 8M)
engine_of() { "$BLKPEAK" info "$1" | sed -n 's/.*engine=\([a-z_]*\).*/\1/p'; }

# the default on this machine
"$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$L" --allow-write --timing afap \
	-o "$E2E_TMP/def.bpt" > /dev/null 2> "$E2E_TMP/err" || fail "default replay: $(cat "$E2E_TMP/err")"
[ "$(engine_of "$E2E_TMP/def.bpt")" = libaio ] || fail "default engine: $(engine_of "$E2E_TMP/def.bpt")"
[ ! -s "$E2E_TMP/err" ] || fail "default replay warned: $(cat "$E2E_TMP/err")"

for err in 1:"Operation not permitted" 38:"Function not implemented"; do
	num=${err%%:*} text=${err#*:}
	"$E2E_TMP/noring" "$num" "$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$L" --allow-write \
		--timing afap -o "$E2E_TMP/fb$num.bpt" > "$E2E_TMP/out" 2> "$E2E_TMP/err" ||
		fail "fallback ($text) failed: $(cat "$E2E_TMP/err")"
	[ "$(engine_of "$E2E_TMP/fb$num.bpt")" = libaio ] || fail "fallback ($text): $(engine_of "$E2E_TMP/fb$num.bpt")"
	grep -q "I/Os        2000 of 2000, 0 errors" "$E2E_TMP/out" || fail "fallback ($text): $(cat "$E2E_TMP/out")"
	[ ! -s "$E2E_TMP/err" ] || fail "default under the filter ($text) warned: $(cat "$E2E_TMP/err")"
	"$E2E_TMP/noring" "$num" "$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$L" --allow-write \
		--timing afap --engine io_uring -o "$E2E_TMP/x$num.bpt" > "$E2E_TMP/out" 2> "$E2E_TMP/err"
	rc=$?
	[ $rc -eq 1 ] || fail "--engine io_uring without io_uring ($text): exit $rc"
	grep -q "replay: --engine io_uring: $text (io_uring is disabled by kernel.io_uring_disabled" \
		"$E2E_TMP/err" || fail "--engine io_uring ($text) message: $(cat "$E2E_TMP/err")"
	[ ! -e "$E2E_TMP/x$num.bpt" ] || fail "a run file was written although nothing ran"
	# libaio asked for by name is not touched by the filter
	"$E2E_TMP/noring" "$num" "$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$L" --allow-write \
		--timing afap --engine libaio > /dev/null 2> "$E2E_TMP/err" || fail "--engine libaio: $(cat "$E2E_TMP/err")"
	[ ! -s "$E2E_TMP/err" ] || fail "--engine libaio warned: $(cat "$E2E_TMP/err")"
done

"$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$L" --allow-write --engine uring > /dev/null 2> "$E2E_TMP/err"
rc=$?
[ $rc -eq 2 ] || fail "unknown engine: exit $rc"
grep -q "unknown engine (io_uring, libaio, null)" "$E2E_TMP/err" || fail "message: $(cat "$E2E_TMP/err")"
# replay --list prints the same table, each engine with a line on it
"$BLKPEAK" replay --list > "$E2E_TMP/list" || fail "replay --list failed"
[ "$(awk '/^engines/ { e = 1; next } /^[^ ]/ { e = 0 } e && NF > 1 { print $1 }' "$E2E_TMP/list" | tr '\n' ' ')" = \
	"io_uring libaio null " ] || fail "replay --list engines: $(cat "$E2E_TMP/list")"
"$BLKPEAK" replay --list "$E2E_TMP/t.bpt" > /dev/null 2>&1
[ $? -eq 2 ] || fail "replay --list with a trace was not a usage error"
note "default $(engine_of "$E2E_TMP/def.bpt"); --engine io_uring refused when io_uring_setup says EPERM or ENOSYS"
exit 0
