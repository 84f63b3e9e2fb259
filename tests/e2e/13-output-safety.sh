#!/bin/bash
# 13-output-safety.sh — issue 9, tried as a hostile user would:
#  - no output of any command (export, plot, html, generate, replay -o,
#    capture -o, the database of import/--db/$BLKPEAK_DB) lands on a
#    device node, a FIFO or a link to one: a one-line refusal naming the
#    path and what it is, and the device's bytes are unchanged;
#  - an output that is the command's input or its database (also through
#    a hard or symbolic link) is refused and left unchanged;
#  - a FIFO given as a trace is refused at once by info, dump, replay and
#    import (they used to hang);
#  - one writer per output: a second replay or capture onto the same -o
#    is refused with "in use by PID N"; a capture killed by SIGKILL leaves
#    a readable trace and its stale lock file blocks nobody;
#  - two imports into one new database both succeed, and queries during
#    an import never fail with "database is locked";
#  - analyze query refuses fts3_tokenizer() and load_extension();
#  - recorded strings holding escape sequences and a newline reach no
#    terminal raw: info, dump (text, CSV, JSON), report, query, export.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd sqlite3 sha256sum timeout cc python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$E2E_TMP
sum() { sha256sum "$1" | cut -d' ' -f1; }

# refused WHAT MESSAGE CMD...: exit 1 within 20 s, MESSAGE on stderr
refused() {
	what=$1 msg=$2
	shift 2
	timeout 20 "$@" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit $rc, want 1 ($(cat "$T/err"))"
	grep -qF -- "$msg" "$T/err" || fail "$what: no '$msg' in: $(cat "$T/err")"
}

"$BLKPEAK" generate -q --count 20000 -o "$T/g.bpt" || fail "generate"
DB=$T/a.db
"$BLKPEAK" analyze import --db "$DB" "$T/g.bpt" >/dev/null || fail "import"
F=$T/target.img
truncate -s 64M "$F" || fail "cannot create $F"

# --- device nodes as outputs: refused, the device's bytes unchanged
L=$(make_loop 16M)
dd if=/dev/urandom of="$L" bs=1M count=16 oflag=direct status=none || fail "fill $L"
before=$(sum "$L")
refused "export -o dev" "$L: a block device, refusing to write a CSV export there" \
	"$BLKPEAK" analyze export 1 --csv --db "$DB" -o "$L"
refused "plot -o dev" "$L: a block device, refusing to write a chart there" \
	"$BLKPEAK" analyze plot 1 --kind iops --db "$DB" -o "$L"
refused "html -o dev" "$L: a block device, refusing to write an HTML report there" \
	"$BLKPEAK" analyze html 1 --db "$DB" -o "$L"
refused "generate -o dev" "$L: a block device, refusing to write a trace there" \
	"$BLKPEAK" generate --count 10 -o "$L"
refused "replay -o dev" "$L: a block device, refusing to write a run file there" \
	"$BLKPEAK" replay "$T/g.bpt" --target "$F" --create 64m --engine null --fit wrap --timing afap -o "$L"
refused "capture -o dev" "$L: a block device, refusing to write a trace there" \
	"$BLKPEAK" capture -o "$L" --duration 1s -d "$L"
refused "import --db dev" "$L: a block device, not a database" \
	"$BLKPEAK" analyze import --db "$L" "$T/g.bpt"
BLKPEAK_DB=$L refused "BLKPEAK_DB=dev" "$L: a block device, not a database" \
	"$BLKPEAK" analyze import "$T/g.bpt"
ln -s "$L" "$T/disk.db"
refused "--db link to dev" "$T/disk.db: a block device, not a database" \
	"$BLKPEAK" analyze import --db "$T/disk.db" "$T/g.bpt"
ln -s "$L" "$T/disk.csv"
refused "export -o link to dev" "$T/disk.csv: a block device, refusing" \
	"$BLKPEAK" analyze export 1 --csv --db "$DB" -o "$T/disk.csv"
[ -b "$L" ] || fail "$L is no longer a block device"
[ "$(sum "$L")" = "$before" ] || fail "$L was written"
refused "export -o /dev/null" "/dev/null: a character device, refusing" \
	"$BLKPEAK" analyze export 1 --json --db "$DB" -o /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
note "device nodes refused as outputs and databases, contents unchanged"

# --- FIFOs as outputs and as traces: refused at once, never a hang
mkfifo "$T/fifo"
refused "export -o fifo" "$T/fifo: a FIFO, refusing to write a JSON export there" \
	"$BLKPEAK" analyze export 1 --json --db "$DB" -o "$T/fifo"
refused "--db fifo" "$T/fifo: a FIFO, not a database" \
	"$BLKPEAK" analyze report 1 --db "$T/fifo"
for cmd in "info" "dump" "replay --target $F --engine null --fit wrap --timing afap" \
	"analyze import --db $T/fifo-import.db"; do
	# shellcheck disable=SC2086
	refused "$cmd FIFO" "$T/fifo: a FIFO, not a trace file" "$BLKPEAK" $cmd "$T/fifo"
done
[ ! -e "$T/fifo-import.db" ] || fail "import of a FIFO created the database"
note "FIFOs refused as outputs, databases and traces"

# --- an input (or the database) as the output, through links too
dbsum=$(sum "$DB")
refused "export -o DB" "$DB: an input of this command, refusing to write a CSV export there" \
	"$BLKPEAK" analyze export 1 --csv --db "$DB" -o "$DB"
ln "$DB" "$T/hard.db"
refused "plot -o hard link of DB" "$T/hard.db: the same file as the input $DB" \
	"$BLKPEAK" analyze plot 1 --kind iops --db "$DB" -o "$T/hard.db"
ln -s "$DB" "$T/soft.html"
refused "html -o symlink to DB" "$T/soft.html: the same file as the input $DB" \
	"$BLKPEAK" analyze html 1 --db "$DB" -o "$T/soft.html"
BLKPEAK_DB=$DB refused "export -o BLKPEAK_DB" "an input of this command" \
	"$BLKPEAK" analyze export 1 --csv -o "$DB"
[ "$(sum "$DB")" = "$dbsum" ] || fail "the database was changed"
gsum=$(sum "$T/g.bpt")
ln -s "$T/g.bpt" "$T/run-link.bpt"
refused "replay -o link to its trace" "the same file as the input $T/g.bpt" \
	"$BLKPEAK" replay "$T/g.bpt" --target "$F" --engine null --fit wrap --timing afap -o "$T/run-link.bpt"
[ "$(sum "$T/g.bpt")" = "$gsum" ] || fail "the trace was changed"
note "inputs and the database refused as outputs, through links"

# --- one writer per output
"$BLKPEAK" generate -q --duration 4s --iops 500 -o "$T/slow.bpt" || fail "generate slow"
bg_start "$BLKPEAK" replay "$T/slow.bpt" --target "$F" --engine null --fit wrap --timing original \
	-o "$T/run.bpt" >/dev/null
first=$BG_PID
for _ in $(seq 100); do [ -e "$T/.run.bpt.lock" ] && break; sleep 0.05; done
refused "second replay -o same" "$T/run.bpt: in use by PID $first" \
	"$BLKPEAK" replay "$T/g.bpt" --target "$F" --engine null --fit wrap --timing afap -o "$T/run.bpt"
wait "$first" || fail "the first replay failed"
"$BLKPEAK" info "$T/run.bpt" | grep -q "status: *complete" || fail "the first replay's run file"
[ ! -e "$T/.run.bpt.lock" ] || fail "the lock file was left after a clean exit"
note "a second replay onto the same -o: refused while the first runs"

if [ -r /sys/kernel/btf/vmlinux ] &&
	"$BLKPEAK" capture -o "$T/probe.bpt" --duration 10ms -d "$L" >/dev/null 2>&1; then
	bg_start "$BLKPEAK" capture -o "$T/c.bpt" --duration 60s -d "$L"
	cap=$BG_PID
	for _ in $(seq 200); do [ -e "$T/c.bpt" ] && break; sleep 0.05; done
	[ -e "$T/c.bpt" ] || fail "the capture did not start"
	refused "second capture -o same" "$T/c.bpt: in use by PID $cap" \
		"$BLKPEAK" capture -o "$T/c.bpt" --duration 1s -d "$L"
	dd if="$L" of=/dev/null bs=4k count=2000 iflag=direct status=none
	sleep 2.5 # blocks are flushed at least once a second
	kill -KILL "$cap"
	wait "$cap" 2>/dev/null
	"$BLKPEAK" info "$T/c.bpt" >"$T/info" 2>&1 || true
	grep -q "^records: *[1-9]" "$T/info" || fail "a SIGKILLed capture left no readable trace: $(cat "$T/info")"
	[ -e "$T/.c.bpt.lock" ] || fail "expected the killed capture's stale lock file"
	"$BLKPEAK" capture -o "$T/c.bpt" --duration 200ms -d "$L" >/dev/null 2>"$T/err" ||
		fail "the stale lock file of a killed capture blocked the next one: $(cat "$T/err")"
	note "a second capture refused; a SIGKILLed capture left $(grep '^records' "$T/info")"
else
	[ "${CI:-}" = true ] && fail "capture cannot run here"
	note "capture cannot run here: its lock and SIGKILL checks skipped"
fi

# --- SQLite: two imports into one new database, queries during imports
"$BLKPEAK" generate -q --count 20000 --seed 2 -o "$T/g2.bpt" || fail "generate g2"
"$BLKPEAK" generate -q --count 200000 --seed 3 -o "$T/big.bpt" || fail "generate big"
for i in $(seq 10); do
	rm -f "$T/new.db"
	"$BLKPEAK" analyze import --db "$T/new.db" "$T/g.bpt" >/dev/null 2>"$T/e1" &
	p1=$!
	"$BLKPEAK" analyze import --db "$T/new.db" "$T/g2.bpt" >/dev/null 2>"$T/e2" &
	p2=$!
	wait $p1 || fail "two imports into a new database, round $i: $(cat "$T/e1")"
	wait $p2 || fail "two imports into a new database, round $i: $(cat "$T/e2")"
	[ "$(sqlite3 "$T/new.db" 'SELECT count(*) FROM traces')" = 2 ] || fail "round $i: not 2 traces"
done
n=0
for i in 1 2 3; do
	"$BLKPEAK" analyze import --db "$T/q.db" "$T/big.bpt" "$T/g.bpt" >/dev/null 2>"$T/e1" &
	imp=$!
	while kill -0 $imp 2>/dev/null; do
		"$BLKPEAK" analyze query --db "$T/q.db" "SELECT count(*) FROM traces" >/dev/null 2>"$T/e2" ||
			grep -q "no such database\|empty database\|there is no database" "$T/e2" ||
			fail "a query during an import failed: $(cat "$T/e2")"
		n=$((n + 1))
	done
	wait $imp || fail "import $i: $(cat "$T/e1")"
done
note "10 double imports into a new database and $n queries during imports: no failure"

# --- query: functions that are not for reading data
refused "fts3_tokenizer" "fts3_tokenizer() is refused: query runs only functions that read data" \
	"$BLKPEAK" analyze query --db "$DB" "SELECT fts3_tokenizer('simple')"
refused "load_extension" "load_extension() is refused" \
	"$BLKPEAK" analyze query --db "$DB" "SELECT load_extension('/tmp/x.so')"

# --- untrusted text: escape sequences, a bell, a C1 CSI and a newline
cc_libbpt "$T/mktrace_strings" "$ROOT/tests/e2e/mktrace_strings.c" || fail "cannot build mktrace_strings (run make first)"
evil=$(printf 'ev\033[31mIL\033]0;pwned\007\nX\302\233')
"$T/mktrace_strings" "$T/evil.bpt" "$evil" || fail "mktrace_strings"
"$BLKPEAK" analyze import --db "$T/evil.db" "$T/evil.bpt" >/dev/null || fail "import evil"
raw() { # FILE: 0 when it holds a control byte other than newline
	python3 - "$1" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
bad = [b for b in data if (b < 0x20 and b not in (0x0a, 0x0d)) or b == 0x7f]
sys.exit(0 if bad or b"\xc2\x9b" in data else 1)
EOF
}
check_out() { # WHAT LINES CMD...: no control byte; LINES lines when not "-"
	what=$1 lines=$2
	shift 2
	"$@" >"$T/out" 2>&1 || fail "$what failed: $(cat "$T/out")"
	raw "$T/out" && fail "$what printed a control byte: $(od -c "$T/out" | head -5)"
	[ "$lines" = - ] || [ "$(wc -l <"$T/out")" -eq "$lines" ] ||
		fail "$what: $(wc -l <"$T/out") lines, want $lines (a raw newline?)"
	grep -qF 'ev\x1b[31mIL' "$T/out" || grep -qF 'ev\u001b[31mIL' "$T/out" ||
		fail "$what: the escaped name is missing: $(head -c 600 "$T/out")"
}
check_out "info" - "$BLKPEAK" info "$T/evil.bpt"
check_out "info --json" - "$BLKPEAK" info --json "$T/evil.bpt"
check_out "dump" 101 "$BLKPEAK" dump "$T/evil.bpt"
check_out "dump --format csv" 101 "$BLKPEAK" dump --format csv "$T/evil.bpt"
check_out "dump --format json" - "$BLKPEAK" dump --format json "$T/evil.bpt"
check_out "analyze report" - "$BLKPEAK" analyze report 1 --db "$T/evil.db"
check_out "analyze report --json" - "$BLKPEAK" analyze report 1 --json --db "$T/evil.db"
check_out "analyze query" 3 "$BLKPEAK" analyze query --db "$T/evil.db" "SELECT DISTINCT comm FROM io_detail"
check_out "analyze query --csv" 2 "$BLKPEAK" analyze query --csv --db "$T/evil.db" "SELECT DISTINCT comm FROM io_detail"
check_out "analyze export --csv" 101 "$BLKPEAK" analyze export 1 --csv --db "$T/evil.db"
"$BLKPEAK" info --json "$T/evil.bpt" | python3 -c 'import json,sys; h=json.load(sys.stdin)["host"]; sys.exit(h != sys.argv[1])' "$evil" ||
	fail "info --json does not carry the host exactly"
note "recorded escape sequences and newlines printed escaped everywhere"
exit 0
