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

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from autodiff import cnn_graph  # noqa: E402
from ibp_ab import alternate, cnn_box, fast_ibp, options, print_times  # noqa: E402
from ibp_profile import write_map  # noqa: E402

from tlir.passes.convert_tlir_to_linalg import ad_ops  # noqa: E402
from tlir.passes.ibp import pooling, structured  # noqa: E402

VARIANTS = {
    "none": (False, False, False),
    "rows": (False, True, False),
    "check+rows": (True, True, False),
    "pads": (False, False, True),
    "all": (True, True, True),
}
"""Name: (check, rows, pads)."""


def settings(check: bool, rows: bool, pads: bool) -> list[tuple[object, str, object]]:
    """What turns each change off (`ibp_ab.patched`)."""
    off: list[tuple[object, str, object]] = []
    if not check:
        off.append((pooling, "taken_check", lambda *args: None))
    if not rows:
        off.append((structured, "CHECK_ROWS", ()))
    if not pads:
        off.append((ad_ops, "_bordered", lambda e, padded, low, high: e.filled(padded, 0.0)))
    return off


def main() -> None:
    args = options(__doc__, 400)
    x, lo, hi = cnn_box(args.dtype)
    path = cnn_graph()[1]
    runs = {}
    for name, flags in VARIANTS.items():
        v = fast_ibp(path, args.dtype, [lo], [hi], settings(*flags))
        print(f"{name:12} (check, rows, pads) {flags}: the reference's bits: {v.same_bits}")
        runs[name] = v
    if args.perf_map:
        write_map({name: v.program for name, v in runs.items()})
    calls = {name: partial(v.program.run_split, [lo, hi], 2) for name, v in runs.items()}
    calls["forward"] = partial(runs["none"].model, x)
    print_times(alternate(calls, args.calls), "us per call")


if __name__ == "__main__":
    main()
