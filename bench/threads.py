"""One thread against two on the bench MLP and conv, quiet and beside a busy
process this script starts itself: medians of calls interleaved in the same run
(1T, 2T, 1T, 2T, …: a disturbance of the shared machine hits both alike), and
the ratio 2T / 1T of each (below 1: two threads are faster). Where PyTorch is
installed, a third regime, `torch`: PyTorch's own version of the case runs on
as many threads in this process before each call (its OpenMP workers spin
after each op, beside the pool's).

  python bench/threads.py [--rounds 200] [--dtypes f64 f32] [--cases mlp conv]
                          [--threads 2] [--busy 1] [--realtime] [--skip torch]
                         [--worker-policy batch|other]

Targets: quiet, two threads at least 1.6x faster than one (ratio <= 0.625);
beside one busy process, two threads at most 1.2x slower than one (ratio <= 1.2).
The best times show what the code does when nothing else runs (on a machine
shared with other work, "quiet" may not be). `--realtime` (root or
CAP_SYS_NICE) runs the quiet phase with this process's threads, the pool's
workers included, under SCHED_FIFO: a quiet machine for them, whatever else
runs; the busy phase runs as usual.
Every result is checked bit-identical to the reference evaluator. Each line
ends with the pool's counts of threaded steps over the phase (`tlir.compiler.pool.COUNTS`):
run on the pool, stalled, run alone after a stall, joined by no worker, slower
than the best pace without a stall.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run_time import Case, conv_case, mlp_case, torch  # noqa: E402

import tlir  # noqa: E402
from tlir.compiler import pool  # noqa: E402

BUSY = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    pass"


def medians(
    models: dict[int, object], case: Case, rounds: int, before=None
) -> dict[int, tuple[float, float]]:
    """The median and the best time of a call per thread count, the counts
    taking turns (their order alternating each round); `before`, if given,
    runs (untimed) before each call."""
    times: dict[int, list[float]] = {t: [] for t in models}
    order = list(models)
    for model in models.values():
        model(*case.inputs)
    for round_number in range(rounds):
        for threads in order if round_number % 2 else order[::-1]:
            if before is not None:
                before()
            start = time.perf_counter()
            models[threads](*case.inputs)
            times[threads].append(time.perf_counter() - start)
    return {t: (statistics.median(v), min(v)) for t, v in times.items()}


def set_realtime() -> dict[int, int]:
    """This process's threads under SCHED_FIFO; their policies before (for `restore`)."""
    before = {}
    for task in map(int, os.listdir("/proc/self/task")):
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            before[task] = os.sched_getscheduler(task)
            os.sched_setscheduler(task, os.SCHED_FIFO, os.sched_param(1))
    return before


def restore(policies: dict[int, int]) -> None:
    """Each thread back to its policy (the pool's workers to theirs, PyTorch's to its own)."""
    for task, policy in policies.items():
        with contextlib.suppress(ProcessLookupError):
            os.sched_setscheduler(task, policy, os.sched_param(0))


def start_busy(count: int) -> list[subprocess.Popen]:
    """`count` processes that spin on a core until stopped."""
    return [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(count)]


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.kill()
        process.wait()


def report(case: Case, label: str, result: dict, steps: dict, threads: int) -> None:
    (one, one_best), (many, many_best) = result[1], result[threads]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    counts = ", ".join(f"{k} {v}" for k, v in steps.items())
    print(
        f"{case.name:30} {label:5} median 1T {one * 1e3:7.3f} ms  {threads}T {many * 1e3:7.3f} ms"
        f"  {threads}T/1T {many / one:4.2f}   best {threads}T/1T {many_best / one_best:4.2f}"
        f"  (load {load}; threaded steps: {counts})",
        flush=True,
    )


def measure(models, case: Case, rounds: int, before=None) -> tuple[dict, dict[str, int]]:
    """`medians`, and the pool's counts of threaded steps over them."""
    counts = pool.runtime().counts()
    result = medians(models, case, rounds, before)
    after = pool.runtime().counts()
    return result, {k: after[k] - counts[k] for k in after}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--dtypes", nargs="+", default=["f64", "f32"])
    parser.add_argument("--cases", nargs="+", default=["mlp", "conv"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--busy", type=int, default=1, help="busy processes beside the calls")
    parser.add_argument("--skip", nargs="*", default=[], help="regimes not measured: torch")
    parser.add_argument(
        "--worker-policy",
        choices=["batch", "other"],
        default="batch",
        help="the pool's workers under SCHED_BATCH (tlir's default) or the caller's policy",
    )
    parser.add_argument(
        "--realtime", action="store_true", help="the quiet phase under SCHED_FIFO (see above)"
    )
    args = parser.parse_args()
    pool.WORKER_BATCH = args.worker_policy == "batch"  # before the runtime is loaded
    makers = {"mlp": mlp_case, "conv": conv_case}
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"cores {os.cpu_count()}; {args.rounds} rounds; load before {load}", flush=True)
    for name in args.cases:
        for dtype in args.dtypes:
            case = makers[name](dtype)
            models = {t: tlir.compile(case.module(), threads=t) for t in (1, args.threads)}
            for model in models.values():  # the pool's workers are started
                model(*case.inputs)
            if args.realtime:
                policies = set_realtime()
            try:
                quiet = measure(models, case, args.rounds)
            finally:
                if args.realtime:
                    restore(policies)
            report(case, "quiet", *quiet, args.threads)
            if case.torch_fn is not None and "torch" not in args.skip:
                # PyTorch's op on as many threads, in this process, before each
                # call: its OpenMP workers spin for a while after each op
                torch.set_num_threads(args.threads)
                beside = measure(models, case, args.rounds, case.torch_fn)
                report(case, "torch", *beside, args.threads)
            busy = start_busy(args.busy)
            try:
                time.sleep(0.2)  # the busy processes are running
                report(case, "busy", *measure(models, case, args.rounds), args.threads)
            finally:
                stop(busy)
            # After the timing: the reference evaluator leaves NumPy's BLAS
            # threads spinning on the cores for a while.
            for threads, model in models.items():
                print(f"{'':30} {threads}T {case.check(model(*case.inputs))}", flush=True)


if __name__ == "__main__":
    main()
