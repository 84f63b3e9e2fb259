#!/bin/bash
# 65-workload-boot.sh — workloads/boot records a real systemd boot: a
# Debian root on the recipe's own loop device boots in a container
# (systemd-nspawn) while `blkpeak capture -d DEV` records the device.
#
# The rule for "the I/O is the boot's": an I/O counts when it was issued
# by a process of the container, i.e. from a cgroup the recipe made for
# the boot or one made inside it later (cgroup v2 ids grow, and the recipe
# prints its cgroup's id), or by a kernel thread writing back for them
# (kworker/*, and jbd2/LOOP-* the journal thread of the recipe's disk).
# At least 90% of the I/Os must count; the rest (the recipe's own sync,
# ext4's lazy-init thread, another program on the machine walking the
# mount) may not. The trace then replays on a second loop device, and
# nothing is left behind: mounts, loop devices, cgroups, processes whose
# root is in the recipe's folder. Also when the recording is interrupted
# (SIGTERM through capture, as Ctrl-C) and when `run` is killed outright
# (SIGKILL: teardown ends the container and removes its cgroups).
#
# The Debian root is built once by mmdebstrap into a cache outside the
# repository (BLKPEAK_BOOT_CACHE, default /var/cache/blkpeak): the first
# run on a machine downloads ~40 MB of packages and takes 20 s to minutes;
# later runs unpack the tarball. Hence a longer limit than run.sh's 300 s,
# for that first run on a fresh machine (6.6 min here once, when busy):
# e2e-timeout: 900
. "$(dirname "$0")/lib.sh"
need_bpf
need_cmd mmdebstrap systemd-nspawn mkfs.ext4 losetup mount python3 tar
WL=$(cd "$(dirname "$0")/../../workloads" && pwd)
CACHE=${BLKPEAK_BOOT_CACHE:-/var/cache/blkpeak}
w=$E2E_TMP/boot
opts=(--workdir "$w" --quiet --cache "$CACHE")

# cgroups named blkpeak-boot.* before the test: another checkout's may exist
# (and systemd-nspawn's folders for the machines, blkpeak-boot-PID-N)
cgroups() {
	find /sys/fs/cgroup -maxdepth 3 -type d -name 'blkpeak-boot.*' 2>/dev/null
	find /run/systemd/nspawn/propagate -maxdepth 1 -name 'blkpeak-boot-*' 2>/dev/null
}
cg_before=$(cgroups)

# leftovers: mounts, loop devices, processes rooted in $w, our cgroups.
leftovers() {
	if grep -q " $w/" /proc/mounts; then fail "$1: mount left: $(grep " $w/" /proc/mounts)"; fi
	if losetup -a | grep -q "$w/"; then fail "$1: loop device left: $(losetup -a | grep "$w/")"; fi
	_p=$(rooted_in "$w/*")
	[ -z "$_p" ] || fail "$1: processes still run in the root: $_p"
	[ "$(cgroups)" = "$cg_before" ] ||
		fail "$1: cgroups left: $(comm -13 <(echo "$cg_before" | sort) <(cgroups | sort) | tr '\n' ' ')"
}

# rooted_in PATTERN: the pids of processes whose root directory matches
rooted_in() {
	find /proc -mindepth 2 -maxdepth 2 -name root -lname "$1" 2>/dev/null |
		awk -F/ '{ printf "%s ", $3 }'
}
container_running() { [ -n "$(rooted_in "$w/mnt1")" ]; }

# wait_container OUT PID: wait until the boot that PID runs (printing its
# cgroup's name to OUT) has its container running: the cgroup systemd-nspawn
# puts the container in (payload) has processes.
wait_container() {
	for _ in $(seq 1200); do
		kill -0 "$2" 2>/dev/null || fail "the boot ended before its container was seen"
		_cg=$(awk '$1 == "cgroup" { c = $2 } END { print c }' "$1")
		if [ -n "$_cg" ]; then
			for _f in $(find /sys/fs/cgroup -maxdepth 4 -path "*/$_cg/payload/cgroup.procs" 2>/dev/null); do
				[ -n "$(head -c 1 "$_f")" ] && return 0
			done
		fi
		sleep 0.05
	done
	fail "no container ran within 60 s"
}

at_exit "'$WL/boot' ${opts[*]} --phase teardown"
t0=$(date +%s)
dev=$("$WL/boot" "${opts[@]}" --phase setup | awk '$1 == "device" { print $2 }') ||
	fail "boot: setup failed"
[ -b "$dev" ] || fail "boot: setup printed no device"
note "set-up (root unpacked, first boot) in $(( $(date +%s) - t0 )) s"

# 1. The recorded boot.
"$BLKPEAK" capture -o "$E2E_TMP/boot.bpt" -d "$dev" -- \
	"$WL/boot" "${opts[@]}" --phase run > "$E2E_TMP/run.out" 2> "$E2E_TMP/run.err" ||
	fail "capture of the boot failed: $(tail -5 "$E2E_TMP/run.err")"
container_running && fail "the container outlived the recording"
[ "$(cgroups)" = "$cg_before" ] || fail "a finished boot left cgroups: $(cgroups)"
cgid=$(awk '$1 == "cgroup" && $3 == "id" { print $4; exit }' "$E2E_TMP/run.out")
[ -n "$cgid" ] || fail "boot: run printed no cgroup id: $(cat "$E2E_TMP/run.out")"
grep -q "^io ${dev#/dev/} reads [1-9]" "$E2E_TMP/run.out" || fail "boot: no reads reported"
"$BLKPEAK" dump --format csv "$E2E_TMP/boot.bpt" > "$E2E_TMP/boot.csv" || fail "dump failed"
python3 - "$E2E_TMP/boot.csv" "$cgid" "${dev#/dev/}" <<'EOF' || fail "the boot's I/O is not the container's"
import collections, csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cgid, loop = int(sys.argv[2]), sys.argv[3]
def kernel_writeback(comm):
    return comm.startswith("kworker/") or comm.startswith("jbd2/%s-" % loop)
ours = [r for r in rows if int(r["cgroup"]) >= cgid or kernel_writeback(r["comm"])]
other = collections.Counter(r["comm"] for r in rows if r not in ours)
reads = sum(r["op"] == "read" for r in rows)
writes = sum(r["op"] == "write" for r in rows)
progs = collections.Counter(r["comm"] for r in ours)
print("  %d I/Os (%d reads, %d writes), %.1f%% the container's or writeback; top: %s; other: %s"
      % (len(rows), reads, writes, 100.0 * len(ours) / max(len(rows), 1),
         ", ".join("%s %d" % kv for kv in progs.most_common(6)), dict(other)))
assert len(rows) >= 200, "too few I/Os for a boot"
assert reads > 0 and writes > 0, "a boot both reads and writes"
assert len(ours) >= 0.9 * len(rows), "less than 90% attributed"
for p in ("systemd", "systemd-journal", "dbus-daemon"):
    assert progs[p] > 0, "no I/O by " + p
EOF

# 2. It replays on a second loop device of the same size.
tgt=$(make_loop "$(blockdev --getsize64 "$dev")" target)
"$BLKPEAK" replay --allow-write --target "$tgt" -o "$E2E_TMP/replay.bpt" "$E2E_TMP/boot.bpt" \
	> "$E2E_TMP/replay.out" 2>&1 || fail "replay of the boot failed: $(tail -3 "$E2E_TMP/replay.out")"
n_rec=$(( $(wc -l < "$E2E_TMP/boot.csv") - 1 ))
n_rep=$(( $("$BLKPEAK" dump --format csv "$E2E_TMP/replay.bpt" | wc -l) - 1 ))
[ "$n_rep" -eq "$n_rec" ] || fail "replayed $n_rep of $n_rec I/Os"
note "replayed $n_rep I/Os on $tgt"

# 3. SIGTERM to the capture while the container runs: it is shut down, its
#    cgroups removed; the set-up stays for teardown. Many boots in a row,
#    so that one is still running when the poll sees it (an idle machine
#    boots the container in about a second).
"$BLKPEAK" capture -o "$E2E_TMP/term.bpt" -d "$dev" -- \
	"$WL/boot" "${opts[@]}" --boots 50 --phase run > "$E2E_TMP/term.out" 2>&1 &
cap=$!
wait_container "$E2E_TMP/term.out" $cap
kill -TERM $cap
wait $cap
rc=$?
[ $rc -ne 0 ] || fail "an interrupted boot exited 0"
container_running && fail "the container survived SIGTERM"
[ "$(cgroups)" = "$cg_before" ] || fail "SIGTERM left cgroups: $(cgroups)"

# 4. SIGKILL to run: nothing of it can clean up; teardown does.
"$WL/boot" "${opts[@]}" --boots 50 --phase run > "$E2E_TMP/kill.out" 2>&1 &
run=$!
wait_container "$E2E_TMP/kill.out" $run
kill -KILL $run
wait $run 2>/dev/null
"$WL/boot" "${opts[@]}" --phase teardown || fail "teardown after SIGKILL failed"
leftovers "after SIGKILL and teardown"
note "interrupted and killed boots cleaned up; whole test $(( $(date +%s) - t0 )) s"
