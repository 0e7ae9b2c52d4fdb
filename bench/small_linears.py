"""Small linears and matrix-vector products with their weight packed by each
rule of `gemm.StridedPacker`, in one run.

    python bench/small_linears.py [--rules 16384:full 2048:2] [--batches 1 8 64]
                                  [--shapes 256x10 64x64 …] [--dtypes f32 f64]
                                  [--rounds 40] [--backend xdsl|mlir]

A rule `T:S` transposes the weight in registers when it has at least T
elements, in squares as wide as the vectors or, when n is narrower, the widest
power of two up to n that is at least S lanes (`S` = `full`: only squares as
wide as the vectors); otherwise the weight is packed element by element. The
first rule is the baseline: `16384:full` is the rule before squares narrower
than a vector. Each case (`KxN`: a linear of K inputs and N outputs at each
batch, or a `[batch, N, K]·[K]` matrix-vector product with `mv`) is compiled
once per rule, in the exact and the `fma` numerics, checked bit-identical
across rules, and called over all its work units on one thread; times are the
best of `--rounds` interleaved samples of many calls, in CPU time of the
calling thread (robust against other load). Columns: time per call under each
rule, the square width each used (0: element by element), the baseline's time
over each rule's (above 1: faster), and the kernel's compile time under each
rule (CPU time, best of two; noisy on a loaded machine).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import time

import numpy as np

import tlir
from tlir.compiler.kernel_harness import CompiledKernel
from tlir.passes.contraction_kernels import contraction_kernel, gemm, host_target

SHAPES = ["256x10", "784x10", "1024x10", "84x10", "1024x3", "4096x4", "64x64", "128x32",
          "32x128", "120x84", "32x32", "16x16", "mv64x32", "mv256x10"]  # fmt: skip


def _typ(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def case(shape: str, batch: int, dtype: str) -> tuple[str, list[tuple[int, ...]]]:
    """The module of one case and its argument shapes."""
    k, n = (int(v) for v in shape.removeprefix("mv").split("x"))
    if shape.startswith("mv"):
        a, v, y = (batch, n, k), (k,), (batch, n)
        op = f"tlir.matmul %a0, %a1 : ({_typ(a, dtype)}, {_typ(v, dtype)}) -> {_typ(y, dtype)}"
        shapes = [a, v]
    else:
        x, w, b, y = (batch, k), (n, k), (n,), (batch, n)
        ins = f"{_typ(x, dtype)}, {_typ(w, dtype)}, {_typ(b, dtype)}"
        op = f"tlir.linear %a0, %a1, %a2 : ({ins}) -> {_typ(y, dtype)}"
        shapes = [x, w, b]
    args = ", ".join(f"%a{i}: {_typ(s, dtype)}" for i, s in enumerate(shapes))
    text = (f"func.func @main({args}) -> {_typ(y, dtype)} {{\n  %r = {op}\n"
            f"  func.return %r : {_typ(y, dtype)}\n}}")  # fmt: skip
    return text, shapes


@contextlib.contextmanager
def rule(spec: str, widths: list[int]):
    """The packer under rule `spec` ("T:S"); the square widths it picks are
    appended to `widths`."""
    threshold, minimum = spec.split(":")
    packer = gemm.StridedPacker
    saved = packer.TRANSPOSE_MIN_ELEMENTS, packer.MIN_SQUARE, packer._square

    def square(self, lanes: int) -> int:
        packer.MIN_SQUARE = lanes if minimum == "full" else int(minimum)
        width = saved[2](self, lanes)
        widths.append(width)
        return width

    packer.TRANSPOSE_MIN_ELEMENTS, packer._square = int(threshold), square
    try:
        yield
    finally:
        packer.TRANSPOSE_MIN_ELEMENTS, packer.MIN_SQUARE, packer._square = saved


def compiled(text: str, spec: str, fused: bool, backend: str) -> tuple[CompiledKernel, int, float]:
    """The kernel under rule `spec`, its square width and its compile time."""
    target = host_target()
    best, widths = float("inf"), []
    for _ in range(2):
        with rule(spec, widths):
            start = time.thread_time()
            op = next(op for op in tlir.parse_module(text).walk() if op.name.startswith("tlir."))
            function = contraction_kernel(op, "kernel", target, fused_multiply_add=fused)
            kernel = CompiledKernel(function, backend)
            best = min(best, time.thread_time() - start)
    return kernel, max(widths, default=0), best


def timed(kernels: list[CompiledKernel], inputs, out_shape, rounds: int) -> list[float]:
    """Seconds per call of each kernel, best of `rounds` interleaved samples."""
    outs = [np.empty(out_shape, inputs[0].dtype) for _ in kernels]
    start = time.thread_time()
    kernels[0]([*inputs, outs[0]])
    reps = max(1, int(2e-4 / max(time.thread_time() - start, 1e-6)))
    best = [float("inf")] * len(kernels)
    for _ in range(rounds):
        for index, kernel in enumerate(kernels):
            args = [*inputs, outs[index]]
            start = time.thread_time()
            for _ in range(reps):
                kernel(args)
            best[index] = min(best[index], (time.thread_time() - start) / reps)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", nargs="+", default=["16384:full", "2048:2"])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8, 64])
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--dtypes", nargs="+", default=["f32", "f64"])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--backend", choices=["xdsl", "mlir"], default="xdsl")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rules = args.rules
    print(f"host {host_target()}; backend {args.backend}; times per call (µs), CPU time")
    header = "  ".join(f"{r:>10s}" for r in rules)
    print(f"{'case':30s} {header}  widths  {'ratios':>{6 * (len(rules) - 1)}s}  compile (ms)")
    product = itertools.product(args.dtypes, args.shapes, args.batches, (False, True))
    for dtype, shape, batch, fused in product:
        np_dtype = np.float32 if dtype == "f32" else np.float64
        text, shapes = case(shape, batch, dtype)
        built = [compiled(text, r, fused, args.backend) for r in rules]
        kernels = [kernel for kernel, _, _ in built]
        inputs = [rng.standard_normal(s).astype(np_dtype) for s in shapes]
        out_shape = (batch, int(shape.split("x")[1]))
        outs = [np.empty(out_shape, np_dtype) for _ in kernels]
        for kernel, out in zip(kernels, outs, strict=True):
            kernel([*inputs, out])
        if any(out.tobytes() != outs[0].tobytes() for out in outs):
            raise SystemExit(f"{shape} batch {batch} {dtype}: the rules' results differ")
        best = timed(kernels, inputs, out_shape, args.rounds)
        name = f"{dtype} {'fma' if fused else 'exact'} b{batch} {shape}"
        times = "  ".join(f"{t * 1e6:10.2f}" for t in best)
        widths = ",".join(str(w) for _, w, _ in built)
        ratios = " ".join(f"{best[0] / t:5.2f}" for t in best[1:])
        compile_ms = " ".join(f"{c * 1e3:4.0f}" for _, _, c in built)
        print(f"{name:30s} {times}  {widths:6s}  {ratios}  {compile_ms}", flush=True)


if __name__ == "__main__":
    main()
