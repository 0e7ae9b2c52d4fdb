"""The opt-in `fma` numerics: each multiply-add of a contraction's fold rounds once.

The oracle of the bit-level tests is the fold itself in exact rational arithmetic
(`fractions.Fraction`), rounded once per term to the carrier: what a fused
multiply-add computes by definition, independent of any code under test. Whole
models are compared with the reference evaluator (TorchLean's two roundings per
term) within a tolerance, since fused results are not TorchLean's.
"""

from __future__ import annotations

import dataclasses
import subprocess
from fractions import Fraction

import numpy as np
import pytest

import tlir
from tlir.compiler.backend import mlir
from tlir.diagnostics import TlirError
from tlir.passes.contraction_kernels.target import TargetInfo
from tlir.passes.contraction_kernels.tiling import choose_tiling, fused_target, unmerged
from tlir.reference import evaluate

NO_MLIR = mlir.find_tool("mlir-opt") is None
BACKENDS = [
    "xdsl",
    pytest.param("mlir", marks=pytest.mark.skipif(NO_MLIR, reason="mlir-opt not installed")),
]


def _round(exact: Fraction, dtype: type) -> np.floating:
    """`exact` rounded to nearest, ties to even, in `dtype` (one rounding)."""
    if dtype is np.float64:
        return np.float64(float(exact))  # float(Fraction) rounds correctly
    near = np.float32(float(exact))  # within one step: float64 first can round twice
    steps = [np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf))]

    def rank(c: np.float32) -> tuple[Fraction, int]:
        return abs(Fraction(float(c)) - exact), int(c.view(np.int32)) & 1

    return min(steps, key=rank)


def _fused_fold(terms: list[tuple[float, float]], dtype: type) -> np.floating:
    """fold from +0 of acc ← round(acc + a·b), in the order given."""
    acc = dtype(0)
    for a, b in terms:
        acc = _round(Fraction(float(acc)) + Fraction(float(a)) * Fraction(float(b)), dtype)
    return acc


def _fused_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = _fused_fold(list(zip(a[i], b[:, j])), a.dtype.type)
    return out


def _fused_conv1d(x, w, bias, stride: int, padding: int, groups: int) -> np.ndarray:
    """conv over one spatial axis: per output, channels of the group outermost,
    then kernel offsets; a padded input is a +0 term; the bias added after."""
    cout, cin, k = w.shape[0], x.shape[1], w.shape[2]
    per_group_in, per_group_out = cin // groups, cout // groups
    length = (x.shape[2] + 2 * padding - k) // stride + 1
    out = np.empty((x.shape[0], cout, length), x.dtype)
    for n in range(x.shape[0]):
        for oc in range(cout):
            g = oc // per_group_out
            for o in range(length):
                terms = []
                for lane in range(per_group_in):
                    ic = g * per_group_in + lane
                    for t in range(k):
                        q = o * stride + t - padding
                        inside = 0 <= q < x.shape[2]
                        terms.append((x[n, ic, q] if inside else x.dtype.type(0), w[oc, ic, t]))
                folded = _fused_fold(terms, x.dtype.type)
                out[n, oc, o] = folded + bias[oc]
    return out


def _matmul_text(m: int, k: int, n: int, dt: str) -> str:
    a, b, c = f"tensor<{m}x{k}x{dt}>", f"tensor<{k}x{n}x{dt}>", f"tensor<{m}x{n}x{dt}>"
    return (
        f"func.func @main(%a: {a}, %b: {b}) -> {c} {{\n"
        f"  %c = tlir.matmul %a, %b : ({a}, {b}) -> {c}\n"
        f"  func.return %c : {c}\n}}"
    )


def _inputs(dtype: type, *shapes: tuple[int, ...], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dt", "dtype"), [("f64", np.float64), ("f32", np.float32)])
def test_matmul_rounds_once_per_term(backend, dt, dtype):
    a, b = _inputs(dtype, (9, 33), (33, 21))
    text = _matmul_text(9, 33, 21, dt)
    fused = tlir.compile(text, backend=backend, numerics="fma", cache=False)(a, b)[0]
    exact = tlir.compile(text, backend=backend, cache=False)(a, b)[0]
    want = _fused_matmul(a, b)
    assert fused.tobytes() == want.tobytes()
    # the inputs are such that rounding once differs from rounding twice somewhere
    assert exact.tobytes() == evaluate(tlir.parse_module(text), [a, b])[0].tobytes()
    assert exact.tobytes() != fused.tobytes()


@pytest.mark.parametrize(("dt", "dtype"), [("f64", np.float64), ("f32", np.float32)])
def test_linear_and_grouped_strided_conv_round_once_per_term(dt, dtype):
    x, w, bias = _inputs(dtype, (2, 4, 11), (6, 4, 3), (6,), seed=1)
    x2, w2, b2 = _inputs(dtype, (5, 13), (7, 13), (7,), seed=2)
    # TorchLean's conv weight is dense, block-diagonal for groups: zero the off-block entries
    w[:3, 2:] = 0
    w[3:, :2] = 0
    xs, ws, ys = "tensor<2x4x11x" + dt + ">", "tensor<6x4x3x" + dt + ">", "tensor<2x6x6x" + dt + ">"
    text = f"""func.func @main(%x: {xs}, %x2: tensor<5x13x{dt}>) -> ({ys}, tensor<5x7x{dt}>) {{
  %w = tlir.const {{value = dense<0.0> : {ws}}} : {ws}
  %b = tlir.const {{value = dense<0.0> : tensor<6x{dt}>}} : tensor<6x{dt}>
  %y = tlir.conv %x, %w, %b {{kernel = array<i64: 3>, stride = array<i64: 2>,
    padding = array<i64: 1>, padding_after = array<i64: 1>, dilation = array<i64: 1>,
    groups = 2 : i64, channel_axis = 1 : i64, in_channels = 4 : i64, out_channels = 6 : i64}}
    : ({xs}, {ws}, tensor<6x{dt}>) -> {ys}
  %w2 = tlir.const {{value = dense<0.0> : tensor<7x13x{dt}>}} : tensor<7x13x{dt}>
  %b2 = tlir.const {{value = dense<0.0> : tensor<7x{dt}>}} : tensor<7x{dt}>
  %y2 = tlir.linear %x2, %w2, %b2 : (tensor<5x13x{dt}>, tensor<7x13x{dt}>, tensor<7x{dt}>)
    -> tensor<5x7x{dt}>
  func.return %y, %y2 : {ys}, tensor<5x7x{dt}>
}}"""
    model = tlir.compile(text, numerics="fma", cache=False)
    params = model.parameters()
    for array, value in zip(params.values(), (w, bias, w2, b2), strict=True):
        array[...] = value
    conv, linear = model(x, x2)
    assert conv.tobytes() == _fused_conv1d(x, w, bias, 2, 1, 2).tobytes()
    want = _fused_matmul(x2, w2.T.copy()) + b2
    assert linear.tobytes() == want.tobytes()


def test_results_do_not_depend_on_threads():
    a, b = _inputs(np.float64, (256, 300), (300, 200), seed=3)
    text = _matmul_text(256, 300, 200, "f64")
    one = tlir.compile(text, numerics="fma", threads=1, cache=False)(a, b)[0]
    two = tlir.compile(text, numerics="fma", threads=2, cache=False)(a, b)[0]
    assert one.tobytes() == two.tobytes()
    reference = evaluate(tlir.parse_module(text), [a, b])[0]
    np.testing.assert_allclose(one, reference, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("element_bytes", "tile"), [(8, (8, 3)), (4, (12, 2))])
def test_fused_tile_with_32_registers_depends_on_the_element(element_bytes, tile):
    # f32's 12×2 tile is 32 columns wide (divides 256, 512, 640); f64 keeps 8×3
    avx512 = TargetInfo(vector_bytes=64, registers=32)
    assert fused_target(avx512, element_bytes).tile == tile
    assert fused_target(dataclasses.replace(avx512, tile=(4, 2)), element_bytes).tile == (4, 2)
    assert fused_target(TargetInfo(vector_bytes=32, registers=16), element_bytes).tile is None


def test_fused_f64_k_blocks_fill_three_quarters_of_l1():
    # 48 KiB L1, 8×3 f64 tile (32 columns of B and A per k): half of L1 allows
    # 96 terms per block (K = 512: 6 blocks of 86), three quarters 144 (4 of 128)
    avx512 = TargetInfo(vector_bytes=64, registers=32, l1_bytes=48 * 1024, l1_ways=12)
    assert choose_tiling(dataclasses.replace(avx512, tile=(8, 3)), 8, 384, 512, 512).kc == 86
    assert choose_tiling(fused_target(avx512, 8), 8, 384, 512, 512).kc == 128
    assert fused_target(avx512, 4).k_block_l1 == avx512.k_block_l1


def test_fused_units_of_a_row_block_share_one_wide_block_of_b():
    # 384x640 · 640x512 f64 on AVX-512: 4 units of 144 columns; in fma the
    # packed block's rows hold all 512 columns (536: an odd number of lines)
    avx512 = TargetInfo(vector_bytes=64, registers=32, l1_bytes=48 * 1024, l1_ways=12,
                        l2_bytes=2 << 20)  # fmt: skip
    fused = choose_tiling(fused_target(avx512, 8), 8, 384, 512, 640, wide_panel=True)
    assert (fused.merge_units, fused.nc, fused.ldp) == (True, 144, 536)
    assert fused.units(1, 384, 512) == 4
    exact = choose_tiling(avx512, 8, 384, 512, 640, wide_panel=True)
    assert (exact.merge_units, exact.ldp) == (False, exact.nc + 8)
    # units one by one (with partial sums in P, which would be all N wide too)
    assert unmerged(fused, 8) == dataclasses.replace(fused, merge_units=False, ldp=152)
    # a block of B for all of N = 4096 (4.2 MB) would not stay in half of L2
    assert not choose_tiling(
        fused_target(avx512, 8), 8, 384, 4096, 640, wide_panel=True
    ).merge_units
    # a block of B on the stack, or conv's whole-row units: nothing to merge
    assert not choose_tiling(fused_target(avx512, 8), 8, 384, 512, 640).merge_units
    conv = choose_tiling(fused_target(avx512, 8), 8, 32, 784, 288, 4, 28, wide_panel=True)
    assert not conv.merge_units


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dt", "dtype"), [("f64", np.float64), ("f32", np.float32)])
def test_merged_units_round_once_per_term_for_any_ranges(backend, dt, dtype):
    """A batched matmul whose kernel packs B in the scratch buffer, in several
    k blocks, with edge tiles of rows and columns: called over all its units at
    once (each row block one pass), unit by unit, and in uneven ranges, the
    results are the same bits, each the fold rounded once per term."""
    from tlir.compiler.kernel_harness import CompiledKernel
    from tlir.passes.contraction_kernels import contraction_kernel

    target = TargetInfo(vector_bytes=32, registers=16, l1_bytes=8192, stack_bytes=8192)
    tiling = choose_tiling(fused_target(target, dtype().itemsize), dtype().itemsize, 20, 100, 300,
                           2, wide_panel=True)  # fmt: skip
    assert tiling.merge_units and tiling.kc < 300 and tiling.units(2, 20, 100) >= 4
    a_t, b_t, c_t = (f"tensor<2x{s}x{dt}>" for s in ("20x300", "300x100", "20x100"))
    module = tlir.parse_module(
        f"func.func @main(%a: {a_t}, %b: {b_t}) -> {c_t} {{\n"
        f"  %c = tlir.matmul %a, %b : ({a_t}, {b_t}) -> {c_t}\n  func.return %c : {c_t}\n}}"
    )
    op = next(op for op in module.walk() if op.name == "tlir.matmul")
    function = contraction_kernel(op, "kernel", target, fused_multiply_add=True)
    kernel = CompiledKernel(function, backend)
    a, b = _inputs(dtype, (2, 20, 300), (2, 300, 100), seed=7)
    units = kernel.units()
    results = []
    for ranges in ([(0, units)], [(u, u + 1) for u in range(units)], [(0, 3), (3, units)]):
        out = np.full((2, 20, 100), np.nan, dtype)
        kernel([a, b, out], ranges)
        results.append(out)
    assert all(r.tobytes() == results[0].tobytes() for r in results)
    rng = np.random.default_rng(8)
    picks = [(0, 0, 0), (1, 19, 99), (1, 18, 96), *zip(rng.integers(0, 2, 30),
             rng.integers(0, 20, 30), rng.integers(0, 100, 30), strict=True)]  # fmt: skip
    for batch, i, j in picks:
        want = _fused_fold(list(zip(a[batch, i], b[batch, :, j], strict=True)), dtype)
        assert results[0][batch, i, j].tobytes() == want.tobytes(), (batch, i, j)


@pytest.mark.parametrize(("dt", "dtype"), [("f64", np.float64), ("f32", np.float32)])
def test_register_tile_edges_round_once_per_term(dt, dtype):
    # 27 rows and 37 columns: whole 12×2 (f32) and 8×3 (f64) tiles, a short
    # static row tile and a padded column tile, on AVX-512 and elsewhere alike
    a, b = _inputs(dtype, (27, 40), (40, 37), seed=5)
    text = _matmul_text(27, 40, 37, dt)
    model = tlir.compile(text, numerics="fma", threads=1, cache=False)
    assert model(a, b)[0].tobytes() == _fused_matmul(a, b).tobytes()
    two = tlir.compile(text, numerics="fma", threads=2, cache=False)
    assert two(a, b)[0].tobytes() == _fused_matmul(a, b).tobytes()


@pytest.mark.parametrize(("dt", "dtype"), [("f64", np.float64), ("f32", np.float32)])
def test_several_k_blocks_round_once_per_term(dt, dtype):
    # K = 300: several k blocks, the partial sums between them kept exactly
    a, b = _inputs(dtype, (13, 300), (300, 20), seed=6)
    text = _matmul_text(13, 300, 20, dt)
    fused = tlir.compile(text, numerics="fma", threads=1, cache=False)(a, b)[0]
    assert fused.tobytes() == _fused_matmul(a, b).tobytes()


def test_bundled_cnn_forward_and_gradients_near_the_reference():
    x = np.load("examples/cnn_input.npy")
    exact = tlir.compile("examples/cnn.json")
    fused = tlir.compile("examples/cnn.json", numerics="fma")
    for got, want in zip(fused(x), exact(x), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    cotangents = [np.ones_like(y) for y in exact(x)]
    (_, got_dx, got_dp), (_, want_dx, want_dp) = (
        fused.vjp([x], cotangents),
        exact.vjp([x], cotangents),
    )
    assert list(got_dp) == list(want_dp) and got_dp
    for g, w in zip([*got_dx, *got_dp.values()], [*want_dx, *want_dp.values()], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-13)


def test_the_cache_keeps_the_two_numerics_apart():
    """Exact first, then fma, both through the compile cache: the fma model
    must not be served the exact model's objects (nor the other way round)."""
    a, b = _inputs(np.float64, (9, 33), (33, 21))
    text = _matmul_text(9, 33, 21, "f64")
    exact = tlir.compile(text)(a, b)[0]
    fused = tlir.compile(text, numerics="fma")(a, b)[0]
    assert fused.tobytes() == _fused_matmul(a, b).tobytes()
    assert tlir.compile(text)(a, b)[0].tobytes() == exact.tobytes()


def test_exact_kernels_contain_no_fma_and_fused_ones_do():
    from tlir.compiler.build import lower_kernel
    from tlir.passes.tlir_form_kernels import TlirFormKernels, is_kernel
    from tlir.universe import context

    for numerics, fused in (("exact", False), ("fma", True)):
        module = tlir.parse_module(_matmul_text(16, 64, 32, "f64"))
        TlirFormKernels(numerics=numerics).apply(context(), module)
        kernel = next(op for op in module.ops if is_kernel(op))
        _, llvm_ir = lower_kernel(kernel, "xdsl", "test")
        assert ("llvm.fma." in llvm_ir) is fused
        assert ("fmul" in llvm_ir) is not fused


def test_unknown_numerics_is_one_line():
    with pytest.raises(TlirError, match="numerics must be one of exact, fma, got 'fast'"):
        tlir.compile(_matmul_text(2, 2, 2, "f64"), numerics="fast")


def test_tlir_run_numerics_flag(tmp_path):
    x = np.load("examples/cnn_input.npy")
    out = tmp_path / "out.npz"
    args = ["tlir-run", "examples/cnn.json", "--input", "examples/cnn_input.npy"]
    subprocess.run([*args, "--numerics", "fma", "--output", str(out)], check=True)
    fused = tlir.compile("examples/cnn.json", numerics="fma")(x)
    with np.load(out) as saved:
        for index, want in enumerate(fused):
            assert saved[f"output{index}"].tobytes() == want.tobytes()
    bad = subprocess.run([*args, "--numerics", "fast"], capture_output=True, text=True)
    assert bad.returncode != 0 and "invalid choice: 'fast'" in bad.stderr
