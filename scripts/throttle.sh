# throttle.sh — make RAM-backed loop devices behave like disks with the
# kernel's own block throttling (sourced by scripts/demo.sh and tests).
#
# A loop device on a file in /dev/shm serves 100k+ IOPS at any queue
# depth, so every target looks the same and RAID cannot help. The block
# layer's throttle caps, per cgroup and per device, read and write IOPS
# and bytes per second: a process in the cgroup then sees each loop
# device as a disk of that speed, and two of them in a (virtual) RAID 0
# as twice that. Two interfaces, whichever the machine has:
#   cgroup v2  io.max ("MAJ:MIN riops=N wiops=N rbps=N wbps=N"), when the
#              io controller is available in the v2 hierarchy;
#   cgroup v1  blkio.throttle.{read,write}_{iops,bps}_device in the blkio
#              hierarchy (/sys/fs/cgroup/blkio).
# Only I/O submitted by the cgroup's processes is limited; O_DIRECT I/O
# (replay, dd oflag=direct) is. Buffered writeback is charged to the
# cgroup on v2 only.
#
#   thr_detect             sets THR_KIND (v2|v1) and THR_ROOT, or fails
#   thr_create NAME        makes the cgroup THR_CG (under THR_ROOT)
#   thr_limit DEV RIOPS WIOPS RBPS WBPS    caps DEV for the cgroup
#   thr_exec CMD...        runs CMD inside the cgroup
#   thr_destroy            ends what still runs in it (only its own
#                          processes) and removes it; safe to call twice

THR_KIND="" THR_ROOT="" THR_CG=""

thr_detect() {
	local m
	# cgroup v2 with the io controller: the unified mount (hybrid) or /sys/fs/cgroup.
	for m in $(awk '$3 == "cgroup2" { print $2 }' /proc/mounts); do
		if grep -qw io "$m/cgroup.controllers" 2>/dev/null; then
			THR_KIND=v2 THR_ROOT=$m
			return 0
		fi
	done
	m=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$m" ] && [ -e "$m/blkio.throttle.read_iops_device" ]; then
		THR_KIND=v1 THR_ROOT=$m
		return 0
	fi
	echo "throttle: neither cgroup v2 io.max nor cgroup v1 blkio throttling is available" >&2
	return 1
}

thr_create() {
	THR_CG=$THR_ROOT/$1
	mkdir "$THR_CG" || { THR_CG=""; return 1; }
	if [ "$THR_KIND" = v2 ]; then
		grep -qw io "$THR_ROOT/cgroup.subtree_control" ||
			echo +io > "$THR_ROOT/cgroup.subtree_control" || return 1
	fi
}

# thr_limit DEV RIOPS WIOPS RBPS WBPS (0 = no limit for that one)
thr_limit() {
	local mm
	mm=$(lsblk -dno MAJ:MIN "$1" | tr -d ' ') && [ -n "$mm" ] ||
		{ echo "throttle: $1: not a block device" >&2; return 1; }
	if [ "$THR_KIND" = v2 ]; then
		echo "$mm riops=${2/#0/max} wiops=${3/#0/max} rbps=${4/#0/max} wbps=${5/#0/max}" \
			> "$THR_CG/io.max"
	else
		[ "$2" = 0 ] || echo "$mm $2" > "$THR_CG/blkio.throttle.read_iops_device" || return 1
		[ "$3" = 0 ] || echo "$mm $3" > "$THR_CG/blkio.throttle.write_iops_device" || return 1
		[ "$4" = 0 ] || echo "$mm $4" > "$THR_CG/blkio.throttle.read_bps_device" || return 1
		[ "$5" = 0 ] || echo "$mm $5" > "$THR_CG/blkio.throttle.write_bps_device" || return 1
	fi
}

thr_exec() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$THR_CG" "$@"
}

# thr_ios DEV: "reads writes" the cgroup submitted to DEV so far (v1
# blkio.throttle.io_serviced or v2 io.stat), to show the limits applied.
thr_ios() {
	local mm
	mm=$(lsblk -dno MAJ:MIN "$1" | tr -d ' ')
	if [ "$THR_KIND" = v2 ]; then
		awk -v d="$mm" '$1 == d { for (i = 2; i <= NF; i++) { split($i, kv, "=");
			v[kv[1]] = kv[2] } } END { print v["rios"] + 0, v["wios"] + 0 }' "$THR_CG/io.stat"
	else
		awk -v d="$mm" '$1 == d && $2 == "Read" { r = $3 } $1 == d && $2 == "Write" { w = $3 }
			END { print r + 0, w + 0 }' "$THR_CG/blkio.throttle.io_serviced"
	fi
}

thr_destroy() {
	local p _
	[ -n "$THR_CG" ] && [ -d "$THR_CG" ] || return 0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -s "$THR_CG/cgroup.procs" ] || break
		while read -r p; do kill "$p" 2>/dev/null; done < "$THR_CG/cgroup.procs"
		sleep 0.2
	done
	rmdir "$THR_CG" 2>/dev/null || { echo "throttle: cannot remove $THR_CG" >&2; return 1; }
	THR_CG=""
}
