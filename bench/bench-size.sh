#!/bin/bash
# bench-size.sh — bytes per I/O of a .bpt trace against blktrace's binary
# format, for comparable I/O (issue 2, item 7):
#   1. fio 4 KiB reads (random, then sequential) at a fixed rate on a
#      RAM-backed loop device, recorded by the kernel's ftrace blk tracer
#      in blktrace binary format (../shared/PEERS.md); blkparse counts the
#      completed I/Os; bytes per I/O = trace bytes / completions;
#   2. a .bpt from `blkpeak generate` with the same size, span, rate, I/O
#      count and the service time fio measured -> bytes per I/O;
#   3. the ratio (blktrace / bpt). Targets: <= 8 B/I/O random 4 KiB, <= 3 sequential.
# Needs root (loop device, tracefs). Takes the kernel-state lock.
# Usage: bench/bench-size.sh [SECONDS] [IOPS]   (default 4 s at 10000 IOPS)
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd fio blkparse python3
SECS=${1:-4}
RATE=${2:-10000}
SPAN=1g
W=$E2E_TMP  # (lib.sh uses T for tracefs)

dev=$(make_loop $SPAN bench)
printf '%-11s %8s %12s %9s %10s %9s %8s %9s\n' pattern I/Os blktrace_B B/I/O bpt_B B/I/O ratio fixed_B/IO
for rw in randread read; do
	blktrace_start "$dev" "$W/$rw.bin"
	fio --name=size --filename="$dev" --rw=$rw --bs=4k --size=$SPAN --direct=1 \
		--ioengine=libaio --iodepth=1 --rate_iops=$RATE --time_based \
		--runtime="$SECS" --output-format=json >"$W/$rw.json" 2>"$W/$rw.fio.err" ||
		fail "fio: $(cat "$W/$rw.fio.err")"
	blktrace_stop
	bt_bytes=$(stat -c %s "$W/$rw.bin")
	ios=$(blkparse -q -i - -f '%a\n' <"$W/$rw.bin" | grep -c '^C$')
	[ "$ios" -gt 0 ] || fail "blkparse counted no completions in $W/$rw.bin"
	lat_ns=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["jobs"][0]["read"]["clat_ns"]["mean"]))' "$W/$rw.json")
	pattern=random; [ $rw = read ] && pattern=sequential
	# Poisson arrivals stand in for fio's irregular rate limiting (its gaps
	# measured here: mean 100 us, sd 410 us); fixed spacing shows what the
	# timing entropy costs.
	for arr in poisson fixed; do
		"$BLKPEAK" generate --pattern $pattern --bs 4k --span $SPAN --count "$ios" \
			--iops "$RATE" --arrival $arr --queue-depth 1 --latency "${lat_ns}ns" \
			-q -o "$W/$rw-$arr.bpt" || fail "generate"
	done
	python3 - "$pattern" "$ios" "$bt_bytes" "$(stat -c %s "$W/$rw-poisson.bpt")" \
		"$(stat -c %s "$W/$rw-fixed.bpt")" <<'PY'
import sys
p, n, bt, bpt, fixed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print("%-11s %8d %12d %9.1f %10d %9.2f %7.0fx %9.2f" % (p, n, bt, bt / n, bpt, bpt / n, bt / bpt, fixed / n))
PY
	note "fio: mean completion latency ${lat_ns} ns -> generate --latency ${lat_ns}ns --iops $RATE"
done
