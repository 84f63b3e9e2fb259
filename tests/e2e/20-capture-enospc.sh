#!/bin/bash
# capture onto a full file system: the end line and --json count the I/Os
# the file holds (not those seen), name the write error and how many I/Os
# were not written, and the exit status is 1. The output goes to a tiny
# ext4 on a loop device, filled but for 600 KiB, while fio runs at full
# speed on another loop device. The trace's blocks (flushed each second,
# at most 65536 records, about 450 KB) fit at least once into what is left
# (600 KiB), so some are written before the disk is full; fio runs until
# the capture stops it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture
need_cmd mkfs.ext4 fallocate

L=$(make_loop 256M)
LF=$(make_loop 8M)
mkfs.ext4 -q -m 0 -O ^has_journal "$LF" || fail "mkfs.ext4"
mkdir "$T/full" && mount "$LF" "$T/full" || fail "mount"
at_exit "umount '$T/full'"
settle
free_kb=$(df -k --output=avail "$T/full" | tail -1)
fallocate -l $(( (free_kb - 600) * 1024 )) "$T/full/filler" || fail "fallocate"
note "$(df -k --output=avail "$T/full" | tail -1) KiB left on $T/full"

"$BLKPEAK" capture -o "$T/full/t.bpt" -d "$L" --json -- \
	fio --name=fill --filename="$L" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=32 --size=200m --time_based --runtime=30 --output=/dev/null \
	> "$T/j.json" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "a capture that could not write its trace exits $rc, want 1: $(cat "$T/j.json" "$T/err")"
grep -q '"write_error":"ENOSPC"' "$T/j.json" || fail "--json names no write error: $(cat "$T/j.json")"
ios=$(json_num "$T/j.json" ios)
seen=$(json_num "$T/j.json" ios_seen)
notw=$(json_num "$T/j.json" ios_not_written)
[ "$ios" -gt 0 ] && [ "$notw" -gt 0 ] && [ $((ios + notw)) -eq "$seen" ] ||
	fail "--json: ios $ios + not written $notw != seen $seen"
grep -q "^blkpeak: capture: writing the trace: No space left on device" "$T/err" ||
	fail "the error is not named: $(cat "$T/err")"
# what the file holds, as the reader sees it
"$BLKPEAK" info --json "$T/full/t.bpt" > "$T/info.json" 2>"$T/info.err" || fail "info: $(cat "$T/info.err")"
[ "$(json_num "$T/info.json" ios)" -eq "$ios" ] ||
	fail "the file holds $(json_num "$T/info.json" ios) records, --json says $ios"

# the end line (without --json) says the same
rm -f "$T/full/t.bpt"
"$BLKPEAK" capture -o "$T/full/t.bpt" -d "$L" -- \
	fio --name=fill --filename="$L" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=32 --size=200m --time_based --runtime=30 --output=/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "end line run: exit $rc, want 1: $(cat "$T/err")"
line=$(grep "^capture: [0-9]* I/Os in " "$T/err")
"$BLKPEAK" info --json "$T/full/t.bpt" >"$T/held.json" 2>/dev/null
held=$(json_num "$T/held.json" ios)
echo "$line" | grep -q "^capture: $held I/Os in .*; ENOSPC after $held I/Os: [1-9][0-9]* I/Os not written$" ||
	fail "end line '$line', the file holds $held records"
note "full file system: $ios I/Os in the file, $notw of $seen not written, exit 1"
exit 0
