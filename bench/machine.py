"""How fast this machine is at the moment of a run, to tell a slow hour from slow code.

Machines of the project's kind differ by a third in speed from one hour to the next (docs/performance.md), and
the room's tail latency follows. Each load run records this probe beside its figures: the time of a fixed piece
of pure Python on one core (the web processes' kind of work), and the time of an 8 kB write followed by
`fdatasync` on the disk under `folder` (what a PostgreSQL commit waits for; the embedded server's data lies
there). Run alone: `python bench/machine.py`.

The loop's own noise: on one quiet minute, separate processes gave 26 and 40 ms (the interpreter's memory
layout differs from one process to the next), so only a figure well above 40 ms says the hour is slow.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

PYTHON_LOOPS = 400_000
PYTHON_ROUNDS = 5
SYNCS = 200


def python_ms() -> dict[str, float]:
    """Milliseconds for a fixed loop of integer arithmetic on each core in turn (the process pinned to it),
    `PYTHON_ROUNDS` times a core: the median and the slowest over all (about 27 ms each on a fast hour of this
    kind)."""
    cores = sorted(os.sched_getaffinity(0))
    times = []
    try:
        for core in cores:
            os.sched_setaffinity(0, {core})
            for _ in range(PYTHON_ROUNDS):
                started = time.perf_counter()
                total = 0
                for number in range(PYTHON_LOOPS):
                    total += number * number % 7
                times.append((time.perf_counter() - started) * 1000)
    finally:
        os.sched_setaffinity(0, cores)
    times.sort()
    return {"median": round(times[len(times) // 2], 1), "max": round(times[-1], 1)}


def fdatasync_us(folder: Path) -> dict[str, float]:
    """p50 and p99 in microseconds of `SYNCS` 8 kB writes, each made durable with fdatasync, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f".sync-probe-{os.getpid()}"
    block = os.urandom(8192)
    times = []
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for _ in range(SYNCS):
            started = time.perf_counter()
            os.write(descriptor, block)
            os.fdatasync(descriptor)
            times.append((time.perf_counter() - started) * 1e6)
    finally:
        os.close(descriptor)
        path.unlink(missing_ok=True)
    times.sort()
    return {"p50": round(times[len(times) // 2]), "p99": round(times[int(len(times) * 0.99)])}


def probe(folder: Path) -> dict:
    return {
        "python_ms": python_ms(),
        "fdatasync_us": fdatasync_us(folder),
        "load_average": [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]],
    }


def describe(found: dict) -> str:
    sync = found["fdatasync_us"]
    return (
        f"machine: python loop {found['python_ms']['median']} ms (slowest: "
        f"{found['python_ms']['max']}), fdatasync p50 {sync['p50']} / p99 {sync['p99']} us, "
        f"load average {found['load_average'][0]}"
    )


if __name__ == "__main__":
    base = Path(__file__).resolve().parents[1]
    print(describe(probe(Path(sys.argv[1]) if len(sys.argv) > 1 else base / "var" / "bench")))
