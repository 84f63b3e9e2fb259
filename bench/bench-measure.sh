#!/bin/bash
# bench-measure.sh — blkpeak measure qd-sweep against fio running the same
# access spec (issue 15): 4 KiB random reads over a 1 GiB RAM-backed loop
# device (direct I/O), libaio, at each depth of DEPTHS; one fio job per
# depth (--rw=randread --bs=4k --iodepth=D --norandommap --number_ios=N),
# one blkpeak measure per depth (--pattern random --depths D --ios N
# --warmup N/10), the two interleaved in each of ROUNDS rounds. Per depth:
# the median IOPS of each and their ratio, and the CPU time (user + sys of
# the whole command and its children: measure's generate and replay
# children, fio's job) per I/O done. The machine is shared: compare the
# ratios of one run, not the absolute figures.
#
# Needs root. N (default 200000), ROUNDS (default 3) and DEPTHS (default
# "1 4 16 64") can be set.
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd fio python3 /usr/bin/time
N=${N:-200000}
ROUNDS=${ROUNDS:-3}
DEPTHS=${DEPTHS:-1 4 16 64}
W=$E2E_TMP
L=$(make_loop 1G bench)
dd if=/dev/zero of="$L" bs=1M count=1024 oflag=direct status=none || fail "fill $L"
echo "device $L (RAM-backed loop, direct I/O); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "4 KiB random reads, $N I/Os per run, $ROUNDS rounds, medians"
printf '%6s %12s %12s %8s %14s %14s %8s\n' depth "blkpeak IOPS" "fio IOPS" ratio \
	"blkpeak CPU/IO" "fio CPU/IO" ratio
for d in $DEPTHS; do
	: > "$W/b.$d"
	: > "$W/f.$d"
	for ((r = 0; r < ROUNDS; r++)); do
		/usr/bin/time -o "$W/t" -f '%U %S' "$BLKPEAK" measure qd-sweep --target "$L" \
			--pattern random --depths "$d" --ios "$N" --warmup $((N / 10)) --no-store --json \
			> "$W/b.json" || fail "blkpeak measure at depth $d"
		python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; u,s=open(sys.argv[2]).read().split()[-2:]; print(p["ios_per_s"], (float(u)+float(s))/(p["ios"]*1.1))' \
			"$W/b.json" "$W/t" >> "$W/b.$d"
		/usr/bin/time -o "$W/t" -f '%U %S' fio --name=m --filename="$L" --direct=1 \
			--ioengine=libaio --rw=randread --bs=4k --iodepth="$d" --norandommap \
			--randrepeat=0 --number_ios="$N" --size=1g --output-format=json \
			> "$W/f.json" 2>/dev/null || fail "fio at depth $d"
		python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]["read"]; u,s=open(sys.argv[2]).read().split()[-2:]; print(j["iops"], (float(u)+float(s))/j["total_ios"])' \
			"$W/f.json" "$W/t" >> "$W/f.$d"
	done
	python3 - "$W/b.$d" "$W/f.$d" "$d" <<'PY'
import statistics, sys
def med(path):
    rows = [list(map(float, l.split())) for l in open(path)]
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
bi, bc = med(sys.argv[1])
fi, fc = med(sys.argv[2])
print(f"{sys.argv[3]:>6} {bi:12.0f} {fi:12.0f} {bi / fi:8.3f} {bc * 1e6:11.2f} us {fc * 1e6:11.2f} us {bc / fc:8.3f}")
PY
done
