#!/bin/bash
# bench-codec.sh — the trace codec's speed and size on synthetic records
# (bench/codec_speed.c): encode and decode records per second on one core
# (thread CPU time) and bytes per I/O on disk, for random 4 KiB I/O over
# a 1 GiB and a 10 GiB span and for sequential 4 KiB I/O with three
# timing models, then with timestamps of a coarse clock, then with the
# file and cause columns (attribution, format 1.3). Targets (issues 2 and
# 30): <= 8 bytes/I/O random, <= 3 sequential, >= 10 M records/s encode,
# >= 20 M records/s decode.
# Usage: bench/bench-codec.sh [COUNT]   (default 1000000 records)
set -eu
cd "$(dirname "$0")/.."
make -s build/bench/codec_speed
n=${1:-1000000}
echo "codec: $n records per workload, median of 3 runs, rates in thread CPU time"
echo "-- span 10 GiB"
build/bench/codec_speed --count "$n" --span $((10 << 30)) --repeat 3
echo "-- span 1 GiB"
build/bench/codec_speed --count "$n" --span $((1 << 30)) --repeat 3 | grep '^random'
echo "-- span 10 GiB, times read from a clock of 10.015 ns steps (the tick column kind)"
build/bench/codec_speed --count "$n" --span $((10 << 30)) --repeat 3 --tick 10.015
echo "-- span 10 GiB, with the file and cause columns (--attribution)"
build/bench/codec_speed --count "$n" --span $((10 << 30)) --repeat 3 --attribution
echo "-- span 10 GiB, the file and cause columns on a clock of 10.015 ns steps (what capture writes on this VM)"
build/bench/codec_speed --count "$n" --span $((10 << 30)) --repeat 3 --attribution --tick 10.015
