# common.sh — shared by the workload recipes in workloads/ (sourced, not run).
#
# A recipe is a shell script that builds its own loop-device filesystems,
# runs a desktop-style I/O load on them and removes everything it made,
# also when it fails or is interrupted. A recipe defines:
#
#   WL_NAME            its name
#   WL_DEVICES         how many filesystems it needs (1 or 2)
#   wl_usage           prints its own options (after the common ones)
#   wl_option OPT VAL  handles one of its options; returns 1 if unknown
#   wl_finish_options  derives sizes once all options are read; sets WL_DEV_MB
#   wl_setup           fills the filesystems mounted at $WL_MNT1 [$WL_MNT2]
#   wl_run             the load itself: the part worth tracing
#   WL_SCRATCH         (optional) its scratch and temporary files, a glob
#                      list relative to $WL_MNT1 ("scratch/*|history/*"):
#                      what a "dual" set-up keeps on a second disk
#                      (scripts/demo.sh, DEMO_TARGETS=dual)
#   wl_stop            (optional) ends what the load started besides its
#                      background jobs (boot: a container and its cgroups);
#                      called whenever `run` or `all` ends, and on teardown;
#                      safe to call twice and in another process than `run`
#
# and ends with `wl_main "$@"`. Common options (wl_main):
#
#   --workdir DIR   where the sparse images and mount points go
#                   (default: a new /dev/shm/blkpeak-wl.XXXXXX, removed after)
#   --phase P       all (default) | setup | run | teardown. `setup` leaves
#                   the filesystems mounted and prints "device /dev/loopN"
#                   lines (and "scratch GLOB|GLOB..." with WL_SCRATCH's
#                   globs under $WL_MNT1, the form of replay --map path:);
#                   `run` runs the load on them; `teardown` removes
#                   them. Split phases let a caller trace only the load:
#                     workloads/photo-edit --workdir W --phase setup
#                     blkpeak capture -d /dev/loopN -- workloads/photo-edit --workdir W --phase run
#                     workloads/photo-edit --workdir W --phase teardown
#                   Give `run` the same size options as `setup`.
#
# Why O_DIRECT and drop_caches: a recipe's setup writes the very files its
# load then reads, so they sit in the page cache and the load would read
# nothing from the device. Recipes therefore read with O_DIRECT (dd
# iflag=direct) or, where an application's buffered access pattern matters
# (cold-start, backup), drop the page cache first under the machine-wide
# kernel-state lock (/tmp/blkpeak-kernel-state.lock, the one tests/e2e/lib.sh
# uses). Large writes that would otherwise sit in the cache until after
# the load use O_DIRECT (dd oflag=direct) or fsync.
#
# At the end of `run` the recipe prints what the devices did, from
# /sys/block/loopN/stat: "io loopN reads R sectors S writes W sectors S2".

set -u

WL_WORKDIR=""
WL_OWN_WORKDIR=""
WL_PHASE=all
WL_DEVS=""
WL_PIDS=""
WL_MNT1=""
WL_MNT2=""
WL_STATE=""            # $WL_WORKDIR/state: a recipe's own files, removed on teardown
WL_SEED=${WL_SEED:-42}
WL_KERNEL_LOCK=/tmp/blkpeak-kernel-state.lock

wl_err() { echo "$WL_NAME: $*" >&2; }
wl_die() { wl_err "$*"; exit 1; }
wl_log() { [ -n "${WL_QUIET:-}" ] || echo "$WL_NAME: $*" >&2; }

_wl_usage() {
	cat <<EOF
usage: workloads/$WL_NAME [--workdir DIR] [--phase all|setup|run|teardown] [OPTIONS]

$WL_SUMMARY

common options:
  --workdir DIR   sparse images and mount points go here (default: a new
                  temporary folder in /dev/shm, removed at the end)
  --phase P       all (default), or setup / run / teardown separately so
                  that only the load is traced (see workloads/common.sh)
  --quiet         no progress lines on stderr
  -h, --help      this help

options of $WL_NAME:
EOF
	wl_usage
}

# wl_bg CMD...: run CMD in the background; its pid is killed on teardown.
wl_bg() { "$@" & WL_PIDS="$WL_PIDS $!"; }

# wl_wait_bg: wait for the background jobs; fails if any of them failed.
wl_wait_bg() {
	_rc=0
	for p in $WL_PIDS; do wait "$p" || _rc=1; done
	WL_PIDS=""
	return $_rc
}

# wl_drop_caches: write back and drop the page cache, holding the kernel
# state lock while doing so (global machine state; see the file comment).
# A caller that already holds the lock on fd 9 (tests/e2e/lib.sh's
# with_kernel_lock, inherited by the demo it runs) is not waited for: a
# new open of the file would wait for that caller's lock forever, while
# flock on the inherited descriptor succeeds at once (same open file).
wl_drop_caches() {
	sync
	if [ "$(readlink /proc/$$/fd/9 2>/dev/null)" = "$WL_KERNEL_LOCK" ]; then
		flock 9 && echo 3 > /proc/sys/vm/drop_caches
	else
		(
			flock 9
			echo 3 > /proc/sys/vm/drop_caches
		) 9>"$WL_KERNEL_LOCK"
	fi || wl_die "cannot drop the page cache (needs root)"
}

# wl_prog CMD...: run one program of the load and return its status. It
# runs in the background while the recipe waits for it, so that a SIGTERM
# to the recipe is handled at once (bash runs a trap only after a
# foreground child ends) and teardown kills the program (WL_PIDS).
wl_prog() {
	"$@" &
	_wl_p=$!
	WL_PIDS="$WL_PIDS $_wl_p"
	wait "$_wl_p"
	_wl_rc=$?
	WL_PIDS=${WL_PIDS% "$_wl_p"}
	return $_wl_rc
}

# wl_posint OPTION VALUE: exits 2 unless VALUE is a whole number above 0.
wl_posint() { case "$2" in ''|*[!0-9]*|0*) wl_err "$1: '$2': not a positive whole number"; exit 2 ;; esac; }

# wl_need CMD...: fails naming the Debian package when a program is missing
# (scripts/install-deps.sh installs them all).
wl_need() {
	for _c in "$@"; do
		command -v "${_c%%:*}" >/dev/null 2>&1 ||
			wl_die "needs ${_c%%:*} (Debian package ${_c#*:}; scripts/install-deps.sh installs it)"
	done
}

# wl_fill FILE SIZE_KB: write FILE with SIZE_KB KiB of incompressible data
# from the recipe's pattern file (no /dev/urandom cost per file).
wl_fill() {
	dd if="$WL_WORKDIR/pattern" of="$1" bs=1k count="$2" status=none 2>/dev/null ||
		wl_die "cannot write $1"
}

# wl_rand N: a pseudo-random number in [0, N) from the recipe's seeded
# generator, so a recipe does the same I/O every time.
wl_rand() { WL_RAND=$(( (RANDOM * 32768 + RANDOM) % $1 )); }

# wl_size_kb OPTION VALUE: VALUE ("512k", "5M", "1G", "4096" bytes) in KiB,
# in $WL_KB; returns 1 with an error naming OPTION when it is not a size.
wl_size_kb() {
	case "$2" in
	*[kK]) _n=${2%?}; _m=1 ;;
	*[mM]) _n=${2%?}; _m=1024 ;;
	*[gG]) _n=${2%?}; _m=1048576 ;;
	*) _n=$2; _m=0 ;;
	esac
	case "$_n" in ''|*[!0-9]*) wl_err "$1: '$2': not a size (like 512k, 5M, 1G)"; return 1 ;; esac
	if [ $_m -eq 0 ]; then WL_KB=$(( (_n + 1023) / 1024 )); else WL_KB=$(( _n * _m )); fi
	[ "$WL_KB" -gt 0 ] || { wl_err "$1: '$2': must be at least 1k"; return 1; }
}

# wl_scaled KB SCALE: KB * SCALE (a decimal like 0.05), at least 4, in $WL_KB.
wl_scaled() { WL_KB=$(awk -v k="$1" -v s="$2" 'BEGIN { v = int(k * s); print (v < 4 ? 4 : v) }'); }

# wl_check_scale VALUE: a positive decimal number, or an error.
wl_check_scale() {
	awk -v s="$1" 'BEGIN { exit !(s ~ /^[0-9]*\.?[0-9]+$/ && s > 0) }' ||
		{ wl_err "--scale: '$1': not a positive number"; return 1; }
}

_wl_stat() { awk '{ print $1, $3, $5, $7 }' "/sys/block/$1/stat"; }

_wl_make_fs() {
	_img="$WL_WORKDIR/disk$1.img"
	_mnt="$WL_WORKDIR/mnt$1"
	truncate -s "${WL_DEV_MB}M" "$_img" || wl_die "cannot create $_img"
	_dev=$(losetup -f --show --direct-io=on "$_img") || wl_die "losetup $_img failed"
	echo "$_dev" >> "$WL_WORKDIR/devices"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$_dev" >/dev/null ||
		wl_die "mkfs.ext4 $_dev failed"
	mkdir -p "$_mnt"
	mount "$_dev" "$_mnt" || wl_die "cannot mount $_dev on $_mnt"
	echo "$_mnt" >> "$WL_WORKDIR/mounts"
	echo "device $_dev"
}

_wl_load_state() {
	[ -f "$WL_WORKDIR/devices" ] || wl_die "$WL_WORKDIR: no set-up found (run --phase setup first)"
	WL_DEVS=$(cat "$WL_WORKDIR/devices")
	WL_MNT1=$WL_WORKDIR/mnt1
	WL_MNT2=$WL_WORKDIR/mnt2
}

_wl_stop() { if declare -F wl_stop >/dev/null; then wl_stop; fi; return 0; }

# _wl_teardown: stop background jobs, unmount, detach, remove what this
# recipe made. Safe to call twice and on a half-made set-up.
_wl_teardown() {
	for p in $WL_PIDS; do kill "$p" 2>/dev/null; done
	for p in $WL_PIDS; do wait "$p" 2>/dev/null; done
	WL_PIDS=""
	[ -n "$WL_WORKDIR" ] && [ -d "$WL_WORKDIR" ] || return 0
	_wl_stop
	if [ -f "$WL_WORKDIR/mounts" ]; then
		while read -r m; do
			mountpoint -q "$m" 2>/dev/null || continue
			umount "$m" 2>/dev/null || { sleep 0.5; umount "$m" 2>/dev/null; } ||
				umount -l "$m" 2>/dev/null || wl_err "cannot unmount $m"
		done < "$WL_WORKDIR/mounts"
		rm -f "$WL_WORKDIR/mounts"
	fi
	if [ -f "$WL_WORKDIR/devices" ]; then
		while read -r d; do
			# Detach only if it is still backed by our image.
			losetup -n -O BACK-FILE "$d" 2>/dev/null | grep -q "^$WL_WORKDIR/" &&
				{ losetup -d "$d" || wl_err "cannot detach $d"; }
		done < "$WL_WORKDIR/devices"
		rm -f "$WL_WORKDIR/devices"
	fi
	rm -rf "$WL_WORKDIR"/mnt? "$WL_WORKDIR"/disk?.img "$WL_WORKDIR/pattern" "$WL_STATE"
	[ -n "$WL_OWN_WORKDIR" ] && rm -rf "$WL_WORKDIR"
	return 0
}

_wl_setup() {
	mkdir -p "$WL_WORKDIR" || wl_die "cannot create $WL_WORKDIR"
	[ -f "$WL_WORKDIR/devices" ] && wl_die "$WL_WORKDIR: already set up (run --phase teardown first)"
	: > "$WL_WORKDIR/devices"
	: > "$WL_WORKDIR/mounts"
	mkdir -p "$WL_STATE"
	# 1 MiB of incompressible data that wl_fill repeats.
	head -c 1048576 /dev/urandom > "$WL_WORKDIR/pattern"
	for i in $(seq 1 "$WL_DEVICES"); do _wl_make_fs "$i"; done
	_wl_load_state
	wl_setup || wl_die "setup failed"
	sync
	if [ -n "${WL_SCRATCH:-}" ]; then
		_g=""
		IFS='|' read -ra _alts <<< "$WL_SCRATCH"
		for _a in "${_alts[@]}"; do _g="$_g${_g:+|}$WL_MNT1/$_a"; done
		echo "scratch $_g"
	fi
}

_wl_run() {
	_wl_load_state
	for d in $WL_DEVS; do echo "${d#/dev/} $(_wl_stat "${d#/dev/}")"; done > "$WL_STATE/stat.before"
	_t0=$(date +%s%N)
	wl_run || { wl_wait_bg; wl_die "the load failed"; }
	wl_wait_bg || wl_die "a background part of the load failed"
	sync
	_t1=$(date +%s%N)
	while read -r n r rs w ws; do
		set -- $(_wl_stat "$n")
		echo "io $n reads $(($1 - r)) sectors $(($2 - rs)) writes $(($3 - w)) sectors $(($4 - ws))"
	done < "$WL_STATE/stat.before"
	rm -f "$WL_STATE/stat.before"
	wl_log "load took $(( (_t1 - _t0) / 1000000 )) ms"
}

wl_main() {
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help) _wl_usage; exit 0 ;;
		--quiet) WL_QUIET=1; shift ;;
		--workdir|--phase)
			[ $# -ge 2 ] || { wl_err "$1 needs a value"; exit 2; }
			case "$1" in
			--workdir) WL_WORKDIR=$2 ;;
			--phase) WL_PHASE=$2 ;;
			esac
			shift 2 ;;
		--*)
			if [ $# -lt 2 ]; then
				# known (with some value) or not: ask in a subshell
				(wl_option "$1" 1) >/dev/null 2>&1
				[ $? -eq 1 ] && { wl_err "unknown option '$1'; see --help"; exit 2; }
				wl_err "$1 needs a value"; exit 2
			fi
			wl_option "$1" "$2" || { wl_err "unknown option '$1'; see --help"; exit 2; }
			shift 2 ;;
		*) wl_err "unexpected argument '$1'; see --help"; exit 2 ;;
		esac
	done
	case "$WL_PHASE" in
	all|setup|run|teardown) ;;
	*) wl_err "--phase: '$WL_PHASE': not all, setup, run or teardown"; exit 2 ;;
	esac
	[ "$(id -u)" -eq 0 ] || wl_die "needs root (loop devices, mount)"
	wl_finish_options || exit 2
	RANDOM=$WL_SEED

	if [ -z "$WL_WORKDIR" ]; then
		[ "$WL_PHASE" = all ] || { wl_err "--phase $WL_PHASE needs --workdir"; exit 2; }
		WL_WORKDIR=$(mktemp -d /dev/shm/blkpeak-wl.XXXXXX) || wl_die "cannot make a temp dir"
		WL_OWN_WORKDIR=1
	fi
	WL_WORKDIR=$(realpath -m "$WL_WORKDIR")
	WL_STATE=$WL_WORKDIR/state

	case "$WL_PHASE" in
	all)
		trap '_wl_teardown' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		wl_log "setting up ${WL_DEVICES} x ${WL_DEV_MB} MiB ext4 in $WL_WORKDIR"
		_wl_setup >/dev/null
		wl_log "running the load"
		_wl_run
		;;
	setup)
		# A failed set-up removes its half-made state.
		trap '[ $? -eq 0 ] || _wl_teardown' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		_wl_setup
		;;
	run)
		trap 'for p in $WL_PIDS; do kill "$p" 2>/dev/null; done; _wl_stop' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		_wl_run
		;;
	teardown)
		_wl_teardown
		;;
	esac
}
