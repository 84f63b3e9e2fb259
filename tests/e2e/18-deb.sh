#!/bin/bash
# 18-deb.sh — the Debian packages as a user gets them: `make deb` builds
# blkpeak, libbpt1, libbpt-dev and python3-blkpeak (lintian without
# errors); in a clean Debian 12 root (mmdebstrap minbase with only the
# packages' dependencies, as the boot recipe builds its root) `apt
# install ./*.deb` installs them; blkpeak --version runs, man renders
# blkpeak(1), the blkpeak-boot unit is not enabled, blkpeak and the Python
# module read a capture and an MSR trace alike; `apt purge` removes them
# and leaves no file behind that was not there before.
#
# The root is built once (mmdebstrap from the Debian mirror, ~200 MB of
# packages: minutes) into a tarball in the boot recipe's cache
# (BLKPEAK_BOOT_CACHE, default /var/cache/blkpeak), named after the
# packages it holds; later runs unpack it (seconds). The first `make deb`
# of a checkout compiles everything (minutes); later ones only what
# changed. Hence the limit, for both firsts:
# e2e-timeout: 1200
. "$(dirname "$0")/lib.sh"
need_root
need_cmd mmdebstrap systemd-nspawn tar dpkg-deb dpkg-buildpackage lintian make
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(dirname "$BLKPEAK")
OUT=$BUILD_DIR/deb
t0=$(date +%s)
make -s -C "$ROOT" --no-print-directory deb BUILD="$BUILD_DIR" >"$E2E_TMP/deb.log" 2>&1 ||
	fail "make deb failed: $(tail -20 "$E2E_TMP/deb.log")"
note "make deb: $(( $(date +%s) - t0 )) s, $(grep 'lintian:' "$E2E_TMP/deb.log")"
PKGS="blkpeak libbpt1 libbpt-dev python3-blkpeak"
for p in $PKGS; do
	ls "$OUT/${p}_"*.deb >/dev/null 2>&1 || fail "make deb made no $p package: $(ls "$OUT")"
done
ls "$OUT"/*dbgsym* >/dev/null 2>&1 && fail "make deb made debug-symbol packages"

# The root: the debs' dependencies (not ours), pandas (python3-blkpeak
# recommends it: apt installs recommends, offline) and man-db.
deps=$(for d in "$OUT"/*.deb; do dpkg-deb -f "$d" Depends; dpkg-deb -f "$d" Recommends; done | tr ',|' '\n\n' |
	sed 's/(.*)//; s/:any//; s/[[:space:]]//g' | grep -v '^$' | sort -u | grep -vxF -f <(tr ' ' '\n' <<<"$PKGS") |
	grep -v -- '-abi[0-9]*$')
deps=$(printf '%s\n' $deps man-db python3-pandas | sort -u | tr '\n' ',' | sed 's/,$//')
CACHE=${BLKPEAK_BOOT_CACHE:-/var/cache/blkpeak}
TARBALL=$CACHE/deb-bookworm-$(printf '%s' "$deps" | sha256sum | cut -c1-12).tar
mkdir -p "$CACHE" || fail "cannot create $CACHE"
if [ ! -s "$TARBALL" ]; then
	exec 8>"$CACHE/deb-bookworm.lock" && flock 8
	if [ ! -s "$TARBALL" ]; then
		mirrors=()
		[ "$(. /etc/os-release; echo "$ID:${VERSION_CODENAME:-}")" = debian:bookworm ] &&
			[ -r /etc/apt/sources.list.d/debian.sources ] && mirrors=(/etc/apt/sources.list.d/debian.sources)
		t0=$(date +%s)
		at_exit "rm -f '$TARBALL.tmp'"
		mmdebstrap --variant=minbase --include="$deps" --format=tar bookworm "$TARBALL.tmp" \
			"${mirrors[@]}" >"$E2E_TMP/mmdebstrap.log" 2>&1 ||
			{ rm -f "$TARBALL.tmp"; fail "mmdebstrap failed: $(tail -5 "$E2E_TMP/mmdebstrap.log")"; }
		mv "$TARBALL.tmp" "$TARBALL"
		note "built the Debian 12 root once in $(( $(date +%s) - t0 )) s: $TARBALL"
	fi
	exec 8>&-
fi
R=$E2E_TMP/root
mkdir "$R" && tar -xf "$TARBALL" -C "$R" || fail "cannot unpack $TARBALL"
# a container on the root, as the boot recipe runs one (its own /dev and
# /proc, no network: apt cannot download what the root lacks; the host's
# resolv.conf, time zone and journal left out, so that the root changes
# only by what the packages do)
_n=0
in_root() {
	_n=$((_n + 1))
	systemd-nspawn --quiet --directory="$R" --machine="blkpeak-deb-$$-$_n" --register=no --keep-unit \
		--pipe --private-network --resolv-conf=off --timezone=off --link-journal=no \
		--setenv=LANG=C.UTF-8 -- "$@"
}
in_root true || fail "systemd-nspawn cannot run the root"

# what the root holds, but the files dpkg and apt keep about packages
snapshot() {
	(cd "$R" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./run -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o \
		-path ./var/cache -o -path ./var/log -o -path ./tmp -o -path ./var/cache/man \) -prune -o -print) | sort
}
snapshot > "$E2E_TMP/before"

mkdir -p "$R/srv/blkpeak-test/debs" "$R/srv/blkpeak-test/t" && cp "$OUT"/*.deb "$R/srv/blkpeak-test/debs/" &&
	cp "$ROOT/tests/fixtures/capture/ext4-dd-cp.bpt" "$ROOT/tests/fixtures/formats/msr.csv" "$R/srv/blkpeak-test/t/" ||
	fail "cannot copy into the root"
# shellcheck disable=SC2016
in_root sh -c 'cd /srv/blkpeak-test/debs && apt install -y -q -o Dpkg::Progress-Fancy=0 ./*.deb' >"$E2E_TMP/apt.log" 2>&1 ||
	fail "apt install ./*.deb failed: $(tail -15 "$E2E_TMP/apt.log")"
grep -q "^Setting up python3-blkpeak" "$E2E_TMP/apt.log" || fail "apt did not set up python3-blkpeak: $(tail -5 "$E2E_TMP/apt.log")"

v=$(in_root blkpeak --version) || fail "blkpeak --version failed in the root"
grep -q '^blkpeak [0-9]' <<<"$v" || fail "blkpeak --version: '$v'"
# (bold and underline as overstrikes, which sed takes out)
in_root sh -c 'MANWIDTH=80 MANPAGER=cat man blkpeak-info 2>&1' | sed 's/.\x08//g' > "$E2E_TMP/man.out" ||
	fail "man blkpeak-info: $(head -5 "$E2E_TMP/man.out")"
grep -q '^NAME' "$E2E_TMP/man.out" && grep -q 'blkpeak-info' "$E2E_TMP/man.out" ||
	fail "man blkpeak-info rendered no page: $(head -5 "$E2E_TMP/man.out")"
[ -f "$R/usr/lib/systemd/system/blkpeak-boot.service" ] || fail "no blkpeak-boot.service in the package"
[ -z "$(find "$R/etc/systemd" -name 'blkpeak*' 2>/dev/null)" ] ||
	fail "the boot unit was enabled: $(find "$R/etc/systemd" -name 'blkpeak*')"
[ -x "$R/usr/share/blkpeak/workloads/photo-edit" ] || fail "the workload recipes were not installed"
[ -f "$R/usr/share/bash-completion/completions/blkpeak" ] || fail "the completion was not installed"

for t in ext4-dd-cp.bpt msr.csv; do
	n_cli=$(in_root blkpeak info --json "/srv/blkpeak-test/t/$t" | sed -n 's/^  "ios": \([0-9]*\),$/\1/p')
	n_py=$(in_root python3 -c "import blkpeak, sys; d = blkpeak.to_pandas('/srv/blkpeak-test/t/$t'); print(len(d))") ||
		fail "python3: blkpeak.to_pandas('$t') failed in the root"
	[ -n "$n_cli" ] && [ "$n_cli" -gt 0 ] && [ "$n_cli" = "$n_py" ] ||
		fail "$t: blkpeak info counts '$n_cli' I/Os, the Python module '$n_py'"
	note "$t: $n_cli I/Os by blkpeak and by python3-blkpeak"
done

in_root apt-get purge -y -q $PKGS >"$E2E_TMP/purge.log" 2>&1 || fail "apt purge failed: $(tail -10 "$E2E_TMP/purge.log")"
rm -rf "$R/srv/blkpeak-test"
snapshot > "$E2E_TMP/after"
left=$(comm -13 "$E2E_TMP/before" "$E2E_TMP/after")
[ -z "$left" ] || fail "apt purge left: $(echo "$left" | head -20 | tr '\n' ' ')"
gone=$(comm -23 "$E2E_TMP/before" "$E2E_TMP/after")
[ -z "$gone" ] || fail "installing and purging removed: $(echo "$gone" | head -20 | tr '\n' ' ')"
exit 0
