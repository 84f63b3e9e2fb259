#!/bin/bash
# raid5 and raid6 virtual arrays (schemas/array-layouts.md): every member
# I/O of a replay, data and parity, reads and writes, is where the
# layout says, checked against the kernel's blk tracer by an independent
# re-implementation (raid_check.py parts) for raid5 of 3, 4 and 5 members
# in several md layouts, with partial and full-row writes, raid6, and
# degraded arrays (missing=, whose missing member must see no I/O); after
# each replay onto whole arrays, P (and Q) of every row recomputed from
# the members is what they hold (raid_check.py parity). Bad specs fail
# with a reason.
. "$(dirname "$0")/lib.sh"
each_engine
need_root
need_cmd blkparse python3 losetup
CHECK="python3 $(dirname "$0")/raid_check.py"

# bad specs first (no device is touched: the spec is refused first)
F="$E2E_TMP/f.img"; truncate -s 1M "$F"
bad() { target_refused "$@"; }
bad "raid5 needs at least 3 members, got 2" "raid5:chunk=64k:$F,$F"
bad "raid6 needs at least 4 members, got 3" "raid6:chunk=64k:$F,$F,$F"
bad "needs a power of two" "raid5:chunk=48k:$F,$F,$F"
bad "needs a power of two" "raid5:chunk=1k:$F,$F,$F"
bad "not a multiple of 512" "raid5:chunk=1000:$F,$F,$F"
bad "raid5 needs a chunk size" "raid5:$F,$F,$F"
bad "member 3 does not exist" "raid5:chunk=64k:missing=3:$F,$F,$F"
bad "at most 1 missing member" "raid5:chunk=64k:missing=0,1:$F,$F,$F"
bad "at most 2 missing members" "raid6:chunk=64k:missing=0,1,2:$F,$F,$F,$F"
bad "expected member indexes" "raid6:chunk=64k:missing=x:$F,$F,$F,$F"
bad "unknown layout 'left'" "raid5:chunk=64k:layout=left:$F,$F,$F"

M=$((1024 * 1024))
# random reads and writes of 4k to 256k (partial rows, some whole ones)
"$BLKPEAK" generate -o "$E2E_TMP/g.bpt" --count 250 --read-pct 40 --bs 4k:40,16k:30,64k:15,256k:15 \
	--span 8m --queue-depth 4 --seed 5 -q || fail "generate"
"$BLKPEAK" dump --format csv "$E2E_TMP/g.bpt" > "$E2E_TMP/g.csv" || fail "dump"
# full rows of a 4-member raid5 on 64k chunks: 192k writes from 0
"$BLKPEAK" generate -o "$E2E_TMP/s.bpt" --pattern sequential --count 40 --read-pct 0 --bs 192k \
	--span 7680k -q || fail "generate"
"$BLKPEAK" dump --format csv "$E2E_TMP/s.bpt" > "$E2E_TMP/s.csv" || fail "dump"

majmin() { printf '%d,%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }
DEVS=()
for i in 0 1 2 3 4; do DEVS[i]=$(make_loop 4M "m$i"); done
with_kernel_lock

# check NAME TRACE LEVEL ALGO CHUNK MISSING NMEMBERS [FRESH]
check() {
	_name=$1 _tr=$2 _level=$3 _algo=$4 _chunk=$5 _miss=$6 _n=$7
	_m=("${DEVS[@]:0:_n}")
	_list=$(IFS=,; echo "${_m[*]}")
	_spec="raid$_level:chunk=$_chunk:layout=$_algo"
	[ "$_miss" = - ] || _spec="$_spec:missing=$_miss"
	_spec="$_spec:$_list"
	# start from zeroes, which is a consistent array (the loops do direct
	# I/O on their files: emptying a file empties its device)
	for ((_i = 0; _i < _n; _i++)); do
		truncate -s 0 "$E2E_TMP/m$_i.img"; truncate -s 4M "$E2E_TMP/m$_i.img"
	done
	blktrace_start "${_m[0]}" "$E2E_TMP/$_name.bin"
	for _d in "${_m[@]:1}"; do
		echo 1 > "/sys/block/$(basename "$_d")/trace/enable"
		at_exit "echo 0 > /sys/block/$(basename "$_d")/trace/enable"
	done
	"$BLKPEAK" replay "$E2E_TMP/$_tr.bpt" --target "$_spec" --allow-write --timing afap \
		--queue-depth 8 -o "$E2E_TMP/$_name.bpt" > "$E2E_TMP/$_name.out" 2>&1 ||
		{ cat "$E2E_TMP/$_name.out"; fail "$_name: replay failed"; }
	for _d in "${_m[@]:1}"; do echo 0 > "/sys/block/$(basename "$_d")/trace/enable"; done
	blktrace_stop
	blkparse -i - -f "%D %a %d %S %n %T.%9t\n" < "$E2E_TMP/$_name.bin" > "$E2E_TMP/$_name.txt"
	"$BLKPEAK" dump --format csv "$E2E_TMP/$_name.bpt" > "$E2E_TMP/$_name.csv" || fail "$_name: dump"
	_mm=()
	for _d in "${_m[@]}"; do _mm+=("$(majmin "$_d")"); done
	$CHECK parts --warmup "$E2E_TMP/$_tr.csv" "$E2E_TMP/$_name.csv" "$E2E_TMP/$_name.txt" \
		"$_level" "$_algo" $((${_chunk%k} * 1024)) "$_miss" "${_mm[@]}" > "$E2E_TMP/$_name.check" ||
		{ cat "$E2E_TMP/$_name.check"; fail "$_name: member I/Os differ"; }
	_par=""
	if [ "$_miss" = - ]; then
		$CHECK parity "$_level" "$_algo" $((${_chunk%k} * 1024)) "${_m[@]}" > "$E2E_TMP/$_name.par" ||
			{ cat "$E2E_TMP/$_name.par"; fail "$_name: parity wrong"; }
		_par="; $(cat "$E2E_TMP/$_name.par")"
	fi
	note "$_name: $(tail -1 "$E2E_TMP/$_name.check")$_par"
}

check r5x4 g 5 left-symmetric 64k - 4
grep -q "array-internal: [1-9][0-9]* reads, [1-9][0-9]* writes" "$E2E_TMP/r5x4.out" ||
	{ cat "$E2E_TMP/r5x4.out"; fail "summary does not count the internal I/Os"; }
check r5x3 g 5 right-asymmetric 16k - 3
check r5x5 g 5 left-asymmetric 64k - 5
check r5full s 5 left-symmetric 64k - 4
# full rows: no reads at all, one parity write per row
[ "$(awk '$2 == "Q" && $3 ~ /R/' "$E2E_TMP/r5full.txt" | wc -l)" -eq 4 ] ||
	fail "full-row writes read something (besides the 4 warm-up reads)"
# asymmetric raid6: Q's slots are not the data order (the parity check sees it)
check r6x5 g 6 left-asymmetric 32k - 5
check r5deg g 5 left-symmetric 64k 2 4
check r6deg g 6 left-symmetric 64k 0,3 5
exit 0
