"""`tlir_ad.conv_kernel_grad` (docs/autodiff.md#d6-conv-vjp) compiled, against the
reference evaluator, bit for bit: the generated GEMM (A's rows gathered from the
padded input by vectors when the stride is 1 (whole rows when the k blocks
hold whole runs: "squares" in both types, "several_k_blocks" in f32; runs cut
by a block's bounds: "several_k_blocks" in f64, 72-element blocks of 16-wide
runs, and "odd_plane"), element by element otherwise; the
cotangent packed by lanes × lanes squares transposed in registers when the
output plane is a whole number of vectors, element by element otherwise), with
-0, infinities and NaN in both operands; and the reference against a plain D6
loop."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_util import BACKENDS, merged, same_bits
from xdsl.dialects.builtin import ModuleOp

import tlir
from tlir.reference import evaluate

# name: padded input shape, cotangent shape, kernel, stride, dilation, channel axis
CASES = {
    "squares": ((2, 3, 10, 10), (2, 16, 8, 8), (3, 3), (1, 1), (1, 1), 1),
    "squares_ragged_oc": ((2, 2, 6, 18), (2, 19, 4, 16), (3, 3), (1, 1), (1, 1), 1),
    "several_k_blocks": ((4, 4, 18, 18), (4, 8, 16, 16), (3, 3), (1, 1), (1, 1), 1),
    "odd_plane": ((3, 2, 7, 9), (3, 5, 5, 7), (3, 3), (1, 1), (1, 1), 1),
    "strided_dilated": ((1, 2, 9, 8), (1, 3, 3, 3), (2, 2), (2, 2), (2, 2), 1),
    "unbatched_1d": ((5, 12), (4, 10), (3,), (1,), (1,), 0),
    "two_lead_axes": ((2, 2, 3, 7, 7), (2, 2, 4, 5, 5), (3, 3), (1, 1), (1, 1), 2),
    "three_d": ((1, 2, 4, 5, 6), (1, 3, 3, 4, 4), (2, 2, 3), (1, 1, 1), (1, 1, 1), 1),
}  # fmt: skip


def _ints(values) -> str:
    return "array<i64: " + ", ".join(map(str, values)) + ">"


def _type(shape, dtype: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{dtype}>"


def _result(name: str) -> tuple[int, ...]:
    x, g, kernel, _, _, axis = CASES[name]
    return (x[axis], *kernel, g[axis])


def _case(name: str, dtype: str) -> ModuleOp:
    x, g, _, stride, dilation, axis = CASES[name]
    r = _result(name)
    props = (
        f"{{stride = {_ints(stride)}, dilation = {_ints(dilation)}, channel_axis = {axis} : i64}}"
    )
    text = (
        f"func.func @main(%x: {_type(x, dtype)}, %g: {_type(g, dtype)}) -> {_type(r, dtype)} {{\n"
        f"  %dkt = tlir_ad.conv_kernel_grad %x, %g {props} : ({_type(x, dtype)}, "
        f"{_type(g, dtype)}) -> {_type(r, dtype)}\n"
        f"  func.return %dkt : {_type(r, dtype)}\n}}\n"
    )
    return tlir.parse_module(text)


def _arrays(dtype: str, finite: bool, seed: int, names=CASES) -> list[np.ndarray]:
    np_type = np.float32 if dtype == "f32" else np.float64
    rng = np.random.default_rng(seed)
    arrays = []
    for name in names:
        x_shape, g_shape, *_ = CASES[name]
        x = rng.normal(size=x_shape).astype(np_type)
        g = rng.normal(size=g_shape).astype(np_type)
        x.reshape(-1)[1] = -0.0
        g.reshape(-1)[2] = -0.0
        if not finite:
            x.reshape(-1)[5], x.reshape(-1)[-1] = np.inf, np.nan
            g.reshape(-1)[7] = -np.inf
        arrays += [x, g]
    return arrays


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_compiled_conv_kernel_grad_matches_the_reference(dtype, backend):
    module = merged([_case(name, dtype) for name in CASES])
    model = tlir.compile(module, backend=backend)
    for finite in (True, False):
        arrays = _arrays(dtype, finite, seed=11)
        got = model(*arrays)
        want = evaluate(module, arrays)
        for name, g, w in zip(CASES, got, want, strict=True):
            assert same_bits(g, w), f"{name}, finite={finite}"
            assert np.isfinite(w).all() == finite, name  # the non-finite values reach outputs


def test_small_values_keep_their_order():
    """Terms whose sum depends on the fold's order (1, then many tiny values that
    each round away): a GEMM that added them in another order would differ."""
    module = _case("several_k_blocks", "f64")
    x, g = _arrays("f64", True, seed=5, names=["several_k_blocks"])
    x[:] = 1.0
    g[:] = 2.0**-60
    g[0, :, 0, 0] = 1.0
    model = tlir.compile(module)
    (got,) = model(x, g)
    (want,) = evaluate(module, [x, g])
    assert same_bits(got, want)
    assert (want == 1.0).all()  # each tiny term rounds away after the first, 1


def test_reference_follows_d6_order():
    """Against a plain loop over leading positions, then output positions."""
    name = "strided_dilated"
    module = _case(name, "f64")
    x, g = _arrays("f64", True, seed=3, names=[name])
    _, g_shape, kernel, stride, dilation, _ = CASES[name]
    want = np.zeros(_result(name))
    for c in range(x.shape[1]):
        for k in np.ndindex(*kernel):
            for oc in range(g_shape[1]):
                acc = 0.0
                for n in range(x.shape[0]):
                    for o in np.ndindex(*g_shape[2:]):
                        i = [o[a] * stride[a] + k[a] * dilation[a] for a in range(2)]
                        acc = acc + x[n, c, i[0], i[1]] * g[n, oc, *o]
                want[c, *k, oc] = acc
    (got,) = evaluate(module, [x, g])
    assert same_bits(got, want)
