#!/bin/sh
# install-deps.sh — install the Debian 12 packages blkpeak's build, tests,
# demo and benchmarks need, but only those that are missing. Idempotent;
# needs root (or sudo) only when something is missing.
set -eu

PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libaio-dev liburing-dev libzstd-dev libbz2-dev liblzma-dev libsqlite3-dev sqlite3 libcriterion-dev
libpq-dev
libclang-rt-14-dev fio blktrace bpftrace e2fsprogs util-linux fdisk kmod
python3 time tar scdoc gzip bzip2 xz-utils zstd"
# workloads/boot: mmdebstrap builds the Debian root it boots (once, from the
# Debian mirror, into /var/cache/blkpeak); systemd-container has
# systemd-nspawn, which boots it, and pulls in systemd (systemd-analyze
# checks the blkpeak-boot units in the tests).
PKGS="$PKGS mmdebstrap systemd-container"
# The other recipes (workloads/) run real programs: ImageMagick
# (photo-edit), tar and zstd (backup), python3 (cold-start), dpkg
# (install), sqlite3 (database); `make demo` records one of them.
PKGS="$PKGS imagemagick zstd dpkg"
# Only the tests open the HTML report in headless Chromium, render the
# man pages with man -l (man-db, groff) and use pandas: `make check` passes --tests;
# `make demo` does not pull a browser in. scdoc above builds the man pages.
# tests/e2e/72-formats-writers.sh reads convert's .csv.zst with pandas as
# it is (pandas needs the zstandard module for .zst).
# The PostgreSQL store's tests start a private server of their own
# (tests/pg.sh: initdb into a temp dir); postgresql-15 has initdb and
# postgres, postgresql-client-15 psql.
# The Python module (make python) and the Debian packages (make deb, with
# debhelper offline, checked by lintian): Debian's python3 with its numpy
# headers. The tests build and use both (pytest; mmdebstrap above makes the
# clean root the packages are installed into).
DEB_PKGS="python3-dev python3-numpy debhelper dpkg-dev lintian fakeroot"
if [ "${1:-}" = "--deb" ]; then
	PKGS="$PKGS $DEB_PKGS"
fi
if [ "${1:-}" = "--tests" ]; then
	PKGS="$PKGS $DEB_PKGS python3-pandas python3-pytest"
	PKGS="$PKGS postgresql-15 postgresql-client-15"
	PKGS="$PKGS chromium man-db groff-base python3-pandas python3-zstandard"
	# the file-attribution tests capture and replay on xfs as well as ext4
	PKGS="$PKGS xfsprogs"
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
