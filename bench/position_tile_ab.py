"""The fast IBP of single convs and of the bench CNN with the channels-inner
conv fold's register tile of output positions off (`conv.POSITION_TILE
= 1`) and on, in one process, calls interleaved, one thread (the thread's CPU
time); each result checked against the reference bit for bit.

  python -P bench/position_tile_ab.py [--dtype f32|f64] [--calls 300] [--perf-map]

Each conv is 3×3, padding 1, batch 16, with one 512-bit vector of output
channels (16 in f32, 8 in f64) and a growing number of input channels (terms
per output: 9 per input channel). "tiled" says whether the two programs
differ at all (their kernels' names are hashes of their code). For kernel by
kernel times, run it under `perf record -e cpu-clock -c 250000` with
`--perf-map` and read the samples of the `off:` and `on:` kernels.
"""

from __future__ import annotations

import statistics
import sys
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import graphs  # noqa: E402
from autodiff import _write, cnn_graph  # noqa: E402
from ibp_ab import alternate, fast_ibp, options  # noqa: E402
from ibp_profile import write_map  # noqa: E402

import tlir  # noqa: E402
from tlir.passes.ibp import conv  # noqa: E402

CONVS = [(3, 16), (4, 16), (8, 8), (16, 8), (32, 8)]
"""(input channels, height = width) of the single convs."""


def conv_graph(cin: int, cout: int, size: int) -> tuple[str, str]:
    b = graphs.Builder([16, cin, size, size], seed=5)
    weight = np.random.default_rng(5).normal(0, (2 / (9 * cin)) ** 0.5, (cout, cin, 3, 3))
    out = b.add(
        "conv", [0], [16, cout, size, size], spatial_rank=2, kernel=[3, 3], stride=[1, 1],
        padding=[1, 1], padding_after=[1, 1], dilation=[1, 1], groups=1, channel_axis=1,
        in_channels=cin, out_channels=cout, input_spatial=[size, size],
        weight=weight.round(4).tolist(), bias=[0.01] * cout,
    )  # fmt: skip
    name = f"conv {cin}->{cout} {size}x{size}"
    return name, _write(f"tile-{cin}-{cout}-{size}", b.graph(out))


def main() -> None:
    args = options(__doc__, 300, "f32")
    np_type = np.float64 if args.dtype == "f64" else np.float32
    lanes = 64 // np.dtype(np_type).itemsize
    cases = [conv_graph(cin, lanes, size) for cin, size in CONVS] + [cnn_graph()]
    rows, maps = [], {}
    print(f"{args.dtype}, terms per output ≥ {conv.TILE_MIN_TERMS} take the tile")
    print(f"{'case':28} {'tiled':>5} {'bits':>5} {'off us':>8} {'on us':>8} {'on/off':>7}")
    for k, (name, path) in enumerate(cases):
        shape = tlir.compile(path, args.dtype).function_op.function_type.inputs.data[0]
        x = np.random.default_rng(0).normal(size=shape.get_shape()).astype(np_type)
        box = ([x - np_type(0.01)], [x + np_type(0.01)])
        off_variant, on_variant = (
            fast_ibp(path, args.dtype, *box, [(conv, "POSITION_TILE", tile)])
            for tile in (1, conv.POSITION_TILE)
        )
        off, on = off_variant.program, on_variant.program
        same_off, same_on = off_variant.same_bits, on_variant.same_bits
        maps |= {f"off{k}": off, f"on{k}": on}
        tiled = {s.kernel for s in off.plan.steps} != {s.kernel for s in on.plan.steps}
        boxes = [*box[0], *box[1]]
        runs = {"off": partial(off.run_checked, boxes), "on": partial(on.run_checked, boxes)}
        times = alternate(runs, args.calls)
        a, b = (statistics.median(times[name]) / 1e3 for name in ("off", "on"))
        rows.append((name, tiled, same_off and same_on, a, b))
        print(f"{name:28} {tiled!s:>5} {same_off and same_on!s:>5} {a:8.1f} {b:8.1f} {b / a:7.3f}")
    if args.perf_map:
        write_map(maps)


if __name__ == "__main__":
    main()
