#!/bin/bash
# 07-libbpt.sh — libbpt as its users get it (docs/development.md,
# "libbpt"): `make install` into a temporary DESTDIR lays out
# libbpt.so.1 (soname, links), libbpt.a, bpt.h with bpt_error.h, and
# libbpt.pc; the shared library exports exactly the functions bpt.h
# declares; a program built with nothing but `pkg-config --cflags --libs
# libbpt` (tests/e2e/libbpt_copy.c), dynamically and with --static, reads a
# capture and foreign traces (MSR CSV, blkparse text) through the same
# calls and counts what `blkpeak info` counts, and writes a copy that
# blkpeak reads back with the same digest of its records; `make
# uninstall` removes the library's files.
. "$(dirname "$0")/lib.sh"
need_cmd make cc pkg-config nm
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$E2E_TMP/dest
P=/opt/blkpeak-libbpt
make -s -C "$ROOT" --no-print-directory install DESTDIR="$D" PREFIX="$P" \
	>"$E2E_TMP/make.log" 2>&1 || fail "make install failed: $(cat "$E2E_TMP/make.log")"
L=$D$P/lib
for f in libbpt.so.1.0.0 libbpt.so.1 libbpt.so libbpt.a pkgconfig/libbpt.pc; do
	[ -e "$L/$f" ] || fail "make install: no $P/lib/$f"
done
[ -f "$D$P/include/bpt.h" ] && [ -f "$D$P/include/bpt_error.h" ] || fail "make install: no $P/include/bpt.h, bpt_error.h"
so=$(readelf -d "$L/libbpt.so.1.0.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$so" = libbpt.so.1 ] || fail "soname is '$so', not libbpt.so.1"

# Exported: the functions bpt.h declares, no more (visibility), no fewer.
cc -E -P -I"$D$P/include" "$D$P/include/bpt.h" | grep -o '\bbpt_[a-z_0-9]*[[:space:]]*(' |
	tr -d ' (' | sort -u > "$E2E_TMP/declared"
nm -D --defined-only "$L/libbpt.so.1.0.0" | awk '$2 ~ /[TDBR]/ { print $3 }' | sort -u > "$E2E_TMP/exported"
[ "$(wc -l < "$E2E_TMP/declared")" -gt 30 ] || fail "found only $(wc -l < "$E2E_TMP/declared") functions in bpt.h"
diff "$E2E_TMP/declared" "$E2E_TMP/exported" > "$E2E_TMP/sym.diff" ||
	fail "libbpt.so exports other symbols than bpt.h declares (< declared only, > exported only): $(cat "$E2E_TMP/sym.diff")"

# A user's program, by pkg-config only (the .pc file names the PREFIX: the
# sysroot puts it under DESTDIR).
export PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_LIBDIR=$L/pkgconfig
flags=$(pkg-config --cflags --libs libbpt) || fail "pkg-config --cflags --libs libbpt failed"
sflags=$(pkg-config --static --cflags --libs libbpt) || fail "pkg-config --static failed"
# shellcheck disable=SC2086
cc -Wall -Werror -o "$E2E_TMP/copy" "$ROOT/tests/e2e/libbpt_copy.c" $flags 2>"$E2E_TMP/cc.err" ||
	fail "cc with '$flags': $(cat "$E2E_TMP/cc.err")"
# shellcheck disable=SC2086
cc -Wall -Werror -static -o "$E2E_TMP/copy-static" "$ROOT/tests/e2e/libbpt_copy.c" $sflags 2>"$E2E_TMP/cc.err" ||
	fail "cc -static with '$sflags': $(cat "$E2E_TMP/cc.err")"
ldd "$E2E_TMP/copy" | grep -q "libbpt.so.1 => not found" || fail "the program does not need libbpt.so.1: $(ldd "$E2E_TMP/copy")"

check() { # check TRACE: the program's counts (both builds) are info's
	local t=$1 name; name=$(basename "$1")
	LD_LIBRARY_PATH=$L "$E2E_TMP/copy" "$t" "$E2E_TMP/$name.copy.bpt" > "$E2E_TMP/dyn.out" 2>&1 ||
		fail "$name: the program failed: $(cat "$E2E_TMP/dyn.out")"
	"$E2E_TMP/copy-static" "$t" > "$E2E_TMP/static.out" 2>&1 ||
		fail "$name: the static program failed: $(cat "$E2E_TMP/static.out")"
	cmp -s "$E2E_TMP/dyn.out" "$E2E_TMP/static.out" ||
		fail "$name: static and shared builds differ: $(diff "$E2E_TMP/dyn.out" "$E2E_TMP/static.out")"
	"$BLKPEAK" info --json "$t" > "$E2E_TMP/info.json" || fail "$name: blkpeak info failed"
	python3 - "$E2E_TMP/info.json" "$E2E_TMP/dyn.out" "$name" <<'PY' || exit 1
import json, sys
info = json.load(open(sys.argv[1]))
got = dict(l.split(" ", 1) for l in open(sys.argv[2]).read().splitlines())
name = sys.argv[3]
want = {"kind": info["kind"], "devices": str(len(info["devices"])),
        "records": str(info["ios"])}
mix = info["mix"]
for op in ("read", "write", "flush", "discard", "write-zeroes"):
    want[op] = str(mix[op]["ios"] if op in mix else 0)
want["bytes"] = str(sum(m["bytes"] for m in mix.values()))
bad = [f"{k}: program {got.get(k)}, info {v}" for k, v in want.items() if got.get(k) != v]
if bad or int(want["records"]) == 0:
    print(f"FAIL: {name}: " + "; ".join(bad or ["no records"]), file=sys.stderr)
    sys.exit(1)
print(f"  {name}: {want['records']} records, {want['devices']} device(s), {got['named']} with a process name")
PY
	# the copy holds the same records (dump's lines, process names included)
	"$BLKPEAK" dump --format csv "$t" > "$E2E_TMP/a.csv" && "$BLKPEAK" dump --format csv "$E2E_TMP/$name.copy.bpt" > "$E2E_TMP/b.csv" ||
		fail "$name: blkpeak dump of the trace or its copy failed"
	cmp -s "$E2E_TMP/a.csv" "$E2E_TMP/b.csv" || fail "$name: the copy's records differ: $(diff "$E2E_TMP/a.csv" "$E2E_TMP/b.csv" | head -5)"
}
check "$ROOT/tests/fixtures/capture/ext4-dd-cp.bpt"
check "$ROOT/tests/fixtures/formats/msr.csv"
check "$ROOT/tests/fixtures/formats/blkparse.txt"
# a file in no format: the reader's error names it and what was tried
echo "not a trace" > "$E2E_TMP/junk.txt"
LD_LIBRARY_PATH=$L "$E2E_TMP/copy" "$E2E_TMP/junk.txt" > "$E2E_TMP/junk.out" 2>&1 && fail "the program read junk"
grep -q "junk.txt" "$E2E_TMP/junk.out" || fail "error on junk does not name the file: $(cat "$E2E_TMP/junk.out")"

make -s -C "$ROOT" --no-print-directory uninstall DESTDIR="$D" PREFIX="$P" >"$E2E_TMP/make.log" 2>&1 ||
	fail "make uninstall failed: $(cat "$E2E_TMP/make.log")"
left=$(find "$L" "$D$P/include" -type f -o -type l 2>/dev/null)
[ -z "$left" ] || fail "make uninstall left: $left"
exit 0
