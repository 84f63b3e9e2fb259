"""files_workload.py MNT: the known workload of 21-capture-files.sh.

Each step runs in a child process named after it (prctl PR_SET_NAME,
"bpw-STEP"), so a trace can tell who did what: buffered write, overwrite,
append, mmap stores, fsync/fdatasync, direct write and read, and a file
deleted before its writeback. Ends with sync(2), inside the capture.
"""
import ctypes, mmap, os, sys

MNT = sys.argv[1]
MIB = 1 << 20
libc = ctypes.CDLL(None)


def name(step):
    libc.prctl(15, ("bpw-" + step).encode(), 0, 0, 0)


def data(n, seed):
    return bytes([(seed + i) & 0xFF for i in range(256)]) * (n // 256)


def write(path, n, seed, flags=0):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | flags, 0o644)
    os.write(fd, data(n, seed))
    return fd


def step_write():
    os.close(write(MNT + "/write.dat", 4 * MIB, 1))


def step_overwrite():
    fd = write(MNT + "/overwrite.dat", 2 * MIB, 2)
    os.fsync(fd)
    os.pwrite(fd, data(MIB // 2, 3), MIB // 2)
    os.fsync(fd)
    os.close(fd)


def step_append():
    fd = write(MNT + "/sub/append.dat", MIB, 4)
    os.fsync(fd)
    os.close(fd)
    fd = os.open(MNT + "/sub/append.dat", os.O_WRONLY | os.O_APPEND)
    os.write(fd, data(MIB, 5))
    os.close(fd)


def step_mmap():
    fd = os.open(MNT + "/mmap.dat", os.O_RDWR | os.O_CREAT, 0o644)
    os.ftruncate(fd, 2 * MIB)
    m = mmap.mmap(fd, 2 * MIB)
    m[:] = data(2 * MIB, 6)
    m.flush()
    m.close()
    os.close(fd)


def step_fsync():
    fd = write(MNT + "/fsync.dat", MIB, 7)
    os.fsync(fd)
    os.write(fd, data(MIB, 8))
    os.fdatasync(fd)
    os.close(fd)


def step_direct():
    buf = mmap.mmap(-1, MIB)
    buf.write(data(MIB, 9))
    fd = os.open(MNT + "/direct.dat", os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o644)
    for i in range(2):
        os.pwritev(fd, [buf], i * MIB)
    os.preadv(fd, [buf], 0)
    os.close(fd)


def step_deleted():
    os.close(write(MNT + "/deleted.dat", MIB, 10))
    os.unlink(MNT + "/deleted.dat")


os.makedirs(MNT + "/sub", exist_ok=True)
for step in (step_write, step_overwrite, step_append, step_mmap, step_fsync,
             step_direct, step_deleted):
    pid = os.fork()
    if pid == 0:
        name(step.__name__[5:])
        step()
        os._exit(0)
    _, st = os.waitpid(pid, 0)
    if st:
        sys.exit("step %s failed" % step.__name__)
name("sync")
os.sync()
