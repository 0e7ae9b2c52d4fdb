"""The tight interval rules against TorchLean's: run time and box width.

  python bench/tight_bounds.py [--repeat 20] [--threads 1] [--dtype f64|f32]
                               [--cases mlp cnn bundled]

For each model (bench/autodiff.py's MLP and CNN, the bundled models), on the
box [x - 0.01, x + 0.01]: the median time of the compiled bounds with
`rules="torchlean"` and `rules="tight"` (interleaved), their ratio, and the
summed width of the output boxes of each (docs/verification.md#tight-rules).
The tight bounds are checked bit-identical to the reference rules.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from autodiff import bench_options, interleaved, same_bits  # noqa: E402

import tlir  # noqa: E402
from tlir.reference.ibp import ibp as reference_ibp  # noqa: E402


def width(lowers, uppers) -> float:
    """The summed width of the output boxes (inf if an output is unresolved)."""
    if any(lo is None for lo in lowers):
        return float("inf")
    return sum(float(np.sum(hi - lo)) for lo, hi in zip(lowers, uppers, strict=True))


def run_case(path: str, args) -> dict:
    model = tlir.compile(path, dtype=args.dtype, threads=args.threads)
    dtype = np.float32 if args.dtype == "f32" else np.float64
    rng = np.random.default_rng(0)
    shapes = [t.get_shape() for t in model.function_op.function_type.inputs.data]
    x = [rng.normal(size=s).astype(dtype) for s in shapes]
    from tlir.verification import ball_boxes

    lows, highs = ball_boxes(model.function_op, x, 0.01, path, "tight")
    clock = time.thread_time if args.threads == 1 else time.perf_counter
    loose, tight = interleaved(
        [lambda: model.bounds(lows, highs), lambda: model.bounds(lows, highs, "tight")],
        args.repeat,
        clock,
    )
    got = model.bounds(lows, highs, "tight")
    want = reference_ibp(model.module(), lows, highs, rules="tight")
    resolved = [g for g in got.lowers if g is not None]
    check = "ok" if same_bits(resolved, [w for w in want[0] if w is not None]) else "DIFFERS"
    wide = model.bounds(lows, highs)
    return {
        "torchlean_ms": loose * 1e3,
        "tight_ms": tight * 1e3,
        "ratio": tight / loose,
        "torchlean_width": width(wide.lowers, wide.uppers),
        "tight_width": width(got.lowers, got.uppers),
        "check": check,
    }


def main(argv=None) -> list[dict]:
    args, cases = bench_options(__doc__.split("\n")[0], argv)
    columns = f"{'torchlean':>10} {'tight':>10} {'ratio':>6} {'width tl':>11} {'width tight':>11}"
    print(f"{'case':36} {columns}")
    rows = []
    for label, path in cases:
        row = run_case(path, args)
        rows.append(row)
        print(
            f"{label:36} {row['torchlean_ms']:8.3f}ms {row['tight_ms']:8.3f}ms "
            f"{row['ratio']:5.2f}x {row['torchlean_width']:11.4g} {row['tight_width']:11.4g} "
            f"(reference: {row['check']})",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
