#!/bin/bash
# The what-if transforms (--select, --loop, --loop-offset, --spread,
# --shift, --writes-as-reads, --reads-as-writes, --ramp) on a trace of
# two disks and four processes: each one, and a few together, through
# convert (the written trace) and through replay (the run file, on the
# null engine), checked against xform_check.py's own computation from
# `dump` of the input: counts, operations, devices, processes, sectors
# and times. The transforms are recorded in the output's meta; bad values
# are refused by name, and nothing is written then.
. "$(dirname "$0")/lib.sh"
need_cmd python3
HERE=$(cd "$(dirname "$0")" && pwd)
T=$E2E_TMP
CHECK="python3 $HERE/xform_check.py"

$CHECK make "$T/bs.txt" || fail "make the trace"
"$BLKPEAK" convert "$T/bs.txt" -o "$T/in.bpt" -q || fail "convert the trace"
"$BLKPEAK" dump -f csv "$T/in.bpt" > "$T/in.csv" || fail "dump"

while IFS= read -r args; do
	# shellcheck disable=SC2086
	"$BLKPEAK" convert "$T/in.bpt" -o "$T/out.bpt" -q $args || fail "convert $args"
	"$BLKPEAK" dump -f csv "$T/out.bpt" > "$T/out.csv" || fail "dump ($args)"
	# shellcheck disable=SC2086
	$CHECK convert "$T/in.csv" "$T/out.csv" $args > /dev/null || fail "convert $args"
done <<'CASES'
--select 1s-3s
--select 500ms-
--select dev:sdb
--select comm:tar*
--select pid:21 --select pid:1001
--select op:write
--writes-as-reads
--reads-as-writes
--spread 0.5
--spread 3 --shift 1m
--loop 3 --loop-offset 1g
--ramp 1:4
--ramp 3:1
--select 2s- --select comm:dd --loop 2 --ramp 2:0.5 --spread 3
CASES
note "convert: 14 cases as computed"
"$BLKPEAK" info "$T/out.bpt" | grep -q "meta: *transform=select=2s- select=comm:dd loop=2 ramp=2:0.5 spread=3" ||
	fail "convert: the transforms are not in the meta: $("$BLKPEAK" info "$T/out.bpt" | grep meta)"
# a transformed trace transformed again: both recorded
"$BLKPEAK" convert "$T/out.bpt" -o "$T/out2.bpt" -q --fill 70 --select op:read || fail "convert twice"
"$BLKPEAK" info "$T/out2.bpt" | grep -q "transform=select=2s- .* spread=3 | fill=70 select=op:read" ||
	fail "a second transform hides the first: $("$BLKPEAK" info "$T/out2.bpt" | grep meta)"
"$BLKPEAK" info "$T/out2.bpt" | grep -q "meta: *fill=70" || fail "convert --fill not in the meta"

truncate -s 64G "$T/target.img"
while IFS= read -r args; do
	# shellcheck disable=SC2086
	"$BLKPEAK" replay "$T/in.bpt" --target "$T/target.img" --engine null --speed 4 \
		-o "$T/run.bpt" $args > "$T/out" 2>&1 || { cat "$T/out"; fail "replay $args"; }
	"$BLKPEAK" dump -f csv "$T/run.bpt" > "$T/run.csv" || fail "dump ($args)"
	# shellcheck disable=SC2086
	$CHECK replay "$T/in.csv" "$T/run.csv" 4 $args > /dev/null || fail "replay $args"
done <<'CASES'
--select 1s-3s --loop 2 --loop-offset 1m --spread 2 --ramp 1:2
--select comm:dd --writes-as-reads --shift 4k
--select dev:sda --reads-as-writes --loop 3
--ramp 0.5:8
CASES
note "replay: 4 cases as computed"
grep -q "transform   ramp=0.5:8" "$T/out" || fail "replay summary: $(cat "$T/out")"
"$BLKPEAK" info "$T/run.bpt" | grep -q "meta: *transform=ramp=0.5:8" || fail "replay: no transform meta"
"$BLKPEAK" replay "$T/in.bpt" --target "$T/target.img" --engine null --select op:read --loop 2 \
	--json > "$T/j" || fail "replay --json"
python3 - "$T/j" <<'PY' || fail "replay --json: transform, deselected"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["transform"] == "select=op:read loop=2", j["transform"]
assert j["deselected"] == 2 * 270 and j["ios"] == 2 * 330, (j["deselected"], j["ios"])
PY

# refusals: named, usage status 2, and no output left behind
refuse() { # WANT-IN-MESSAGE ARGS...
	local want=$1
	shift
	"$BLKPEAK" convert "$T/in.bpt" -o "$T/no.bpt" "$@" 2> "$T/err" >/dev/null && fail "accepted: $*"
	grep -q -- "$want" "$T/err" || fail "$*: message: $(cat "$T/err")"
	[ -e "$T/no.bpt" ] && fail "$*: an output was left"
	return 0
}
refuse "--loop: '0': not a count" --loop 0
refuse "--loop: '18446744073709551616'" --loop 18446744073709551616
refuse "--spread: 'nan'" --spread nan
refuse "--shift 1000: not a multiple of 512" --shift 1000
refuse "--loop-offset: needs --loop" --loop-offset 1g
refuse "--select dev:sdz: the trace has no such device" --select dev:sdz
refuse "--select: '3s-1s': the range ends" --select 3s-1s
refuse "--ramp: '0:2'" --ramp 0:2
refuse "--fill: '101'" --fill 101
refuse "would move it to byte 2^62" --spread 1000000 --shift 4611686018427383808
"$BLKPEAK" replay "$T/in.bpt" --target "$T/target.img" --engine null --timing afap --ramp 1:2 \
	2> "$T/err" >/dev/null && fail "--ramp with afap accepted"
grep -q -- "--ramp: needs --timing original or causal" "$T/err" || fail "afap ramp: $(cat "$T/err")"
note "refusals named"
exit 0
