#!/bin/bash
# generate -> info -> dump round trip: the fileserver preset at a million
# I/Os (fast, --verify passes), the records' invariants seen through the
# CSV and JSON dumps, --start/--end windows, and seed determinism.
. "$(dirname "$0")/lib.sh"
need_cmd python3
T=$E2E_TMP

# The issue's acceptance line, timed in CPU time (user + system of both
# commands), which other processes on the machine barely change; wall
# time is printed only.
start=$(date +%s%N)
cpu0=$(awk '{ print $16 + $17 }' /proc/$$/stat)
"$BLKPEAK" generate --pattern fileserver --count 1000000 -o "$T/f.bpt" >"$T/gen.out" ||
	fail "generate fileserver"
"$BLKPEAK" info "$T/f.bpt" --verify >"$T/info.txt" || fail "info --verify on a fresh file"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cpu_ms=$(( ($(awk '{ print $16 + $17 }' /proc/$$/stat) - cpu0) * 1000 / $(getconf CLK_TCK) ))
note "generate 1M + info --verify: ${cpu_ms} ms CPU, ${ms} ms wall"
[ "$cpu_ms" -lt 20000 ] || fail "generate + info --verify took ${cpu_ms} ms of CPU"
grep -q "^records: *1000000 in" "$T/info.txt" || fail "info record count: $(grep records "$T/info.txt")"
grep -q "^status: *complete" "$T/info.txt" || fail "info status"
grep -q "^verified:" "$T/info.txt" || fail "info --verify line"
grep -q "1000000 I/Os" "$T/gen.out" || fail "generate summary line: $(cat "$T/gen.out")"

# --json: one object whose totals match the preset.
"$BLKPEAK" info --json "$T/f.bpt" >"$T/info.json" || fail "info --json"
python3 - "$T/info.json" <<'PY' || fail "info --json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "generate", d["kind"]
assert d["ios"] == 1000000
assert d["complete"] is True and d["truncated"] is False
assert d["verified"] is None
ops = d["mix"]
n = ops["read"]["ios"] + ops["write"]["ios"]
assert n == 1000000, n
share = ops["read"]["ios"] / n
assert abs(share - 0.80) < 0.005, share
assert d["devices"][0]["name"] == "gen0" and d["devices"][0]["ios"] == 1000000
assert d["meta"]["generator"].startswith("pattern=fileserver ")
assert d["bytes_per_io"] > 0 and abs(d["bytes_per_io"] * 1e6 - d["file_bytes"]) < 1e3
PY

# A small trace through every dump format.
"$BLKPEAK" generate --pattern database --count 2000 --iops 1000 --span 64m \
	--queue-depth 4 --seed 9 -q -o "$T/d.bpt" || fail "generate database"
"$BLKPEAK" dump "$T/d.bpt" >"$T/d.txt" || fail "dump text"
[ "$(grep -vc '^#' "$T/d.txt")" -eq 2000 ] || fail "dump text: $(wc -l <"$T/d.txt") lines"
"$BLKPEAK" dump --format csv "$T/d.bpt" >"$T/d.csv" || fail "dump csv"
"$BLKPEAK" dump -f json "$T/d.bpt" >"$T/d.json" || fail "dump json"
python3 - "$T/d.csv" "$T/d.json" <<'PY' || fail "dump csv/json content"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
head, rows = rows[0], rows[1:]
assert head[:3] == ["queue_us", "issue_us", "complete_us"], head
assert len(head) == 14, head
assert len(rows) == 2000, len(rows)
assert all(len(r) == len(head) for r in rows)
js = json.load(open(sys.argv[2]))
assert len(js) == 2000
reads = 0
for r, j in zip(rows, js):
    rec = dict(zip(head, r))
    q, i, c = float(rec["queue_us"]), float(rec["issue_us"]), float(rec["complete_us"])
    assert q <= i <= c, rec
    assert int(rec["bytes"]) == 8192 and int(rec["sector"]) % 16 == 0, rec
    assert int(rec["sector"]) * 512 + 8192 <= 64 << 20, rec
    assert rec["dev"] == "gen0" and rec["comm"] == "blkpeak-gen", rec
    assert abs(float(rec["service_us"]) - (c - i)) < 0.002, rec
    assert j["sector"] == int(rec["sector"]) and j["op"] == rec["op"], (j, rec)
    assert abs(j["issue_us"] - i) < 1e-6
    reads += rec["op"] == "read"
assert 0.60 < reads / 2000 < 0.74, reads
PY

# --start/--end: 1000 IOPS fixed, no queueing: I/O k is issued at k ms.
"$BLKPEAK" generate --count 5000 --iops 1000 -q -o "$T/w.bpt" || fail "generate w"
"$BLKPEAK" dump --start 1500ms --end 1.6s --format csv "$T/w.bpt" >"$T/w.csv" || fail "dump window"
python3 - "$T/w.csv" <<'PY' || fail "window content"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 100, len(rows)
assert float(rows[0]["issue_us"]) == 1500000.0, rows[0]
assert float(rows[-1]["issue_us"]) == 1599000.0, rows[-1]
PY
[ "$("$BLKPEAK" dump --start 4999ms "$T/w.bpt" | grep -vc '^#')" -eq 1 ] || fail "--start at the last I/O"
[ "$("$BLKPEAK" dump --start 1h "$T/w.bpt" | grep -vc '^#')" -eq 0 ] || fail "--start past the end"
"$BLKPEAK" dump --end 3ms -f json "$T/w.bpt" | python3 -c 'import json,sys; assert len(json.load(sys.stdin)) == 3' ||
	fail "--end 3ms"

# --offset, --span and --device-size bound the sectors and fill the device table.
"$BLKPEAK" generate --bs 64k --offset 1m --span 8m --device-size 1g --count 5000 \
	--device-name vdz -q -o "$T/o.bpt" || fail "generate --offset"
"$BLKPEAK" info --json "$T/o.bpt" | python3 -c '
import json, sys
d = json.load(sys.stdin)["devices"][0]
assert d["name"] == "vdz" and d["size_bytes"] == 1 << 30, d' || fail "device table"
"$BLKPEAK" dump -f csv "$T/o.bpt" | python3 -c '
import csv, sys
s = [int(r["sector"]) for r in csv.DictReader(sys.stdin)]
assert len(s) == 5000
assert min(s) == 2048 and max(s) * 512 + 65536 == (9 << 20), (min(s), max(s))
assert all(x % 128 == 0 for x in s)' || fail "--offset/--span bounds"

# Same seed, same records; another seed, other records.
gen_seed() { # SEED NAME
	"$BLKPEAK" generate --pattern webserver --count 3000 --iops 5000 --arrival poisson \
		--queue-depth 8 --seed "$1" -q -o "$T/$2.bpt" || fail "generate seed $1"
	"$BLKPEAK" dump -f csv "$T/$2.bpt" >"$T/$2.csv" || fail "dump seed $1"
}
gen_seed 5 a; gen_seed 5 b; gen_seed 6 c
cmp -s "$T/a.csv" "$T/b.csv" || fail "same seed gave other records"
cmp -s "$T/a.csv" "$T/c.csv" && fail "another seed gave the same records"
exit 0
