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

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from autodiff import cnn_graph  # noqa: E402
from ibp_ab import alternate, cnn_box, fast_ibp, options, print_times  # noqa: E402
from ibp_profile import write_map  # noqa: E402

from tlir.passes.ibp import conv  # noqa: E402


def main() -> None:
    args = options(__doc__, 400)
    x, lo, hi = cnn_box(args.dtype)
    path = cnn_graph()[1]
    runs = {}
    for name, zero_terms in (("A", False), ("B", True)):
        v = fast_ibp(path, args.dtype, [lo], [hi], [(conv, "ZERO_TERMS", zero_terms)])
        state = "on " if zero_terms else "off"
        print(f"{name}: zero terms {state}, the reference's bits: {v.same_bits}")
        runs[name] = v
    if args.perf_map:
        write_map({name: v.program for name, v in runs.items()})
    times = alternate(
        {
            "A": lambda: runs["A"].program.run_checked([lo, hi]),
            "B": lambda: runs["B"].program.run_checked([lo, hi]),
            "forward": lambda: runs["A"].model(x),
        },
        args.calls,
    )
    print_times(times, f"{args.dtype} us per call")
    a, b, forward = (np.median(times[name]) for name in ("A", "B", "forward"))
    print(f"B/A {b / a:.3f}, A/forward {a / forward:.2f}x, B/forward {b / forward:.2f}x (medians)")


if __name__ == "__main__":
    main()
