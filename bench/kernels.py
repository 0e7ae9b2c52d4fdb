"""The contraction kernels against PyTorch eager on one thread, in one run.

    python bench/kernels.py [--backend xdsl|mlir] [--rounds 20] [--asm] [--f32]
                            [--fma-tiles 8x3 12x2]

Each kernel (`tlir.passes.contraction_kernels`) is compiled alone for this CPU,
in the exact numerics and in the opt-in `fma` numerics, and called over all its
work units on one thread; times are the best of `--rounds` interleaved runs, in
CPU time of the calling thread (robust against other load on the machine).
`--asm` prints what LLVM emitted for each kernel: vector multiplies and adds by
register width, and FMAs (none in the exact kernels); and its hot loop (the
register tile's loop over k): register width, loads per term, spills. After
each exact time, the share of it that packing takes: the same kernel with its
packers run only for the first unit's first block (whose results are wrong,
and only timed) is that much faster; that kernel's share of the peak ("compute
alone"); and the time of the packing alone: the kernel with its register tiles
replaced by one read of each packed block (so that the packing stays).
Packing and tiles overlap a little, so the two times do not add up to the
kernel's. First the two peaks,
measured in the same run: 16 independent chains of one vector multiply and one
vector add (what an exact fold can use), and of one vector FMA; after each
GFLOP/s figure, its share of the peak of its numerics (exact: multiply+add,
fma: FMA), and PyTorch's share of both. `--fma-tiles` times the fma kernel
again with each register tile given (rows x vectors), in the same rounds: an
A/B of tiles against the default and PyTorch. Each MLP layer is also timed with
its weight packed once (`parameters="frozen"`: the kernel reads the packed
copy and packs nothing), in both numerics, and the MLP's totals both ways.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import time

import numpy as np

import tlir
from tlir.compiler.kernel_harness import CompiledKernel, hot_loop, instruction_counts
from tlir.passes.contraction_kernels import contraction_kernel, conv, conv_fused, gemm, host_target
from tlir.passes.contraction_kernels.generator import packed_layout


def _typ(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def _conv_props(cin, cout):
    return ("{kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, "
            "padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, "
            f"channel_axis = 1 : i64, in_channels = {cin} : i64, "
            f"out_channels = {cout} : i64}}")  # fmt: skip


def cases(dtype: str):
    """(name, module text, argument shapes, flops, torch callable factory, epilogue ops)."""
    import torch
    import torch.nn.functional as F

    # 384x512x640: rows of A 4 KiB apart in f64 (each tile copies its block of
    # A); 384x640x512 (bench/run_time.py's): rows of C 4 KiB apart in f64 (the
    # partial sums go to the scratch buffer), A read in place
    for m, k, n in [(384, 512, 640), (384, 640, 512)]:
        yield (
            f"matmul {m}x{k}x{n} {dtype}",
            f"func.func @main(%a: {_typ((m, k), dtype)}, %b: {_typ((k, n), dtype)}) -> "
            f"{_typ((m, n), dtype)} {{\n  %y = tlir.matmul %a, %b : ({_typ((m, k), dtype)}, "
            f"{_typ((k, n), dtype)}) -> {_typ((m, n), dtype)}\n"
            f"  func.return %y : {_typ((m, n), dtype)}\n}}",
            [(m, k), (k, n)],
            2 * m * n * k,
            lambda a, b: lambda: torch.matmul(a, b),
            0,
        )
    batch = 128
    for i, (fan_in, fan_out, relu) in enumerate(
        [(1024, 256, True), (256, 256, True), (256, 10, False)]
    ):
        x, w, b, y = (batch, fan_in), (fan_out, fan_in), (fan_out,), (batch, fan_out)
        ins = f"{_typ(x, dtype)}, {_typ(w, dtype)}, {_typ(b, dtype)}"
        body = f"  %y = tlir.linear %x, %w, %b : ({ins}) -> {_typ(y, dtype)}\n"
        result = "%y"
        if relu:
            body += f"  %r = tlir.relu %y : ({_typ(y, dtype)}) -> {_typ(y, dtype)}\n"
            result = "%r"
        text = (f"func.func @main(%x: {_typ(x, dtype)}, %w: {_typ(w, dtype)}, %b: {_typ(b, dtype)})"
                f" -> {_typ(y, dtype)} {{\n{body}"
                f"  func.return {result} : {_typ(y, dtype)}\n}}")  # fmt: skip

        def torch_layer(x, w, b, relu=relu):
            return (lambda: F.relu(F.linear(x, w, b))) if relu else (lambda: F.linear(x, w, b))

        relu_name = " +relu" if relu else ""
        name = f"MLP layer {i + 1} {fan_in}->{fan_out}{relu_name}, batch {batch} {dtype}"
        yield name, text, [x, w, b], 2 * batch * fan_in * fan_out, torch_layer, int(relu)
    x, w, b, y = (4, 32, 28, 28), (32, 32, 3, 3), (32,), (4, 32, 28, 28)
    ins = f"{_typ(x, dtype)}, {_typ(w, dtype)}, {_typ(b, dtype)}"
    text = (f"func.func @main(%x: {_typ(x, dtype)}, %w: {_typ(w, dtype)}, %b: {_typ(b, dtype)}) -> "
            f"{_typ(y, dtype)} {{\n  %y = tlir.conv %x, %w, %b {_conv_props(32, 32)} : ({ins}) -> "
            f"{_typ(y, dtype)}\n  func.return %y : {_typ(y, dtype)}\n}}")  # fmt: skip
    yield (
        f"conv 3x3 4x32x28x28 32->32 pad 1 {dtype}",
        text,
        [x, w, b],
        2 * 4 * 32 * 28 * 28 * 32 * 9,
        lambda x, w, b: lambda: F.conv2d(x, w, b, padding=1),
        0,
    )


@contextlib.contextmanager
def packing_once():
    """Kernels generated meanwhile pack B only in the unit whose columns start
    at 0, for the first block along k; every other block multiplies what that
    one left in the panel (or the zeroed scratch). Their results are wrong: they
    time the kernel without its packing."""
    packers = (gemm.StridedPacker, conv.Im2colPacker, conv.BandPacker)
    saved = {packer: packer.__dict__["pack"] for packer in packers}

    def once(pack):
        def packed_once(self, kb, bases, dst, tiling, k0, kc, c0, c1, at_end) -> None:
            first = kb.both(kb.equal(c0, 0), kb.equal(k0, 0))
            kb.when(first, lambda: pack(self, kb, bases, dst, tiling, k0, kc, c0, c1, at_end))

        return packed_once

    for packer, pack in saved.items():
        packer.pack = once(pack)
    # A conv packing per column tile (`conv_fused`): its bands and micro-panel
    # only for the first unit's first block's first column tile.
    fused = conv_fused.FusedConvEmitter
    tiles, pack_block, pack_panel = fused.tiles, fused.pack_block, fused.pack_panel

    def first_tiles(self, bases, r0, r1, c0, c1, k0, kc, first, last) -> None:
        self.first_block = self.kb.both(self.kb.equal(c0, 0), self.kb.equal(k0, 0))
        tiles(self, bases, r0, r1, c0, c1, k0, kc, first, last)

    def first_bands(self, bases, k0, kc, c0, c1, at_end) -> None:
        if not self.fused:
            pack_block(self, bases, k0, kc, c0, c1, at_end)
            return
        first = self.kb.both(self.kb.equal(c0, 0), self.kb.equal(k0, 0))
        self.kb.when(first, lambda: pack_block(self, bases, k0, kc, c0, c1, at_end))

    def first_panel(self, index, kc) -> None:
        first = self.kb.both(self.first_block, self.kb.equal(index, 0))
        self.kb.when(first, lambda: pack_panel(self, index, kc))

    fused.tiles, fused.pack_block, fused.pack_panel = first_tiles, first_bands, first_panel
    try:
        yield
    finally:
        for packer, pack in saved.items():
            packer.pack = pack
        fused.tiles, fused.pack_block, fused.pack_panel = tiles, pack_block, pack_panel


@contextlib.contextmanager
def tiles_skipped():
    """Kernels generated meanwhile pack every block of B but compute nothing:
    each block's register tiles are replaced by one element of the packed
    block copied into C (which keeps the packing from being optimized away).
    Their results are wrong: they time the packing alone."""
    saved = gemm.GemmEmitter.tiles

    def read_once(self, bases, r0, r1, c0, c1, k0, kc, first, last) -> None:
        kb, s = self.kb, self.spec
        at = kb.add(kb.mul(kb.sub(kc, 1), self.tiling.ldp), kb.sub(kb.sub(c1, c0), 1))
        value = kb.load(self.bp, kb.add(at, bases.panel))
        kb.store(value, s.c, kb.add(bases.c, kb.add(kb.mul(r0, s.c_si), c0)))

    fused = conv_fused.FusedConvEmitter
    fused_tiles = fused.tiles

    def panels_once(self, bases, r0, r1, c0, c1, k0, kc, first, last) -> None:
        """The fused conv's micro-panel of every column tile, then one read."""
        if not self.fused:
            read_once(self, bases, r0, r1, c0, c1, k0, kc, first, last)
            return
        kb, nr = self.kb, self.tiling.nr

        def column(jr, carried: list) -> list:
            self.pack_panel(kb.div(kb.sub(jr, c0), nr), kc)
            return []

        kb.loop(c0, c1, nr, [], column)
        value = kb.load(self.bp, kb.sub(kb.mul(kc, nr), 1))
        kb.store(value, self.spec.c, kb.add(bases.c, kb.add(kb.mul(r0, self.spec.c_si), c0)))

    gemm.GemmEmitter.tiles = read_once
    fused.tiles = panels_once
    try:
        yield
    finally:
        gemm.GemmEmitter.tiles = saved
        fused.tiles = fused_tiles


def peak_gflops(vector_bytes: int, dtype: str = "f64", fused: bool = False) -> float:
    """GFLOP/s of 16 independent `acc = acc * x + x` chains (one vector mulf, one
    addf each, no FMA; `fused`: one vector FMA each) on one thread: what the
    multiply and add pipes (the FMA pipes) sustain."""
    import ctypes

    from tlir.compiler import jit

    element = "double" if dtype == "f64" else "float"
    lanes = vector_bytes // (8 if dtype == "f64" else 4)
    vec, chains = f"<{lanes} x {element}>", 16
    loop = [f"  %a{c} = phi {vec} [zeroinitializer, %entry], [%s{c}, %loop]" for c in range(chains)]
    loop.append(f"  %x = insertelement {vec} zeroinitializer, {element} 1.0, i32 0")
    suffix = f"v{lanes}{'f64' if dtype == 'f64' else 'f32'}"
    for c in range(chains):
        if fused:
            loop.append(f"  %s{c} = call {vec} @llvm.fma.{suffix}({vec} %a{c}, {vec} %x, {vec} %x)")
        else:
            loop += [f"  %p{c} = fmul {vec} %a{c}, %x", f"  %s{c} = fadd {vec} %p{c}, %x"]
    stores = []
    for c in range(chains):
        stores += [f"  %o{c} = getelementptr {vec}, ptr %out, i64 {c}",
                   f"  store {vec} %s{c}, ptr %o{c}, align 8"]  # fmt: skip
    text = "\n".join([
        "define void @peak(i64 %n, ptr %out) {", "entry:", "  br label %loop", "loop:",
        "  %i = phi i64 [0, %entry], [%i1, %loop]", *loop, "  %i1 = add i64 %i, 1",
        "  %more = icmp ult i64 %i1, %n", "  br i1 %more, label %loop, label %done", "done:",
        *stores, "  ret void", "}", f"declare {vec} @llvm.fma.{suffix}({vec}, {vec}, {vec})", "",
    ])  # fmt: skip
    engine = jit.Engine([jit.compile_object(text, 2, "peak")])  # keeps the code mapped
    function = engine.function("peak", None, [ctypes.c_int64, ctypes.c_void_p])
    out = np.zeros(chains * lanes, np.float64 if dtype == "f64" else np.float32)
    n, best = 2_000_000, float("inf")
    for _ in range(20):  # best of many: on a busy machine a few runs all lose time
        t0 = time.thread_time()
        function(n, out.ctypes.data)
        best = min(best, time.thread_time() - t0)
    return n * chains * lanes * 2 / best / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["xdsl", "mlir"], default="xdsl")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--asm", action="store_true", help="print vector instruction counts")
    parser.add_argument("--f32", action="store_true", help="float32 too")
    parser.add_argument(
        "--fma-tiles",
        nargs="*",
        default=[],
        metavar="RxV",
        help="fma kernels with these register tiles too, e.g. 8x3 12x2",
    )
    args = parser.parse_args()
    tiles = [tuple(int(x) for x in tile.split("x")) for tile in args.fma_tiles]

    import torch

    torch.set_num_threads(1)
    target = host_target()
    print(f"torch {torch.__version__} (1 thread); host {target}; backend {args.backend}")
    dtypes = ["f64", "f32"] if args.f32 else ["f64"]
    peaks = {dtype: peak_gflops(target.vector_bytes, dtype) for dtype in dtypes}
    fma_peaks = {dtype: peak_gflops(target.vector_bytes, dtype, fused=True) for dtype in dtypes}
    print("peak of the multiply and add pipes: "
          + ", ".join(f"{peaks[d]:.1f} GFLOP/s {d}" for d in dtypes)
          + "; of the FMA pipes: "
          + ", ".join(f"{fma_peaks[d]:.1f} GFLOP/s {d}" for d in dtypes))  # fmt: skip
    totals: dict[str, list[float]] = {}
    for dtype in dtypes:
        np_dtype = np.float64 if dtype == "f64" else np.float32
        for name, text, shapes, flops, torch_fn, epilogue in cases(dtype):
            module = tlir.parse_module(text)
            ops = [op for op in module.walk() if op.name.startswith("tlir.")]
            kernels = []
            started = time.perf_counter()
            for fused in (False, True):
                function = contraction_kernel(
                    ops[0], "kernel", target, ops[1 : 1 + epilogue], fused_multiply_add=fused
                )
                kernels.append(CompiledKernel(function, args.backend))
            compile_s = (time.perf_counter() - started) / 2
            for skipping in (packing_once, tiles_skipped):
                with skipping():
                    function = contraction_kernel(ops[0], "kernel", target, ops[1 : 1 + epilogue])
                    kernels.append(CompiledKernel(function, args.backend))
                for scratch in kernels[-1].scratch:  # finite: no NaN or subnormal slows it
                    scratch.fill(0)
            for tile in tiles:  # kernels[4:]
                tiled = dataclasses.replace(target, tile=tile)
                function = contraction_kernel(
                    ops[0], "kernel", tiled, ops[1 : 1 + epilogue], fused_multiply_add=True
                )
                kernels.append(CompiledKernel(function, args.backend))
            frozen = []  # a linear's kernels taking the weight packed once (parameters="frozen")
            if ops[0].name == "tlir.linear":
                for fused in (False, True):
                    chain = ops[1 : 1 + epilogue]
                    function = contraction_kernel(
                        ops[0], "kernel", target, chain, fused, packed_weight=True
                    )
                    layout = packed_layout(ops[0], target, fused)
                    frozen.append((CompiledKernel(function, args.backend), layout))
            rng = np.random.default_rng(0)
            inputs = [rng.standard_normal(s).astype(np_dtype) for s in shapes]
            frozen_inputs = [[inputs[0], layout.of(inputs[1]), *inputs[2:]] for _, layout in frozen]
            out_shape = tuple(ops[-1 if epilogue else 0].results[0].type.get_shape())
            out = np.empty(out_shape, np_dtype)
            reference = torch_fn(*[torch.from_numpy(x) for x in inputs])
            best = [float("inf")] * len(kernels)
            best_torch = float("inf")
            best_frozen = [float("inf")] * len(frozen)
            for _ in range(args.rounds):
                for index, kernel in enumerate(kernels):
                    t0 = time.thread_time()
                    kernel([*inputs, out])
                    best[index] = min(best[index], time.thread_time() - t0)
                for index, ((kernel, _), ins) in enumerate(zip(frozen, frozen_inputs, strict=True)):
                    t0 = time.thread_time()
                    kernel([*ins, out])
                    best_frozen[index] = min(best_frozen[index], time.thread_time() - t0)
                t0 = time.thread_time()
                reference()
                best_torch = min(best_torch, time.thread_time() - t0)
            exact, fused, compute = (flops / b / 1e9 for b in best[:3])
            packing = 1 - best[2] / best[0]
            theirs = flops / best_torch / 1e9
            peak, fma_peak = peaks[dtype], fma_peaks[dtype]
            print(f"{name:48s} (compile {compile_s:.1f} s)\n"
                  f"{'':4s}exact {best[0] * 1e3:7.2f} ms {exact:6.1f} GFLOP/s ({exact / peak:4.0%} "
                  f"of mul+add, packing {packing:4.0%}; compute alone {compute / peak:4.0%}, "
                  f"packing alone {best[3] * 1e3:6.3f} ms)  "
                  f"fma {best[1] * 1e3:7.2f} ms {fused:6.1f} GFLOP/s "
                  f"({fused / fma_peak:4.0%} of FMA)  torch {best_torch * 1e3:7.2f} ms "
                  f"{theirs:6.1f} GFLOP/s ({theirs / peak:4.0%} / {theirs / fma_peak:4.0%})  "
                  f"torch/exact {best_torch / best[0]:4.2f} "
                  f"torch/fma {best_torch / best[1]:4.2f}")  # fmt: skip
            if frozen:
                exact_f, fused_f = (flops / b / 1e9 for b in best_frozen)
                print(f"{'':4s}frozen: exact {best_frozen[0] * 1e3:7.2f} ms {exact_f:6.1f} GFLOP/s "
                      f"({exact_f / peak:4.0%} of mul+add, {best[0] / best_frozen[0]:4.2f}x live)  "
                      f"fma {best_frozen[1] * 1e3:7.2f} ms {fused_f:6.1f} GFLOP/s "
                      f"({fused_f / fma_peak:4.0%} of FMA, {best[1] / best_frozen[1]:4.2f}x live)  "
                      f"torch/exact {best_torch / best_frozen[0]:4.2f} "
                      f"torch/fma {best_torch / best_frozen[1]:4.2f}")  # fmt: skip
            for (rows, vectors), time_s in zip(tiles, best[4:], strict=True):
                gflops = flops / time_s / 1e9
                print(f"{'':4s}fma tile {rows}x{vectors} {time_s * 1e3:7.2f} ms {gflops:6.1f} "
                      f"GFLOP/s ({gflops / fma_peak:4.0%} of FMA)  "
                      f"torch/fma {best_torch / time_s:4.2f}")  # fmt: skip
            if name.startswith("MLP"):
                totals.setdefault(dtype, [0.0] * 5)
                totals[dtype][0] += best[0]
                totals[dtype][1] += best[1]
                totals[dtype][2] += best_torch
                totals[dtype][3] += best_frozen[0]
                totals[dtype][4] += best_frozen[1]
            if args.asm:
                for label, kernel in zip(("exact", "fma"), kernels[:2], strict=True):
                    asm = kernel.assembly()
                    counts = instruction_counts(asm)
                    listed = ", ".join(f"{key}: {value}" for key, value in sorted(counts.items()))
                    print(f"{'':4s}{label} asm: {listed or 'no vector arithmetic'}")
                    loop = hot_loop(asm)
                    print(f"{'':8s}hot loop: {loop.describe() if loop else 'none'}")
    for dtype, (exact, fused, theirs, exact_f, fused_f) in totals.items():
        flops = 2 * 128 * (1024 * 256 + 256 * 256 + 256 * 10)
        print(f"MLP 1024-256-256-10 total {dtype}: exact {exact * 1e3:7.2f} ms "
              f"({flops / exact / 1e9 / peaks[dtype]:4.0%})  fma {fused * 1e3:7.2f} ms  "
              f"torch {theirs * 1e3:7.2f} ms  torch/exact {theirs / exact:4.2f} "
              f"torch/fma {theirs / fused:4.2f}; frozen: exact {exact_f * 1e3:7.2f} ms "
              f"({flops / exact_f / 1e9 / peaks[dtype]:4.0%})  fma {fused_f * 1e3:7.2f} ms  "
              f"torch/exact {theirs / exact_f:4.2f} torch/fma {theirs / fused_f:4.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
