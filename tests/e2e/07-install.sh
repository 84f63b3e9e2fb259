#!/bin/bash
# 07-install.sh — `make install` into a temporary DESTDIR lays out the
# binary, one man page per command (each renders with man -l), the bash
# completion (sourced in bash, it completes every command, every analyze
# subcommand and every option each --help names) and the workload recipes
# (they run from there, also through a symlink), the blkpeak-boot units
# and their settings; PREFIX is honoured; `make uninstall` removes exactly
# those files and nothing else, but keeps settings the administrator
# changed (and install does not replace them).
. "$(dirname "$0")/lib.sh"
need_cmd man make scdoc bash

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$E2E_TMP/dest
P=/opt/blkpeak-test
make -s -C "$ROOT" --no-print-directory install DESTDIR="$D" PREFIX="$P" \
	>"$E2E_TMP/make.log" 2>&1 || fail "make install failed: $(cat "$E2E_TMP/make.log")"
[ -z "$(find "$D" -mindepth 1 -maxdepth 1 ! -name opt)" ] ||
	fail "make install wrote outside DESTDIR/PREFIX: $(find "$D" -mindepth 1 -maxdepth 1)"

# The binary.
B=$D$P/bin/blkpeak
[ -x "$B" ] || fail "no executable $P/bin/blkpeak"
"$B" --version | grep -q '^blkpeak [0-9]' || fail "installed blkpeak --version"

# Man pages: one per command of --help, blkpeak(1) and blkpeak-CMD(1).
M=$D$P/share/man/man1
cmds=$("$B" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ -n "$cmds" ] || fail "blkpeak --help lists no commands"
for p in blkpeak $(printf 'blkpeak-%s\n' $cmds); do
	[ -f "$M/$p.1" ] || fail "$P/share/man/man1/$p.1 not installed"
done
for p in "$M"/*.1; do
	w=$(MANWIDTH=80 man -l --warnings "$p" 2>&1 >/dev/null)
	[ -z "$w" ] || fail "man -l $(basename "$p"): $w"
	MANWIDTH=80 man -l "$p" 2>/dev/null | grep -q '^NAME' || fail "$(basename "$p") renders no NAME"
done
MANPATH=$D$P/share/man man -w blkpeak-replay >/dev/null 2>&1 ||
	fail "man does not find blkpeak-replay under $P/share/man"

# The completion, with the installed blkpeak first in PATH.
C=$D$P/share/bash-completion/completions/blkpeak
[ -f "$C" ] || fail "no bash completion at $P/share/bash-completion/completions/blkpeak"
cat > "$E2E_TMP/comp.sh" <<'EOS'
. "$1"
complete -p blkpeak >/dev/null || { echo "complete -p blkpeak: not registered"; exit 1; }
comp() {	# comp WORD...: what TAB offers after the words (last one: being typed)
	COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()
	_blkpeak; printf '%s\n' "${COMPREPLY[@]}" | sort
}
bad=0
want() {	# want WORDS_TEXT EXPECTED...: every EXPECTED is offered
	local words=$1; shift
	local got; got=$(comp $words "")
	for x in "$@"; do
		grep -qxF -- "$x" <<<"$got" || { echo "completing '$words ': $x not offered"; bad=1; }
	done
}
cmds=$(blkpeak --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
want "blkpeak" $cmds
[ "$(comp blkpeak rep)" = replay ] || { echo "blkpeak rep<TAB> does not give replay"; bad=1; }
subs=$(blkpeak analyze --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
want "blkpeak analyze" $subs
paths=$(for c in $cmds; do echo "$c"; done; for s in $subs; do echo "analyze $s"; done)
while read -r path; do
	opts=$(blkpeak $path --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
	got=$(COMP_WORDS=(blkpeak $path --); COMP_CWORD=${#COMP_WORDS[@]}; COMP_CWORD=$((COMP_CWORD - 1)); _blkpeak; printf '%s\n' "${COMPREPLY[@]}")
	for o in $opts; do
		grep -qxF -- "$o" <<<"$got" || { echo "completing 'blkpeak $path --': $o not offered"; bad=1; }
	done
done <<<"$paths"
[ "$(comp blkpeak replay t.bpt --timing ca)" = causal ] || { echo "--timing ca<TAB> does not give causal"; bad=1; }
# --engine's names come from replay --list (engine.c's table)
engines=$(blkpeak replay --list | awk '/^engines/ { e = 1; next } /^[^ ]/ { e = 0 } e { print $1 }' | sort)
[ -n "$engines" ] && [ "$(comp blkpeak replay t.bpt --engine "")" = "$engines" ] ||
	{ echo "--engine <TAB> gives '$(comp blkpeak replay t.bpt --engine "")', not replay --list's '$engines'"; bad=1; }
[ "$(comp blkpeak replay t.bpt --engine li)" = libaio ] || { echo "--engine li<TAB> does not give libaio"; bad=1; }
exit $bad
EOS
out=$(PATH="$D$P/bin:$PATH" bash "$E2E_TMP/comp.sh" "$C" 2>&1) || fail "completion: $out"

# The workload recipes run from where they are installed, and through a
# symlink to them (they find their common.sh next to the real file).
W=$D$P/share/blkpeak/workloads
for w in photo-edit backup cold-start install boot; do
	[ -x "$W/$w" ] || fail "$P/share/blkpeak/workloads/$w not installed executable"
	(cd / && "$W/$w" --help >/dev/null 2>"$E2E_TMP/wl.err") ||
		fail "installed $w --help: $(cat "$E2E_TMP/wl.err")"
done
[ -f "$W/common.sh" ] || fail "workloads/common.sh not installed"
ln -s "$W/photo-edit" "$E2E_TMP/photo-edit-link"
"$E2E_TMP/photo-edit-link" --help >/dev/null 2>"$E2E_TMP/wl.err" ||
	fail "photo-edit through a symlink: $(cat "$E2E_TMP/wl.err")"

# The blkpeak-boot units, disabled (no .wants link), naming the installed
# binary and settings; the settings file (66-boot-service.sh verifies and
# runs them).
S=$D$P/lib/systemd/system
for u in blkpeak-boot.service blkpeak-boot-done.service; do
	[ -f "$S/$u" ] || fail "$P/lib/systemd/system/$u not installed"
	! grep -q '@[A-Z]*@' "$S/$u" || fail "$u: placeholder left: $(grep '@[A-Z]*@' "$S/$u")"
done
grep -q "^ExecStart=$P/bin/blkpeak capture " "$S/blkpeak-boot.service" ||
	fail "blkpeak-boot.service does not run $P/bin/blkpeak"
grep -q "^EnvironmentFile=-$P/etc/blkpeak/boot.conf" "$S/blkpeak-boot-done.service" ||
	fail "blkpeak-boot-done.service does not read $P/etc/blkpeak/boot.conf"
[ -z "$(find "$D" -name '*.wants')" ] || fail "make install enabled a unit: $(find "$D" -name '*.wants')"
[ -f "$D$P/etc/blkpeak/boot.conf" ] || fail "$P/etc/blkpeak/boot.conf not installed"

# Uninstall removes what install wrote, and only that.
echo keep > "$M/other-package.1"
echo keep > "$D$P/bin/other-tool"
make -s -C "$ROOT" --no-print-directory uninstall DESTDIR="$D" PREFIX="$P" \
	>"$E2E_TMP/make.log" 2>&1 || fail "make uninstall failed: $(cat "$E2E_TMP/make.log")"
left=$(cd "$D" && find . \( -type f -o -type l \) | sort | tr '\n' ' ')
[ "$left" = "./opt/blkpeak-test/bin/other-tool ./opt/blkpeak-test/share/man/man1/other-package.1 " ] ||
	fail "after make uninstall, files left or removed: $left"
[ ! -e "$D$P/share/blkpeak" ] || fail "make uninstall left $P/share/blkpeak"
[ ! -e "$D$P/etc/blkpeak" ] || fail "make uninstall left $P/etc/blkpeak"

# Settings the administrator changed are neither replaced by install nor
# removed by uninstall.
make -s -C "$ROOT" --no-print-directory install DESTDIR="$D" PREFIX="$P" >"$E2E_TMP/make.log" 2>&1 ||
	fail "make install (again) failed: $(cat "$E2E_TMP/make.log")"
echo "BLKPEAK_BOOT_LIMIT=1m" >> "$D$P/etc/blkpeak/boot.conf"
cp "$D$P/etc/blkpeak/boot.conf" "$E2E_TMP/conf.mine"
make -s -C "$ROOT" --no-print-directory install DESTDIR="$D" PREFIX="$P" >"$E2E_TMP/make.log" 2>&1 ||
	fail "make install (over changed settings) failed: $(cat "$E2E_TMP/make.log")"
cmp -s "$E2E_TMP/conf.mine" "$D$P/etc/blkpeak/boot.conf" || fail "make install replaced changed settings"
make -s -C "$ROOT" --no-print-directory uninstall DESTDIR="$D" PREFIX="$P" >"$E2E_TMP/make.log" 2>&1 ||
	fail "make uninstall failed: $(cat "$E2E_TMP/make.log")"
cmp -s "$E2E_TMP/conf.mine" "$D$P/etc/blkpeak/boot.conf" || fail "make uninstall removed changed settings"
[ ! -e "$S/blkpeak-boot.service" ] || fail "make uninstall left blkpeak-boot.service"
exit 0
