#!/bin/bash
# suite record --force, interrupted (Ctrl-C) before its capture placed a
# new trace: the recording it was to replace stays as it was (it was
# deleted); a record interrupted without an older one leaves no file.
# A recipe of the test's own whose set-up waits, so no BPF and no device.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd setsid cmp
T=$E2E_TMP
S=$T/suite
mkdir -p "$S"
cat >"$T/slow" <<SH
#!/bin/sh
# --workdir W --phase P --quiet: the set-up says it started, then waits
[ "\$4" = setup ] && { : >"$T/started"; sleep 30; }
exit 0
SH
chmod +x "$T/slow"
"$BLKPEAK" generate -q --count 20 -o "$S/slow.bpt" || fail "generate"
cp "$S/slow.bpt" "$T/orig.bpt"

interrupt() {  # suite record ARGS..., cut in its set-up
	rm -f "$T/started"
	setsid "$BLKPEAK" suite record "$S" "$T/slow" "$@" >"$T/out" 2>"$T/err" &
	local pid=$!
	for _ in $(seq 200); do [ -e "$T/started" ] && break; sleep 0.05; done
	[ -e "$T/started" ] || fail "the set-up did not start: $(cat "$T/out" "$T/err")"
	kill -INT -- "-$pid" 2>/dev/null
	wait "$pid" && fail "an interrupted record exited 0"
	grep -q "interrupted at" "$T/err" || fail "interrupted: $(cat "$T/out" "$T/err")"
}

interrupt --force
[ -f "$S/slow.bpt" ] || fail "an interrupted 'suite record --force' deleted the recording it was to replace"
cmp -s "$S/slow.bpt" "$T/orig.bpt" || fail "the older recording changed"
rm "$S/slow.bpt"
interrupt
[ ! -e "$S/slow.bpt" ] || fail "an interrupted record left a trace"
note "an interrupted record keeps the older recording, leaves none of its own"
exit 0
