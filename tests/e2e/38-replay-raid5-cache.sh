#!/bin/bash
# The controller cache of virtual arrays (cache=SIZE[:destage=PCT],
# schemas/array-layouts.md "Controller cache"): after replays that keep
# the cache full (writes wait for room), with destaging at every fill
# level, on raid5 and raid6, on emulated disks in original timing, the
# members hold what the writes put there, in issue order (raid_check.py
# data: the end flush ran) and every row's parity is right; rows written
# whole are destaged as full-stripe writes, with no member read at all
# (the kernel's blk tracer); bad cache options fail with a reason.
. "$(dirname "$0")/lib.sh"
each_engine
need_root
need_cmd blkparse python3 losetup
CHECK="python3 $(dirname "$0")/raid_check.py"
K=1024

F="$E2E_TMP/f.img"; truncate -s 4M "$F"
bad() { target_refused "$@"; }
bad "takes 1m to 16g" "raid5:chunk=64k:cache=512k:$F,$F,$F"
bad "takes 1m to 16g" "raid5:chunk=64k:cache=1000001:$F,$F,$F"
bad "takes 1m to 16g" "raid5:chunk=64k:cache=0:$F,$F,$F"
bad "takes 1m to 16g" "raid5:chunk=64k:cache=17g:$F,$F,$F"
bad "cache 'lots'" "raid5:chunk=64k:cache=lots:$F,$F,$F"
bad "cache= given twice" "raid5:chunk=64k:cache=1m:cache=2m:$F,$F,$F"
bad "expected a percentage" "raid5:chunk=64k:cache=1m:destage=101:$F,$F,$F"
bad "expected a percentage" "raid5:chunk=64k:cache=1m:destage=-1:$F,$F,$F"
bad "expected a percentage" "raid5:chunk=64k:cache=1m:destage=5%x:$F,$F,$F"
bad "destage= without cache=SIZE" "raid5:chunk=64k:destage=50:$F,$F,$F"

# random reads and writes of 4k to 1m over 8 MiB (overlapping, partial
# rows, some whole ones; the 1m writes are too big for a 1m cache and go
# around it)
"$BLKPEAK" generate -o "$E2E_TMP/g.bpt" --count 1500 --read-pct 30 \
	--bs 4k:40,16k:30,64k:15,256k:10,1m:5 --span 8m --queue-depth 8 --seed 7 -q || fail "generate"

# files NAME TRACE LEVEL SPEC-OPTIONS NMEMBERS [hdd:MODEL:] [replay options...]
files() {
	_name=$1 _tr=$2 _level=$3 _opts=$4 _n=$5 _hdd=$6
	shift 6
	_m=() _list=""
	for ((_i = 0; _i < _n; _i++)); do
		_f="$E2E_TMP/$_name$_i.img"
		truncate -s 0 "$_f"; truncate -s 4M "$_f"
		_m+=("$_f"); _list="$_list${_list:+,}$_hdd$_f"
	done
	"$BLKPEAK" replay "$E2E_TMP/$_tr.bpt" --target "raid$_level:chunk=64k:$_opts:$_list" \
		--allow-write -o "$E2E_TMP/$_name.bpt" "$@" > "$E2E_TMP/$_name.out" 2>&1 ||
		{ cat "$E2E_TMP/$_name.out"; fail "$_name: replay failed"; }
	"$BLKPEAK" dump --format csv "$E2E_TMP/$_name.bpt" > "$E2E_TMP/$_name.csv" || fail "$_name: dump"
	$CHECK data "$_level" left-symmetric $((64 * K)) "$E2E_TMP/$_name.csv" "${_m[@]}" \
		> "$E2E_TMP/$_name.data" || { cat "$E2E_TMP/$_name.data"; fail "$_name: array data wrong"; }
	$CHECK parity "$_level" left-symmetric $((64 * K)) "${_m[@]}" > "$E2E_TMP/$_name.par" ||
		{ cat "$E2E_TMP/$_name.par"; fail "$_name: parity wrong"; }
	grep -q "^  cache  " "$E2E_TMP/$_name.out" || { cat "$E2E_TMP/$_name.out"; fail "$_name: no cache line"; }
	note "$_name: $(cat "$E2E_TMP/$_name.data"); $(cat "$E2E_TMP/$_name.par")"
}

files small g 5 cache=1m 4 "" --timing afap --queue-depth 8
# the cache is full most of the time: writes wait for room
grep -q "(0 waited" "$E2E_TMP/small.out" && { cat "$E2E_TMP/small.out"; fail "no write waited for room in a 1m cache"; }
grep -q " 0 destages" "$E2E_TMP/small.out" && fail "nothing destaged"
files eager g 5 cache=4m:destage=0 4 "" --timing afap --queue-depth 4
files lazy g 5 cache=16m:destage=100% 4 "" --timing afap --queue-depth 16
files r6 g 6 cache=2m 5 "" --timing afap --queue-depth 8
# emulated disks, original timing: destages in idle time too
"$BLKPEAK" generate -o "$E2E_TMP/h.bpt" --count 200 --read-pct 40 --bs 4k:60,64k:40 --span 8m \
	--iops 400 --seed 3 -q || fail "generate"
files hdd h 5 cache=1m 4 "hdd:15k:" --timing original

# the data check can fail: one byte of a data chunk changed
printf '\x55' | dd of="$E2E_TMP/small1.img" bs=1 seek=70000 conv=notrunc 2>/dev/null
$CHECK data 5 left-symmetric $((64 * K)) "$E2E_TMP/small.csv" "$E2E_TMP"/small[0-3].img > /dev/null &&
	fail "the data check passed with a changed byte"

# whole rows (192k writes from 0 on 4 members of 64k chunks): destaged as
# full-stripe writes, so the members see no read but the warm-up's
"$BLKPEAK" generate -o "$E2E_TMP/s.bpt" --pattern sequential --count 40 --read-pct 0 --bs 192k \
	--span 7680k -q || fail "generate"
DEVS=()
for i in 0 1 2 3; do DEVS[i]=$(make_loop 4M "l$i"); done
with_kernel_lock
blktrace_start "${DEVS[0]}" "$E2E_TMP/s.bin"
for d in "${DEVS[@]:1}"; do
	echo 1 > "/sys/block/$(basename "$d")/trace/enable"
	at_exit "echo 0 > /sys/block/$(basename "$d")/trace/enable"
done
"$BLKPEAK" replay "$E2E_TMP/s.bpt" --target "raid5:chunk=64k:cache=4m:$(IFS=,; echo "${DEVS[*]}")" \
	--allow-write --timing afap --json -o "$E2E_TMP/sfull.bpt" > "$E2E_TMP/s.json" ||
	{ cat "$E2E_TMP/s.json"; fail "full rows: replay failed"; }
for d in "${DEVS[@]:1}"; do echo 0 > "/sys/block/$(basename "$d")/trace/enable"; done
blktrace_stop
blkparse -i - -f "%D %a %d %S %n %T.%9t\n" < "$E2E_TMP/s.bin" > "$E2E_TMP/s.txt"
reads=$(awk '$2 == "Q" && $3 ~ /R/' "$E2E_TMP/s.txt" | wc -l)
writes=$(awk '$2 == "Q" && $3 ~ /W/' "$E2E_TMP/s.txt" | wc -l)
[ "$reads" -eq 4 ] || fail "full rows through the cache read $reads times (4 warm-up reads expected)"
[ "$writes" -ge 160 ] || fail "full rows: $writes member writes, 160 or more expected (40 rows x 4)"
python3 - "$E2E_TMP/s.json" <<'EOF' || fail "full rows: controller_cache counts"
import json, sys
c = json.load(open(sys.argv[1]))['controller_cache']
assert c['writes'] == 40 and c['destages'] == c['full_rows'] == 40, c
assert c['destaged_bytes'] == 40 * 192 * 1024 and c['unwritten_bytes'] == 0, c
EOF
"$BLKPEAK" dump --format csv "$E2E_TMP/sfull.bpt" > "$E2E_TMP/sfull.csv" || fail "dump"
$CHECK data 5 left-symmetric $((64 * K)) "$E2E_TMP/sfull.csv" "$E2E_TMP"/l[0-3].img > "$E2E_TMP/sfull.data" ||
	{ cat "$E2E_TMP/sfull.data"; fail "full rows: array data wrong"; }
note "full rows: $reads member reads (the warm-up), $writes member writes; $(cat "$E2E_TMP/sfull.data")"
exit 0
