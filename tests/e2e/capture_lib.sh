# capture_lib.sh — helpers of the capture tests (tests/e2e/20-capture-*.sh),
# sourced after lib.sh. Not a test itself (run.sh runs NN-*.sh only).

# need_capture: root, BTF, and a capture that can load (skips otherwise).
need_capture() {
	need_bpf
	need_cmd fio
	"$BLKPEAK" capture -o "$E2E_TMP/probe.bpt" --duration 10ms -d "$(make_loop 16M)" \
		>/dev/null 2>"$E2E_TMP/probe.err" ||
		skip "capture cannot run here: $(cat "$E2E_TMP/probe.err")"
}

# wait_capturing PID: wait (up to 60 s) until the capture PID catches
# SIGINT and SIGTERM (SigCgt in /proc/PID/status): it installs its
# handlers after its programs are attached and its trace is created, so
# from then on it records, and a signal ends it cleanly. A fixed sleep
# instead races with the loading of the BPF programs, which a loaded
# machine can stretch past any chosen time. Fails if PID ends first.
wait_capturing() {
	_deadline=$(( $(date +%s) + 60 ))
	while :; do
		_cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		[ -n "$_cgt" ] || fail "capture $1 ended before it was capturing"
		# SIGINT is bit 1, SIGTERM bit 14
		[ $(( 16#$_cgt & 0x4002 )) -eq $(( 0x4002 )) ] && return 0
		[ "$(date +%s)" -lt $_deadline ] || fail "capture $1 not capturing after 60 s"
		sleep 0.05
	done
}

# mount_fs_loop FS MNT: a 512 MiB loop device with a new FS (ext4 or
# xfs: xfs wants 300 MB or more) mounted at MNT (made; unmounted at exit);
# sets FS_LOOP to the device (not printed: the at_exit must stay in this
# shell).
mount_fs_loop() {
	FS_LOOP=$(make_loop 512M "fs-$1-$(date +%s%N)")
	settle
	case $1 in
	ext4) mkfs.ext4 -q -F "$FS_LOOP" || fail "mkfs.ext4 $FS_LOOP" ;;
	xfs) mkfs.xfs -f "$FS_LOOP" >/dev/null || fail "mkfs.xfs $FS_LOOP" ;;
	*) fail "mount_fs_loop: $1: not ext4 or xfs" ;;
	esac
	mkdir -p "$2"
	mount "$FS_LOOP" "$2" || fail "mount $FS_LOOP ($1)"
	at_exit "umount '$2' 2>/dev/null"
}

# settle: wait for udev to finish probing new loop devices, so its reads
# do not land in a test's window.
settle() { udevadm settle 2>/dev/null || sleep 0.5; }

# make_part_loop SIZE: a sparse file with an MBR holding one partition
# from sector 2048 (20 MiB), attached with partition scanning (-P);
# prints the loop device, whose partition is ${DEV}p1. Kernels without
# an MBR parser (CONFIG_MSDOS_PARTITION unset, as on this test machine)
# find no partition in the scan, so it is added from user space with
# partx (the BLKPG ioctl), which needs the scanning flag -P set.
# Fails when sfdisk is missing or the partition does not appear.
make_part_loop() {
	_f="$E2E_TMP/part$(date +%s%N).img"
	truncate -s "$1" "$_f" || fail "cannot create $_f"
	printf 'label: dos\nstart=2048, size=40960, type=83\n' | sfdisk -q "$_f" ||
		fail "sfdisk cannot write a partition table into $_f"
	_d=$(losetup -f --show -P --direct-io=on "$_f") || fail "losetup -P $_f failed"
	own_loop "$_d" "$_f"
	[ -b "${_d}p1" ] || partx -a "$_d" >&2 || fail "partx -a $_d: cannot add the partition"
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		[ -b "${_d}p1" ] && break
		sleep 0.2
	done
	[ -b "${_d}p1" ] || fail "${_d}p1 did not appear after partx -a $_d"
	echo "$_d"
}

# bt_requests BIN DEV: the requests the blk tracer saw issued AND completed
# on DEV, one "op sector bytes count" line per distinct request shape.
# (The blk tracer is global: another device with tracing enabled would
# show up in BIN too, hence the device filter.) Counts are
# min(D, C) per shape: a flush shows one D (the flush machinery's request)
# and two C (that request, and the fsync's own empty write, which never
# reaches the driver); a requeued request shows two D and one C.
bt_requests() {
	blkparse -q -i - -f "%M,%m %a %d %S %N\n" < "$1" |
	awk -v dev="$(majmin "$2")" '
		$1 != dev || ($2 != "D" && $2 != "C") { next }
		{
			rwbs = $3; op = "other"
			if (rwbs ~ /D/) op = "discard"
			else if (rwbs ~ /W/) op = "write"
			else if (rwbs ~ /R/) op = "read"
			else if (rwbs ~ /^F/) op = "flush"
			k = op " " $4 " " $5
			if ($2 == "D") d[k]++; else c[k]++
			keys[k] = 1
		}
		END {
			for (k in keys) {
				n = d[k] < c[k] ? d[k] : c[k]
				if (n > 0) print k, n
			}
		}' | sort
}

# majmin DEV: "MAJOR,MINOR" of a block device node.
majmin() { stat -L -c '%t %T' "$1" | { read -r ma mi; echo "$((16#$ma)),$((16#$mi))"; }; }

# bpt_requests FILE: the same lines from a .bpt (write-zeroes counts as a
# write: the blk tracer cannot tell them apart).
bpt_requests() {
	"$BLKPEAK" dump --format csv "$1" | awk -F, '
		NR == 1 { next }
		{ op = $7; if (op == "write-zeroes") op = "write"; n[op " " $5 " " $6]++ }
		END { for (k in n) print k, n[k] }' | sort
}

# bpt_count FILE: number of records.
bpt_count() { "$BLKPEAK" dump --format csv "$1" | tail -n +2 | wc -l; }

# json_num FILE KEY: the value of KEY (a dotted path into nested objects,
# e.g. lost_by_cause.table_full) in a --json document (capture, info);
# empty when the file is not JSON or has no such key.
json_num() {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k]
print(v)' "$1" "$2" 2>/dev/null
}

# compare_requests BT.bin DEV TRACE.bpt [LOST]: every request of the
# trace is one the blk tracer saw (same op, sector and size), and the
# blk tracer saw exactly LOST (default 0) more: those the capture
# counted as lost. Fails with the diff otherwise.
compare_requests() {
	bt_requests "$1" "$2" > "$E2E_TMP/bt.req"
	bpt_requests "$3" > "$E2E_TMP/bpt.req"
	_lost=${4:-0}
	[ -s "$E2E_TMP/bt.req" ] || fail "the blk tracer saw no request"
	# per shape: blk tracer count minus capture count, summed: the
	# requests missing from the trace ("extra" when the capture has
	# more of a shape than the blk tracer saw)
	_missing=$(join -a 1 -a 2 -e 0 -o 0,1.2,2.2 \
		<(awk '{ print $1 "/" $2 "/" $3, $4 }' "$E2E_TMP/bt.req" | sort) \
		<(awk '{ print $1 "/" $2 "/" $3, $4 }' "$E2E_TMP/bpt.req" | sort) |
		awk '$3 > $2 { extra = 1 } { m += $2 - $3 } END { print extra ? "extra" : m }')
	if [ "$_missing" != "$_lost" ]; then
		diff "$E2E_TMP/bt.req" "$E2E_TMP/bpt.req" | head -20 >&2
		fail "requests differ between the blk tracer (<) and the capture (>)" \
			"beyond the $_lost the capture counted as lost (missing: $_missing)"
	fi
	note "$(awk '{n += $4} END {print n}' "$E2E_TMP/bt.req") requests in" \
		"$(wc -l < "$E2E_TMP/bt.req") shapes match the blk tracer exactly" \
		"($_lost counted as lost)"
}

# loss_check JSON NAME: the capture whose --json summary is in JSON lost
# nothing. Completions the kernel never ran our BPF program for (docs/capture.md,
# "Completions the kernel does not hand to BPF") are no loss: their requests are in the trace, flagged
# "completion not seen"; they are noted. Sets LOST (0) for
# compare_requests, and UNSEEN.
loss_check() {
	_j=$1
	for _c in ring_buffer_full table_full runs_skipped unlisted_disks; do
		[ "$(json_num "$_j" "lost_by_cause.$_c")" = 0 ] || fail "$2: lost to $_c: $(cat "$_j")"
	done
	[ "$(json_num "$_j" lost_events)" = 0 ] || fail "$2: events lost: $(cat "$_j")"
	UNSEEN=$(json_num "$_j" completion_not_seen)
	[ "$UNSEEN" -eq 0 ] || note "$2: $UNSEEN I/Os recorded with their completion not seen"
	LOST=0
}
