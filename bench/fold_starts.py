"""The fast IBP program of bench/autodiff.py's CNN with the folds' starts as
before (a pass filling each fold's whole output first) and as now (inside the
folds' nests, `passes/loop_starts.py`; no start where the region never reads
it, `convert-tlir-to-linalg`), compiled in one process and called alternately.

  python bench/fold_starts.py [--dtype f64|f32] [--calls 600]

Prints the minimum, tenth percentile and median thread CPU time per call of
each, and of each one's forward; checks that both IBPs give the same bits.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ["TLIR_CACHE_DIR"] = ""  # both compiled from scratch: one cache key for both
sys.path.insert(0, str(Path(__file__).parent))
from autodiff import cnn_graph  # noqa: E402

import tlir  # noqa: E402
from tlir.passes import tlir_linalg_to_loops as loops  # noqa: E402
from tlir.passes.convert_tlir_to_linalg import ad_ops  # noqa: E402


def build(before: bool, dtype: str, box):
    kept = loops.fused_starts, ad_ops._starts
    if before:
        loops.fused_starts = lambda ops, other: {}
        ad_ops._starts = lambda op, e: list(op.inits)
    try:
        model = tlir.compile(cnn_graph()[1], dtype, threads=1)
        model.ibp([box[0]], [box[1]])
        return model, model._derivative("ibp", "fast")
    finally:
        loops.fused_starts, ad_ops._starts = kept


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", default="f64", choices=["f64", "f32"])
    parser.add_argument("--calls", type=int, default=600)
    args = parser.parse_args()
    np_type = np.float64 if args.dtype == "f64" else np.float32
    x = np.random.default_rng(0).normal(size=(16, 3, 16, 16)).astype(np_type)
    box = (x - np_type(0.01), x + np_type(0.01))
    programs = {"before": build(True, args.dtype, box), "now": build(False, args.dtype, box)}
    results = [p.run_checked(list(box)) for _, p in programs.values()]
    pairs = zip(*results, strict=True)
    same = all(np.asarray(a).tobytes() == np.asarray(b).tobytes() for a, b in pairs)
    times: dict[str, list[int]] = {k: [] for k in ("before", "now", "fwd before", "fwd now")}
    for _ in range(args.calls):
        for name, (model, program) in programs.items():
            start = time.thread_time_ns()
            program.run_checked(list(box))
            times[name].append(time.thread_time_ns() - start)
            start = time.thread_time_ns()
            model(x)
            times[f"fwd {name}"].append(time.thread_time_ns() - start)
    print(f"{args.dtype}, fast IBP of the CNN, {args.calls} calls each, same bits: {same}")
    print(f"  {'':10} {'min µs':>9} {'p10 µs':>9} {'median µs':>10}")
    for name, ts in times.items():
        t = np.sort(ts) / 1e3
        print(f"  {name:10} {t[0]:9.1f} {t[len(t) // 10]:9.1f} {t[len(t) // 2]:10.1f}")


if __name__ == "__main__":
    main()
