#!/bin/bash
# 03-readme.sh — README.md stays short and true: at most 200 lines; every
# command it shows (`blkpeak CMD`, `analyze SUB`, `measure KIND`) is one
# the binary has; every option it names (--x) is in some command's --help;
# every `make TARGET` is a Makefile target; every path it names (a
# folder/, a file, a link) is in the tree; every disk model preset and
# engine it names in backquotes is a row of `replay --list`, and every
# preset there is in it. (Paths under docs/, schemas/ and bench/ are
# 03-doc-paths.sh's.)
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || fail "no $ROOT"
R=README.md
[ -f "$R" ] || fail "no $R"
bad=0
say() { echo "$R: $*" >&2; bad=1; }

n=$(wc -l < "$R")
[ "$n" -le 200 ] || say "$n lines, more than the project's 200"

# commands and subcommands
cmds=$("$BLKPEAK" --help | awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 }')
subs=$("$BLKPEAK" analyze --help | awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 }')
{ [ -n "$cmds" ] && [ -n "$subs" ]; } || fail "cannot read the commands from --help"
for c in $(grep -oE '(^|[^a-z/-])blkpeak [a-z]+' "$R" | awk '{ print $2 }' | sort -u); do
	echo "$cmds" | grep -qx "$c" || say "'blkpeak $c' is no command"
done
for c in $(grep -oE '(blkpeak |`)analyze [a-z]+' "$R" | awk '{ print $NF }' | sort -u); do
	echo "$subs" | grep -qx "$c" || say "'analyze $c' is no analyze command"
done
for k in $(grep -oE 'measure [a-z]+-[a-z-]+' "$R" | awk '{ print $2 }' | sort -u); do
	"$BLKPEAK" measure "$k" --help > /dev/null 2>&1 || say "'measure $k' is no measurement"
done

# options: each in the help of some command (analyze's subcommands too)
helps=$E2E_TMP/helps
for c in $cmds; do "$BLKPEAK" "$c" --help; done > "$helps" 2>&1
for c in $subs; do "$BLKPEAK" analyze "$c" --help; done >> "$helps" 2>&1
# (an option with '_' is another tool's: fio's --read_iolog)
for o in $(grep -oE '(^|[ `(])--[a-z][a-z_-]+' "$R" | grep -oE -- '--[a-z_-]+' | grep -v _ | sort -u); do
	grep -qE -- "(^|[[ ,])$o([] =,|]|$)" "$helps" || say "option $o is in no command's --help"
done

# make targets
for t in $(grep -oE '(^|[ `])make [a-z]+' "$R" | awk '{ print $2 }' | sort -u); do
	grep -qE "^$t:" Makefile || say "'make $t' is no Makefile target"
done

# paths: links, and backquoted words with a slash that start in the tree
{
	grep -oE '\]\([^)#]+' "$R" | sed 's/^](//'
	grep -oE '`[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]*`' "$R" | tr -d '`'
} | sort -u | while read -r p; do
	case $p in http*|build/*|/*|*/dev/*) continue ;; esac
	top=${p%%/*}
	[ -d "$top" ] || [ -e "$p" ] || continue   # not a path of the tree (hm_0.csv, ...)
	[ -e "$p" ] || say "names $p, which is not in the tree"
done > "$E2E_TMP/paths" 2>&1
[ -s "$E2E_TMP/paths" ] && { cat "$E2E_TMP/paths" >&2; bad=1; }

# disk model presets and engines, against replay's tables
list=$("$BLKPEAK" replay --list) || fail "replay --list"
presets=$(echo "$list" | awk '/^[^ ]/ { d = /^disk/; next } d { print $1 }')
[ -n "$presets" ] || fail "no presets in replay --list"
line=$(grep -E 'presets' "$R" | head -1)
[ -n "$line" ] || say "names no disk model presets"
# the sentence "presets `a`, `b`, ... " up to the end of its list
named=$(sed -n '/presets$/,/(/p; /presets `/,/(/p' "$R" | grep -oE '`[a-z0-9]+`' | tr -d '`' | sort -u)
for p in $named; do
	echo "$presets" | grep -qx "$p" || say "preset '$p' is not in replay --list"
done
for p in $presets; do
	echo "$named" | grep -qx "$p" || say "preset '$p' of replay --list is not named"
done
engines=$(echo "$list" | awk '/^[^ ]/ { e = /^engines/; next } e { print $1 }')
for e in $(grep -oE -- '--engine [a-z_]+' "$R" | awk '{ print $2 }' | sort -u); do
	echo "$engines" | grep -qx "$e" || say "engine '$e' is not in replay --list"
done

[ $bad -eq 0 ] || fail "README.md says what is not so (above)"
note "$n lines; commands, options, make targets, paths, presets and engines checked"
exit 0
