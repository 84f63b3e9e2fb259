#!/bin/bash
# bench-verify.sh — the cost of replay --verify (issue 17): the bench
# trace of bench-replay.sh (N_AFAP 4 KiB I/Os, 70% reads, random over
# 1 GiB) replayed as fast as possible at depth 32 on a RAM-backed loop
# device, without and with --verify, ROUNDS rounds interleaved; wall time
# of the whole command (with --verify: the capture's start and stop and
# the comparison included) and the replay's own duration, median of the
# rounds, and what --verify found. Needs root and BPF.
# the build of this checkout unless BLKPEAK says otherwise (lib.sh's own
# default is for scripts in tests/e2e)
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_bpf
N=${N_AFAP:-1000000}
ROUNDS=${ROUNDS:-3}
L=$(make_loop 1G bench)
echo "device $L (RAM-backed loop, direct I/O); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BLKPEAK" generate -o "$E2E_TMP/afap.bpt" --count "$N" --read-pct 70 --bs 4k --span 1g \
	--queue-depth 32 -q || fail "generate"
now() { date +%s.%N; }
# dur FILE: the replay's duration_ns from its --json
dur() { grep -o '"duration_ns":[0-9]*' "$1" | head -1 | cut -d: -f2; }
for r in $(seq "$ROUNDS"); do
	for v in "" --verify; do
		t0=$(now)
		"$BLKPEAK" replay "$E2E_TMP/afap.bpt" --target "$L" --allow-write --timing afap \
			--queue-depth 32 --json $v > "$E2E_TMP/out.json" || fail "replay $v"
		t1=$(now)
		echo "${v:-plain} $(echo "$t1 - $t0" | bc) $(dur "$E2E_TMP/out.json")" >> "$E2E_TMP/times"
		[ -z "$v" ] || sed 's/.*"verify"://' "$E2E_TMP/out.json" > "$E2E_TMP/verify.$r"
	done
done
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
PW=$(awk '$1 == "plain" { print $2 }' "$E2E_TMP/times" | med)
VW=$(awk '$1 == "--verify" { print $2 }' "$E2E_TMP/times" | med)
PD=$(awk '$1 == "plain" { print $3 / 1e9 }' "$E2E_TMP/times" | med)
VD=$(awk '$1 == "--verify" { print $3 / 1e9 }' "$E2E_TMP/times" | med)
cat "$E2E_TMP/times"
printf 'afap depth 32, %d I/Os, median of %d: command wall %.2f s plain, %.2f s --verify (x%.2f); replay duration %.3f s plain, %.3f s --verify (x%.3f)\n' \
	"$N" "$ROUNDS" "$PW" "$VW" "$(echo "$VW / $PW" | bc -l)" "$PD" "$VD" "$(echo "$VD / $PD" | bc -l)"
echo "verify, last round: $(cat "$E2E_TMP/verify.$ROUNDS")"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
