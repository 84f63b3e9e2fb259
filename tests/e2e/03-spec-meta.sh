#!/bin/bash
# Every header meta key that `generate` and `replay` write is listed in
# the "Meta keys" table of schemas/trace-format.md, so the spec cannot
# fall behind the writers. Replays use the null engine on a regular file:
# no root, no device.
. "$(dirname "$0")/lib.sh"
need_cmd python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$E2E_TMP

"$BLKPEAK" generate -o "$T/g.bpt" --count 200 --read-pct 50 --span 8m -q || fail "generate"
"$BLKPEAK" replay "$T/g.bpt" --target "$T/t.img" --create 4m --fit wrap --offset 4096 \
	--writes as-reads --engine null --timing causal --no-idle --label "my run" -o "$T/r1.bpt" >/dev/null ||
	fail "replay with every optional meta"
"$BLKPEAK" replay "$T/g.bpt" --map gen0="$T/t.img" --fit scale --engine null --timing afap \
	-o "$T/r2.bpt" >/dev/null || fail "replay with --map"
# --repeat: one run file per repeat, RUN.K.bpt, each with repeat=K/N
"$BLKPEAK" replay "$T/g.bpt" --target "$T/t.img" --fit wrap --writes skip --engine null --timing afap \
	--repeat 2 -o "$T/r3.bpt" >/dev/null 2>"$T/r3.err" || fail "replay --repeat 2"
[ -f "$T/r3.1.bpt" ] && [ -f "$T/r3.2.bpt" ] && [ ! -e "$T/r3.bpt" ] || fail "--repeat 2: $(ls "$T")"
grep -q "^replay: repeat 2 of 2: $T/r3.2.bpt$" "$T/r3.err" || fail "--repeat: $(cat "$T/r3.err")"
mv "$T/r3.2.bpt" "$T/r3.bpt"

for f in g r1 r2 r3; do
	"$BLKPEAK" info --json "$T/$f.bpt" > "$T/$f.json" || fail "info --json $f.bpt"
done
python3 - "$ROOT/schemas/trace-format.md" "$T"/g.json "$T"/r1.json "$T"/r2.json "$T"/r3.json <<'PY' || fail "meta keys missing from the spec"
import json, re, sys
spec = open(sys.argv[1]).read()
table = spec.split("## Meta keys", 1)[1].split("\n## ", 1)[0]
listed = set()
for line in table.splitlines():
    if line.startswith("| `"):
        listed.update(re.findall(r"`([a-z_.*]+)`", line.split("|")[1]))
assert {"source", "generator", "no_idle"} <= listed, f"table not parsed: {sorted(listed)}"
missing = []
for path in sys.argv[2:]:
    for key in json.load(open(path))["meta"]:
        if key not in listed:
            missing.append(f"{path}: {key}")
if missing:
    print("not in the spec's Meta keys table:", *missing, sep="\n  ")
    sys.exit(1)
PY
# and the run files carry what the spec says they do
python3 - "$T"/r1.json "$T"/r2.json "$T"/r3.json <<'PY' || fail "run meta values"
import json, sys
r1 = json.load(open(sys.argv[1]))["meta"]
r2 = json.load(open(sys.argv[2]))["meta"]
r3 = json.load(open(sys.argv[3]))["meta"]
assert r1["label"] == "my run" and "repeat" not in r1 and "label" not in r2, (r1, r2)
assert r3["repeat"] == "2/2", r3
assert r1["writes"] == "as-reads" and r1["fit"] == "wrap" and r1["offset"] == "4096", r1
assert r1["create"] == str(4 << 20) and r1["no_idle"] == "1" and r1["engine"] == "null", r1
assert len(r1["source.digest"]) == 16 and r1["timing"] == "causal", r1
assert r2["target"].startswith("gen0=") and r2["fit"] == "scale" and "writes" not in r2, r2
PY
exit 0
