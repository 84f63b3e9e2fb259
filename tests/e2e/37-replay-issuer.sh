#!/bin/bash
# The issuing thread of a timed replay (issue 17): with default options it
# runs SCHED_OTHER on a CPU of its own, the highest the process may use,
# with --realtime SCHED_FIFO there, and replay's other threads (result
# writer, trace reader) are kept off that CPU, and so are io_uring's
# kernel workers (iou-*, which take the issuer's scheduling class: one on
# its CPU would wait behind it); afap pins nothing and stays SCHED_OTHER.
# Read from /proc while 3 s replays run. A --realtime issuer that a dense
# schedule keeps busy leaves SCHED_FIFO before the kernel's RT throttle
# would stop it (fifo_guard.h) and says so; a sparse one does not.
. "$(dirname "$0")/lib.sh"
need_root
"$BLKPEAK" generate -o "$E2E_TMP/t.bpt" --duration 3s --iops 2000 --read-pct 70 --bs 4k \
	--span 8m -q || fail "generate"
L=$(make_loop 8M)
last=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status | tr ',' '\n' |
	sed 's/.*-//' | sort -n | tail -1)
ncpu=$(nproc)

# policy TID: 0 SCHED_OTHER, 1 SCHED_FIFO (field 41 of stat, after the comm)
policy() { sed 's/.*) //' "/proc/$pid/task/$1/stat" | awk '{ print $39 }'; }
cpus() { awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$pid/task/$1/status"; }

# look_at WANT_POLICY ARGS...: start a replay, find its issuer pinned on
# the last CPU, check its policy and the other threads'
look_at() {
want=$1; shift
bg_start "$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$L" --allow-write "$@" > "$E2E_TMP/out" 2>&1
pid=$BG_PID
issuer=""
for _ in $(seq 200); do
	if [ "$(cpus "$pid" 2>/dev/null)" = "$last" ]; then issuer=$pid; break; fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.02
done
if [ "$ncpu" -lt 2 ]; then
	[ -z "$issuer" ] || fail "pinned on a one-CPU machine"
	wait "$pid" || fail "replay: $(cat "$E2E_TMP/out")"
	note "one CPU: nothing pinned"; exit 0
fi
[ -n "$issuer" ] || fail "the issuing thread (the main one) never ran on CPU $last alone ($*)"
[ "$(policy "$pid")" = "$want" ] || fail "the issuing thread's policy is $(policy "$pid"), not $want ($*)"
others=0
for t in /proc/$pid/task/*; do
	tid=${t##*/}
	[ "$tid" = "$pid" ] && continue
	comm=$(cat "$t/comm" 2>/dev/null) || continue # ended meanwhile
	c=$(cpus "$tid" 2>/dev/null) && p=$(policy "$tid" 2>/dev/null) || continue
	case $comm in iou-*) p=0 ;; esac # its class is the issuer's
	others=$((others + 1))
	python3 -c 'import sys
def cpus(s):
    out = set()
    for part in s.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out
sys.exit(int(sys.argv[2]) in cpus(sys.argv[1]))' "$c" "$last" ||
		fail "thread $tid ($comm) may run on the issuer's CPU $last: $c"
	[ "$p" = 0 ] || fail "thread $tid ($comm) is not SCHED_OTHER: policy $p"
done
[ $others -ge 1 ] || fail "no other thread seen"
wait "$pid" || fail "replay: $(cat "$E2E_TMP/out")"
}
look_at 0
look_at 1 --realtime
grep -q 'left SCHED_FIFO' "$E2E_TMP/out" && fail "a sparse --realtime replay left SCHED_FIFO: $(cat "$E2E_TMP/out")"

# a dense schedule (30000 IOPS: the FIFO issuer never sleeps) on the null
# engine: it leaves SCHED_FIFO within its first second, and says when
"$BLKPEAK" generate -o "$E2E_TMP/d.bpt" --duration 2s --iops 30000 --queue-depth 32 --read-pct 70 --bs 4k \
	--span 8m -q || fail "generate dense"
"$BLKPEAK" replay "$E2E_TMP/d.bpt" --target "$L" --allow-write --realtime --engine null \
	> "$E2E_TMP/dense" 2>&1 || fail "dense replay: $(cat "$E2E_TMP/dense")"
grep -Eq 'left SCHED_FIFO 0\.[0-9]+ s into the replay' "$E2E_TMP/dense" ||
	fail "a busy --realtime issuer did not leave SCHED_FIFO: $(cat "$E2E_TMP/dense")"

# afap: no pinning, no FIFO (the null engine at 300 us per I/O, depth 1:
# about 1.8 s to look at it)
bg_start "$BLKPEAK" replay "$E2E_TMP/t.bpt" --target "$L" --allow-write --timing afap \
	--queue-depth 1 --engine null --null-latency 300us > "$E2E_TMP/out" 2>&1
pid=$BG_PID
sleep 0.3
if c=$(cpus "$pid" 2>/dev/null) && p=$(policy "$pid" 2>/dev/null); then
	[ "$c" != "$last" ] || fail "afap pinned its issuer"
	[ "$p" = 0 ] || fail "afap issuer is SCHED_FIFO"
fi
wait "$pid" || fail "afap replay: $(cat "$E2E_TMP/out")"
note "issuer SCHED_OTHER (--realtime: SCHED_FIFO) on CPU $last alone, $others other threads off it; a busy FIFO issuer leaves FIFO"
exit 0
