#!/bin/bash
# replay --fill random|PCT gives every write distinct data: each 4 KiB
# block's last 16 bytes are the write's number and the block's offset,
# the rest the fill. Read back from a file target after replays (afap at
# depth 32 and original timing, libaio and io_uring): no two written
# blocks are equal (a deduplicating drive stores them all), each block's
# offset is in its stamp, --fill 70 keeps the first 70% of every 4 KiB
# zero, and --fill zero writes zeros (no stamp: equal blocks, as
# docs/replay.md says).
. "$(dirname "$0")/lib.sh"
need_cmd python3
T=$E2E_TMP
"$BLKPEAK" generate -q -o "$T/w.bpt" --count 600 --read-pct 0 --bs 4k:2,16k:1,8k:1 --span 8m \
	--queue-depth 16 || fail "generate"
"$BLKPEAK" dump -f csv "$T/w.bpt" >"$T/w.csv" || fail "dump"

check() { # FILL IMAGE: the image's written blocks as --fill FILL writes them
	python3 - "$T/w.csv" "$2" "$1" <<'PY'
import csv, struct, sys
rows = list(csv.DictReader(open(sys.argv[1])))
img = open(sys.argv[2], "rb").read()
fill = sys.argv[3]
blocks = {}
for r in rows:
    off, n = int(r["sector"]) * 512, int(r["bytes"])
    for o in range(off, off + n, 4096):
        blocks[o] = img[o:o + 4096]
assert len(blocks) > 500, len(blocks)
if fill == "zero":
    assert all(b == bytes(4096) for b in blocks.values()), "--fill zero wrote other bytes"
    sys.exit(0)
seen = {}
for o, b in blocks.items():
    assert b not in seen, f"blocks at {o} and {seen.get(b)} are equal"
    seen[b] = o
    idx, boff = struct.unpack("<QQ", b[-16:])
    assert boff == o, f"block at {o} stamped with offset {boff}"
    assert idx < len(rows), (o, idx)
    if fill != "random":
        z = int(fill) * 4096 // 100
        assert b[:z] == bytes(z) and b[z:-16] != bytes(4096 - z - 16), f"block at {o}: not {fill}% zero"
    else:
        assert b[:-16].count(0) < 200, f"block at {o}: not random"
print(f"{len(blocks)} blocks, all distinct")
PY
}

n=0
for engine in libaio io_uring; do
	"$BLKPEAK" replay --list 2>/dev/null | grep -q "^  *$engine" || { note "no $engine"; continue; }
	for args in "--timing afap --queue-depth 32" "--timing original --speed 20"; do
		for fill in random 70; do
			rm -f "$T/t.img" && truncate -s 8M "$T/t.img"
			# shellcheck disable=SC2086
			"$BLKPEAK" replay "$T/w.bpt" --target "$T/t.img" --engine $engine --fill $fill $args \
				>/dev/null 2>"$T/err" || fail "replay --fill $fill $args ($engine): $(cat "$T/err")"
			check $fill "$T/t.img" >/dev/null || fail "--fill $fill $args ($engine)"
			n=$((n + 1))
		done
	done
done
[ $n -ge 4 ] || fail "only $n replays ran (no engine)"
rm -f "$T/t.img" && truncate -s 8M "$T/t.img"
dd if=/dev/urandom of="$T/t.img" bs=1M count=8 conv=notrunc status=none
"$BLKPEAK" replay "$T/w.bpt" --target "$T/t.img" --timing afap --fill zero >/dev/null 2>"$T/err" ||
	fail "replay --fill zero: $(cat "$T/err")"
check zero "$T/t.img" || fail "--fill zero"
note "$n replays: every written block distinct"
exit 0
