#!/bin/bash
# Replay refuses what would destroy data or cannot work: writes to a block
# device without --allow-write; a device carrying a mounted ext4 file
# system, even with --allow-write, also through a virtual array (its files
# stay byte-identical); a file or device that a loop device is built on
# (mounted on top, or a loop on a loop); --speed values whose schedule
# does not fit; a target smaller than the trace (both sizes named)
# unless --fit; a missing file without --create; usage errors exit 2.
. "$(dirname "$0")/lib.sh"
each_engine
need_root
need_cmd mkfs.ext4 mount umount losetup

"$BLKPEAK" generate -o "$E2E_TMP/g.bpt" --count 500 --read-pct 70 --span 24m -q || fail "generate"
"$BLKPEAK" generate -o "$E2E_TMP/ro.bpt" --count 200 --read-pct 100 --span 24m -q || fail "generate"

# expect_refusal NAME EXIT PATTERN CMD...: CMD exits EXIT and says PATTERN
expect_refusal() {
	_n=$1 _rc=$2 _pat=$3; shift 3
	"$@" > "$E2E_TMP/out" 2> "$E2E_TMP/err"; _got=$?
	[ "$_got" -eq "$_rc" ] || { cat "$E2E_TMP/err"; fail "$_n: exit $_got, want $_rc"; }
	grep -q -- "$_pat" "$E2E_TMP/err" || { cat "$E2E_TMP/err"; fail "$_n: no '$_pat' in the message"; }
	note "$_n: $(head -1 "$E2E_TMP/err")"
}

A=$(make_loop 32M a)
expect_refusal "writes without --allow-write" 1 \
	"$A: the trace has [0-9]* writes that would destroy data on this device, refusing without --allow-write" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$A" --timing afap
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$A" --timing afap --writes skip > "$E2E_TMP/out" ||
	fail "--writes skip should replay the reads"
grep -q "writes left out" "$E2E_TMP/out" || fail "--writes skip: summary does not say writes were left out"
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$A" --timing afap --writes as-reads --json > "$E2E_TMP/out" ||
	fail "--writes as-reads"
grep -q '"ios":500,' "$E2E_TMP/out" || fail "--writes as-reads: not all 500 I/Os replayed: $(cat "$E2E_TMP/out")"

# a mounted ext4 file system: refused for writes and for reads alike
MNT="$E2E_TMP/mnt"
mkdir -p "$MNT"
mkfs.ext4 -q -F "$A" || fail "mkfs.ext4"
mount "$A" "$MNT" || fail "mount"
at_exit "umount '$MNT' 2>/dev/null"
head -c 3000000 /dev/urandom > "$MNT/data.bin"
echo "hello" > "$MNT/small.txt"
sync
(cd "$MNT" && md5sum data.bin small.txt) > "$E2E_TMP/sums"
expect_refusal "mounted, --allow-write" 1 "$A: mounted at $MNT, refusing to use it" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$A" --allow-write --timing afap
expect_refusal "mounted, reads only" 1 "$A: mounted at $MNT, refusing to use it" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$A" --timing afap
B=$(make_loop 32M b)
expect_refusal "mounted member of raid0" 1 "$A: mounted at $MNT" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "raid0:chunk=64k:$B,$A" --allow-write --timing afap
umount "$MNT" || fail "umount"
e2fsck -fn "$A" > /dev/null 2>&1 || fail "the file system is damaged"
mount -o ro "$A" "$MNT" || fail "mount again"
(cd "$MNT" && md5sum -c --quiet "$E2E_TMP/sums") || fail "files on the mounted device changed"
umount "$MNT" || fail "umount"

# a busy device (opened O_EXCL by someone else): refused
python3 -c "import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); sys.stdout.write('x\n'); sys.stdout.flush(); time.sleep(30)" "$B" > "$E2E_TMP/held" &
HOLDER=$!
_PIDS="$HOLDER $_PIDS"
# python starts slowly on a loaded machine: wait up to 20 s for the claim
for _ in $(seq 200); do [ -s "$E2E_TMP/held" ] && break; sleep 0.1; done
[ -s "$E2E_TMP/held" ] || fail "the holder did not start"
expect_refusal "busy device" 1 "$B: busy" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$B" --timing afap
kill "$HOLDER"; wait "$HOLDER" 2>/dev/null

# anything built on a target refuses it, even with --allow-write, and the
# file system on top stays whole: a file backing a mounted loop device
# (any name of it: a hard link), that file inside an array, and a loop
# device under another loop device that is mounted
FI="$E2E_TMP/fs.img"
truncate -s 32M "$FI" || fail "truncate"
mkfs.ext4 -q -F "$FI" || fail "mkfs.ext4 $FI"
LF=$(losetup -f --show "$FI") || fail "losetup $FI"
at_exit "loop_detach '$LF' '$FI'"
MNT2="$E2E_TMP/mnt2"
mkdir -p "$MNT2"
mount "$LF" "$MNT2" || fail "mount $LF"
at_exit "umount '$MNT2' 2>/dev/null"
echo "kept" > "$MNT2/kept.txt"; sync
ln "$FI" "$E2E_TMP/fs-link.img" || fail "ln"
expect_refusal "file backing a mounted loop" 1 \
	"$FI: in use by $LF (loop device backed by it), refusing to use it" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$FI" --timing afap
expect_refusal "hard link of that file" 1 "fs-link.img: in use by $LF (loop device backed by it)" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$E2E_TMP/fs-link.img" --timing afap
expect_refusal "that file in an array" 1 "$FI: in use by $LF" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "raid1:$E2E_TMP/free.img,$FI" --create 32m \
	--timing afap
# the loop's file deleted (sysfs then says "PATH (deleted)"), another link
# of it given as the target: the loop device itself names device and inode
truncate -s 8M "$E2E_TMP/gone.img" && ln "$E2E_TMP/gone.img" "$E2E_TMP/kept.img" || fail "link"
LG=$(losetup -f --show "$E2E_TMP/gone.img") || fail "losetup gone.img"
at_exit "loop_detach '$LG' '$E2E_TMP/gone.img'"
rm "$E2E_TMP/gone.img"
expect_refusal "other link of a deleted backing file" 1 "kept.img: in use by $LG (loop device backed by it)" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$E2E_TMP/kept.img" --timing afap --fit wrap
LOW=$(make_loop 32M low)
UP=$(losetup -f --show "$LOW") || fail "losetup $LOW"
at_exit "loop_detach '$UP' '$LOW'"
mkfs.ext4 -q -F "$UP" || fail "mkfs.ext4 $UP"
MNT3="$E2E_TMP/mnt3"
mkdir -p "$MNT3"
mount "$UP" "$MNT3" || fail "mount $UP"
at_exit "umount '$MNT3' 2>/dev/null"
echo "kept" > "$MNT3/kept.txt"; sync
expect_refusal "loop under a mounted loop, --allow-write" 1 \
	"$LOW: in use by $UP (loop device backed by it), refusing to use it" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$LOW" --allow-write --timing afap
expect_refusal "that loop in an array" 1 "$LOW: in use by $UP" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "raid0:chunk=64k:$B,$LOW" --allow-write \
	--timing afap
umount "$MNT2" && umount "$MNT3" || fail "umount"
e2fsck -fn "$LF" > /dev/null 2>&1 || fail "the file system on $FI is damaged"
e2fsck -fn "$UP" > /dev/null 2>&1 || fail "the file system on $UP (over $LOW) is damaged"
losetup -d "$LF" "$UP" || fail "losetup -d"
"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$FI" --timing afap > /dev/null ||
	fail "the file is free again once detached"

# --speed whose schedule cannot be represented, and values that are no speed
expect_refusal "--speed 1e-15" 2 \
	"--speed 1e-15: the trace's [0-9.]* s would last [0-9.e+]* s; the longest schedule is 2^62 ns" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$FI" --speed 1e-15
for v in nan inf -1 0 1e7 1e-400; do
	expect_refusal "--speed $v" 2 "--speed: '$v': not a number above 0 and below 1e6" \
		"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$FI" --speed "$v"
done

# too small, both sizes named; --fit makes it go
S=$(make_loop 8M s)
expect_refusal "target too small" 1 "the trace reaches .* but the target holds 8.0 MiB (8388608 bytes); --fit wrap|scale" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$S" --timing afap
"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$S" --timing afap --fit scale > /dev/null ||
	fail "--fit scale"
"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$S" --timing afap --fit wrap > /dev/null ||
	fail "--fit wrap"
expect_refusal "offset past the end" 1 "--offset 8388608 is at or past its end" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$S" --fit wrap --offset 8m

# regular files: created only with --create
F="$E2E_TMP/target.img"
expect_refusal "missing file" 1 "$F: no such file; --create SIZE creates it" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$F" --timing afap
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$F" --create 32m --timing afap > /dev/null ||
	fail "--create"
[ "$(stat -c %s "$F")" -eq $((32 * 1024 * 1024)) ] || fail "--create: wrong size"

# -o must not overwrite the trace or a target member
cp "$E2E_TMP/ro.bpt" "$E2E_TMP/keep.bpt"
expect_refusal "-o onto the trace" 1 "ro.bpt: an input of this command, refusing to write a run file there" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$F" --timing afap -o "$E2E_TMP/ro.bpt"
cmp -s "$E2E_TMP/ro.bpt" "$E2E_TMP/keep.bpt" || fail "the trace was changed"
expect_refusal "-o onto the target" 1 "that is a member of the target" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$F" --timing afap -o "$F"
expect_refusal "the trace as target" 1 "the trace is also a member of the target" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "raid1:$F,$E2E_TMP/ro.bpt" --timing afap
cmp -s "$E2E_TMP/ro.bpt" "$E2E_TMP/keep.bpt" || fail "the trace was changed"

# One replay at a time on a file, as O_EXCL makes it for a device: a
# second one writing, or reading while the first writes, is refused and
# names the first's PID; once the first is gone the file is free again.
"$BLKPEAK" generate -o "$E2E_TMP/slow.bpt" --count 20000 --iops 1000 --read-pct 50 --span 24m -q ||
	fail "generate"
W="$E2E_TMP/shared.img"
truncate -s 32M "$W"
bg_start "$BLKPEAK" replay "$E2E_TMP/slow.bpt" --target "$W" >/dev/null 2>&1
first=$BG_PID
ino=$(stat -c %i "$W")
for _ in $(seq 200); do
	grep -qE "POSIX +ADVISORY +WRITE +$first +[0-9a-f]+:[0-9a-f]+:$ino " /proc/locks && break
	kill -0 "$first" 2>/dev/null || fail "the first replay on $W ended early"
	sleep 0.1
done
grep -qE "WRITE +$first .*:$ino " /proc/locks || fail "the first replay holds no lock on $W"
expect_refusal "a second replay writing the same file" 1 "$W: in use by PID $first (another replay" \
	"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$W" --timing afap
expect_refusal "a second replay reading it" 1 "$W: in use by PID $first" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$W" --timing afap
kill "$first"
wait "$first" 2>/dev/null
"$BLKPEAK" replay "$E2E_TMP/g.bpt" --target "$W" --timing afap >/dev/null ||
	fail "the file stays refused after the first replay ended"

# usage
expect_refusal "bad layout" 2 "unknown layout 'raid3'" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "raid3:$F,$F"
expect_refusal "no target" 2 "no target" "$BLKPEAK" replay "$E2E_TMP/ro.bpt"
expect_refusal "bad timing" 2 "--timing: 'fast'" "$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$F" --timing fast
expect_refusal "--poll without afap" 2 "--poll only applies to --timing afap" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "$F" --poll
expect_refusal "unknown --map device" 1 "--map sdz: the trace has no device 'sdz' (it has: gen0 (0:0))" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --map "sdz=$F"
expect_refusal "same member twice" 1 "are the same file" \
	"$BLKPEAK" replay "$E2E_TMP/ro.bpt" --target "raid1:$F,$F"
"$BLKPEAK" replay --help | grep -q -- "--allow-write" || fail "--help"
exit 0
