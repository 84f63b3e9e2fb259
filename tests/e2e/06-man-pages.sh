#!/bin/bash
# 06-man-pages.sh — one man page per command (docs/man/*.1.scd, built by
# `make` into build/man/): every option of a command's --help is on its
# page and every option on a page is in the --help (tests/e2e/mancheck.py
# names the option, the page and the command of each difference), and
# every page renders with man -l at 80 columns without a warning from
# man or from groff -ww. blkpeak-convert(1)'s FORMATS section is made
# from the format registry (`convert --list`): it lists exactly the
# registry's readers and writers, in its order.
. "$(dirname "$0")/lib.sh"
need_cmd man groff python3 scdoc make

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MANDIR=$E2E_TMP/man
# Built into the test's own folder, from the sources, by the Makefile's rule.
make -s -C "$ROOT" --no-print-directory BUILD="$E2E_TMP/build" MAN_BLKPEAK="$BLKPEAK" man \
	>"$E2E_TMP/make.log" 2>&1 ||
	fail "make man failed: $(cat "$E2E_TMP/make.log")"
mv "$E2E_TMP/build/man" "$MANDIR"
n=$(ls "$MANDIR"/*.1 2>/dev/null | wc -l)
[ "$n" -ge 7 ] || fail "make man built $n pages, want one per command (7 or more)"

python3 "$(dirname "$0")/mancheck.py" "$BLKPEAK" "$MANDIR" >"$E2E_TMP/check" 2>&1 ||
	fail "man pages and --help differ:
$(cat "$E2E_TMP/check")"
note "$(tail -1 "$E2E_TMP/check")"

for p in "$MANDIR"/*.1; do
	w=$(MANWIDTH=80 man -l --warnings "$p" 2>&1 >/dev/null)
	[ -z "$w" ] || fail "man -l --warnings $(basename "$p"): $w"
	w=$(groff -ww -z -man "$p" 2>&1)
	[ -z "$w" ] || fail "groff -ww $(basename "$p"): $w"
	MANWIDTH=80 man -l "$p" 2>/dev/null | grep -q '^NAME' ||
		fail "$(basename "$p") renders no NAME section"
done

# convert's FORMATS section against the registry
"$BLKPEAK" convert --list | awk '/^  [^ ]/ { print $1 }' > "$E2E_TMP/registry"
MANWIDTH=200 man -l "$MANDIR/blkpeak-convert.1" 2>/dev/null |
	awk '/^[A-Z]/ { s = ($0 == "FORMATS") } s && /^       [a-z0-9-]+$/ { print $1 }' > "$E2E_TMP/page"
[ "$(wc -l < "$E2E_TMP/registry")" -ge 10 ] || fail "convert --list lists $(wc -l < "$E2E_TMP/registry") formats"
diff "$E2E_TMP/registry" "$E2E_TMP/page" >"$E2E_TMP/d" ||
	fail "blkpeak-convert(1) FORMATS and convert --list differ (< registry, > page):
$(cat "$E2E_TMP/d")"
grep -q '@FORMATS@' "$MANDIR/blkpeak-convert.1" && fail "blkpeak-convert(1) still holds its @FORMATS@ marker"
exit 0
