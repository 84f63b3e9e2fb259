#!/bin/bash
# replay --loop 3 --loop-offset of a trace that writes, on a loop device
# under the kernel's blk tracer: every write and read of every pass lands
# exactly where the offsets say (recorded sector + pass x offset, with
# --shift and --spread applied first), in the order of the passes, each
# pass starting no sooner than the previous one's recorded span; nothing
# else reaches the device but the warm-up read.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd blkparse cc python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cc_libbpt "$E2E_TMP/mktrace" "$ROOT/tests/e2e/replay_mktrace.c" || fail "cannot build replay_mktrace (run make first)"

# dev issue_us complete_us sector bytes op flags
"$E2E_TMP/mktrace" "$E2E_TMP/t.bpt" <<'T' || fail "mktrace"
0 0 100 64 4096 write S
0 300 400 2048 8192 read -
0 600 700 4096 4096 write -
0 900 1000 520 16384 write S
0 1200 1300 8 4096 read -
T
A=$(make_loop 64M a)
blktrace_start "$A" "$E2E_TMP/bt.bin"
"$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$A" --allow-write --loop 3 --loop-offset 8m \
	--shift 1m --spread 2 -o "$E2E_TMP/run.bpt" > "$E2E_TMP/out" 2>&1 ||
	{ cat "$E2E_TMP/out"; fail "replay"; }
blktrace_stop
blkparse -i - -f "%T.%t %a %d %S %n\n" < "$E2E_TMP/bt.bin" |
	awk '$2 == "Q" { print $1, $3, $4, $5 }' > "$E2E_TMP/got"
python3 - "$E2E_TMP/got" <<'PY' || fail "placement"
import sys
# (O_DIRECT writes reach the block layer as WS, synchronous)
rec = [(64, 8, "WS"), (2048, 16, "R"), (4096, 8, "WS"), (520, 32, "WS"), (8, 8, "R")]
shift, spread, loop_off = 2048, 2, 8 << 11  # sectors
want = [("R", 0, 8)]  # the warm-up read
for p in range(3):
    for s, n, op in rec:
        want.append((op, s * spread + shift + p * loop_off, n))
got = []
for line in open(sys.argv[1]):
    t, op, s, n = line.split()
    got.append((float(t), op, int(s), int(n)))
got.sort()
seen = [(op, s, n) for _, op, s, n in got]
if seen != want:
    sys.exit(f"the device saw\n  {seen}\nwant\n  {want}")
print(f"{len(seen)} I/Os where the offsets say")
PY
"$BLKPEAK" info "$E2E_TMP/run.bpt" | grep -q "transform=loop=3 loop-offset=8m shift=1m spread=2" ||
	fail "run meta: $("$BLKPEAK" info "$E2E_TMP/run.bpt" | grep transform)"
grep -q "I/Os        15 of 15" "$E2E_TMP/out" || fail "summary: $(cat "$E2E_TMP/out")"
# due times: the recorded issue times (0, 300, 600, 900, 1200 us) plus
# pass x the span (last completion - first issue: 1300 us)
"$BLKPEAK" dump -f csv "$E2E_TMP/run.bpt" | python3 -c '
import csv, sys
got = sorted(float(r["sched_us"]) for r in csv.DictReader(sys.stdin))
want = sorted(t + p * 1300.0 for p in range(3) for t in (0, 300, 600, 900, 1200))
sys.exit(None if got == want else f"due times {got}, want {want}")' || fail "due times"
note "3 passes of 5 I/Os, each where --shift, --spread and --loop-offset put it"
exit 0
