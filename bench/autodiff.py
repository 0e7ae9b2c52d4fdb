"""Run time of compiled derivatives against the compiled forward, in the same run.

  python bench/autodiff.py [--repeat 20] [--threads 1] [--dtype f64|f32]
                           [--cases mlp cnn bundled] [--numerics exact|fma]

For each model: the forward, the JVP (`model.jvp`: outputs and output tangents,
parameter tangents +0) and the VJP (`model.vjp`: outputs, input and parameter
gradients), compiled; the median time of `--repeat` calls each, and the ratios
JVP/forward and VJP/forward (targets: JVP ≤ 2.5×, VJP ≤ 3×), and VJPp/forward
for a VJP with respect to the parameters only (`wrt="params"`, as in training). With one
thread (the default) the clock is the calling thread's CPU time, which the
other processes of a busy machine do not inflate; with more, wall time. The
derivatives include the forward values, so a ratio of 1 would be free derivatives. The
first case's JVP and VJP are checked bit-identical to the reference
(`tlir.reference.jvp/vjp`). `--numerics fma` compiles all three with the opt-in
fused multiply-adds (`tlir.compile(numerics="fma")`); the check then gives the
largest difference from the reference, relative to the largest |value|.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import graphs  # noqa: E402

import tlir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
JVP_TARGET, VJP_TARGET = 2.5, 3.0


def interleaved_samples(
    functions: list[Callable[[], object]], repeat: int, clock: Callable[[], float]
) -> list[list[float]]:
    """The `repeat` times of each function on `clock`, after one warm-up call,
    calls interleaved round by round (so a change in machine load affects all
    of them alike)."""
    times: list[list[float]] = [[] for _ in functions]
    for function in functions:
        function()
    for _ in range(repeat):
        for function, samples in zip(functions, times, strict=True):
            start = clock()
            function()
            samples.append(clock() - start)
    return times


def interleaved(
    functions: list[Callable[[], object]], repeat: int, clock: Callable[[], float]
) -> list[float]:
    """The median time of each function, calls interleaved (`interleaved_samples`)."""
    return [statistics.median(s) for s in interleaved_samples(functions, repeat, clock)]


def _write(name: str, graph: dict) -> str:
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"tlir-bench-ad-{name}.json"
    path.write_text(json.dumps(graph))
    return str(path)


def mlp_graph() -> tuple[str, str]:
    b = graphs.Builder([64, 784], seed=3)
    out = b.mlp(0, 64, [784, 512, 512, 10])
    return "MLP 784-512-512-10 b64", _write("mlp", b.graph(out))


def cnn_graph() -> tuple[str, str]:
    """conv 3×3 (3→16) → relu → max pool → conv 3×3 (16→32) → relu → max pool →
    reshape → linear 10, batch 16 on 16×16."""
    b = graphs.Builder([16, 3, 16, 16], seed=4)
    rng = np.random.default_rng(4)

    def conv(x, shape, out_channels):
        n, c, hgt, wid = shape
        weight = rng.normal(0, (2 / (9 * c)) ** 0.5, (out_channels, c, 3, 3)).round(4)
        return b.add(
            "conv", [x], [n, out_channels, hgt, wid], spatial_rank=2, kernel=[3, 3],
            stride=[1, 1], padding=[1, 1], padding_after=[1, 1], dilation=[1, 1], groups=1,
            channel_axis=1, in_channels=c, out_channels=out_channels, input_spatial=[hgt, wid],
            weight=weight.tolist(), bias=rng.normal(0, 0.01, out_channels).round(4).tolist(),
        )  # fmt: skip

    def pool(x, shape):
        n, c, hgt, wid = shape
        return b.add(
            "max_pool", [x], [n, c, hgt // 2, wid // 2], spatial_rank=2, kernel=[2, 2],
            stride=[2, 2], padding=[0, 0],
        )  # fmt: skip

    h = conv(0, [16, 3, 16, 16], 16)
    h = b.add("relu", [h], [16, 16, 16, 16])
    h = pool(h, [16, 16, 16, 16])
    h = conv(h, [16, 16, 8, 8], 32)
    h = b.add("relu", [h], [16, 32, 8, 8])
    h = pool(h, [16, 32, 8, 8])
    h = b.add("reshape", [h], [16, 512], in_shape=[16, 32, 4, 4], out_shape=[16, 512])
    out = b.linear(h, [16, 512], 10)
    return "CNN c16-c32-lin b16 16x16", _write("cnn", b.graph(out))


def bundled() -> list[tuple[str, str]]:
    return [
        (f"examples/{name}.json", str(ROOT / "examples" / f"{name}.json"))
        for name in ("cnn", "legacy_cnn", "transformer_block")
    ]


def same_bits(got: list[np.ndarray], want: list[np.ndarray]) -> bool:
    return all(
        g.shape == w.shape
        and np.array_equal(np.isnan(g), np.isnan(w))
        and g[~np.isnan(w)].tobytes() == w[~np.isnan(w)].tobytes()
        for g, w in zip(got, want, strict=True)
    )


def largest_difference(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    """The largest |got - want| over all values, relative to the largest |want|."""
    scale = max(float(np.max(np.abs(w), initial=0.0)) for w in want)
    worst = max(float(np.max(np.abs(g - w), initial=0.0)) for g, w in zip(got, want, strict=True))
    return worst / scale if scale else worst


def run_case(label: str, path: str, args, check: bool) -> dict:
    from tlir.reference import jvp, vjp

    np_type = np.float32 if args.dtype == "f32" else np.float64
    numerics = getattr(args, "numerics", "exact")
    start = time.perf_counter()
    model = tlir.compile(path, args.dtype, threads=args.threads, numerics=numerics)
    rng = np.random.default_rng(0)
    shapes = [t.get_shape() for t in model.function_op.function_type.inputs.data]
    xs = [rng.normal(size=s).astype(np_type) for s in shapes]
    dxs = [rng.normal(size=s).astype(np_type) for s in shapes]
    dys = [rng.normal(size=s).astype(np_type) for s, _ in model.plan.outputs]
    model.jvp(xs, dxs)
    model.vjp(xs, dys)
    compile_seconds = time.perf_counter() - start
    model.vjp(xs, dys, wrt="params")
    forward, forward_mode, reverse_mode, params_only = interleaved(
        [
            lambda: model(*xs),
            lambda: model.jvp(xs, dxs),
            lambda: model.vjp(xs, dys),
            lambda: model.vjp(xs, dys, wrt="params"),
        ],
        args.repeat,
        time.thread_time if args.threads == 1 else time.perf_counter,
    )
    row = {
        "case": label,
        "forward_ms": forward * 1e3,
        "jvp_ms": forward_mode * 1e3,
        "vjp_ms": reverse_mode * 1e3,
        "jvp_ratio": forward_mode / forward,
        "vjp_ratio": reverse_mode / forward,
        "vjp_params_ratio": params_only / forward,
        "compile_s": compile_seconds,
    }
    if check:
        module = model.module()
        ys, ts = model.jvp(xs, dxs)
        want_jvp = jvp(module, xs, dxs)
        ok_jvp = same_bits([*ys, *ts], want_jvp)
        ys, gx, gp = model.vjp(xs, dys)
        got_vjp, want_vjp = [*ys, *gx, *gp.values()], vjp(module, xs, dys)
        if numerics == "exact":
            ok_vjp = same_bits(got_vjp, want_vjp)
            row["check"] = "bit-identical" if ok_jvp and ok_vjp else "DIFFERS"
        else:
            worst = max(largest_difference([*ys, *ts], want_jvp),
                        largest_difference(got_vjp, want_vjp))  # fmt: skip
            row["check"] = f"largest difference {worst:.1e} of the largest |value|"
    return row


def bench_options(
    description: str, argv=None, numerics: bool = False
) -> tuple[argparse.Namespace, list[tuple[str, str]]]:
    """The options and cases of this bench and of bench/bounds.py (`--repeat`,
    `--threads`, `--dtype`, `--cases`; `--numerics` with `numerics`), with the
    line saying how they are timed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--dtype", choices=("f64", "f32"), default="f64")
    parser.add_argument(
        "--cases", nargs="+", default=["mlp", "cnn", "bundled"], choices=["mlp", "cnn", "bundled"]
    )
    if numerics:
        parser.add_argument("--numerics", choices=("exact", "fma"), default="exact")
    args = parser.parse_args(argv)
    cases = []
    if "mlp" in args.cases:
        cases.append(mlp_graph())
    if "cnn" in args.cases:
        cases.append(cnn_graph())
    if "bundled" in args.cases:
        cases += bundled()
    clock = "thread CPU time" if args.threads == 1 else "wall time"
    mode = f", numerics {args.numerics}" if numerics else ""
    print(f"{args.dtype}{mode}, {args.threads} thread(s), median of {args.repeat}, {clock}")
    return args, cases


def main(argv=None) -> list[dict]:
    args, cases = bench_options(__doc__.split("\n")[0], argv, numerics=True)
    header = f"{'case':36} {'forward':>10} {'JVP':>10} {'VJP':>10} {'JVP/fwd':>8} {'VJP/fwd':>8}"
    header += f" {'VJPp/fwd':>8}"
    print(header)
    rows = []
    for index, (label, path) in enumerate(cases):
        row = run_case(label, path, args, check=index == 0)
        rows.append(row)
        flags = ""
        if row["jvp_ratio"] > JVP_TARGET:
            flags += f" JVP>{JVP_TARGET}x"
        if row["vjp_ratio"] > VJP_TARGET:
            flags += f" VJP>{VJP_TARGET}x"
        if "check" in row:
            flags += f" (reference: {row['check']})"
        print(
            f"{label:36} {row['forward_ms']:8.3f}ms {row['jvp_ms']:8.3f}ms {row['vjp_ms']:8.3f}ms "
            f"{row['jvp_ratio']:7.2f}x {row['vjp_ratio']:7.2f}x {row['vjp_params_ratio']:7.2f}x"
            f"{flags}",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
