#!/bin/bash
# Emulated disks on the real replay path (hdd:MODEL:PATH members on loop
# devices): random 8 KiB reads, afap, each trace spanning its target's
# whole capacity, on the 15k preset (5.4 ms a read: large against this
# VM's scheduling noise of tens of microseconds, with 1500 I/Os so that
# the mean's spread is under 1%). The disks' rate is taken as queue depth
# / mean latency (Little's law, latency = issue to completion), which
# leaves out the host's gaps between a completion and the next issue; the
# wall-clock IOPS are printed too. The seeds' anchors:
#   one disk at QD 1 runs at 1 / (seek + half a turn + transfer) (-10%/+5%:
#   late wake-ups add a little);
#   RAID 0 of two equals one disk at QD 1 (+-5%) and gains 1.4-1.6x at QD 2;
#   RAID 1 of two gains >= 1.7x at QD 2.
# Also: a bad model is a usage error, hdd: over an array is refused, and
# the replay says which disk is emulated as what.
. "$(dirname "$0")/lib.sh"
each_engine
need_root
need_cmd python3

N=1500
A=$(make_loop 256M a)
B=$(make_loop 256M b)
"$BLKPEAK" generate -o "$E2E_TMP/r256.bpt" --count $N --bs 8k --span 256m --seed 11 -q || fail "generate"
"$BLKPEAK" generate -o "$E2E_TMP/r512.bpt" --count $N --bs 8k --span 512m --seed 12 -q || fail "generate"

# rate TRACE QD TARGET: "QD / mean latency" and the wall-clock IOPS (--json)
rate() {
	"$BLKPEAK" replay "$1" --timing afap --realtime --queue-depth "$2" --target "$3" --json \
		> "$E2E_TMP/j" 2> "$E2E_TMP/err" || { cat "$E2E_TMP/err"; fail "replay onto $3"; }
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["errors"] == 0
print("%.1f %.1f" % (int(sys.argv[2]) * 1e9 / j["latency"]["service"]["read"]["mean_ns"], j["ios_per_s"]))' \
		"$E2E_TMP/j" "$2" || fail "no latency in $(cat "$E2E_TMP/j")"
}
M=15k
read -r one1 w_one1 <<< "$(rate "$E2E_TMP/r256.bpt" 1 "hdd:$M:$A")"
read -r r0_1 w_r0_1 <<< "$(rate "$E2E_TMP/r512.bpt" 1 "raid0:chunk=64k:hdd:$M:$A,hdd:$M:$B")"
read -r r0_2 w_r0_2 <<< "$(rate "$E2E_TMP/r512.bpt" 2 "raid0:chunk=64k:hdd:$M:$A,hdd:$M:$B")"
read -r r1_2 w_r1_2 <<< "$(rate "$E2E_TMP/r256.bpt" 2 "raid1:hdd:$M:$A,hdd:$M:$B")"
note "$M, random 8 KiB reads, I/Os per second (QD / mean latency; wall clock): one disk QD1 $one1 ($w_one1);"
note "  raid0 QD1 $r0_1 ($w_r0_1), QD2 $r0_2 ($w_r0_2); raid1 QD2 $r1_2 ($w_r1_2)"
# 15k preset: seek_avg 3.3 ms, 15000 rpm, 164-100 MB/s
want=$(awk 'BEGIN { printf "%.1f", 1e3 / (3.3 + 2.0 + 8192 / 132e3) }')
awk -v g="$one1" -v w="$want" 'BEGIN { exit !(g >= 0.90 * w && g <= 1.05 * w) }' ||
	fail "one disk at QD 1: $one1 IOPS, the model says $want"
awk -v a="$r0_1" -v b="$one1" 'BEGIN { exit !(a >= 0.95 * b && a <= 1.05 * b) }' ||
	fail "RAID 0 at QD 1: $r0_1 IOPS, one disk $one1 (want equal +-5%)"
awk -v a="$r0_2" -v b="$one1" 'BEGIN { exit !(a >= 1.4 * b && a <= 1.6 * b) }' ||
	fail "RAID 0 at QD 2: $r0_2 IOPS against $one1 (want 1.4-1.6x)"
awk -v a="$r1_2" -v b="$one1" 'BEGIN { exit !(a >= 1.7 * b) }' ||
	fail "RAID 1 at QD 2: $r1_2 IOPS against $one1 (want >= 1.7x)"

# The replay names the model it emulates.
"$BLKPEAK" replay "$E2E_TMP/r256.bpt" --timing afap --target "hdd:instant:$A" \
	> /dev/null 2> "$E2E_TMP/err" || { cat "$E2E_TMP/err"; fail "hdd:instant"; }
grep -q "$A: emulated disk instant" "$E2E_TMP/err" || fail "no model line: $(cat "$E2E_TMP/err")"

# expect_usage WHAT MESSAGE TARGET: exit 2 and the message on stderr
expect_usage() {
	"$BLKPEAK" replay "$E2E_TMP/r256.bpt" --target "$3" > /dev/null 2> "$E2E_TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$1: exit $rc, want 2"
	grep -q -- "$2" "$E2E_TMP/err" || fail "$1: '$(cat "$E2E_TMP/err")' lacks '$2'"
}
expect_usage "unknown preset" "not a disk model" "hdd:7300:$A"
expect_usage "time without unit" "give a unit" "hdd:7200,seek_avg=9:$A"
expect_usage "hdd over an array" "put hdd: on each member" "hdd:7200:raid0:chunk=64k:$A,$B"
expect_usage "missing model file" "No such file" "hdd:file=$E2E_TMP/none:$A"
exit 0
