#!/bin/bash
# bench-size.sh — bytes per I/O of a .bpt trace against blktrace's binary
# format, for comparable I/O (issue 2, item 7):
#   1. fio 4 KiB reads (random, then sequential) at a fixed rate on a
#      RAM-backed loop device, recorded by the kernel's ftrace blk tracer
#      in blktrace binary format (../shared/PEERS.md); blkparse counts the
#      completed I/Os; bytes per I/O = trace bytes / completions;
#   2. the same I/Os (queue/issue/complete times, sector, size, op, pid,
#      comm from blkparse's Q, D and C events) written as a .bpt by
#      bench/bpt_from_text.c -> bytes per I/O of the real recording;
#   3. a .bpt from `blkpeak generate` with the same size, span, rate, I/O
#      count and the service time fio measured, with Poisson and with
#      fixed arrivals -> bytes per I/O;
#   4. the ratios (blktrace / bpt). Targets: <= 8 B/I/O random 4 KiB, <= 3 sequential.
# Needs root (loop device, tracefs). Takes the kernel-state lock.
# Usage: bench/bench-size.sh [SECONDS] [IOPS]   (default 4 s at 10000 IOPS)
#        bench/bench-size.sh capture [SECONDS]  (default 4 s)
# The capture form (issue 30) records fio at full speed with `blkpeak
# capture` on a RAM-backed loop device instead: 4 KiB random reads at
# QD32 (2 jobs) and QD1, 128 KiB sequential reads at QD1 and QD16, 4 KiB
# sequential at QD1; it prints bytes per I/O and where they go per
# column (build/bench/bpt_colsize). BENCH_KEEP=DIR keeps the traces.
# BENCH_KEEP=DIR keeps the recorded I/Os as text (DIR/randread.txt,
# DIR/read.txt, bpt_from_text's input) to re-code them without fio.
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
if [ "${1:-}" = capture ]; then
	need_cmd fio
	SECS=${2:-4}
	make -s -C "$(dirname "$0")/.." build/bench/bpt_colsize || fail "cannot build bpt_colsize"
	COLSIZE=$(cd "$(dirname "$0")/.." && pwd)/build/bench/bpt_colsize
	dev=$(make_loop 2g capture)
	with_kernel_lock
	for w in "rand4k-qd32 --rw=randread --bs=4k --iodepth=32 --numjobs=2 --group_reporting" \
		 "rand4k-qd1 --rw=randread --bs=4k --iodepth=1" \
		 "seq128k-qd1 --rw=read --bs=128k --iodepth=1" \
		 "seq128k-qd16 --rw=read --bs=128k --iodepth=16" \
		 "seq4k-qd1 --rw=read --bs=4k --iodepth=1"; do
		set -- $w
		tag=$1
		shift
		"$BLKPEAK" capture -q -o "$E2E_TMP/$tag.bpt" -d "$dev" -- fio --name="$tag" \
			--filename="$dev" --direct=1 --ioengine=libaio --size=1g --time_based \
			--runtime="$SECS" --randrepeat=0 "$@" >"$E2E_TMP/$tag.out" 2>&1 ||
			fail "capture $tag: $(tail -3 "$E2E_TMP/$tag.out")"
		"$COLSIZE" "$E2E_TMP/$tag.bpt" | awk '$2 + 0 >= 0.005 || !/^  [a-z]/' ||
			fail "bpt_colsize $tag"
		[ -z "${BENCH_KEEP:-}" ] || cp "$E2E_TMP/$tag.bpt" "$BENCH_KEEP/" || fail "cannot keep $tag.bpt"
	done
	exit 0
fi
need_cmd fio blkparse python3
SECS=${1:-4}
RATE=${2:-10000}
SPAN=1g
W=$E2E_TMP  # (lib.sh uses T for tracefs)

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cc_libbpt "$W/bpt_from_text" "$ROOT/bench/bpt_from_text.c" || fail "cannot build bpt_from_text (run make first)"
dev=$(make_loop $SPAN bench)
for rw in randread read; do
	blktrace_start "$dev" "$W/$rw.bin"
	fio --name=size --filename="$dev" --rw=$rw --bs=4k --size=$SPAN --direct=1 \
		--ioengine=libaio --iodepth=1 --rate_iops=$RATE --time_based \
		--runtime="$SECS" --output-format=json >"$W/$rw.json" 2>"$W/$rw.fio.err" ||
		fail "fio: $(cat "$W/$rw.fio.err")"
	blktrace_stop
	bt_bytes=$(stat -c %s "$W/$rw.bin")
	# pair each completion with its queue and issue events (by sector)
	blkparse -q -i - -f '%a %T.%9t %S %N %d %p %C\n' <"$W/$rw.bin" | python3 -c '
import sys
q, d = {}, {}
for line in sys.stdin:
    f = line.split()
    if len(f) < 7: continue
    a, t, sec = f[0], round(float(f[1]) * 1e9), f[2]
    if a == "Q": q[sec] = (t, f[5], f[6])
    elif a == "D": d[sec] = t
    elif a == "C" and sec in q and sec in d:
        qt, pid, comm = q.pop(sec)
        print(qt, d.pop(sec), t, sec, f[3], f[4], pid, comm)
' >"$W/$rw.txt"
	[ -z "${BENCH_KEEP:-}" ] || cp "$W/$rw.txt" "$BENCH_KEEP/" || fail "cannot keep $rw.txt"
	ios=$(wc -l <"$W/$rw.txt")
	[ "$ios" -gt 0 ] || fail "no completed I/Os in $W/$rw.bin"
	"$W/bpt_from_text" "$W/$rw-same.bpt" <"$W/$rw.txt" || fail "bpt_from_text"
	"$BLKPEAK" info --verify "$W/$rw-same.bpt" | grep -q "^records: *$ios in" ||
		fail "$W/$rw-same.bpt does not hold $ios records"
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
	python3 - "$pattern" "$ios" "$bt_bytes" "$(stat -c %s "$W/$rw-same.bpt")" \
		"$(stat -c %s "$W/$rw-poisson.bpt")" "$(stat -c %s "$W/$rw-fixed.bpt")" <<'PY'
import sys
p = sys.argv[1]
n, bt, same, pois, fix = (int(x) for x in sys.argv[2:])
print("%s 4 KiB reads: %d I/Os\n"
      "  blktrace format             %9d bytes %7.1f B/I/O\n"
      "  .bpt of the same I/Os       %9d bytes %7.2f B/I/O  %4.0fx smaller\n"
      "  .bpt generate, poisson      %9d bytes %7.2f B/I/O  %4.0fx smaller\n"
      "  .bpt generate, fixed rate   %9d bytes %7.2f B/I/O  %4.0fx smaller" %
      (p, n, bt, bt / n, same, same / n, bt / same, pois, pois / n, bt / pois,
       fix, fix / n, bt / fix))
PY
	python3 - "$W/$rw.txt" <<'PY'
import statistics as st, sys
rows = [list(map(int, l.split()[:3])) for l in open(sys.argv[1])]
qs = sorted(r[0] for r in rows)
gaps = [(b - a) / 1e3 for a, b in zip(qs, qs[1:])]
svc = [(r[2] - r[1]) / 1e3 for r in rows]
print("  recorded timing: queue gaps mean %.1f us, sd %.1f us; service mean %.1f us, sd %.1f us"
      % (st.mean(gaps), st.stdev(gaps), st.mean(svc), st.stdev(svc)))
PY
	note "fio: mean completion latency ${lat_ns} ns -> generate --latency ${lat_ns}ns --iops $RATE"
done
