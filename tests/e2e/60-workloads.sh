#!/bin/bash
# 60-workloads.sh — the workload recipes in workloads/ run at a tiny size,
# do real I/O on their own loop devices (checked from /sys/block/loopN/stat,
# not from what the recipe says), and leave no loop device, mount or file
# behind: after a normal run, after a failed one and after SIGTERM.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd mkfs.ext4 losetup mount flock dd tar
WL=$(cd "$(dirname "$0")/../../workloads" && pwd)

# leftovers DIR: fails if a loop device or a mount still refers to DIR.
leftovers() {
	if losetup -a | grep -q "$1/"; then fail "loop device left behind: $(losetup -a | grep "$1/")"; fi
	if grep -q " $1/" /proc/mounts; then fail "mount left behind: $(grep " $1/" /proc/mounts)"; fi
}

# sectors DEV: "read_sectors write_sectors" of DEV from /sys/block.
sectors() { awk '{ print $3, $7 }' "/sys/block/${1#/dev/}/stat"; }

# Per recipe: the smallest load, and which direction must move (r, w or rw).
check_recipe() {
	name=$1 want=$2; shift 2
	w=$E2E_TMP/wl-$name
	at_exit "'$WL/$name' --workdir '$w' --phase teardown --quiet"
	out=$("$WL/$name" --workdir "$w" --phase setup --quiet "$@") || fail "$name: setup failed"
	devs=$(echo "$out" | awk '$1 == "device" { print $2 }')
	[ -n "$devs" ] || fail "$name: setup printed no device"
	before=$(for d in $devs; do sectors "$d"; done)
	"$WL/$name" --workdir "$w" --phase run --quiet "$@" > "$E2E_TMP/$name.out" ||
		fail "$name: the load failed"
	after=$(for d in $devs; do sectors "$d"; done)
	read -r rd wr <<< "$(paste <(echo "$before") <(echo "$after") |
		awk '{ r += $3 - $1; w += $4 - $2 } END { print r, w }')"
	note "$name: $(( rd / 2 )) KiB read, $(( wr / 2 )) KiB written on $(echo $devs)"
	case $want in *r*) [ "$rd" -gt 0 ] || fail "$name: read nothing from its devices" ;; esac
	case $want in *w*) [ "$wr" -gt 0 ] || fail "$name: wrote nothing to its devices" ;; esac
	# The recipe's own account agrees with the kernel's in direction.
	grep -q '^io loop' "$E2E_TMP/$name.out" || fail "$name: no io summary line"
	"$WL/$name" --workdir "$w" --phase teardown --quiet || fail "$name: teardown failed"
	leftovers "$w"
	[ ! -e "$w/disk1.img" ] || fail "$name: image left behind"
}

check_recipe photo-edit rw --pictures 5 --picture-size 256k --scratch 16M
check_recipe backup rw --files 30
check_recipe cold-start r --files 20 --total 4M
check_recipe install w --packages 3 --files-per-pkg 10

# Recorded the way docs/demo.md says: set up, capture only the load on the
# recipe's devices (two for backup), tear down. The trace holds the I/Os
# of both devices and nothing was lost.
if [ -r /sys/kernel/btf/vmlinux ]; then
	w=$E2E_TMP/cap
	at_exit "'$WL/backup' --workdir '$w' --phase teardown --quiet"
	devs=$("$WL/backup" --workdir "$w" --phase setup --quiet --files 30 | awk '$1 == "device" { print $2 }')
	set -- $devs
	[ $# -eq 2 ] || fail "backup set up $# devices, expected 2"
	"$BLKPEAK" capture -o "$E2E_TMP/backup.bpt" -d "$1" -d "$2" -- \
		"$WL/backup" --workdir "$w" --phase run --quiet --files 30 > "$E2E_TMP/cap.out" 2>&1 ||
		fail "capture of backup failed: $(tail -3 "$E2E_TMP/cap.out")"
	"$WL/backup" --workdir "$w" --phase teardown --quiet
	"$BLKPEAK" info --json "$E2E_TMP/backup.bpt" | python3 -c '
import json, sys
d = json.load(sys.stdin)
ios = [x["ios"] for x in d["devices"]]
assert len(ios) == 2 and min(ios) > 0, ios
assert d["lost_events"] == 0, d["lost_events"]
print("  backup recorded: %d I/Os on its 2 devices (%s)" % (d["ios"], ios))' ||
		fail "the backup trace does not hold I/O on both devices"
	leftovers "$w"
fi

# The all-in-one form (what `blkpeak capture -- workloads/NAME` runs)
# cleans up its own temp dir.
w=$E2E_TMP/all
"$WL/photo-edit" --workdir "$w" --quiet --pictures 3 --picture-size 64k --scratch 4M \
	> "$E2E_TMP/all.out" || fail "photo-edit (all phases) failed"
grep -q '^io loop[0-9]* reads [1-9]' "$E2E_TMP/all.out" || fail "photo-edit: no reads reported"
leftovers "$w"
[ -z "$(ls -A "$w" 2>/dev/null)" ] || fail "photo-edit left files in $w: $(ls -A "$w")"

# Bad options are usage errors and create nothing.
"$WL/backup" --workdir "$E2E_TMP/bad" --files x 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "backup --files x: exit $rc, expected 2"
[ ! -e "$E2E_TMP/bad" ] || fail "a usage error created $E2E_TMP/bad"
# the last argument an unknown option, or a known one without its value
for n in photo-edit backup cold-start install; do
	"$WL/$n" --no-such-option 2>"$E2E_TMP/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "unknown option '--no-such-option'" "$E2E_TMP/err" ||
		fail "$n --no-such-option: exit $rc, $(cat "$E2E_TMP/err")"
	"$WL/$n" --scale 2>"$E2E_TMP/err"; rc=$?
	[ $rc -eq 2 ] && grep -q -- "--scale needs a value" "$E2E_TMP/err" ||
		fail "$n --scale: exit $rc, $(cat "$E2E_TMP/err")"
done

# Interrupted in the middle of the load: everything is still removed.
w=$E2E_TMP/intr
"$WL/photo-edit" --workdir "$w" --pictures 200 --picture-size 1M --scratch 256M \
	2> "$E2E_TMP/intr.err" > /dev/null &
pid=$!
for _ in $(seq 1 600); do # its set-up can take long on a loaded machine
	grep -q 'running the load' "$E2E_TMP/intr.err" && break
	sleep 0.1
done
grep -q 'running the load' "$E2E_TMP/intr.err" || { kill $pid; fail "photo-edit never started its load"; }
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] || fail "photo-edit after SIGTERM: exit $rc, expected 143"
leftovers "$w"
[ ! -e "$w/disk1.img" ] || fail "interrupted photo-edit left its image"
note "interrupted photo-edit cleaned up (exit $rc)"
exit 0
