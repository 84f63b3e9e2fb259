#!/bin/bash
# 13-output-signals.sh — Ctrl-C (SIGINT), SIGTERM or SIGHUP while an
# output is being written leaves nothing behind: not the new file's
# PATH.tmp.XXXXXX (hundreds of megabytes for a long convert), not its
# lock file; an older file at PATH is left as it was; the command dies
# of the signal. Also for generate.
. "$(dirname "$0")/lib.sh"
need_cmd python3 sha256sum
T=$E2E_TMP
"$BLKPEAK" generate --count 2000 --span 100m -o "$T/a.bpt" -q || fail "generate failed"
echo "an older file" > "$T/keep.bpt"
before=$(sha256sum < "$T/keep.bpt")

python3 - "$BLKPEAK" "$T" <<'PY' || fail "a signal left an output's files behind (above)"
import os, signal, subprocess, sys, time
B, T = sys.argv[1], sys.argv[2]
def default_int():
    # a shell's background job has SIGINT ignored; a user's Ctrl-C does not
    signal.signal(signal.SIGINT, signal.SIG_DFL)
cases = [
    ("convert", [B, "convert", f"{T}/a.bpt", "--loop", "1000000", "-o", f"{T}/keep.bpt"], "keep.bpt"),
    ("generate", [B, "generate", "--count", "2000000000", "-q", "-o", f"{T}/gen.bpt"], "gen.bpt"),
]
bad = 0
for what, cmd, out in cases:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        p = subprocess.Popen(cmd, preexec_fn=default_int, stderr=subprocess.PIPE)
        t0 = time.monotonic()
        # wait until the new file exists, so the signal comes mid-write
        while not any(f.startswith(out + ".tmp.") for f in os.listdir(T)):
            if p.poll() is not None or time.monotonic() - t0 > 30:
                print(f"{what}: no {out}.tmp.* appeared (rc {p.poll()})"); sys.exit(1)
            time.sleep(0.02)
        p.send_signal(sig)
        rc = p.wait(timeout=60)
        left = [f for f in os.listdir(T) if f.startswith(out + ".tmp.") or f == "." + out + ".lock"]
        if rc != -sig or left:
            print(f"{what} {sig.name}: rc {rc} (want {-sig}), left behind: {left}, "
                  f"stderr {p.stderr.read().decode()[:300]}")
            bad = 1
        p.stderr.close()
sys.exit(bad)
PY
[ "$(sha256sum < "$T/keep.bpt")" = "$before" ] || fail "an interrupted convert changed the older file at -o"
[ ! -e "$T/gen.bpt" ] || fail "an interrupted generate left gen.bpt"
note "SIGINT, SIGTERM, SIGHUP during convert and generate: nothing left behind, older output kept"
exit 0
