#!/bin/bash
# suite record (issue 29): a workload recipe (database, at a small scale)
# recorded into a suite folder with blkpeak capture, as the demo records
# one: the trace holds the recipe's program's I/O, suite init then lists
# it, nothing is left behind (loop device, mount, work folder), and a
# second record of the same recipe is refused without --force; a bad
# recipe name is a usage error, an unknown one a failure, both before
# anything runs.
. "$(dirname "$0")/lib.sh"
need_bpf
need_cmd mkfs.ext4 losetup mount sqlite3
with_kernel_lock  # the BPF capture (and the recipe's drop_caches) are machine-wide
T=$E2E_TMP
S=$T/suite

"$BLKPEAK" suite record "$S" 'Bad Name' 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "bad recipe name: exit $rc"
grep -q "'Bad Name': not a recipe name" "$T/err" || fail "bad name: $(cat "$T/err")"
"$BLKPEAK" suite record "$S" nosuch 2>"$T/err" && fail "an unknown recipe ran"
grep -q "'nosuch': no such executable recipe" "$T/err" || fail "unknown: $(cat "$T/err")"
[ ! -e "$S" ] || fail "a refused record made the folder"

before=$(ls /dev/shm | grep -c '^blkpeak-suite-record' || true)
"$BLKPEAK" suite record "$S" database --scale 0.01 >"$T/out" 2>"$T/err" ||
	fail "suite record: $(cat "$T/out" "$T/err")"
grep -q "^recording database .* into $S/database.bpt \.\.\. [0-9.]* s$" "$T/out" || fail "out: $(cat "$T/out")"
"$BLKPEAK" dump -f csv "$S/database.bpt" | awk -F, 'NR > 1 && $10 == "sqlite3" { n++ } END { exit !(n > 0) }' ||
	fail "no I/O of sqlite3 in the recording"
after=$(ls /dev/shm | grep -c '^blkpeak-suite-record' || true)
[ "$before" = "$after" ] || fail "a work folder was left in /dev/shm"
if losetup -a | grep -q blkpeak-suite-record; then fail "loop device left: $(losetup -a | grep blkpeak-suite-record)"; fi
if grep -q blkpeak-suite-record /proc/mounts; then fail "mount left behind"; fi

"$BLKPEAK" suite record "$S" database --scale 0.01 2>"$T/err" && fail "a recording was replaced"
grep -q "database.bpt' exists: --force" "$T/err" || fail "refusal: $(cat "$T/err")"
"$BLKPEAK" suite init "$S" >/dev/null || fail "suite init on the recording"
grep -q "^\[recording database\]" "$S/suite.ini" || fail "init: $(cat "$S/suite.ini")"
note "database recorded, listed by init, nothing left behind"
exit 0
