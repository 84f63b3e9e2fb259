#!/bin/bash
# "Dual" placement: --map DEV:START-END=SPEC[@OFFSET] sends a region of a
# recorded disk to a target of its own, and --map PARTITION=SPEC a
# partition the capture stored. Every sector of every I/O must land on the
# right loop device at the right offset, I/Os that straddle a bound cut
# there exactly, checked against the kernel's blk tracer (Q events) and
# the run file by an independent model (replay_check.py regions). Also:
# capture stores a partitioned loop device's table and info shows it; bad
# region maps get errors that name the fault.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
need_root
need_cmd blkparse python3 losetup sfdisk
CHECK="python3 $(dirname "$0")/replay_check.py"
M=$((1024 * 1024))

# trace_devs OUT DEV... / untrace_devs DEV...: the blk tracer on DEVs
trace_devs() {
	_out=$1; shift
	blktrace_start "$1" "$_out"
	for _d in "${@:2}"; do
		echo 1 > "/sys/block/$(basename "$_d")/trace/enable"
		at_exit "echo 0 > /sys/block/$(basename "$_d")/trace/enable"
	done
}
untrace_devs() {
	for _d in "$@"; do echo 0 > "/sys/block/$(basename "$_d")/trace/enable"; done
	blktrace_stop
}
# devid DEV: "maj,min:name" as replay_check.py wants it
devid() { echo "$(printf '%d,%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"):$(basename "$1")"; }

# replay_traced NAME TRACE ARGS...: replay onto $A and $B under the tracer
replay_traced() {
	_name=$1 _tr=$2; shift 2
	trace_devs "$E2E_TMP/$_name.bin" "$A" "$B"
	"$BLKPEAK" replay "$_tr" "$@" --allow-write --timing afap --queue-depth 8 \
		-o "$E2E_TMP/$_name.bpt" > "$E2E_TMP/$_name.out" 2>&1 ||
		{ cat "$E2E_TMP/$_name.out"; fail "$_name: replay failed"; }
	untrace_devs "$A" "$B"
	blkparse -i - -f "%D %a %d %S %n %T.%9t\n" < "$E2E_TMP/$_name.bin" > "$E2E_TMP/$_name.txt"
	"$BLKPEAK" dump --format csv "$E2E_TMP/$_name.bpt" > "$E2E_TMP/$_name.csv" ||
		fail "$_name: dump run"
	"$BLKPEAK" dump --format csv "$_tr" > "$E2E_TMP/$_name.src.csv" || fail "$_name: dump source"
}

A=$(make_loop 16M a); B=$(make_loop 16M b)

# 1. byte regions of a generated disk: one from a bound that is no
# multiple of 4 KiB (sector 8201) placed at 1 MiB on B, one to the disk's
# end placed at 8 MiB; the rest on A
"$BLKPEAK" generate -o "$E2E_TMP/g.bpt" --count 600 --read-pct 50 --bs 4k:30,16k:20,64k:30,256k:20 \
	--span 16m --queue-depth 4 --seed 5 -q || fail "generate"
replay_traced bytes "$E2E_TMP/g.bpt" --map gen0:8201s-6000k="$B@1M" --map gen0:10M-="$B@8M" \
	--target "$A"
grep -q "I/Os cross a --map region's bound" "$E2E_TMP/bytes.out" ||
	{ cat "$E2E_TMP/bytes.out"; fail "bytes: no I/O was cut at a region bound"; }
$CHECK regions --warmup "$E2E_TMP/bytes.src.csv" "$E2E_TMP/bytes.csv" "$E2E_TMP/bytes.txt" \
	"$(devid "$A")" "$((8201 * 512)):$((6000 * 1024)):$M:$(devid "$B")" \
	"$((10 * M)):$((16 * M)):$((8 * M)):$(devid "$B")" > "$E2E_TMP/bytes.check" ||
	{ cat "$E2E_TMP/bytes.check"; fail "bytes: pieces differ"; }
grep -q ", 0 cut" "$E2E_TMP/bytes.check" && fail "bytes: the check saw no cut I/O"
note "bytes: $(tail -1 "$E2E_TMP/bytes.check")"

# 2. a partitioned loop device: capture stores its table, info shows it,
# and --map loopNp2=B replays that partition's sectors at 0 on B
need_bpf
PF="$E2E_TMP/parts.img"
truncate -s 16M "$PF"
printf 'label: dos\nstart=2048, size=12288, type=83\nstart=14336, size=16384, type=83\n' |
	sfdisk -q "$PF" || fail "sfdisk cannot write a partition table into $PF"
P=$(losetup -f --show -P --direct-io=on "$PF") || fail "losetup -P $PF failed"
own_loop "$P" "$PF"
# kernels without the MBR parser find nothing: add them from user space
[ -b "${P}p2" ] || partx -a "$P" >&2 || fail "partx -a $P"
for _i in 1 2 3 4 5 6 7 8 9 10; do [ -b "${P}p2" ] && break; sleep 0.2; done
[ "$(cat "/sys/block/$(basename "$P")/$(basename "$P")p2/start" 2>/dev/null)" = 14336 ] ||
	fail "${P}p2 is not at sector 14336"
settle
PN=$(basename "$P")
"$BLKPEAK" capture -o "$E2E_TMP/cap.bpt" -d "$P" -- sh -c "
	dd if=/dev/urandom of=${P}p1 bs=16k count=8 oflag=direct status=none &&
	dd if=/dev/urandom of=${P}p2 bs=64k count=4 seek=3 oflag=direct status=none &&
	dd if=$P of=/dev/null bs=64k count=2 iflag=direct,skip_bytes skip=$((7 * M - 32768)) status=none" \
	> "$E2E_TMP/cap.out" 2>&1 || { cat "$E2E_TMP/cap.out"; fail "capture failed"; }
"$BLKPEAK" info "$E2E_TMP/cap.bpt" > "$E2E_TMP/info.txt" || fail "info"
grep -q "^partitions of $PN" "$E2E_TMP/info.txt" || { cat "$E2E_TMP/info.txt"; fail "info shows no partition table"; }
grep -Eq "^ +2 ${PN}p2 +14336 +16384 " "$E2E_TMP/info.txt" ||
	{ cat "$E2E_TMP/info.txt"; fail "info: ${PN}p2 not at 14336+16384"; }
"$BLKPEAK" info --json "$E2E_TMP/cap.bpt" | python3 -c '
import json, sys
d = json.load(sys.stdin)["devices"][0]
p = {x["name"]: x for x in d["partitions"]}
assert p[sys.argv[1] + "p1"]["start_sector"] == 2048 and p[sys.argv[1] + "p1"]["sectors"] == 12288, p
assert p[sys.argv[1] + "p2"]["number"] == 2, p' "$PN" || fail "info --json: partitions"
# bash completion offers the trace's partitions after --map
. "$(dirname "$0")/../../scripts/blkpeak-completion.bash"
COMP_WORDS=("$BLKPEAK" replay "$E2E_TMP/cap.bpt" --map "${PN}p"); COMP_CWORD=4; COMPREPLY=()
_blkpeak
printf '%s\n' "${COMPREPLY[@]}" | grep -qx "${PN}p2=" ||
	fail "completion: --map ${PN}p<TAB> offers '${COMPREPLY[*]}', not ${PN}p2="
replay_traced part "$E2E_TMP/cap.bpt" --map "${PN}p2=$B" --target "$A"
$CHECK regions --warmup "$E2E_TMP/part.src.csv" "$E2E_TMP/part.csv" "$E2E_TMP/part.txt" \
	"$(devid "$A")" "$((14336 * 512)):$((30720 * 512)):0:$(devid "$B")" > "$E2E_TMP/part.check" ||
	{ cat "$E2E_TMP/part.check"; fail "part: pieces differ"; }
grep -q ", 0 cut" "$E2E_TMP/part.check" && fail "part: the read across p1/p2 was not cut"
note "part: $(tail -1 "$E2E_TMP/part.check")"

# 3. bad maps: each error names what is wrong (no target is opened)
bad() { # bad STATUS TEXT ARGS...: replay exits STATUS and says TEXT
	_st=$1 _text=$2; shift 2
	"$BLKPEAK" replay "$@" > "$E2E_TMP/bad.out" 2>&1
	_rc=$?
	[ $_rc -eq "$_st" ] && grep -q -- "$_text" "$E2E_TMP/bad.out" ||
		{ cat "$E2E_TMP/bad.out"; fail "replay $*: exit $_rc, wanted $_st and '$_text'"; }
}
G="$E2E_TMP/g.bpt"
bad 1 "regions 1048576-5242880 and 4194304-8388608 (bytes) overlap" "$G" \
	--map gen0:1M-5M="$B" --map gen0:4M-8M="$B@8M" --target "$A"
bad 1 "past the end of gen0 (16777216 bytes)" "$G" --map gen0:8M-17M="$B" --target "$A"
bad 2 "empty region" "$G" --map gen0:8M-8M="$B" --target "$A"
bad 1 "empty region (it starts at or after the end of gen0)" "$G" --map gen0:16M-="$B" --target "$A"
bad 1 "the trace has no device 'sdq'" "$G" --map sdq:0-1M="$B" --target "$A"
bad 1 "no device or partition '${PN}p3' (it has: $PN (" "$E2E_TMP/cap.bpt" --map "${PN}p3=$B" --target "$A"
bad 1 "@OFFSET places a region or a partition" "$G" --map gen0="$B@1M"
bad 2 "not a whole number of 512-byte sectors" "$G" --map gen0:0-1M="$B@100" --target "$A"
bad 2 "region end '1x' is not a size" "$G" --map gen0:0-1x="$B" --target "$A"
bad 1 "outside its --map regions, and no target for the rest" "$G" --map gen0:0-1M="$B"
truncate -s 16M "$E2E_TMP/q4k.img"
Q4=$(losetup -f --show --direct-io=on --sector-size 4096 "$E2E_TMP/q4k.img") ||
	fail "cannot attach a loop device with 4 KiB sectors"
own_loop "$Q4" "$E2E_TMP/q4k.img"
bad 1 "must be multiples of 4096 bytes, the logical block size of its targets ($Q4" "$G" \
	--map gen0:8201s-="$Q4" --target "$A" --allow-write
bad 1 "must be multiples of 4096 bytes" "$G" --map gen0:8M-="$Q4@1k" --target "$A" --allow-write
exit 0
