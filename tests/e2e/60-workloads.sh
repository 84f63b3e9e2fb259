#!/bin/bash
# 60-workloads.sh — each workload recipe of workloads/ runs its real
# program at a small size under `blkpeak capture`, on its own loop
# devices, and:
#   - the capture's I/Os are mostly that program's: at least 90% of them
#     come from its processes or from the kernel threads that write back
#     for them (the rule below), and the program itself did some;
#   - the trace replays on other loop devices, every I/O without error;
#   - nothing is left behind: no loop device, mount, process or file,
#     after a normal run, a usage error and a SIGTERM in the middle of
#     the load.
. "$(dirname "$0")/lib.sh"
need_bpf
need_cmd mkfs.ext4 losetup mount flock tar zstd convert dpkg sqlite3 python3 pgrep
WL=$(cd "$(dirname "$0")/../../workloads" && pwd)

# The attribution rule. A recipe's I/Os are its program's when their comm
#  - is one of the program's (OWN below), or
#  - is a kernel thread that writes back for it: kworker/* (the flusher
#    writing dirty pages, kblockd dispatching), jbd2/* (ext4's journal
#    commits of its metadata), ext4lazyinit (ext4 prefetching the block
#    bitmaps the program's allocations need, after the page cache was
#    dropped), or sync (the recipe's sync(1) before it drops the page
#    cache and after its load, which only writes back what the program
#    left dirty).
# I/Os of anything else (another program scanning the loop devices, e.g.
# udev or an sfdisk run by another test) count against the recipe.
declare -A OWN=(
	[photo-edit]='convert|magick'
	[backup]='tar|zstd'
	[cold-start]='python3(\.[0-9]+)?'
	[install]='dpkg|dpkg-deb|dpkg-split'
	[database]='sqlite3'
)
WRITEBACK='kworker/.*|jbd2/.*|ext4lazyinit|sync'

# leftovers DIR: fails if a loop device, a mount or a process still
# refers to DIR.
leftovers() {
	if losetup -a | grep -q "$1/"; then fail "loop device left behind: $(losetup -a | grep "$1/")"; fi
	if grep -q " $1/" /proc/mounts; then fail "mount left behind: $(grep " $1/" /proc/mounts)"; fi
	if pgrep -f -- "$1/" >/dev/null; then fail "process left behind: $(pgrep -af -- "$1/")"; fi
}

# check_recipe NAME OPTIONS...: set up, capture the load, tear down, then
# check the rule, replay the trace and look for leftovers.
check_recipe() {
	name=$1; shift
	t0=$SECONDS
	w=$E2E_TMP/wl-$name
	at_exit "'$WL/$name' --workdir '$w' --phase teardown --quiet"
	devs=$("$WL/$name" --workdir "$w" --phase setup --quiet "$@" | awk '$1 == "device" { print $2 }') ||
		fail "$name: setup failed"
	[ -n "$devs" ] || fail "$name: setup printed no device"
	dopts=() sizes=()
	for d in $devs; do dopts+=(-d "$d"); sizes+=("$(blockdev --getsize64 "$d")"); done
	"$BLKPEAK" capture -o "$E2E_TMP/$name.bpt" "${dopts[@]}" -- \
		"$WL/$name" --workdir "$w" --phase run --quiet "$@" > "$E2E_TMP/$name.out" 2>&1 ||
		fail "$name: capture of the load failed: $(tail -3 "$E2E_TMP/$name.out")"
	grep -q '^io loop' "$E2E_TMP/$name.out" || fail "$name: no io summary line"
	"$WL/$name" --workdir "$w" --phase teardown --quiet || fail "$name: teardown failed"
	leftovers "$w"
	[ ! -e "$w/disk1.img" ] || fail "$name: image left behind"

	# comm is the 10th column of dump (no recorded comm holds a space here)
	"$BLKPEAK" dump "$E2E_TMP/$name.bpt" | awk -v own="^(${OWN[$name]})$" -v wb="^($WRITEBACK)$" '
		/^#/ { next }
		{ n++; if ($10 ~ own) o++; else if ($10 ~ wb) k++; else other[$10]++ }
		END {
			printf "  %s: %d I/Os: %d by the program, %d writing back for it", name, n, o, k
			for (c in other) printf ", %d by %s", other[c], c
			printf "\n"
			exit !(n > 0 && o > 0 && (o + k) * 10 >= n * 9)
		}' name="$name" || fail "$name: fewer than 90% of the I/Os are the program's (rule above)"

	# replay on other loop devices, one per recorded device
	ropts=() i=0
	for d in $devs; do
		t=$(make_loop "${sizes[$i]}" "replay-$name-$i")
		if [ $i -eq 0 ]; then ropts+=(--target "$t"); else ropts+=(--map "$d=$t"); fi
		i=$((i + 1))
	done
	"$BLKPEAK" replay --timing afap --allow-write "${ropts[@]}" -o "$E2E_TMP/$name-run.bpt" \
		"$E2E_TMP/$name.bpt" > "$E2E_TMP/$name-replay.out" 2>&1 ||
		fail "$name: replay failed: $(tail -3 "$E2E_TMP/$name-replay.out")"
	grep -Eq '^ +I/Os +([0-9]+) of \1, 0 errors' "$E2E_TMP/$name-replay.out" ||
		fail "$name: the replay did not do every I/O without error: $(grep 'I/Os' "$E2E_TMP/$name-replay.out")"
	note "$name: recorded, checked and replayed in $((SECONDS - t0)) s"
}

check_recipe photo-edit --pictures 2 --picture-size 400x300
check_recipe backup --files 24 --doc-files 20
check_recipe cold-start --starts 2 --modules 30
check_recipe install --packages 3
check_recipe database --transactions 60 --accounts 200

t0=$SECONDS
# The all-in-one form (what `blkpeak capture -- workloads/NAME` runs)
# cleans up its own temp dir.
w=$E2E_TMP/all
"$WL/database" --workdir "$w" --quiet --transactions 10 > "$E2E_TMP/all.out" ||
	fail "database (all phases) failed"
grep -q '^io loop[0-9]* reads [0-9]* sectors [0-9]* writes [1-9]' "$E2E_TMP/all.out" ||
	fail "database: no writes reported"
leftovers "$w"
[ -z "$(ls -A "$w" 2>/dev/null)" ] || fail "database left files in $w: $(ls -A "$w")"

# Bad options are usage errors and create nothing.
"$WL/backup" --workdir "$E2E_TMP/bad" --files x 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "backup --files x: exit $rc, expected 2"
[ ! -e "$E2E_TMP/bad" ] || fail "a usage error created $E2E_TMP/bad"
"$WL/photo-edit" --picture-size 12 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "photo-edit --picture-size 12: exit $rc, expected 2"
"$WL/database" --journal off 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "database --journal off: exit $rc, expected 2"
# the last argument an unknown option, or a known one without its value
for n in photo-edit backup cold-start install database; do
	"$WL/$n" --no-such-option 2>"$E2E_TMP/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "unknown option '--no-such-option'" "$E2E_TMP/err" ||
		fail "$n --no-such-option: exit $rc, $(cat "$E2E_TMP/err")"
	"$WL/$n" --scale 2>"$E2E_TMP/err"; rc=$?
	[ $rc -eq 2 ] && grep -q -- "--scale needs a value" "$E2E_TMP/err" ||
		fail "$n --scale: exit $rc, $(cat "$E2E_TMP/err")"
done

# Interrupted in the middle of the load (ImageMagick running): the recipe
# ends at once and everything, the program included, is removed.
w=$E2E_TMP/intr
"$WL/photo-edit" --workdir "$w" --pictures 5 --picture-size 900x600 \
	2> "$E2E_TMP/intr.err" > /dev/null &
pid=$!
# wait for a convert of the load (its arguments name the history folder)
for _ in $(seq 1 600); do # its set-up can take long on a loaded machine
	pgrep -f -- "$w/mnt1/history/" >/dev/null && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
pgrep -f -- "$w/mnt1/history/" >/dev/null || { kill $pid; fail "photo-edit never started ImageMagick: $(cat "$E2E_TMP/intr.err")"; }
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] || fail "photo-edit after SIGTERM: exit $rc, expected 143"
leftovers "$w"
[ ! -e "$w/disk1.img" ] || fail "interrupted photo-edit left its image"
note "interrupted photo-edit cleaned up (exit $rc); the other checks took $((SECONDS - t0)) s"
exit 0
