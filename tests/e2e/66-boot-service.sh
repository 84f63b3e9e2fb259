#!/bin/bash
# 66-boot-service.sh — the blkpeak-boot units that `make install` writes
# (here with a PREFIX of their own, so that the paths in them exist):
# systemd-analyze verify finds nothing to say about them (no unknown key,
# no missing program or man page, no ordering cycle in the boot
# transaction); they start the capture before the local file systems,
# ready only once recording (Type=notify), and end it after the boot is
# complete. Then their commands are run as systemd would run them (the
# settings file's variables expanded the systemd way, $NOTIFY_SOCKET set):
# the capture says READY=1 while it runs, an I/O made right after that is
# in the trace, it ends at BLKPEAK_BOOT_LIMIT, and the done unit's
# commands move the trace to BLKPEAK_BOOT_TRACE. A command run under a
# capture does not inherit $NOTIFY_SOCKET.
. "$(dirname "$0")/lib.sh"
need_bpf
need_cmd systemd-analyze make scdoc python3 dd
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P=$E2E_TMP/prefix
make -s -C "$ROOT" --no-print-directory install PREFIX="$P" >"$E2E_TMP/make.log" 2>&1 ||
	fail "make install failed: $(cat "$E2E_TMP/make.log")"
U=$P/lib/systemd/system
for u in blkpeak-boot.service blkpeak-boot-done.service; do
	[ -f "$U/$u" ] || fail "$u not installed in PREFIX/lib/systemd/system"
done
[ -f "$P/etc/blkpeak/boot.conf" ] || fail "boot.conf not installed in PREFIX/etc/blkpeak"

out=$(MANPATH=$P/share/man systemd-analyze verify "$U/blkpeak-boot.service" \
	"$U/blkpeak-boot-done.service" 2>&1) || fail "systemd-analyze verify failed: $out"
[ -z "$out" ] || fail "systemd-analyze verify: $out"

# The ordering that makes it a boot recording.
key() { grep -h "^$2=" "$U/$1" | cut -d= -f2- | tr '\n' ' '; }
for want in "blkpeak-boot.service DefaultDependencies no" \
	"blkpeak-boot.service Type notify" \
	"blkpeak-boot.service Before local-fs-pre.target" \
	"blkpeak-boot.service Before systemd-remount-fs.service" \
	"blkpeak-boot.service Conflicts shutdown.target" \
	"blkpeak-boot.service WantedBy sysinit.target" \
	"blkpeak-boot.service Wants blkpeak-boot-done.service" \
	"blkpeak-boot-done.service After boot-complete.target" \
	"blkpeak-boot-done.service After default.target"; do
	set -- $want
	key "$1" "$2" | grep -qw -- "$3" || fail "$1: no $2=$3 (has: $(key "$1" "$2"))"
done
grep -q "^ExecStart=$P/bin/blkpeak capture -o /run/blkpeak/" "$U/blkpeak-boot.service" ||
	fail "blkpeak-boot.service does not run $P/bin/blkpeak into /run/blkpeak"
grep -q "^EnvironmentFile=-$P/etc/blkpeak/boot.conf" "$U/blkpeak-boot.service" ||
	fail "blkpeak-boot.service does not read $P/etc/blkpeak/boot.conf"

# Run the units' commands the way systemd would.
dev=$(make_loop 64M)
mkdir -p "$E2E_TMP/run"
cat > "$E2E_TMP/boot.conf" <<EOF
BLKPEAK_BOOT_TRACE=$E2E_TMP/log/sub/boot.bpt
BLKPEAK_BOOT_LIMIT=4s
BLKPEAK_BOOT_OPTIONS=-d $dev --buffer-size 16
EOF
python3 - "$U" "$E2E_TMP" "$dev" <<'EOF' || fail "running the units' commands failed"
import os, re, shlex, socket, subprocess, sys, time
unitdir, tmp, dev = sys.argv[1:4]

def unit(name):
    env, cmds = {}, []
    for line in open(os.path.join(unitdir, name)):
        k, _, v = line.strip().partition("=")
        if k == "Environment":
            env.update([v.split("=", 1)])
        elif k == "ExecStart":
            cmds.append(v)
    return env, cmds

def settings():
    return dict(l.strip().split("=", 1) for l in open(os.path.join(tmp, "boot.conf")) if "=" in l)

def expand(cmd, env):
    """systemd.service(5): ${VAR} is one word, $VAR is split at spaces."""
    words = []
    for w in shlex.split(cmd):
        m = re.fullmatch(r"\$\{(\w+)\}", w)
        if m:
            words.append(env.get(m.group(1), "")); continue
        m = re.fullmatch(r"\$(\w+)", w)
        if m:
            words.extend(env.get(m.group(1), "").split()); continue
        words.append(re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), w))
    # /run/blkpeak is the machine's: the test writes to its own folder
    return [x.replace("/run/blkpeak/", tmp + "/run/") for x in words]

env, cmds = unit("blkpeak-boot.service")
env.update(settings())
assert len(cmds) == 1, cmds
argv = expand(cmds[0], env)
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(os.path.join(tmp, "notify"))
sock.settimeout(30)
t0 = time.monotonic()
p = subprocess.Popen(argv, env=dict(os.environ, NOTIFY_SOCKET=os.path.join(tmp, "notify")))
msg = sock.recv(256)
assert msg == b"READY=1", msg
assert p.poll() is None, "READY=1 came after the capture ended"
# the first I/O after READY=1 is recorded
subprocess.run(["dd", "if=/dev/zero", "of=" + dev, "bs=4k", "count=8", "oflag=direct",
                "status=none"], check=True)
rc = p.wait(timeout=60)
took = time.monotonic() - t0
assert rc == 0, "the capture exited %d" % rc
assert 3 <= took < 30, "BLKPEAK_BOOT_LIMIT=4s ended the capture after %.1f s" % took
dump = subprocess.run([argv[0], "dump", "--format", "csv", tmp + "/run/boot.bpt"],
                      check=True, capture_output=True, text=True).stdout.splitlines()
writes = [l for l in dump[1:] if ",write," in l and ",dd," in l]
assert len(writes) >= 1, "the write made right after READY=1 is not in the trace"

env, cmds = unit("blkpeak-boot-done.service")
env.update(settings())
assert cmds[0] == "systemctl stop blkpeak-boot.service", cmds
for c in cmds[1:]:
    subprocess.run(expand(c, env), check=True)
assert os.path.exists(tmp + "/log/sub/boot.bpt"), "not moved to BLKPEAK_BOOT_TRACE"
assert not os.path.exists(tmp + "/run/boot.bpt"), "left in /run"
print("  READY=1 after %.2f s; %d I/Os by dd recorded; moved to BLKPEAK_BOOT_TRACE"
      % (took, len(writes)))
EOF
"$BLKPEAK" info "$E2E_TMP/log/sub/boot.bpt" >/dev/null || fail "the moved trace does not read"

# A command run under the capture does not see the service's socket.
seen=$(NOTIFY_SOCKET=$E2E_TMP/nobody "$BLKPEAK" capture -o "$E2E_TMP/cmd.bpt" -d "$dev" -- \
	sh -c 'echo "${NOTIFY_SOCKET-unset}"' 2>/dev/null)
[ "$seen" = unset ] || fail "the command under capture saw NOTIFY_SOCKET=$seen"
