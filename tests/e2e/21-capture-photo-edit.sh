#!/bin/bash
# A recording of workloads/photo-edit credits ImageMagick: with the cause
# columns, at least 80% of the trace's I/Os name convert (or magick) as
# the task that caused them, although most are submitted by the flusher's
# kworkers (which stay recorded as the submitters), and `analyze report`'s
# top processes put convert first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture
need_cmd mkfs.ext4 convert python3 flock
WL=$(cd "$(dirname "$0")/../../workloads" && pwd)

W=$T/pe
at_exit "'$WL/photo-edit' --workdir '$W' --phase teardown >/dev/null 2>&1"
"$WL/photo-edit" --workdir "$W" --phase setup > "$T/setup.out" 2>&1 ||
	fail "photo-edit setup: $(cat "$T/setup.out")"
D=$(awk '$1 == "device" { print $2; exit }' "$T/setup.out")
[ -b "$D" ] || fail "photo-edit setup: no device: $(cat "$T/setup.out")"
"$BLKPEAK" capture -o "$T/pe.bpt" -d "$D" -- "$WL/photo-edit" --workdir "$W" --phase run \
	> "$T/run.out" 2>&1 || fail "capture of photo-edit: $(cat "$T/run.out")"
"$BLKPEAK" dump --format csv "$T/pe.bpt" > "$T/pe.csv" || fail "dump"
read -r n im sub <<< "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ n++; if ($c["cause_comm"] ~ /^(convert|magick)$/) im++; if ($c["comm"] ~ /^(convert|magick)$/) own++ }
	END { print n + 0, im + 0, own + 0 }' "$T/pe.csv")"
[ "$n" -gt 0 ] || fail "an empty trace"
[ $(( im * 100 )) -ge $(( n * 80 )) ] ||
	fail "ImageMagick caused $im of $n I/Os (submitted $sub), want >= 80%"
"$BLKPEAK" analyze report "$T/pe.bpt" > "$T/report" 2>&1 || fail "analyze report: $(cat "$T/report")"
awk '/^top processes by I\/Os/ { getline; getline; print $2; exit }' "$T/report" |
	grep -Eq '^(convert|magick)$' || fail "report: ImageMagick is not first: $(cat "$T/report")"
note "ImageMagick caused $im of $n I/Os ($(( im * 100 / n ))%); it submitted $sub"
