#!/usr/bin/env python3
"""measure_vs_fio.py -- blkpeak measure qd-sweep against fio on one device
(issue 15's bench target), driven by bench/bench-measure.sh.

Per depth and round, each contender does the same work on the same device:
W warm-up I/Os, then N measured ones, 4 KiB random reads, libaio, direct
I/O.
  blkpeak      measure qd-sweep --pattern random --depths D --ios N
               --warmup W (its IOPS leave the warm-up out)
  fio          a job file of two jobs: "warm" (W I/Os), then, stonewalled,
               "measure" (N I/Os), whose IOPS are taken; fio's defaults:
               one I/O per io_submit, one completion per io_getevents
  fio-batched  the same with iodepth_batch_submit=D,
               iodepth_batch_complete_max=D: submitting and reaping in
               batches, as blkpeak's issuer does
The contenders run one after the other in an order that rotates every
round, so none always follows another (same device state, same warm-up).

With THROTTLE=IOPS (bench-measure.sh caps the device at that many read
IOPS with the kernel's block throttling and runs this script in the
cgroup) the device, not the tool, sets the pace. fio's warm-up is then
inside the measured job: one job with ramp_time = W / IOPS (fio resets
its counts when the ramp ends, so number_ios=N counts the measured ones),
as measure's warm-up is inside its step. Two jobs, as above, would leave
a pause between the warm-up and the measured I/Os in which the throttle
lets a burst through (10,299 IOPS against a 10,000 cap).

CPU is user + system time of the whole command and the children it waited
for (measure's generate and replay children, fio's job processes), per
I/O done (N + W). Each command also has a fixed cost (start-up, setting
up, fio's job parsing; blkpeak's trace making and reading): measured
first with a run of 16 I/Os (median of 3), it is subtracted for the
"marginal" CPU per I/O, the figure the verdict uses.

Per depth it prints the medians over the rounds of IOPS and CPU per I/O,
and the median of the per-round ratios blkpeak / fio (each taken within
one round) with their range. The issue asks for IOPS within 3% of fio's
at every depth and CPU per I/O no higher than fio's; a depth whose
rounds' IOPS ratios lie more than 6 points apart (half the range over
3%) cannot be judged on this run (a loaded machine).

Usage: measure_vs_fio.py DEVICE WORKDIR  (environment: BLKPEAK, N, W,
ROUNDS, DEPTHS, BASELINE = an older blkpeak binary to run as one more
contender, for before/after figures, THROTTLE = the device's read IOPS
cap, set by bench-measure.sh)
"""
import json
import os
import resource
import statistics
import subprocess
import sys


def cpu_run(argv):
    """Run argv; return its output and the CPU seconds of it and the
    children it waited for (this process's reaped children's times)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("bench: %s failed (exit %d): %s" %
                 (" ".join(argv), p.returncode, p.stderr.decode(errors="replace")[-800:]))
    return p.stdout, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def blkpeak_step(binary, dev, depth, n, w):
    out, cpu = cpu_run([binary, "measure", "qd-sweep", "--target", dev, "--pattern", "random",
                        "--depths", str(depth), "--ios", str(n), "--warmup", str(w),
                        "--no-store", "--json"])
    return json.loads(out)["points"][0]["ios_per_s"], cpu


FIO_GLOBAL = """[global]
filename={dev}
direct=1
ioengine=libaio
rw=randread
bs=4k
size=1g
iodepth={depth}
norandommap
randrepeat=0
{batch}
"""

# throttled device: the warm-up is a ramp inside the measured job, so the
# throttle cannot let a burst through between two jobs
FIO_RAMP_JOBS = """[measure]
ramp_time={ramp_ms}ms
number_ios={n}
"""

FIO_JOBS = """[warm]
number_ios={w}

[measure]
stonewall
number_ios={n}
"""


def fio_step(workdir, dev, depth, n, w, batched, throttle=0):
    job = os.path.join(workdir, "qd%d%s.fio" % (depth, "-batched" if batched else ""))
    batch = "iodepth_batch_submit=%d\niodepth_batch_complete_max=%d\n" % (depth, depth) \
        if batched else ""
    with open(job, "w") as f:
        f.write(FIO_GLOBAL.format(dev=dev, depth=depth, batch=batch))
        if throttle:
            f.write(FIO_RAMP_JOBS.format(n=n, ramp_ms=max(1, round(w * 1000 / throttle))))
        else:
            f.write(FIO_JOBS.format(n=n, w=w))
    out, cpu = cpu_run(["fio", "--output-format=json", job])
    jobs = {j["jobname"]: j for j in json.loads(out)["jobs"]}
    if throttle:
        # the I/Os in flight when the ramp ends count on one side or the
        # other: up to `depth` fewer than number_ios are counted after it
        done = jobs["measure"]["read"]["total_ios"]
        if not n - depth <= done <= n:
            sys.exit("bench: fio did %d I/Os after its ramp, not %d" % (done, n))
        return jobs["measure"]["read"]["iops"], cpu
    done = (jobs["warm"]["read"]["total_ios"], jobs["measure"]["read"]["total_ios"])
    if done != (w, n):
        sys.exit("bench: fio did %d + %d I/Os, not %d + %d" % (done + (w, n)))
    return jobs["measure"]["read"]["iops"], cpu


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    dev, workdir = sys.argv[1], sys.argv[2]
    n = int(os.environ.get("N", "100000"))
    w = int(os.environ.get("W", str(n // 10)))
    rounds = int(os.environ.get("ROUNDS", "5"))
    depths = [int(d) for d in os.environ.get("DEPTHS", "1 4 16 64").split()]
    throttle = int(os.environ.get("THROTTLE", "0"))
    contenders = [
        ("blkpeak", lambda d, n, w: blkpeak_step(os.environ["BLKPEAK"], dev, d, n, w)),
        ("fio", lambda d, n, w: fio_step(workdir, dev, d, n, w, False, throttle)),
        ("fio-batched", lambda d, n, w: fio_step(workdir, dev, d, n, w, True, throttle)),
    ]
    if os.environ.get("BASELINE"):
        contenders.append(("old blkpeak",
                           lambda d, n, w: blkpeak_step(os.environ["BASELINE"], dev, d, n, w)))
    names = [c[0] for c in contenders]

    fixed = {name: statistics.median(step(1, 8, 8)[1] for _ in range(3))
             for name, step in contenders}
    res = {(name, d): [] for name in names for d in depths}
    for r in range(rounds):
        k = r % len(contenders)
        for d in depths:
            for name, step in contenders[k:] + contenders[:k]:
                iops, cpu = step(d, n, w)
                res[(name, d)].append((iops, cpu / (n + w), (cpu - fixed[name]) / (n + w)))
        print("round %d of %d done, load %s" % (r + 1, rounds, load()), file=sys.stderr)

    print("%d I/Os measured after %d of warm-up per run, %d rounds, medians; "
          "ratio: the median of the rounds' blkpeak/other [lowest-highest]" % (n, w, rounds))
    print("fixed CPU per command (16 I/Os): " +
          ", ".join("%s %.0f ms" % (name, fixed[name] * 1e3) for name in names))
    print("%-12s %5s %10s %21s %10s %10s %21s" % ("contender", "depth", "IOPS", "IOPS ratio",
                                                  "CPU/IO", "marginal", "marginal CPU/IO ratio"))
    verdict = []
    for d in depths:
        for name in names:
            rows = res[(name, d)]
            line = "%-12s %5d %10.0f" % (name, d, statistics.median(x[0] for x in rows))
            if name == "blkpeak":
                line += " %21s" % ""
            else:
                ir = [b[0] / x[0] for b, x in zip(res[("blkpeak", d)], rows)]
                line += " %7.3f [%5.3f-%5.3f]" % (statistics.median(ir), min(ir), max(ir))
            line += " %7.2f us %7.2f us" % (statistics.median(x[1] for x in rows) * 1e6,
                                           statistics.median(x[2] for x in rows) * 1e6)
            if name != "blkpeak":
                cr = [b[2] / x[2] for b, x in zip(res[("blkpeak", d)], rows)]
                line += " %7.3f [%5.3f-%5.3f]" % (statistics.median(cr), min(cr), max(cr))
            print(line)
        ir = [b[0] / f[0] for b, f in zip(res[("blkpeak", d)], res[("fio", d)])]
        cr = statistics.median(b[2] / f[2] for b, f in zip(res[("blkpeak", d)], res[("fio", d)]))
        if max(ir) - min(ir) > 0.06:
            v = "IOPS cannot be judged here (the rounds' ratios lie %.1f points apart)" % (
                (max(ir) - min(ir)) * 100)
        else:
            v = "IOPS %s of fio's (%+.1f%%)" % (
                "within 3%" if abs(statistics.median(ir) - 1) <= 0.03 else "NOT within 3%",
                (statistics.median(ir) - 1) * 100)
        verdict.append("depth %d: %s; marginal CPU per I/O %.2fx fio's" % (d, v, cr))
    print("\n".join(verdict))


if __name__ == "__main__":
    main()
