#!/bin/bash
# Replay reaches the target exactly: every I/O of a generated trace, with
# its offset, length and operation, through a plain loop device and
# through each virtual layout (raid0, raid1, raid10, linear), checking the
# member and member offset of every part against the kernel's own record
# of the replay (ftrace blk tracer, Q events) and the run file; a random
# trace on every layout, a sequential one across linear and raid0 members.
. "$(dirname "$0")/lib.sh"
each_engine
need_root
need_cmd blkparse python3 losetup
CHECK="python3 $(dirname "$0")/replay_check.py"
M=$((1024 * 1024))

"$BLKPEAK" generate -o "$E2E_TMP/g.bpt" --count 300 --read-pct 50 --bs 4k:50,16k:30,64k:20 \
	--span 16m --queue-depth 4 --seed 3 -q || fail "generate"
"$BLKPEAK" dump --format csv "$E2E_TMP/g.bpt" > "$E2E_TMP/g.csv" || fail "dump source"
# a sequential one, so that I/Os cross the first linear member's end
"$BLKPEAK" generate -o "$E2E_TMP/s.bpt" --pattern sequential --count 200 --read-pct 50 --bs 64k \
	--span 16m -q || fail "generate"
"$BLKPEAK" dump --format csv "$E2E_TMP/s.bpt" > "$E2E_TMP/s.csv" || fail "dump source"
TR=g  # the trace check() replays

# trace_devs OUT DEV...: record every DEV with the blk tracer into OUT
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
# majmin DEV SIZE: "maj,min:size" as replay_check.py wants it
majmin() { echo "$(printf '%d,%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"):$2"; }

# check NAME LAYOUT CHUNK SPEC DEV:SIZE...
check() {
	_name=$1 _layout=$2 _chunk=$3 _spec=$4; shift 4
	_devs="" _args=""
	for _ds in "$@"; do _devs="$_devs ${_ds%%:*}"; _args="$_args $(majmin "${_ds%%:*}" "${_ds##*:}")"; done
	# shellcheck disable=SC2086
	trace_devs "$E2E_TMP/$_name.bin" $_devs
	"$BLKPEAK" replay "$E2E_TMP/$TR.bpt" --target "$_spec" --allow-write --timing afap \
		--queue-depth 8 -o "$E2E_TMP/$_name.bpt" > "$E2E_TMP/$_name.out" 2>&1 ||
		{ cat "$E2E_TMP/$_name.out"; fail "$_name: replay failed"; }
	# shellcheck disable=SC2086
	untrace_devs $_devs
	blkparse -i - -f "%D %a %d %S %n %T.%9t\n" < "$E2E_TMP/$_name.bin" > "$E2E_TMP/$_name.txt"
	"$BLKPEAK" dump --format csv "$E2E_TMP/$_name.bpt" > "$E2E_TMP/$_name.csv" || fail "$_name: dump run"
	# shellcheck disable=SC2086
	$CHECK parts --warmup "$E2E_TMP/$TR.csv" "$E2E_TMP/$_name.csv" "$E2E_TMP/$_name.txt" \
		"$_layout" "$_chunk" $_args > "$E2E_TMP/$_name.check" ||
		{ cat "$E2E_TMP/$_name.check"; fail "$_name: parts differ"; }
	note "$_name: $(tail -1 "$E2E_TMP/$_name.check")"
}

# reads_on DEV NAME: Q read events on DEV in NAME's blk trace
reads_on() { awk -v d="$(majmin "$1" 0 | cut -d: -f1)" '$1 == d && $2 == "Q" && $3 ~ /R/' \
	"$E2E_TMP/$2.txt" | wc -l; }

A=$(make_loop 32M a); B=$(make_loop 32M b); C=$(make_loop 16M c); D=$(make_loop 16M d)
check plain single 0 "$A" "$A:$((32 * M))"
check raid0 raid0 65536 "raid0:chunk=64k:$C,$D" "$C:$((16 * M))" "$D:$((16 * M))"
check raid1 raid1 0 "raid1:$A,$B" "$A:$((32 * M))" "$B:$((32 * M))"
[ "$(reads_on "$A" raid1)" -gt 0 ] && [ "$(reads_on "$B" raid1)" -gt 0 ] ||
	fail "raid1: reads not balanced over both mirrors"
check raid10 raid10 16384 "raid10:chunk=16k:$A,$B,$C,$D" \
	"$A:$((32 * M))" "$B:$((32 * M))" "$C:$((16 * M))" "$D:$((16 * M))"
losetup -d "$C"; losetup -d "$D"
E=$(make_loop $((10 * M + 4096)) e); F=$(make_loop 30M f)
check linear linear 0 "linear:$E,$F" "$E:$((10 * M + 4096))" "$F:$((30 * M))"
TR=s
check linear-seq linear 0 "linear:$E,$F" "$E:$((10 * M + 4096))" "$F:$((30 * M))"
awk -F, '$17 == 3' "$E2E_TMP/linear-seq.csv" | grep -q . || fail "no I/O crossed the linear members' boundary"
check raid0-seq raid0 65536 "raid0:chunk=64k:$A,$B" "$A:$((32 * M))" "$B:$((32 * M))"
exit 0
