#!/bin/bash
# blkpeak measure knee on a loop device that the kernel's block throttling
# (scripts/throttle.sh, cgroup v2 io.max) caps at 500 read IOPS: a trace
# of random 4 KiB reads recorded at 100 IOPS meets p99 <= 50 ms until the
# replayed rate reaches the cap, so the knee is near factor 5 (blk-throttle
# delivers about 96% of its limit): found within 10%. Steps are reported
# with their IOPS and percentiles; refusals named.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd python3 lsblk sqlite3
. "$(dirname "$0")/../../scripts/throttle.sh"
thr_detect || skip "no block throttling (cgroup v2 io.max or v1 blkio)"
with_kernel_lock
T=$E2E_TMP
export BLKPEAK_DB=$T/k.db # where the search is stored
"$BLKPEAK" generate -o "$T/t.bpt" --count 1000 --iops 100 --span 32m -q || fail "generate"
"$BLKPEAK" measure knee "$T/t.bpt" --target "$T/t.bpt" 2> "$T/err" && fail "knee without --slo"
grep -q "no latency target: give --slo" "$T/err" || fail "message: $(cat "$T/err")"
"$BLKPEAK" measure knee "$T/t.bpt" --target x --slo p98=5ms 2> "$T/err" && fail "--slo p98 accepted"
grep -q -- "--slo: 'p98=5ms': not FIGURE=TIME" "$T/err" || fail "message: $(cat "$T/err")"
"$BLKPEAK" measure knee "$T/t.bpt" --target x --slo p99=5ms --from 0 2> "$T/err" && fail "--from 0"
grep -q -- "--from: '0': not a factor" "$T/err" || fail "message: $(cat "$T/err")"

a=$(make_loop 64M)
thr_create "blkpeak-e2e-knee-$$" || fail "cannot create a cgroup under $THR_ROOT"
at_exit "thr_destroy"
thr_limit "$a" 500 500 0 0 || fail "cannot limit $a"
thr_exec "$BLKPEAK" measure knee "$T/t.bpt" --target "$a" --slo p99=50ms --from 1 --max 32 \
	--precision 0.04 -o "$T/knee.json" > "$T/out" || { cat "$T/out"; fail "measure knee"; }
cat "$T/out" | sed 's/^/  /'
python3 - "$T/knee.json" <<'PY' || fail "knee"
import json, sys
d = json.load(open(sys.argv[1]))
k = d["knee_factor"]
assert k is not None and 4.5 <= k <= 5.5, f"knee at factor {k}, the cap's is 5 (within 10%)"
steps = d["points"]
for s in steps:
    s["factor"] = s["speed_factor"]
assert [s["factor"] for s in steps[:4]] == [1, 2, 4, 8], "the sweep doubles from 1"
for s in steps:
    assert s["met"] == (s["latency"]["p99_ns"] <= 50e6 and s["errors"] == 0), s
    if s["factor"] <= 4:  # below the cap: the recorded rate times the factor
        assert abs(s["ios_per_s"] - 100 * s["factor"]) < 10 * s["factor"], s
best = [s for s in steps if s["met"]]
assert max(s["factor"] for s in best) == k
assert min(s["factor"] for s in steps if not s["met"]) - k <= 0.04 * k + 1e-9
print(f"knee at factor {k:.3f} (cap: 5), {len(steps)} steps")
PY
[ "$(sqlite3 "$BLKPEAK_DB" "SELECT count(*) FROM measurements WHERE kind = 'knee' AND knee_factor = $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["knee_factor"])' "$T/knee.json")")" = 1 ] ||
	fail "the search not stored in \$BLKPEAK_DB"
exit 0
