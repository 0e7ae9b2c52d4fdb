"""Run time of compiled interval bound propagation against the compiled forward.

  python bench/bounds.py [--repeat 20] [--threads 1] [--dtype f64|f32]
                         [--cases mlp cnn bundled]

For each model (bench/autodiff.py's MLP and CNN, the bundled models): the
forward and `model.ibp` (the compiled `@main_ibp` of `tlir-ibp`) on the box
[x - 0.01, x + 0.01], the median time of `--repeat` calls each, interleaved,
and the ratio IBP/forward (target: at most 4x). With one thread (the default)
the clock is the calling thread's CPU time; with more, wall time. Each case's
bounds are checked bit-identical to the reference rules (`tlir.reference.ibp`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from autodiff import bench_options, interleaved  # noqa: E402

import tlir  # noqa: E402

TARGET = 4.0


def same_bits(got, want) -> bool:
    return all(
        (g is None and w is None)
        or (g is not None and w is not None and g.tobytes() == w.tobytes())
        for g, w in zip(got, want, strict=True)
    )


def run_case(label: str, path: str, args) -> dict:
    from tlir.reference.ibp import ibp as reference_ibp

    np_type = np.float32 if args.dtype == "f32" else np.float64
    model = tlir.compile(path, args.dtype, threads=args.threads)
    rng = np.random.default_rng(0)
    shapes = [t.get_shape() for t in model.function_op.function_type.inputs.data]
    xs = [rng.normal(size=s).astype(np_type) for s in shapes]
    lows = [x - np_type(0.01) for x in xs]
    highs = [x + np_type(0.01) for x in xs]
    lo, hi = model.ibp(lows, highs)
    forward, bounds = interleaved(
        [lambda: model(*xs), lambda: model.ibp(lows, highs)],
        args.repeat,
        time.thread_time if args.threads == 1 else time.perf_counter,
    )
    want_lo, want_hi = reference_ibp(model.module(), lows, highs)
    check = same_bits(lo, want_lo) and same_bits(hi, want_hi)
    return {
        "case": label,
        "forward_ms": forward * 1e3,
        "ibp_ms": bounds * 1e3,
        "ratio": bounds / forward,
        "check": "bit-identical" if check else "DIFFERS",
    }


def main(argv=None) -> list[dict]:
    args, cases = bench_options(__doc__.split("\n")[0], argv)
    print(f"{'case':36} {'forward':>10} {'IBP':>10} {'IBP/fwd':>8}")
    rows = []
    for label, path in cases:
        row = run_case(label, path, args)
        rows.append(row)
        flag = f" IBP>{TARGET}x" if row["ratio"] > TARGET else ""
        print(
            f"{label:36} {row['forward_ms']:8.3f}ms {row['ibp_ms']:8.3f}ms "
            f"{row['ratio']:7.2f}x{flag} (reference: {row['check']})",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
