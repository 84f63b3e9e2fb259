#!/bin/bash
# 03-doc-paths.sh — every document the code cites exists: a path under
# docs/, schemas/ or bench/ written in a source, script, man page or
# Markdown file of the tree (.c .h .sh .py .md .scd .bash, the Makefile)
# names a file or folder that is there. A path counts when it starts a
# word (not inside a longer path: build/bench/codec_speed is a build
# product, https://.../docs/x.md another project's); each path of a brace
# list (schemas/analyze-{report,compare}.schema.json) must exist and a
# glob (schemas/analyze-*.schema.json) match something; a program is
# named by its source (bench/bpt_from_text: bench/bpt_from_text.c); a
# placeholder in capitals (docs/man/NAME.1.scd, docs/PART.md) is a
# pattern, not a citation. The only other exceptions are the documents of
# other projects named below, each with its reason.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || fail "no $ROOT"

# Another project's documents, cited by their own paths.
declare -A FOREIGN=(
	[docs/TRACE_FORMAT.md]="cacheMon io-tracer's (formats/read_iotracer.c)"
	[docs/traces/BLOCK_IO_EVENTS.md]="cacheMon io-tracer's (formats/read_iotracer.c)"
)

files=$(find . \( -path ./build -o -path ./.git -o -path ./tests/fuzz/corpus -o \
	-path ./tests/fixtures -o -name node_modules \) -prune -o -type f \
	\( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.md' -o -name '*.scd' \
	-o -name '*.bash' -o -name Makefile \) -print | sort)
[ -n "$files" ] || fail "no files to read"

# FILE:LINE:PATH for every cited path
# shellcheck disable=SC2086
cites=$(grep -noE '(^|[^A-Za-z0-9_./*{-])(docs|schemas|bench)/[A-Za-z0-9_./*{},-]*[A-Za-z0-9_*}]' $files |
	sed -E 's/^([^:]*:[0-9]+:)[^dsb]?/\1/')
[ -n "$cites" ] || fail "no citations found: the pattern is broken"
bad=0 n=0
while IFS=: read -r file line path; do
	path=${path%.}       # a sentence's full stop
	[[ $path =~ (^|/)[A-Z]+(\.|/|$) ]] && continue          # NAME, PART: a pattern
	[ -n "${FOREIGN[$path]:-}" ] && continue
	n=$((n + 1))
	if [[ $path == *[*{]* ]]; then
		miss=
		# eval only expands braces: the pattern above lets no $, ; or quote in
		for p in $(eval "echo $path"); do  # each of a brace list
			compgen -G "$p" > /dev/null || miss=$p
		done
		[ -z "$miss" ] && continue
	elif [ -e "$path" ] || [ -e "$path.c" ]; then
		continue
	fi
	echo "${file#./}:$line: cites $path, which is not in the tree" >&2
	bad=1
done <<<"$cites"
[ $bad -eq 0 ] || fail "documents cited that do not exist"
note "$n citations of docs/, schemas/ and bench/ checked in $(echo "$files" | wc -l) files"
exit 0
