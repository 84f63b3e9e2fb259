#!/bin/bash
# capture keeps a request whose completion it never saw: a write issued
# to a loop device whose backing file sits on a frozen ext4 (fsfreeze)
# stays in flight past the capture's end. It is recorded with its issue
# data and the flag "completion not seen" (bound: pending at the end),
# counted apart from loss (a warning, exit 0, no --allow-loss), shown by
# info, dump (text, csv, json) and analyze report (left out of the
# latencies), and replayed like any other I/O.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture_lib.sh"
T=$E2E_TMP
need_capture
need_cmd fsfreeze mkfs.ext4 python3

LA=$(make_loop 64M)
mkfs.ext4 -q "$LA" || fail "mkfs.ext4"
mkdir "$T/fz" && mount "$LA" "$T/fz" || fail "mount"
at_exit "umount '$T/fz'"
truncate -s 32M "$T/fz/backing.img" || fail "backing file"
LB=$(losetup -f --show --direct-io=on "$T/fz/backing.img") || fail "losetup on ext4"
at_exit "loop_detach '$LB' '$T/fz/backing.img'"
settle
# thawed at exit before anything else, else the loop device hangs there
fsfreeze -f "$T/fz" || fail "fsfreeze"
at_exit "fsfreeze -u '$T/fz' 2>/dev/null"

# the write needs a block of the frozen ext4 (the backing file is sparse),
# so the loop device's worker waits in the journal until the thaw. It is
# issued once the capture runs (its output exists once it is attached).
"$BLKPEAK" capture -o "$T/p.bpt" -d "$LB" --duration 2 --no-files --json > "$T/p.json" 2>"$T/p.err" &
CAP=$!
for i in $(seq 100); do [ -s "$T/p.bpt" ] && break; sleep 0.05; done
[ -s "$T/p.bpt" ] || fail "the capture did not start: $(cat "$T/p.err")"
dd if=/dev/zero of="$LB" bs=4k count=1 seek=100 oflag=direct status=none &
DD=$!
wait $CAP
rc=$?
fsfreeze -u "$T/fz" || fail "fsfreeze -u"
wait $DD || fail "dd failed"
[ $rc -eq 0 ] || fail "a capture with a completion not seen exits $rc, want 0: $(cat "$T/p.json" "$T/p.err")"
grep -q "capture: warning: 1 I/Os recorded with their completion not seen (0 bounded by the request's reuse, 1 still pending at the end)" "$T/p.err" ||
	fail "no one-line warning: $(cat "$T/p.err" "$T/p.json"; "$BLKPEAK" dump "$T/p.bpt")"
grep -q "events were lost" "$T/p.err" && fail "counted as a loss: $(cat "$T/p.err")"
[ "$(json_num "$T/p.json" lost_events)" = 0 ] || fail "lost: $(cat "$T/p.json")"
[ "$(json_num "$T/p.json" completion_not_seen)" = 1 ] || fail "--json: $(cat "$T/p.json")"
grep -q '"completion_not_seen_by_bound":{"reused":0,"pending":1}' "$T/p.json" || fail "--json: $(cat "$T/p.json")"

# the record: dd's 4 KiB write at sector 800, issue data intact
"$BLKPEAK" dump --format csv "$T/p.bpt" > "$T/p.csv" || fail "dump csv"
head -1 "$T/p.csv" | grep -q ',completion$' || fail "csv header: $(head -1 "$T/p.csv")"
line=$(awk -F, '$7 == "write" && $5 == 800' "$T/p.csv")
[ -n "$line" ] || fail "dd's write is not in the trace: $(cat "$T/p.csv")"
echo "$line" | awk -F, '$6 == 4096 && $10 == "dd" && $15 == "pending" && $2 > 0 { ok = 1 } END { exit !ok }' ||
	fail "dd's write: $line"
"$BLKPEAK" dump --format json "$T/p.bpt" | grep '"sector":800,' | grep -q '"completion":"pending"' ||
	fail "dump json: $("$BLKPEAK" dump --format json "$T/p.bpt")"
"$BLKPEAK" dump "$T/p.bpt" | awk '$5 == 800' | grep -q 'pending$' || fail "dump text: $("$BLKPEAK" dump "$T/p.bpt")"
"$BLKPEAK" info "$T/p.bpt" > "$T/info" || fail "info"
grep -q "^columns: *completion$" "$T/info" || fail "info columns: $(cat "$T/info")"
grep -q "^completions:  1 not seen (0 bounded by the request's reuse, 1 pending at the end)" "$T/info" ||
	fail "info: $(cat "$T/info")"
"$BLKPEAK" info --json "$T/p.bpt" >"$T/p-info.json" &&
	[ "$(json_num "$T/p-info.json" completion_not_seen_by_bound.reused)" = 0 ] &&
	[ "$(json_num "$T/p-info.json" completion_not_seen_by_bound.pending)" = 1 ] &&
	[ "$(json_num "$T/p-info.json" completion_not_seen)" = 1 ] ||
	fail "info --json: $("$BLKPEAK" info --json "$T/p.bpt")"
"$BLKPEAK" info "$T/p.bpt" | grep -Eq "format 1\.[3-9]" || fail "not format 1.3 or later"

# analyze: in the I/O count, not in the latencies, and said so
"$BLKPEAK" analyze import --db "$T/a.db" "$T/p.bpt" >/dev/null || fail "import"
[ "$("$BLKPEAK" analyze query --db "$T/a.db" --csv "SELECT count(*) FROM ios WHERE completion = 2" | tail -1 | tr -d "\r")" = 1 ] ||
	fail "ios.completion not imported: $("$BLKPEAK" analyze query --db "$T/a.db" --csv "SELECT completion, count(*) FROM ios GROUP BY 1" 2>&1)"
"$BLKPEAK" analyze report 1 --db "$T/a.db" --json > "$T/r.json" || fail "report --json"
python3 - "$T/r.json" "$T/p.csv" <<'PY' || fail "report --json: $(cat "$T/r.json")"
import csv, json, sys
r = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
seen = [x for x in rows if x["completion"] == "seen"]
assert r["completion_not_seen"] == 1, r["completion_not_seen"]
assert r["ios"] == len(rows), (r["ios"], len(rows))
lat = r["latency"]["service"]
n = lat["all"]["count"]
assert n == len(seen), (n, len(seen))
PY
"$BLKPEAK" analyze report 1 --db "$T/a.db" | grep -q "1 I/Os whose completion the capture did not see are left out of the latency" ||
	fail "report text: $("$BLKPEAK" analyze report 1 --db "$T/a.db")"

# replay issues it as usual
"$BLKPEAK" replay "$T/p.bpt" --target "$T/replay.img" --create 64M --timing causal -o "$T/run.bpt" \
	>/dev/null 2>"$T/rp.err" || fail "replay: $(cat "$T/rp.err")"
"$BLKPEAK" dump --format csv "$T/run.bpt" | awk -F, '$7 == "write" && $5 == 800' | grep -q . ||
	fail "the replay did not issue the write: $("$BLKPEAK" dump "$T/run.bpt")"
note "a write stuck on a frozen file system: recorded as pending, exit 0, out of the latencies, replayed"
exit 0
