#!/bin/bash
# replay --conflicts keep|order|drop: I/Os that overlap an earlier I/O in
# flight with them in the recording are counted as an independent count
# from `dump` of the trace finds them (keep, drop, order: the same
# count); drop leaves exactly those out of the run file; order (causal
# timing) issues each of them only after the I/Os it overlaps have
# completed in the replay. The rule is in the run's meta, refusals named.
. "$(dirname "$0")/lib.sh"
need_cmd python3
T=$E2E_TMP
# 8 I/Os in flight at a time over 1 MiB: many overlap
"$BLKPEAK" generate -o "$T/t.bpt" --count 3000 --iops 20000 --queue-depth 8 --span 1m \
	--latency 1ms --read-pct 50 -q || fail "generate"
"$BLKPEAK" dump -f csv "$T/t.bpt" > "$T/t.csv" || fail "dump"
truncate -s 64M "$T/target.img"
for rule in keep drop; do
	"$BLKPEAK" replay "$T/t.bpt" --target "$T/target.img" --engine null --conflicts $rule \
		--json -o "$T/$rule.bpt" > "$T/$rule.json" || fail "replay --conflicts $rule"
	"$BLKPEAK" dump -f csv "$T/$rule.bpt" > "$T/$rule.csv" || fail "dump $rule"
done
"$BLKPEAK" replay "$T/t.bpt" --target "$T/target.img" --engine null --conflicts order \
	--timing causal --json -o "$T/order.bpt" > "$T/order.json" || fail "replay --conflicts order"
"$BLKPEAK" dump -f csv "$T/order.bpt" > "$T/order.csv" || fail "dump order"
python3 - "$T" <<'PY' || fail "conflicts"
import csv, json, sys
T = sys.argv[1]
ns = lambda s: round(float(s) * 1000)
rows = list(csv.DictReader(open(f"{T}/t.csv")))
ios = []
for i, r in enumerate(rows):
    t, c = ns(r["issue_us"]), ns(r["complete_us"])
    off = int(r["sector"]) * 512
    ios.append((t, i, max(c, t), off, off + int(r["bytes"]), r["op"]))
ios.sort()
conflict = {}  # later index -> the earlier indexes it overlaps
for k, (t, i, done, a, b, op) in enumerate(ios):
    if op == "flush" or a == b:
        continue
    for (t2, j, done2, a2, b2, op2) in ios[:k]:
        if op2 != "flush" and a2 != b2 and done2 > t and a2 < b and a < b2:
            conflict.setdefault(i, []).append(j)
n = len(conflict)
assert n > 50, f"only {n} conflicts: a test that cannot fail"
for rule in ("keep", "drop", "order"):
    j = json.load(open(f"{T}/{rule}.json"))
    assert j["conflicts"] == n, f"{rule}: {j['conflicts']} conflicts, independent count {n}"
    assert j["conflicts_rule"] == rule
src = lambda rule: {int(r["source"]): r for r in csv.DictReader(open(f"{T}/{rule}.csv"))}
kept = src("drop")
assert set(kept) == set(range(len(rows))) - set(conflict), "drop left out other I/Os"
assert json.load(open(f"{T}/drop.json"))["ios"] == len(rows) - n
run = src("order")
assert len(run) == len(rows)
for i, earlier in conflict.items():
    for j in earlier:
        if ns(run[i]["issue_us"]) < ns(run[j]["complete_us"]):
            sys.exit(f"order: I/O {i} issued at {run[i]['issue_us']} us, before I/O {j} "
                     f"it overlaps completed ({run[j]['complete_us']} us)")
print(f"{n} conflicts of {len(rows)} I/Os")
PY
"$BLKPEAK" info "$T/drop.bpt" | grep -q "meta: *conflicts=drop" || fail "no conflicts meta"
"$BLKPEAK" replay "$T/t.bpt" --target "$T/target.img" --engine null --conflicts order \
	2> "$T/err" > /dev/null && fail "order without causal timing accepted"
grep -q -- "--conflicts order: needs --timing causal" "$T/err" || fail "message: $(cat "$T/err")"
"$BLKPEAK" replay "$T/t.bpt" --target "$T/target.img" --engine null --conflicts later \
	2> "$T/err" > /dev/null && fail "--conflicts later accepted"
grep -q -- "--conflicts: 'later': not keep, order or drop" "$T/err" || fail "message: $(cat "$T/err")"
note "conflicts counted as independently, dropped and ordered"
exit 0
