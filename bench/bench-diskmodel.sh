#!/bin/bash
# bench-diskmodel.sh — the cost of emulated disks (issue 11): the same
# trace replayed as fast as possible (--timing afap) on a RAM-backed loop
# device, bare (--target DEV) and through the disk model with the
# zero-cost preset (--target hdd:instant:DEV), alternating, ROUNDS rounds;
# CPU time (user + sys) per I/O of each, the median, and their ratio.
# The target: hdd:instant within 10% of the bare target's CPU per I/O.
# A first, unmeasured replay allocates the sparse file's pages.
# Then one round onto hdd:ssd (a model with parallel channels) for
# scale. Run it under `flock /tmp/blkpeak-bench.lock`.
#
# Needs root. N (default 1000000 I/Os), DEPTH (default 32) and ROUNDS
# (default 5) can be set.
# the build of this checkout unless BLKPEAK says otherwise (lib.sh's own
# default is for scripts in tests/e2e)
BLKPEAK=${BLKPEAK:-$(cd "$(dirname "$0")/.." && pwd)/build/blkpeak}
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root
need_cmd /usr/bin/time
N=${N:-1000000}
DEPTH=${DEPTH:-32}
ROUNDS=${ROUNDS:-5}
L=$(make_loop 1G bench)
echo "device $L (RAM-backed loop, direct I/O); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BLKPEAK" generate -o "$E2E_TMP/t.bpt" --count "$N" --read-pct 70 --bs 4k --span 1g \
	--queue-depth "$DEPTH" -q || fail "generate"

# run NAME TARGET: appends "NAME wall cpu" to $E2E_TMP/times
run() {
	/usr/bin/time -f "%e %U %S" -o "$E2E_TMP/tm" "$BLKPEAK" replay "$E2E_TMP/t.bpt" \
		--timing afap --queue-depth "$DEPTH" --allow-write --target "$2" \
		> /dev/null 2> "$E2E_TMP/err" || { cat "$E2E_TMP/err"; fail "replay onto $2"; }
	read -r wall user sys < "$E2E_TMP/tm"
	echo "$1 $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" >> "$E2E_TMP/times"
	printf '%-12s wall %6.2f s  cpu %6.2f s (user %s, sys %s)  %6.0f ns CPU per I/O\n' \
		"$1" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$user" "$sys" \
		"$(awk -v u="$user" -v s="$sys" -v n="$N" 'BEGIN { print (u + s) * 1e9 / n }')"
}
: > "$E2E_TMP/times"
run warm-up "$L" # the sparse file's pages are allocated by the first writes
: > "$E2E_TMP/times"
for r in $(seq "$ROUNDS"); do
	run bare "$L"
	run hdd:instant "hdd:instant:$L"
done
run hdd:ssd "hdd:ssd:$L"
awk -v n="$N" '
	$1 == "bare" { b[nb++] = $3 } $1 == "hdd:instant" { h[nh++] = $3 }
	function median(a, k,   i, j, t) {
		for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[int(k / 2)] : (a[k / 2 - 1] + a[k / 2]) / 2
	}
	END {
		mb = median(b, nb); mh = median(h, nh)
		printf "median CPU per I/O: bare %.0f ns, hdd:instant %.0f ns: ratio %.3f (target <= 1.10)\n",
			mb * 1e9 / n, mh * 1e9 / n, mh / mb
	}' "$E2E_TMP/times"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
