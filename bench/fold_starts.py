"""The fast IBP program of bench/autodiff.py's CNN with the folds' starts as
before (a pass filling each fold's whole output first) and as now (inside the
folds' nests, `passes/loop_starts.py`; no start where the region never reads
it, `convert-tlir-to-linalg`), compiled in one process and called alternately.

  python bench/fold_starts.py [--dtype f64|f32] [--calls 600]

Prints the minimum, tenth percentile and median thread CPU time per call of
each, and of each one's forward; checks both IBPs against the reference's bits.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from autodiff import cnn_graph  # noqa: E402
from ibp_ab import alternate, cnn_box, fast_ibp, print_times  # noqa: E402

from tlir.passes import tlir_linalg_to_loops as loops  # noqa: E402
from tlir.passes.convert_tlir_to_linalg import ad_ops  # noqa: E402

BEFORE = [
    (loops, "fused_starts", lambda ops, other: {}),
    (ad_ops, "_starts", lambda op, e: list(op.inits)),
]
"""The folds' starts as before: filled in a pass of their own, read or not."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", default="f64", choices=["f64", "f32"])
    parser.add_argument("--calls", type=int, default=600)
    args = parser.parse_args()
    x, lo, hi = cnn_box(args.dtype)
    path = cnn_graph()[1]
    variants = {
        "before": fast_ibp(path, args.dtype, [lo], [hi], BEFORE),
        "now": fast_ibp(path, args.dtype, [lo], [hi]),
    }
    calls = {}
    for name, v in variants.items():
        calls[name] = partial(v.program.run_checked, [lo, hi])
        calls[f"fwd {name}"] = partial(v.model, x)
    same = all(v.same_bits for v in variants.values())
    print(f"{args.dtype}, fast IBP of the CNN, {args.calls} calls each, reference bits: {same}")
    print_times(alternate(calls, args.calls), "µs per call")


if __name__ == "__main__":
    main()
