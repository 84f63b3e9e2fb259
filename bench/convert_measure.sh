# convert_measure.sh — sourced by bench-convert.sh and bench-convert-cache.sh:
# measure LABEL RECORDS CMD...: run CMD under /usr/bin/time -v (its stdout
# in $W/out) and print one line: peak RSS, wall, CPU, records per CPU
# second. Needs W (the script's temp dir); exits the script when CMD fails.
measure() {
	label=$1 recs=$2; shift 2
	/usr/bin/time -v "$@" >"$W/out" 2>"$W/time" || { echo "FAIL: $label: $(tail -3 "$W/time")"; exit 1; }
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$W/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$W/time")
	cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$W/time")
	printf "%-28s peak RSS %6.1f MiB  wall %8s  CPU %6.2f s  %5.2f M records per CPU s\n" \
		"$label" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$wall" "$cpu" \
		"$(awk -v n="$recs" -v c="$cpu" 'BEGIN { print (c > 0 ? n / c / 1e6 : 0) }')"
}
