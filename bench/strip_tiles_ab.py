"""A dynamic-batch model's bounds with its row strips summing on the outputs
(A, `row_strips.LOCAL_TILES = False`) and in local tiles (B), against a
static compile at each batch, in one process, calls interleaved, one thread;
every result checked bit-identical to the static one.

  python -P bench/strip_tiles_ab.py [--repeat 100] [--batches 1 7 15 24 32 256] [--dtype f64]

Models: examples/train.py's MLP and CNN (as bench/dynamic_bounds.py builds
them), the box [x - 0.01, x + 0.01]. Times are the minimum over `--repeat`
rounds; `A/st`, `B/st`: dynamic over static; `B/A`: the change.
"""

from __future__ import annotations

import functools
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ["TLIR_CACHE_DIR"] = ""  # no compile cache: A and B each lower and compile
os.environ["TLIR_COMPILE_PROCESSES"] = "1"  # the switch below must hold where kernels lower

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from dynamic_bounds import best_of_interleaved, same_bits  # noqa: E402
from dynamic_models import dynamic_models, options  # noqa: E402
from ibp_ab import patched  # noqa: E402

import tlir  # noqa: E402
from tlir.passes import row_strips  # noqa: E402
from tlir.passes.tlir_specialize_batch import specialize  # noqa: E402


def warmed(dynamic, box, tiles: bool, first_batches) -> None:
    """Compile `dynamic`'s IBP programs (small and large batches) with the switch set."""
    with patched([(row_strips, "LOCAL_TILES", tiles)]):
        for batch in first_batches:
            dynamic.bounds(*box(batch))


def main() -> None:
    args = options(__doc__.split("\n")[0], 100, dtype=True)
    if "--batches" not in sys.argv:
        args.batches = [1, 7, 15, 24, 32, 256]
    rng = np.random.default_rng(0)
    np_type = np.float32 if args.dtype == "f32" else np.float64
    print(
        f"{'model':6} {'batch':>6} {'static µs':>10} {'A µs':>8} {'B µs':>8} "
        f"{'A/st':>6} {'B/st':>6} {'B/A':>6}"
    )
    with tempfile.TemporaryDirectory() as out:
        for variant in "ab":
            (Path(out) / variant).mkdir()
        pairs = zip(
            dynamic_models(Path(out) / "a", args.threads, args.dtype),
            dynamic_models(Path(out) / "b", args.threads, args.dtype),
            strict=True,
        )
        for (name, a, module, shape), (_, b, _, _) in pairs:
            xs = {n: rng.random((n, *shape)).astype(np_type) for n in args.batches}
            boxes = {n: ([x - np_type(0.01)], [x + np_type(0.01)]) for n, x in xs.items()}
            box = boxes.__getitem__

            warmed(a, box, False, args.batches)
            warmed(b, box, True, args.batches)
            for batch in args.batches:
                static = tlir.compile(specialize(module, batch), threads=args.threads, cache=False)
                want = static.bounds(*box(batch))
                assert same_bits(a.bounds(*box(batch)), want), (name, batch, "A")
                assert same_bits(b.bounds(*box(batch)), want), (name, batch, "B")
                t_static, t_a, t_b = best_of_interleaved(
                    [functools.partial(m.bounds, *box(batch)) for m in (static, a, b)],
                    args.repeat,
                )
                print(
                    f"{name:6} {batch:6d} {t_static * 1e6:10.1f} {t_a * 1e6:8.1f} "
                    f"{t_b * 1e6:8.1f} {t_a / t_static:6.2f} {t_b / t_static:6.2f} "
                    f"{t_b / t_a:6.2f}"
                )


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"({time.perf_counter() - start:.0f} s)")
