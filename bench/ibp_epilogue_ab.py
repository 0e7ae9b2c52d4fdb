"""The bench CNN's fast IBP with and without the changes around its conv folds,
in one process, calls alternating, one thread; every variant checked against
the reference bit for bit:

* `check`: a covering `max_pool` takes over the finite check of the conv's
  sums (`pooling.taken_check`); off, the check is a fold of its own;
* `rows`: finite checks count over rows of 128-512 (`structured.CHECK_ROWS`);
  off, per first and last index;
* `pads`: `tlir_ad.pad` fills only its border (`ad_ops._bordered`); off, the
  whole result, then the window again.

  python -P bench/ibp_epilogue_ab.py [--dtype f64] [--calls 400] [--perf-map]

With `--perf-map`, run under `perf record -e cpu-clock -c 250000` and read the
samples of each variant's kernels (named `VARIANT:kernel`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from autodiff import cnn_graph  # noqa: E402
from ibp_profile import write_map  # noqa: E402

import tlir  # noqa: E402
from tlir.passes.convert_tlir_to_linalg import ad_ops  # noqa: E402
from tlir.passes.ibp import pooling, structured  # noqa: E402
from tlir.reference.ibp import ibp as reference_ibp  # noqa: E402

VARIANTS = {
    "none": (False, False, False),
    "rows": (False, True, False),
    "check+rows": (True, True, False),
    "pads": (False, False, True),
    "all": (True, True, True),
}
"""Name: (check, rows, pads)."""


@contextlib.contextmanager
def variant(check: bool, rows: bool, pads: bool):
    saved = pooling.taken_check, structured.CHECK_ROWS, ad_ops._bordered
    if not check:
        pooling.taken_check = lambda *args: None
    if not rows:
        structured.CHECK_ROWS = ()
    if not pads:
        ad_ops._bordered = lambda e, padded, low, high: e.filled(padded, 0.0)
    try:
        yield
    finally:
        pooling.taken_check, structured.CHECK_ROWS, ad_ops._bordered = saved


def build(path: str, dtype: str, flags: tuple[bool, bool, bool], lo, hi):
    with variant(*flags):  # no cache: the kernels' names do not see the variant
        model = tlir.compile(path, dtype, threads=1, cache=False)
        got = model.ibp([lo], [hi])
        program = model._derivative("ibp", "fast")
    want = reference_ibp(model.module(), [lo], [hi])
    pairs = zip([*got[0], *got[1]], [*want[0], *want[1]], strict=True)
    return model, program, all(g.tobytes() == w.tobytes() for g, w in pairs)


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
    for name, flags in VARIANTS.items():
        model, program, same = build(path, args.dtype, flags, lo, hi)
        print(f"{name:12} (check, rows, pads) {flags}: the reference's bits: {same}")
        runs[name] = (model, program)
    if args.perf_map:
        write_map({name: program for name, (_, program) in runs.items()})
    times: dict[str, list[int]] = {name: [] for name in [*runs, "forward"]}
    boxes = [lo, hi]
    for _ in range(args.calls):
        for name, (_, program) in runs.items():
            start = time.thread_time_ns()
            program.run_split(boxes, 2)
            times[name].append(time.thread_time_ns() - start)
        start = time.thread_time_ns()
        runs["none"][0](x)
        times["forward"].append(time.thread_time_ns() - start)
    print(f"{'us per call':12} {'min':>8} {'p10':>8} {'median':>8}")
    for name, ts in times.items():
        us = np.sort(ts) / 1e3
        print(f"{name:12} {us[0]:8.1f} {us[len(us) // 10]:8.1f} {us[len(us) // 2]:8.1f}")


if __name__ == "__main__":
    main()
