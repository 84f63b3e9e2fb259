#!/bin/bash
# 06-man-pages.sh — one man page per command (docs/man/*.1.scd, built by
# `make` into build/man/): every option of a command's --help is on its
# page and every option on a page is in the --help (tests/e2e/mancheck.py
# names the option, the page and the command of each difference), and
# every page renders with man -l at 80 columns without a warning from
# man or from groff -ww. blkpeak-convert(1)'s FORMATS and
# blkpeak-replay(1)'s ENGINES AND DISK MODELS are made from the command's
# --list (the tables in the code): each lists exactly those rows, in order.
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

# The pages made from a command's --list: its section lists exactly the
# list's rows, in its order (convert: the format registry; replay: the
# engines and disk model presets).
listed() { # COMMAND SECTION
	"$BLKPEAK" "$1" --list | awk '/^  [^ ]/ { print $1 }' > "$E2E_TMP/list"
	MANWIDTH=200 man -l "$MANDIR/blkpeak-$1.1" 2>/dev/null |
		awk -v s="$2" '/^[A-Z]/ { in_s = ($0 == s) } in_s && /^       [a-z0-9_-]+$/ { print $1 }' \
		> "$E2E_TMP/page"
	[ "$(wc -l < "$E2E_TMP/list")" -ge 3 ] || fail "$1 --list lists $(wc -l < "$E2E_TMP/list") rows"
	diff "$E2E_TMP/list" "$E2E_TMP/page" >"$E2E_TMP/d" ||
		fail "blkpeak-$1(1) $2 and $1 --list differ (< list, > page):
$(cat "$E2E_TMP/d")"
	! grep -q '@LIST@' "$MANDIR/blkpeak-$1.1" || fail "blkpeak-$1(1) still holds its @LIST@ marker"
}
listed convert FORMATS
listed replay "ENGINES AND DISK MODELS"
exit 0
