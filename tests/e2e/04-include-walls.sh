#!/bin/bash
# 04-include-walls.sh — the build's walls between parts hold: with the
# include paths the Makefile gives a part, a header of another part does
# not compile, while lib/ (the trace format) and common/ (the shared
# layer) do. docs/development.md "Layout": parts meet only through lib/ and common/.
# The walls hold at link level too: a symbol one part's objects define and
# another's use (nm) is a crossing, allowed only when common/commands.h
# declares it (cmd_* only for cli/, main's table) or it is transform/'s
# for replay and formats (as above); lib/ uses only common/,
# common/ only itself. Objects planted in a part show the check catches a
# call through the wall.
. "$(dirname "$0")/lib.sh"
need_cmd cc make
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || fail "no $ROOT"

# One header that only its own part may include.
declare -A OWN=([cli]=trace_open.h [generate]=gen_model.h [capture]=capture.h
	[replay]=replay_run.h [analyze]=stats_report.h [bpf]=capture_events.h
	[measure]=figures.h [formats]=foreign.h [suite]=manifest.h [transform]=xform.h)
declare -A INC=()  # PART -> its include flags (one make per part, not per try)
try() { # PART HEADER: compiles "#include HEADER" with PART's include paths
	[ "${INC[$1]+set}" ] || INC[$1]=$(make -s --no-print-directory "print-INC_$1")
	echo "#include \"$2\"" > "$E2E_TMP/t.c"
	# shellcheck disable=SC2086
	cc -fsyntax-only -D_GNU_SOURCE ${INC[$1]} "$E2E_TMP/t.c" 2>/dev/null
}
for part in common lib cli generate capture replay analyze measure formats suite transform; do
	for other in "${!OWN[@]}"; do
		[ "$other" = "$part" ] && continue
		[ "$part" = capture ] && [ "$other" = bpf ] && continue  # capture loads the BPF side
		# transform/ is a layer replay and formats (convert) share
		if [ "$other" = transform ] && { [ "$part" = replay ] || [ "$part" = formats ]; }; then
			try "$part" xform.h || fail "$part/ cannot include transform/'s xform.h"
			continue
		fi
		if try "$part" "${OWN[$other]}"; then
			fail "$part/ can include $other/'s ${OWN[$other]}"
		fi
	done
	if [ "$part" != common ] && ! try "$part" cliutil.h; then fail "$part/ cannot include common/cliutil.h"; fi
	case $part in common|lib) ;; *) try "$part" bpt.h || fail "$part/ cannot include lib/bpt.h" ;; esac
done
# common/ sees no part, not even the trace format
try common bpt.h && fail "common/ can include lib/bpt.h"
note "walls hold for 11 parts"

# --- link level -------------------------------------------------------
need_cmd nm
B=$(dirname "$BLKPEAK")
[ -f "$B/cli/main.o" ] || B=$ROOT/build
# The objects the Makefile links (not a stale one of a removed source),
# built if out of date; each as "PART PATH" (build/gen/: analyze's schema).
OBJS=$(make -s --no-print-directory BUILD="$B" print-OBJS) || fail "make print-OBJS"
# shellcheck disable=SC2086
make -s -C "$ROOT" --no-print-directory -j2 BUILD="$B" $OBJS >"$E2E_TMP/make.log" 2>&1 ||
	{ tail -20 "$E2E_TMP/make.log"; fail "cannot build the objects"; }
for o in $OBJS; do
	part=${o#"$B"/}; part=${part%%/*}
	[ "$part" = gen ] && part=analyze
	echo "$part $o"
done > "$E2E_TMP/objs"
[ "$(wc -l < "$E2E_TMP/objs")" -gt 100 ] || fail "only $(wc -l < "$E2E_TMP/objs") objects in $B"
# The cross-part entries common/commands.h declares.
grep -oE '^[a-z][a-z0-9_ ]*[ *]+[a-z_][a-z0-9_]*\(' "$ROOT/common/commands.h" |
	sed -E 's/.*[ *]([a-z_][a-z0-9_]*)\($/\1/' | sort -u > "$E2E_TMP/declared"
{ grep -qx analyze_store_measurement "$E2E_TMP/declared" && grep -qx cmd_replay "$E2E_TMP/declared"; } ||
	fail "cannot read the declarations of common/commands.h"

# crossings LIST: "USER -> DEFINER: SYMBOL" for each call through a wall
# among the objects of LIST ("PART PATH" lines).
crossings() {
	# nm -A: "OBJECT:ADDR TYPE SYMBOL", the object mapped to its part
	part_of='BEGIN { while ((getline l < list) > 0) { split(l, f, " "); part[f[2]] = f[1] } }
		{ o = substr($0, 1, index($0, ":") - 1); print part[o], $NF }'
	awk '{ print $2 }' "$1" | xargs nm -A -g --defined-only |
		awk 'NF >= 3' | awk -v list="$1" "$part_of" | sort -u > "$E2E_TMP/defs"
	awk '{ print $2 }' "$1" | xargs nm -A -u | awk -v list="$1" "$part_of" | sort -u > "$E2E_TMP/uses"
	awk -v decl="$E2E_TMP/declared" '
		BEGIN { while ((getline s < decl) > 0) ok[s] = 1 }
		FNR == NR { def[$2] = def[$2] " " $1; next }
		{
			user = $1; sym = $2
			if (!(sym in def)) next              # libc, libbpf, ...
			n = split(def[sym], d, " ")
			for (i = 1; i <= n; i++) {
				if (d[i] == user || d[i] == "common") continue
				if (d[i] == "lib" && user != "common") continue
				# transform/ is the layer replay and formats share
				if (d[i] == "transform" && (user == "replay" || user == "formats")) continue
				if (user != "lib" && user != "common" && sym in ok &&
				    (sym !~ /^cmd_/ || user == "cli")) continue
				print user " -> " d[i] ": " sym
			}
		}' "$E2E_TMP/defs" "$E2E_TMP/uses"
}
crossings "$E2E_TMP/objs" > "$E2E_TMP/cross"
[ -s "$E2E_TMP/cross" ] && { cat "$E2E_TMP/cross"; fail "calls through the walls (above)"; }

# The check catches what it is for: objects planted in parts, calling a
# command entry from another part, another part's own function, a part
# from lib/, lib/ from common/; and lets a declared entry through.
cat > "$E2E_TMP/planted.c" <<'C'
int cmd_analyze(int, char **);
int measure_import(void *, const char *, void *, void *);
int analyze_store_measurement(const char *, const char *, void *, void *);
int formats_reader_open(void *, const char *, void *);
int bpt_reader_open(void *, const char *, void *);
int planted_replay(void) { return cmd_analyze(0, 0) + measure_import(0, 0, 0, 0); }
int planted_measure(void) { return analyze_store_measurement(0, 0, 0, 0); }
int planted_lib(void) { return formats_reader_open(0, 0, 0); }
int planted_common(void) { return bpt_reader_open(0, 0, 0); }
C
for f in replay measure lib common; do
	cc -c -o "$E2E_TMP/planted_$f.o" -x c - <<C || fail "cannot compile the planted $f object"
$(grep -v '^int planted_' "$E2E_TMP/planted.c")
$(grep "^int planted_$f(" "$E2E_TMP/planted.c")
C
done
{ cat "$E2E_TMP/objs"; for f in replay measure lib common; do echo "$f $E2E_TMP/planted_$f.o"; done; } \
	> "$E2E_TMP/objs-planted"
crossings "$E2E_TMP/objs-planted" | sort > "$E2E_TMP/cross"
cat > "$E2E_TMP/want" <<'W'
common -> lib: bpt_reader_open
lib -> formats: formats_reader_open
replay -> analyze: cmd_analyze
replay -> analyze: measure_import
W
diff "$E2E_TMP/want" "$E2E_TMP/cross" || fail "the planted crossings were not reported as above"
note "no call through the walls among $(wc -l < "$E2E_TMP/objs") objects; planted ones caught"
exit 0
