#!/bin/bash
# 15-output-targets.sh — issue 27 (groups 2, 3, 9): no output destroys
# a disk:
#  - measure -o naming the measured target, or a member of a RAID
#    target, is refused before any I/O and the image is unchanged;
#  - no output (convert, convert --to fio, generate, replay -o, measure
#    -o) replaces a file that backs an attached loop device: refused
#    naming the loop device, the file unchanged and still attached;
#  - a refused replay removes the target files its --create made this
#    run, and never a file that existed before.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd losetup sha256sum timeout
T=$E2E_TMP
sum() { sha256sum "$1" | cut -d' ' -f1; }

# refused WHAT MESSAGE CMD...: exit 1 within 60 s, MESSAGE on stderr
refused() {
	what=$1 msg=$2
	shift 2
	timeout 60 "$@" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit $rc, want 1 ($(cat "$T/err"))"
	grep -qF -- "$msg" "$T/err" || fail "$what: no '$msg' in: $(cat "$T/err")"
}

"$BLKPEAK" generate -q --count 200 --span 4m -o "$T/t.bpt" || fail "generate"

# Group 2: measure -o is not the target, nor one of its members.
truncate -s 8M "$T/m.img" "$T/r1.img" "$T/r2.img"
printf 'precious' | dd of="$T/m.img" conv=notrunc status=none
printf 'precious' | dd of="$T/r2.img" conv=notrunc status=none
m0=$(sum "$T/m.img") r0=$(sum "$T/r2.img")
refused "measure -o TARGET" "m.img: a member of the target" \
	"$BLKPEAK" measure seeks --target "$T/m.img" --ios 50 --no-store -o "$T/m.img"
[ "$(sum "$T/m.img")" = "$m0" ] || fail "measure -o overwrote its target"
[ "$(stat -c %s "$T/m.img")" = 8388608 ] || fail "measure -o changed its target's size"
refused "measure -o RAID member" "r2.img: a member of the target" \
	"$BLKPEAK" measure seeks --target "raid1:$T/r1.img,$T/r2.img" --ios 50 --no-store -o "$T/r2.img"
[ "$(sum "$T/r2.img")" = "$r0" ] || fail "measure -o overwrote a RAID member"
ln -s "$T/m.img" "$T/link.json"
refused "measure -o link to the target" "a member of the target" \
	"$BLKPEAK" measure seeks --target "$T/m.img" --ios 50 --no-store -o "$T/link.json"
[ "$(sum "$T/m.img")" = "$m0" ] || fail "measure -o through a link overwrote its target"
"$BLKPEAK" measure seeks --target "$T/m.img" --ios 50 --no-store -o "$T/res.json" >/dev/null ||
	fail "measure -o to a new file"
grep -q '"kind"' "$T/res.json" || fail "measure -o wrote no results"

# Group 3: a loop device's backing file is no output.
L=$(make_loop 16M lback)
B=$E2E_TMP/lback.img
printf 'disk' | dd of="$B" conv=notrunc status=none
b0=$(sum "$B")
refused "convert -o loop backing" "backs the loop device $L" "$BLKPEAK" convert "$T/t.bpt" -o "$B"
refused "convert --to fio -o loop backing" "backs the loop device $L" \
	"$BLKPEAK" convert "$T/t.bpt" --to fio -o "$B"
refused "generate -o loop backing" "backs the loop device $L" "$BLKPEAK" generate -q --count 10 -o "$B"
refused "replay -o loop backing" "backs the loop device $L" \
	"$BLKPEAK" replay "$T/t.bpt" --target "$T/m.img" --engine null -o "$B"
refused "measure -o loop backing" "backs the loop device $L" \
	"$BLKPEAK" measure seeks --target "$T/m.img" --ios 50 --no-store -o "$B"
ln "$B" "$T/hard.img"
refused "convert -o a hard link to a loop backing" "backs the loop device $L" \
	"$BLKPEAK" convert "$T/t.bpt" -o "$T/hard.img"
[ "$(sum "$B")" = "$b0" ] || fail "a loop device's backing file changed"
losetup -n -O BACK-FILE "$L" | grep -q deleted && fail "the backing file was replaced: $(losetup -l "$L")"
loop_detach "$L" "$B"
"$BLKPEAK" convert "$T/t.bpt" -o "$B" >/dev/null || fail "convert -o a file no loop device uses"

# Group 9: a refused replay removes what its --create made this run.
"$BLKPEAK" generate -q --count 100 --span 32m -o "$T/g.bpt" || fail "generate"
refused "replay onto a bad RAID member" "cannot open" \
	"$BLKPEAK" replay "$T/g.bpt" --target "raid0:chunk=64k:$T/n1.img,$T/n2.img,$T/no/such/x.img" \
	--create 64m --engine null
[ ! -e "$T/n1.img" ] && [ ! -e "$T/n2.img" ] || fail "a refused replay left the members it created"
refused "replay onto a too small new file" "but the target holds 1.0 MiB" \
	"$BLKPEAK" replay "$T/g.bpt" --target "$T/n3.img" --create 1m --engine null
[ ! -e "$T/n3.img" ] || fail "a refused replay left the file it created"
truncate -s 1m "$T/old.img"
printf 'mine' | dd of="$T/old.img" conv=notrunc status=none
o0=$(sum "$T/old.img")
refused "replay onto an existing file extended too little" "but the target holds 2.0 MiB" \
	"$BLKPEAK" replay "$T/g.bpt" --target "$T/old.img" --create 2m --engine null
[ "$(sum "$T/old.img")" = "$o0" ] || fail "a refused replay changed an existing file (extended, removed)"
"$BLKPEAK" replay "$T/g.bpt" --target "$T/n4.img" --create 64m --engine null >/dev/null ||
	fail "replay --create 64m"
[ "$(stat -c %s "$T/n4.img")" = 67108864 ] || fail "a replay that ran did not keep the file it created"

# Group 9: the directory of a --verify killed by SIGKILL is removed by the
# next --verify (its owner's PID is gone); a live owner's, or one holding
# other files, stays.
dead=$(sh -c 'echo $$')
mkdir "$T/blkpeak-verify-$dead-abcdef" "$T/blkpeak-verify-$$-ghijkl" "$T/blkpeak-verify-$dead-mnopqr"
touch "$T/blkpeak-verify-$dead-abcdef/kernel.bpt" "$T/blkpeak-verify-$dead-abcdef/capture.err" \
	"$T/blkpeak-verify-$dead-abcdef/.kernel.bpt.lock" "$T/blkpeak-verify-$dead-abcdef/kernel.bpt.tmp.Xy12ab" \
	"$T/blkpeak-verify-$$-ghijkl/kernel.bpt" "$T/blkpeak-verify-$dead-mnopqr/precious"
TMPDIR=$T "$BLKPEAK" replay "$T/g.bpt" --target "$T/n4.img" --verify >/dev/null 2>&1
[ ! -e "$T/blkpeak-verify-$dead-abcdef" ] || fail "a dead --verify's directory was not removed: $(ls -a "$T/blkpeak-verify-$dead-abcdef")"
[ -e "$T/blkpeak-verify-$$-ghijkl/kernel.bpt" ] || fail "a live --verify's directory was removed"
[ -e "$T/blkpeak-verify-$dead-mnopqr/precious" ] || fail "a file that is no --verify's was removed"
exit 0
