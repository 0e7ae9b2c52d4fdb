"""A dynamic-batch model's bounds against a static compile's, measured in the
same run: what a batch not met before costs (a static model compiles its
`@main_ibp` at every batch; the dynamic model compiled it once, on its first
bounds, and a new batch compiles nothing) and a call at a batch met before.

  python bench/dynamic_bounds.py [--repeat 100] [--batches 1 32 256] [--threads 1] [--dtype f64]

Models: examples/train.py's MLP and CNN in `--dtype` (built at two batches and
generalized, as the example does), the box [x - 0.01, x + 0.01]. `static
compile s`: a static model at the batch, compiled and its first `bounds`;
`dynamic first s`: the dynamic model's first `bounds` at the batch (the one
compile of its fast `@main_ibp` for batches under two vectors of rows at the
first such batch listed, of the other at the first batch of two vectors or
more, in a cold compile cache; nothing after); call times are the
minimum over `--repeat` calls, interleaved. Every dynamic result is checked
bit-identical to the static one.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from dynamic_models import dynamic_models, options  # noqa: E402

import tlir  # noqa: E402
from tlir.passes.tlir_specialize_batch import specialize  # noqa: E402


def timed(call) -> tuple[object, float]:
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def best_of_interleaved(calls, repeat: int) -> list[float]:
    """The minimum time of each call over `repeat` rounds that run them in turn."""
    times = [[] for _ in calls]
    for _ in range(repeat):
        for call, spent in zip(calls, times, strict=True):
            start = time.perf_counter()
            call()
            spent.append(time.perf_counter() - start)
    return [min(spent) for spent in times]


def same_bits(got, want) -> bool:
    pairs = zip([*got.lowers, *got.uppers], [*want.lowers, *want.uppers], strict=True)
    return got.reasons == want.reasons and all(
        g.tobytes() == w.tobytes() if g is not None and w is not None else g is w for g, w in pairs
    )


def main() -> None:
    args = options(__doc__.split("\n")[0], 100, dtype=True)
    rng = np.random.default_rng(0)
    print(
        f"{'model':6} {'batch':>6} {'static compile s':>17} {'dynamic first s':>16} "
        f"{'static µs':>10} {'dynamic µs':>11} {'ratio':>6}"
    )
    with tempfile.TemporaryDirectory() as out:
        os.environ["TLIR_CACHE_DIR"] = out  # a cold compile cache: the one compile is timed
        for name, dynamic, module, shape in dynamic_models(Path(out), args.threads, args.dtype):
            for batch in args.batches:
                x = rng.random((batch, *shape)).astype(np.float32 if args.dtype == "f32" else None)
                box = ([x - x.dtype.type(0.01)], [x + x.dtype.type(0.01)])
                got, first = timed(lambda d=dynamic, b=box: d.bounds(*b))
                static, compiled = timed(
                    lambda b=batch, m=module: tlir.compile(
                        specialize(m, b), threads=args.threads, cache=False
                    )
                )
                want, first_static = timed(lambda s=static, b=box: s.bounds(*b))
                assert same_bits(got, want), (name, batch)
                t_static, t_dynamic = best_of_interleaved(
                    [lambda s=static, b=box: s.bounds(*b), lambda d=dynamic, b=box: d.bounds(*b)],
                    args.repeat,
                )
                print(
                    f"{name:6} {batch:6d} {compiled + first_static:17.2f} {first:16.2f} "
                    f"{t_static * 1e6:10.1f} {t_dynamic * 1e6:11.1f} {t_dynamic / t_static:6.2f}"
                )
            assert dynamic.stats["compiled batches"] == [], dynamic.stats


if __name__ == "__main__":
    main()
