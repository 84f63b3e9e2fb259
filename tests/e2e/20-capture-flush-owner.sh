#!/bin/bash
# Filters keep the flushes a process caused. An O_DSYNC direct write to a
# loop device is a REQ_FUA write; the loop device has a write-back cache
# and no FUA, so the flush machinery (block/blk-flush.c) follows its data
# with a post-flush, issued by a kblockd worker. -p, -c and --cgroup must
# credit that flush to the writer, as fsync's flush is: each filtered
# capture holds exactly the writes and flushes the unfiltered one does,
# every one of them named after the writer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture
need_cmd python3

L=$(make_loop 64M)
N=$(basename "$L")
settle

# The writer: renames itself (a name no other process here has), writes
# its pid to $T/pid, waits for $T/go, then does 9 O_DSYNC direct writes.
cat > "$T/dsync.py" <<'PY'
import ctypes, mmap, os, sys, time
dev, tmp = sys.argv[1], sys.argv[2]
ctypes.CDLL(None).prctl(15, b"bp-dsync", 0, 0, 0)  # PR_SET_NAME
with open(tmp + "/pid.tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(tmp + "/pid.tmp", tmp + "/pid")
while not os.path.exists(tmp + "/go"):
    time.sleep(0.01)
fd = os.open(dev, os.O_WRONLY | os.O_DSYNC | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
buf.write(b"d" * 4096)
for i in range(9):
    os.pwrite(fd, buf, i * 65536)
os.close(fd)
PY

# run NAME [CAPTURE-FILTER...]: the writer under a capture of L with the
# filter; "@PID" in the filter stands for the writer's pid, "@CG" makes
# the writer join the cgroup $CG first. Prints "writes flushes" of the
# trace and checks that every record names the writer.
run() {
	name=$1; shift
	rm -f "$T/pid" "$T/go"
	if [ "$*" = "--cgroup @CG" ]; then
		bg_start sh -c "echo \$\$ > '$CG/cgroup.procs' && exec python3 '$T/dsync.py' '$L' '$T'"
	else
		bg_start python3 "$T/dsync.py" "$L" "$T"
	fi
	W=$BG_PID
	for i in $(seq 200); do [ -s "$T/pid" ] && break; sleep 0.05; done
	[ -s "$T/pid" ] || fail "$name: the writer did not start"
	args=$(echo "$*" | sed "s|@PID|$(cat "$T/pid")|; s|@CG|${CG:-}|")
	# shellcheck disable=SC2086
	"$BLKPEAK" capture -o "$T/$name.bpt" -d "$L" --duration 2 --json $args > "$T/$name.json" 2>"$T/$name.err" &
	cap=$!
	for i in $(seq 200); do [ -s "$T/$name.bpt" ] && break; sleep 0.05; done
	touch "$T/go"
	wait $W || fail "$name: the writer failed"
	wait $cap || fail "$name: capture failed: $(cat "$T/$name.err")"
	loss_check "$T/$name.json" "$name" >&2
	"$BLKPEAK" dump --format csv "$T/$name.bpt" | tail -n +2 > "$T/$name.csv"
	awk -F, -v p="$(cat "$T/pid")" '$9 != p || $10 != "bp-dsync"' "$T/$name.csv" | grep -q . &&
		fail "$name: records not credited to the writer (pid $(cat "$T/pid")): $(awk -F, '$10 != "bp-dsync" { print $7, $9, $10 }' "$T/$name.csv" | sort | uniq -c)"
	echo "$(awk -F, '$7 == "write"' "$T/$name.csv" | wc -l) $(awk -F, '$7 == "flush"' "$T/$name.csv" | wc -l)"
}

all=$(run all)
[ "$all" != "9 0" ] && [ "${all%% *}" = 9 ] || fail "unfiltered: writes and flushes '$all', want 9 writes and their flushes"
[ "${all##* }" -ge 9 ] || fail "unfiltered: ${all##* } flushes for 9 O_DSYNC writes on a disk without FUA"
for f in "-p @PID" "-c bp-dsync"; do
	got=$(run "f$(echo "$f" | tr -dc a-z)" $f)
	[ "$got" = "$all" ] || fail "$f: writes and flushes '$got', unfiltered '$all'"
done
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$CG2" ] && mkdir "$CG2/blkpeak-e2e-flush-$$" 2>/dev/null; then
	CG="$CG2/blkpeak-e2e-flush-$$"
	at_exit "for i in 1 2 3 4 5 6 7 8 9 10; do rmdir '$CG' 2>/dev/null && break; sleep 0.2; done"
	got=$(run fcg --cgroup @CG)
	[ "$got" = "$all" ] || fail "--cgroup: writes and flushes '$got', unfiltered '$all'"
else
	[ "${CI:-}" = true ] && fail "--cgroup not checked: no cgroup v2 hierarchy to make a group in"
	note "--cgroup NOT CHECKED: no cgroup v2 hierarchy to make a group in"
fi
note "9 O_DSYNC writes: ${all##* } flushes, all credited to the writer, unfiltered and under -p, -c, --cgroup"
exit 0
