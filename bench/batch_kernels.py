"""Batch-generic contraction kernels against static ones at the same batch, in one run.

    python bench/batch_kernels.py [--rounds 30] [--batches 128 100] [--f32] [--fma]
                                  [--backend xdsl|mlir]

Each case is compiled twice: static at the batch B, and once batch-generic
(`tlir.batch_axes` on the batch-sized axes, its static types at B0 = 4,
`passes/contraction_kernels/run_time.py`), then called at B through its
`batch` argument. Both run over all their work units on one thread; times are
the best of `--rounds` interleaved runs in CPU time of the calling thread (robust
against other load). The outputs are checked bit-identical. Cases: the bench
MLP's three layers (the batch is the rows), a matmul whose rows are the batch,
the VJP's dW = gᵀ·x (the batch is the summed index) and the bench conv (the
batch is the number of GEMMs). `--fma`: both kernels in the opt-in `fma`
numerics.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tlir
from tlir.compiler.kernel_harness import CompiledKernel
from tlir.passes.contraction_kernels import contraction_kernel, host_target

B0 = 4


def _typ(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def _function(op_text: str, shapes, out, dtype: str, relu: bool = False) -> str:
    args = ", ".join(f"%a{i}: {_typ(s, dtype)}" for i, s in enumerate(shapes))
    ins = ", ".join(_typ(s, dtype) for s in shapes)
    body = f"  %r = {op_text} : ({ins}) -> {_typ(out, dtype)}\n"
    result = "%r"
    if relu:
        body += f"  %e = tlir.relu %r : ({_typ(out, dtype)}) -> {_typ(out, dtype)}\n"
        result = "%e"
    return (f"func.func @main({args}) -> {_typ(out, dtype)} {{\n{body}"
            f"  func.return {result} : {_typ(out, dtype)}\n}}\n")  # fmt: skip


def _conv(b):
    props = ("{kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, "
             "padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, "
             "channel_axis = 1 : i64, in_channels = 32 : i64, "
             "out_channels = 32 : i64}")  # fmt: skip
    shapes = [(b, 32, 28, 28), (32, 32, 3, 3), (32,)]
    return f"tlir.conv %a0, %a1, %a2 {props}", shapes, (b, 32, 28, 28), False


def cases():
    """(name, case at batch b: (op text, shapes, out shape, relu), marks, flops at b)."""
    for fan_in, fan_out, relu in [(1024, 256, True), (256, 256, True), (256, 10, False)]:
        yield (
            f"MLP layer {fan_in}->{fan_out}{' +relu' if relu else ''}",
            lambda b, i=fan_in, o=fan_out, r=relu: (
                "tlir.linear %a0, %a1, %a2", [(b, i), (o, i), (o,)], (b, o), r),
            [(1, 0), (0, 0), (0,), (1, 0)],
            lambda b, i=fan_in, o=fan_out: 2 * b * i * o,
        )  # fmt: skip
    yield (
        "matmul (3B)x512x512, rows",
        lambda b: ("tlir.matmul %a0, %a1", [(3 * b, 512), (512, 512)], (3 * b, 512), False),
        [(3, 0), (0, 0), (3, 0)],
        lambda b: 2 * 3 * b * 512 * 512,
    )
    yield (
        "dW 256x(B)x1024, summed index",
        lambda b: ("tlir.matmul %a0, %a1", [(256, b), (b, 1024)], (256, 1024), False),
        [(0, 1), (1, 0), (0, 0)],
        lambda b: 2 * 256 * b * 1024,
    )
    yield (
        "conv 3x3 Bx32x28x28 32->32, GEMMs",
        _conv,
        [(1, 0, 0, 0), (0, 0, 0, 0), (0,), (1, 0, 0, 0)],
        lambda b: 2 * b * 32 * 28 * 28 * 32 * 9,
    )


def _kernel(text: str, target, backend: str, marks=None, fma: bool = False) -> CompiledKernel:
    ops = [op for op in tlir.parse_module(text).walk() if op.name.startswith("tlir.")]
    function = contraction_kernel(ops[0], "kernel", target, ops[1:], fused_multiply_add=fma,
                                  batch_axes=marks)  # fmt: skip
    return CompiledKernel(function, backend)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["xdsl", "mlir"], default="xdsl")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--batches", type=int, nargs="*", default=[128])
    parser.add_argument("--f32", action="store_true", help="float32 too")
    parser.add_argument("--fma", action="store_true", help="the fma numerics")
    args = parser.parse_args()
    target = host_target()
    numerics = "fma" if args.fma else "exact"
    print(f"host {target}; backend {args.backend}; {numerics} numerics; "
          f"best of {args.rounds} rounds, one thread")  # fmt: skip
    print(f"{'case':40s} {'B':>4s} {'static ms':>10s} {'generic ms':>11s} {'generic/static':>15s}")
    for dtype in ["f64", "f32"] if args.f32 else ["f64"]:
        np_dtype = np.float64 if dtype == "f64" else np.float32
        for name, make, marks, flops in cases():
            op_text, shapes, out, relu = make(B0)
            text = _function(op_text, shapes, out, dtype, relu)
            generic = _kernel(text, target, args.backend, marks, args.fma)
            for batch in args.batches:
                op_text, shapes, out, relu = make(batch)
                text = _function(op_text, shapes, out, dtype, relu)
                static = _kernel(text, target, args.backend, fma=args.fma)
                rng = np.random.default_rng(0)
                inputs = [rng.standard_normal(s).astype(np_dtype) for s in shapes]
                outs = [np.empty(out, np_dtype), np.empty(out, np_dtype)]
                best = [float("inf")] * 2
                for _ in range(args.rounds):
                    t0 = time.thread_time()
                    static([*inputs, outs[0]])
                    t1 = time.thread_time()
                    generic([*inputs, outs[1]], batch=batch)
                    t2 = time.thread_time()
                    best = [min(best[0], t1 - t0), min(best[1], t2 - t1)]
                assert np.array_equal(outs[0].view(np.uint8), outs[1].view(np.uint8)), name
                gflops = flops(batch) / best[1] / 1e9
                print(f"{name + ' ' + dtype:40s} {batch:4d} {best[0] * 1e3:10.3f} "
                      f"{best[1] * 1e3:11.3f} {best[1] / best[0]:15.3f}  "
                      f"({gflops:.1f} GFLOP/s)")  # fmt: skip


if __name__ == "__main__":
    main()
