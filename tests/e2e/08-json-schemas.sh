#!/bin/bash
# Every --json output matches its schema in schemas/ (checked with
# json_schema_check.py; the schemas allow no key they do not list):
# info, dump, convert, replay, analyze import/report/compare, and capture (root
# and BPF: last, so that the rest runs everywhere).
. "$(dirname "$0")/lib.sh"
need_cmd python3
T=$E2E_TMP
S=$(dirname "$0")/../../schemas
export BLKPEAK_DB=$T/j.db

check() { # SCHEMA FILE WHAT
	python3 "$(dirname "$0")/json_schema_check.py" "$S/$1.schema.json" "$2" ||
		fail "$3 --json does not match schemas/$1.schema.json"
}

"$BLKPEAK" generate -q --count 3000 --read-pct 70 --queue-depth 4 --span 16m -o "$T/g.bpt" ||
	fail "generate"
"$BLKPEAK" info --json "$T/g.bpt" >"$T/info.json" || fail "info --json"
check info "$T/info.json" info
"$BLKPEAK" info --json --verify "$T/g.bpt" >"$T/info-v.json" || fail "info --json --verify"
check info "$T/info-v.json" "info --verify"
"$BLKPEAK" dump --format json "$T/g.bpt" >"$T/dump.json" || fail "dump --format json"
check dump "$T/dump.json" dump
"$BLKPEAK" convert --json "$(dirname "$0")/../fixtures/formats/msr.csv" -o "$T/msr.bpt" \
	>"$T/convert.json" || fail "convert --json"
check convert "$T/convert.json" convert

# replay: a full run and one stopped early (its partial object)
"$BLKPEAK" replay "$T/g.bpt" --target "$T/t.img" --create 32m --timing afap -o "$T/run.bpt" \
	--json >"$T/replay.json" 2>"$T/err" || fail "replay: $(cat "$T/err")"
check replay "$T/replay.json" replay
"$BLKPEAK" replay "$T/g.bpt" --target "$T/t.img" --timing afap --engine null --json \
	>"$T/replay-null.json" 2>"$T/err" || fail "replay --engine null: $(cat "$T/err")"
check replay "$T/replay-null.json" "replay --engine null"

# import: one JSON line per file, a second import says "already"
"$BLKPEAK" analyze import --json "$T/g.bpt" "$T/run.bpt" >"$T/import.jsonl" 2>"$T/err" ||
	fail "import: $(cat "$T/err")"
"$BLKPEAK" analyze import --json "$T/g.bpt" >>"$T/import.jsonl" 2>"$T/err" || fail "import again"
[ "$(wc -l <"$T/import.jsonl")" -eq 3 ] || fail "import --json: not one line per file: $(cat "$T/import.jsonl")"
n=0
while IFS= read -r line; do
	n=$((n + 1))
	printf '%s\n' "$line" >"$T/import-$n.json"
	check analyze-import "$T/import-$n.json" "import (line $n)"
done <"$T/import.jsonl"
grep -q '"already":true' "$T/import-3.json" || fail "second import: $(cat "$T/import-3.json")"

for id in 1 2; do
	"$BLKPEAK" analyze report "$id" --json >"$T/report-$id.json" || fail "report $id"
	check analyze-report "$T/report-$id.json" "report $id"
done
# measure: the results document of each kind (null engine: fast), and
# its import line
for kind in qd-sweep zcav seeks commit; do
	case $kind in qd-sweep) extra="--depths 1,2 --weights 1:1,2:3" ;; zcav) extra="--zones 2 --bs 64k" ;;
		*) extra="" ;; esac
	# shellcheck disable=SC2086
	"$BLKPEAK" measure $kind --target "$T/t.img" --engine null --ios 20 $extra --json \
		>"$T/measure-$kind.json" 2>"$T/err" || fail "measure $kind: $(cat "$T/err")"
	check measure-results "$T/measure-$kind.json" "measure $kind"
done
# a knee search's document (--max 2: two steps of g.bpt's replay)
"$BLKPEAK" measure knee "$T/g.bpt" --target "$T/t.img" --engine null --slo p99=10s --max 2 \
	--no-store --json >"$T/measure-knee.json" 2>"$T/err" || fail "measure knee: $(cat "$T/err")"
check measure-results "$T/measure-knee.json" "measure knee"
"$BLKPEAK" analyze import --json "$T/measure-zcav.json" >"$T/import-m.json" || fail "import measure"
check analyze-import "$T/import-m.json" "import of measure results"
"$BLKPEAK" analyze import -q "$T/measure-qd-sweep.json" || fail "import qd-sweep results"
"$BLKPEAK" analyze compare --measurements 2 2 --json >"$T/compare-m.json" || fail "compare --measurements"
check analyze-compare-measurements "$T/compare-m.json" "compare --measurements"
"$BLKPEAK" analyze compare 1 2 --json >"$T/compare.json" || fail "compare"
check analyze-compare "$T/compare.json" compare

# One vocabulary: no key without its unit where the others carry one.
for f in "$T"/*.json; do
	grep -qE '"(iops|mbps|mb_per_sec|seconds|duration_s|span_s|lost|records)"' "$f" &&
		fail "$(basename "$f"): an old key: $(grep -oE '"(iops|mbps|mb_per_sec|seconds|duration_s|span_s|lost|records)"' "$f" | head -3)"
done

need_bpf
L=$(make_loop 16M)
"$BLKPEAK" capture -o "$T/c.bpt" -d "$L" --json -- \
	dd if="$L" of=/dev/null bs=4k count=50 iflag=direct status=none >"$T/capture.json" 2>"$T/err" ||
	fail "capture: $(cat "$T/err")"
check capture "$T/capture.json" capture
"$BLKPEAK" info --json "$T/c.bpt" >"$T/info-c.json" || fail "info of the capture"
check info "$T/info-c.json" "info of a capture"
exit 0
