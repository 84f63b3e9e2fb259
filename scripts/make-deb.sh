#!/bin/bash
# make-deb.sh OUT — the Debian packages (make deb): blkpeak, libbpt1,
# libbpt-dev and python3-blkpeak, built by dpkg-buildpackage (debhelper,
# debian/) offline, checked by lintian (an error fails), into OUT.
#
# dpkg-buildpackage writes its results beside the source folder, so the
# build runs in a copy of the tree, OUT/src/blkpeak (the tracked files and
# new ones git does not ignore, mtimes kept): a second `make deb`
# rebuilds only what changed (-nc: no clean first).
set -eu
OUT=${1:?usage: make-deb.sh OUT}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
for c in dpkg-buildpackage dh lintian; do
	command -v "$c" >/dev/null 2>&1 ||
		{ echo "make deb: needs $c (scripts/install-deps.sh --deb installs it)" >&2; exit 1; }
done
SRC=$OUT/src/blkpeak
mkdir -p "$SRC"
# the man pages carry the last commit's date, also in the copy (no .git)
epoch=$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)
files() { cd "$ROOT" && { git ls-files -co --exclude-standard "$@" 2>/dev/null ||
	find . -path ./build -prune -o -type f -print | sed 's|^\./||'; }; }
# tar keeps the mtimes: make in the copy sees only changed files as new
files | tr '\n' '\0' | (cd "$ROOT" && tar --null -T - -cf -) | tar -xf - -C "$SRC"
# what the copy holds but the tree no longer does (a removed file)
(cd "$SRC" && find . -path ./build -prune -o -path ./debian -prune -o -type f -print) | sed 's|^\./||' | sort > "$OUT/copy.list"
files | sort > "$OUT/tree.list"
comm -23 "$OUT/copy.list" "$OUT/tree.list" | (cd "$SRC" && xargs -r rm -f --)
rm -f "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo
# a make above (make deb BUILD=...) must not hand its variables down to
# debian/rules' make, which builds the copy with Debian's paths
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
echo "make deb: building in $SRC (log: $OUT/build.log)"
if ! (cd "$SRC" && SOURCE_DATE_EPOCH=$epoch dpkg-buildpackage -b -us -uc -nc -j2 >"$OUT/build.log" 2>&1); then
	tail -30 "$OUT/build.log" >&2
	echo "make deb: dpkg-buildpackage failed (log: $OUT/build.log)" >&2
	exit 1
fi
changes=$(ls "$OUT"/src/*.changes)
echo "make deb: lintian"
lintian --fail-on error --tag-display-limit 0 "$changes" >"$OUT/lintian.log" 2>&1 || {
	cat "$OUT/lintian.log" >&2
	echo "make deb: lintian found errors (above)" >&2
	exit 1
}
echo "make deb: lintian: $(grep -c '^E:' "$OUT/lintian.log") errors, $(grep -c '^W:' "$OUT/lintian.log") warnings ($OUT/lintian.log)"
rm -f "$OUT"/*.deb
mv "$OUT"/src/*.deb "$OUT"/
ls -1 "$OUT"/*.deb
