#!/bin/bash
# CLI conventions of every command and analyze subcommand, listed from
# `blkpeak --help` and `blkpeak analyze --help` so new ones are covered:
# --help prints its usage on stdout and exits 0 with nothing on stderr; an
# unknown option exits 2 with nothing on stdout and an error that names
# the option; an option that takes no value given one is refused in the
# same words everywhere; no arguments at all exits 2 with one line; an
# option missing its value exits 2 and names the option; `help` and an
# unknown command at both levels; text written to a full device (--help,
# info, dump, --version to /dev/full) fails with "standard output".
. "$(dirname "$0")/lib.sh"

# commands_of HELP_TEXT: the NAME of each "  NAME  summary" line after
# "commands:".
commands_of() { awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'; }

cmds=$("$BLKPEAK" --help | commands_of)
subs=$("$BLKPEAK" analyze --help | commands_of)
suite_subs=$("$BLKPEAK" suite --help | commands_of)
echo "$suite_subs" | grep -qx run || fail "blkpeak suite --help does not list run: $suite_subs"
[ "$(echo "$cmds" | wc -w)" -ge 6 ] || fail "blkpeak --help lists too few commands: $cmds"
echo "$cmds" | grep -qx analyze || fail "blkpeak --help does not list analyze"
[ "$(echo "$subs" | wc -w)" -ge 7 ] || fail "blkpeak analyze --help lists too few commands: $subs"

check() { # check NAME ARGS...: the conventions for `blkpeak ARGS`
	local name=$1; shift
	local out="$E2E_TMP/out" err="$E2E_TMP/err" rc

	"$BLKPEAK" "$@" --help >"$out" 2>"$err"; rc=$?
	[ $rc -eq 0 ] || fail "$name --help exits $rc, want 0"
	[ -s "$err" ] && fail "$name --help writes to stderr: $(head -1 "$err")"
	grep -q "^usage: blkpeak $name" "$out" || fail "$name --help: no 'usage: blkpeak $name' line on stdout"
	grep -q -- "-h, --help" "$out" || fail "$name --help does not list -h, --help"

	"$BLKPEAK" "$@" --no-such-option >"$out" 2>"$err" </dev/null; rc=$?
	[ $rc -eq 2 ] || fail "$name --no-such-option exits $rc, want 2"
	[ -s "$out" ] && fail "$name --no-such-option writes to stdout"
	head -1 "$err" | grep -q -- "--no-such-option" ||
		fail "$name --no-such-option: first error line does not name it: $(head -1 "$err")"
	# one line, unless the command is in MULTILINE_OK (below)
	case " $MULTILINE_OK " in *" $name "*) ;; *)
		[ "$(wc -l < "$err")" -eq 1 ] ||
			fail "$name --no-such-option: $(wc -l < "$err") error lines, want 1"
		grep -q "^blkpeak: $name: '--no-such-option': unknown option" "$err" ||
			fail "$name --no-such-option: $(cat "$err")" ;;
	esac

	# a value given to an option that takes none: the same line everywhere
	# (every command runs the shared option loop, common/cliutil.c)
	"$BLKPEAK" "$@" --help=1 >"$out" 2>"$err" </dev/null; rc=$?
	[ $rc -eq 2 ] || fail "$name --help=1 exits $rc, want 2"
	[ "$(cat "$err")" = "blkpeak: $name: '--help': takes no value" ] ||
		fail "$name --help=1: $(cat "$err")"

	# no arguments at all: every command needs some, so a usage error
	"$BLKPEAK" "$@" >"$out" 2>"$err" </dev/null; rc=$?
	[ $rc -eq 2 ] || fail "$name without arguments exits $rc, want 2"
	[ -s "$out" ] && fail "$name without arguments writes to stdout"
	case " $MULTILINE_OK " in *" $name "*) ;; *)
		[ "$(wc -l < "$err")" -eq 1 ] ||
			fail "$name without arguments: $(wc -l < "$err") error lines, want 1" ;;
	esac
	head -1 "$err" | grep -q "^blkpeak: $name: [a-z-]" ||
		fail "$name without arguments: not 'blkpeak: $name: <lowercase reason>': $(head -1 "$err")"

	# output that cannot be written fails the command (exit 0 means the
	# text is there): --help to a full device
	if [ -w /dev/full ]; then
		"$BLKPEAK" "$@" --help >/dev/full 2>"$err"; rc=$?
		[ $rc -eq 1 ] && grep -q "standard output: No space left on device" "$err" ||
			fail "$name --help >/dev/full: exit $rc, want 1 and a message: $(cat "$err")"
	fi

	# -h works like --help where it exists (every command has it)
	"$BLKPEAK" "$@" -h >/dev/null 2>&1; rc=$?
	[ $rc -eq 0 ] || fail "$name -h exits $rc, want 0"
	note "ok: $name"
}

# Commands allowed to print more than one line on a usage error: none.
MULTILINE_OK=""

for c in $cmds; do
	case $c in analyze|suite) continue ;; esac
	check "$c" "$c"
done
for s in $subs; do
	check "analyze $s" analyze "$s"
done
for s in $suite_subs; do
	check "suite $s" suite "$s"
done

# Both command tables run the same loop (common/dispatch.c): "help" as a
# command, and an unknown one named with the level it was looked up at.
for t in "" analyze; do
	"$BLKPEAK" $t help >"$E2E_TMP/out" 2>"$E2E_TMP/err"; rc=$?
	[ $rc -eq 0 ] && grep -q "^usage: blkpeak ${t:+$t }.*COMMAND" "$E2E_TMP/out" ||
		fail "blkpeak $t help: exit $rc: $(head -1 "$E2E_TMP/out") $(cat "$E2E_TMP/err")"
	if [ -n "$t" ]; then
		want="blkpeak: $t: 'frob' is not an $t command; see 'blkpeak $t --help'"
	else
		want="blkpeak: 'frob' is not a blkpeak command; see 'blkpeak --help'"
	fi
	"$BLKPEAK" $t frob >"$E2E_TMP/out" 2>"$E2E_TMP/err"; rc=$?
	[ $rc -eq 2 ] && [ "$(cat "$E2E_TMP/err")" = "$want" ] ||
		fail "blkpeak $t frob: exit $rc: $(cat "$E2E_TMP/err")"
done

# A missing value names the option (the last argument is a valued option).
missing() { # missing OPTION ARGS...
	local opt=$1; shift
	"$BLKPEAK" "$@" "$opt" >/dev/null 2>"$E2E_TMP/err"; rc=$?
	[ $rc -eq 2 ] || fail "$* $opt (no value) exits $rc, want 2"
	[ "$(wc -l < "$E2E_TMP/err")" -eq 1 ] || fail "$* $opt (no value): more than one error line"
	grep -q -- "$opt: needs a value" "$E2E_TMP/err" || fail "$* $opt: $(cat "$E2E_TMP/err")"
}
missing --format dump x.bpt
missing --timing replay x.bpt
missing --kind analyze plot
missing --db analyze query
missing --output generate

# A trace's text lost on the way out is a failure, not exit 0.
if [ -w /dev/full ]; then
	"$BLKPEAK" generate --count 20000 -q -o "$E2E_TMP/t.bpt" || fail "generate failed"
	for args in "info $E2E_TMP/t.bpt" "info --json $E2E_TMP/t.bpt" "dump $E2E_TMP/t.bpt" "--version"; do
		"$BLKPEAK" $args >/dev/full 2>"$E2E_TMP/err"; rc=$?
		[ $rc -eq 1 ] && grep -q "standard output: No space left on device" "$E2E_TMP/err" ||
			fail "blkpeak $args >/dev/full: exit $rc: $(cat "$E2E_TMP/err")"
	done
fi

exit 0
