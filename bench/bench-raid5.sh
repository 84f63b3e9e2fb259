#!/bin/bash
# bench-raid5.sh — what RAID 5's parity costs (issue 16): a random-write
# trace (4 KiB) and a mixed one (70% reads; 4k/64k/256k), replayed
# --timing afap at queue depth 16 onto a RAID 5 (md's left-symmetric,
# 64 KiB chunks) of four RAM-backed loop devices of 128 MiB, and onto a
# RAID 0 of the same four. Per trace: I/Os per second, member I/Os per
# trace I/O (the replay's --json), and CPU time (user + system, from
# getrusage of the replay process) per trace I/O. Best of ROUNDS rounds
# by IOPS. Run it under `flock /tmp/blkpeak-bench.lock`.
#
# Needs root. N (default 20000 I/Os) and ROUNDS (default 3) can be set.
# the build of this checkout unless BLKPEAK says otherwise (lib.sh's own
# default is for scripts in tests/e2e)
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd python3
N=${N:-20000}
ROUNDS=${ROUNDS:-3}
L=()
for i in 0 1 2 3; do L[i]=$(make_loop 128M "m$i"); done
LIST=$(IFS=,; echo "${L[*]}")
echo "members: ${L[*]} (RAM-backed loops, 128 MiB); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BLKPEAK" generate -o "$E2E_TMP/w.bpt" --count "$N" --read-pct 0 --bs 4k --span 360m --seed 31 -q ||
	fail "generate"
"$BLKPEAK" generate -o "$E2E_TMP/m.bpt" --count "$N" --read-pct 70 --bs 4k:60,64k:30,256k:10 \
	--span 360m --seed 32 -q || fail "generate"
# run TRACE TARGET: "iops member_ios_per_io cpu_us_per_io"
run() {
	python3 - "$BLKPEAK" "$1" "$2" <<'PY' || fail "replay onto $2"
import json, resource, subprocess, sys
b, trace, target = sys.argv[1:]
p = subprocess.run([b, 'replay', trace, '--timing', 'afap', '--queue-depth', '16', '--target', target,
                    '--allow-write', '--json'], capture_output=True, text=True, check=True)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
j = json.loads(p.stdout)
print('%.0f %.2f %.2f' % (j['ios_per_s'], j['member_ios'] / j['ios'],
                          (ru.ru_utime + ru.ru_stime) * 1e6 / j['ios']))
PY
}
echo "| trace | target | IOPS | member I/Os per I/O | CPU µs per I/O |"
echo "|---|---|---|---|---|"
for tr in w m; do
	name=$([ $tr = w ] && echo "random 4k writes" || echo "mixed, 70% reads")
	for tg in "raid0:chunk=64k:$LIST" "raid5:chunk=64k:$LIST"; do
		best=""
		for _ in $(seq "$ROUNDS"); do
			r=$(run "$E2E_TMP/$tr.bpt" "$tg")
			if [ -z "$best" ] || [ "${r%% *}" -gt "${best%% *}" ]; then best=$r; fi
		done
		read -r iops per cpu <<< "$best"
		echo "| $name | ${tg%%:*} of 4 | $iops | $per | $cpu |"
	done
done
