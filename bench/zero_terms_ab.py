"""The bench CNN's fast IBP with the conv's zero terms computed as any term
(A) and as constants (B, `conv.ZERO_TERMS`), in one process, calls
alternating, one thread; both results checked against the reference bit for
bit.

  python -P bench/zero_terms_ab.py [--dtype f64] [--calls 400] [--perf-map]

For kernel by kernel times, run it under `perf record -e cpu-clock -c 250000`
with `--perf-map` and read the samples of `A:` and `B:` kernels
(`bench/ibp_profile.py --report` lists `fwd:`/`ibp:` ones only).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from autodiff import cnn_graph  # noqa: E402
from ibp_profile import write_map  # noqa: E402

import tlir  # noqa: E402
from tlir.passes.ibp import conv  # noqa: E402
from tlir.reference.ibp import ibp as reference_ibp  # noqa: E402


def build(path: str, dtype: str, zero_terms: bool, lo, hi):
    saved = conv.ZERO_TERMS
    conv.ZERO_TERMS = zero_terms
    try:
        model = tlir.compile(path, dtype, threads=1)
        got = model.ibp([lo], [hi])
        want = reference_ibp(model.module(), [lo], [hi])
        program = model._derivative("ibp", "fast")
    finally:
        conv.ZERO_TERMS = saved
    pairs = zip([*got[0], *got[1]], [*want[0], *want[1]], strict=True)
    same = all(g.tobytes() == w.tobytes() for g, w in pairs)
    return model, program, same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtype", default="f64", choices=["f64", "f32"])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--perf-map", action="store_true")
    args = parser.parse_args()
    np_type = np.float64 if args.dtype == "f64" else np.float32
    x = np.random.default_rng(0).normal(size=(16, 3, 16, 16)).astype(np_type)
    lo, hi = x - np_type(0.01), x + np_type(0.01)
    path = cnn_graph()[1]
    runs = {}
    for name, zero_terms in (("A", False), ("B", True)):
        model, program, same = build(path, args.dtype, zero_terms, lo, hi)
        print(f"{name}: zero terms {'on ' if zero_terms else 'off'}, the reference's bits: {same}")
        runs[name] = (model, program)
    if args.perf_map:
        write_map({name: program for name, (_, program) in runs.items()})
    times: dict[str, list[int]] = {"A": [], "B": [], "forward": []}
    for _ in range(args.calls):
        for name, (_, program) in runs.items():
            start = time.thread_time_ns()
            program.run_checked([lo, hi])
            times[name].append(time.thread_time_ns() - start)
        start = time.thread_time_ns()
        runs["A"][0](x)
        times["forward"].append(time.thread_time_ns() - start)
    print(f"{args.dtype} {'us per call':12} {'min':>8} {'p10':>8} {'median':>8}")
    for name, ts in times.items():
        us = np.sort(ts) / 1e3
        print(f"{name:16} {us[0]:8.1f} {us[len(us) // 10]:8.1f} {us[len(us) // 2]:8.1f}")
    a, b, forward = (np.median(times[name]) for name in ("A", "B", "forward"))
    print(f"B/A {b / a:.3f}, A/forward {a / forward:.2f}x, B/forward {b / forward:.2f}x (medians)")


if __name__ == "__main__":
    main()
