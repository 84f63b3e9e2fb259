#!/bin/bash
# -c follows the cause: two processes (bpw-a, bpw-b) write a file each
# with buffered writes and exit; a third (bpw-sync) writes both back with
# sync(2). A capture with -c bpw-a holds the writeback of bpw-a's file
# (>= 99% of its bytes) and nothing bpw-a neither submitted nor caused;
# with --submitted-only it holds only what bpw-a submitted itself (none
# of that writeback).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture
need_cmd python3 mkfs.ext4

L=$(make_loop 256M)
settle
mkfs.ext4 -q -F "$L" || fail "mkfs.ext4 $L"
M=$T/mnt
mkdir -p "$M"
mount "$L" "$M" || fail "mount $L"
at_exit "umount '$M' 2>/dev/null"

cat > "$T/w.py" <<'PY'
import ctypes, os, sys
mnt = sys.argv[1]
def child(name, fn):
    pid = os.fork()
    if pid == 0:
        ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)
        fn()
        os._exit(0)
    if os.waitpid(pid, 0)[1]:
        sys.exit(name + " failed")
def writer(path, byte):
    def fn():
        with open(path, "wb") as f:
            f.write(bytes([byte]) * (4 << 20))
    return fn
child("bpw-a", writer(mnt + "/a.dat", 0x61))
child("bpw-b", writer(mnt + "/b.dat", 0x62))
child("bpw-sync", os.sync)
PY

# run NAME CAPTURE-OPTIONS...: the three under a capture, rm the files
run() {
	name=$1; shift
	rm -f "$M/a.dat" "$M/b.dat"
	sync
	"$BLKPEAK" capture -o "$T/$name.bpt" -d "$L" "$@" -- python3 "$T/w.py" "$M" \
		2>"$T/$name.err" || fail "$name: capture failed: $(cat "$T/$name.err")"
	"$BLKPEAK" dump --format csv "$T/$name.bpt" > "$T/$name.csv" || fail "$name: dump"
}

# bytes of FILE's data in CSV, from first and second file parts
file_bytes() {
	python3 - "$1" "$2" <<'PY'
import csv, sys
n = 0
for r in csv.DictReader(open(sys.argv[1])):
    if r["file"] != "data" or r["op"] != "write":
        continue
    if r["path"] == sys.argv[2]:
        n += int(r["file_bytes"])
    if r["path2"] == sys.argv[2]:
        n += int(r["file2_bytes"])
print(n)
PY
}

run cause -c bpw-a
a=$(file_bytes "$T/cause.csv" "$M/a.dat")
[ "$a" -ge $(( (4 << 20) * 99 / 100 )) ] ||
	fail "-c bpw-a: $a bytes of a.dat's writeback, want 4 MiB: $(cat "$T/cause.csv")"
# every record: submitted by bpw-a, or caused by it (its part of a merge)
others=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["comm"] != "bpw-a" && $c["cause_comm"] != "bpw-a" && $c["cause2_comm"] != "bpw-a"' \
	"$T/cause.csv" | wc -l)
[ "$others" -eq 0 ] || fail "-c bpw-a: $others I/Os neither submitted nor caused by bpw-a"
b=$(file_bytes "$T/cause.csv" "$M/b.dat")
[ "$b" -eq 0 ] || {
	# only inside a request shared with a.dat's writeback
	solo=$(awk -F, -v b="$M/b.dat" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["path"] == b && $c["path2"] == ""' "$T/cause.csv" | wc -l)
	[ "$solo" -eq 0 ] || fail "-c bpw-a: $solo I/Os of bpw-b's file alone"
}
note "-c bpw-a: $a bytes of a.dat's writeback (by $(awk -F, 'NR > 1 && $16 == "data" { print $10 }' "$T/cause.csv" | sort -u | tr '\n' ' ')), $b of b.dat"

run submitted -c bpw-a --submitted-only
a=$(file_bytes "$T/submitted.csv" "$M/a.dat")
[ "$a" -eq 0 ] || fail "--submitted-only: $a bytes of a.dat's writeback, which bpw-sync submitted"
others=$(awk -F, 'NR > 1 && $10 != "bpw-a"' "$T/submitted.csv" | wc -l)
[ "$others" -eq 0 ] || fail "--submitted-only: $others I/Os bpw-a did not submit"
note "--submitted-only: $(($(wc -l < "$T/submitted.csv") - 1)) I/Os, all bpw-a's own"
