#!/usr/bin/env python3
"""ptyrun.py — run a command with its stdin, stdout and stderr on a new
pseudo-terminal (as on a user's terminal) for the end-to-end tests.

  ptyrun.py OUT CMD [ARGS...]

Everything the command wrote goes to the file OUT, unchanged (carriage
returns and escape sequences included); the exit status is the
command's. Only the Python standard library (pty) is used.
"""
import os
import pty
import select
import sys


def main():
    out_path, argv = sys.argv[1], sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    out = b""
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], 600)
        except InterruptedError:
            continue
        if not ready:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    with open(out_path, "wb") as f:
        f.write(out)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
