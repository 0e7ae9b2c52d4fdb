"""`tlir_ad.conv_input_grad` (docs/autodiff.md#d6-conv-vjp) compiled, against the
reference evaluator, bit for bit: the generated GEMM for stride 1 (a channel
plane with zero margins, read directly when rows are whole vectors and
packed otherwise, or the im2col packer when the plane is too large for the
stack), the linalg fold for other strides, and the exact fallback that a
non-finite weight selects (the GEMM would pair such a cell with the +0 of a
position its window misses: NaN where D6 adds nothing)."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_util import BACKENDS, merged, same_bits
from xdsl.dialects.builtin import ModuleOp

import tlir
from tlir.compiler.model import to_text
from tlir.reference import evaluate

# name: result (conv input) shape, cotangent shape, transposed weight shape,
# stride, padding, dilation, groups, channel axis
CASES = {
    "same_3x3": ((2, 3, 6, 5), (2, 4, 6, 5), (3, 4, 3, 3), (1, 1), (1, 1), (1, 1), 1, 1),
    "dilated_asym": ((1, 2, 7, 6), (1, 3, 7, 4), (2, 3, 2, 3), (1, 1), (0, 2), (2, 2), 1, 1),
    "groups_odd": ((1, 4, 5, 7), (1, 6, 5, 7), (4, 3, 3, 2), (1, 1), (1, 0), (1, 1), 2, 1),
    "unbatched_1d_unreached": ((2, 9), (3, 5), (2, 3, 2), (1,), (0,), (4,), 1, 0),
    "three_d": ((1, 2, 3, 4, 5), (1, 3, 3, 4, 6), (2, 3, 2, 2, 2), (1, 1, 1), (1, 0, 1),
                (1, 1, 1), 1, 1),
    "strided": ((2, 3, 8, 6), (2, 4, 4, 5), (3, 4, 3, 2), (2, 1), (1, 0), (1, 2), 1, 1),
    "large_plane": ((1, 2, 66, 66), (1, 2, 66, 66), (2, 2, 3, 3), (1, 1), (1, 1), (1, 1), 1, 1),
    "wide_plane": ((2, 3, 20, 20), (2, 16, 20, 20), (3, 16, 3, 3), (1, 1), (1, 1), (1, 1), 1, 1),
    "direct": ((2, 3, 16, 16), (2, 32, 16, 16), (3, 32, 3, 3), (1, 1), (1, 1), (1, 1), 1, 1),
    "direct_dilated": ((1, 2, 8, 16), (1, 5, 8, 16), (2, 5, 3, 3), (1, 1), (2, 0), (2, 1), 1, 1),
    # one output channel and one kernel cell: the packer's k loop has one iteration
    "single_k": ((1, 4), (1, 4), (1, 1, 1), (1,), (0,), (1,), 1, 0),
    "single_k_wide": ((2, 7), (1, 7), (2, 1, 1), (1,), (0,), (1,), 1, 0),
}  # fmt: skip


def _ints(values) -> str:
    return "array<i64: " + ", ".join(map(str, values)) + ">"


def _type(shape, dtype: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{dtype}>"


def _case(name: str, dtype: str) -> ModuleOp:
    x, g, wt, stride, padding, dilation, groups, axis = CASES[name]
    props = (
        f"{{stride = {_ints(stride)}, padding = {_ints(padding)}, dilation = {_ints(dilation)}, "
        f"groups = {groups} : i64, channel_axis = {axis} : i64}}"
    )
    text = (
        f"func.func @main(%g: {_type(g, dtype)}, %wt: {_type(wt, dtype)}) -> {_type(x, dtype)} {{\n"
        f"  %dx = tlir_ad.conv_input_grad %g, %wt {props} : ({_type(g, dtype)}, "
        f"{_type(wt, dtype)}) -> {_type(x, dtype)}\n"
        f"  func.return %dx : {_type(x, dtype)}\n}}\n"
    )
    return tlir.parse_module(text)


def _arrays(dtype: str, finite: bool, seed: int) -> list[np.ndarray]:
    np_type = np.float32 if dtype == "f32" else np.float64
    rng = np.random.default_rng(seed)
    arrays = []
    for name in CASES:
        _, g, wt, *_ = CASES[name]
        grad = rng.normal(size=g).astype(np_type)
        weight = rng.normal(size=wt).astype(np_type)
        grad.reshape(-1)[1] = -0.0
        if not finite:
            # wt[0, 0, first cell] and the last cell: border positions never meet them
            weight.reshape(-1)[0], weight.reshape(-1)[-1] = np.inf, np.nan
            grad.reshape(-1)[3] = -np.inf
        arrays += [grad, weight]
    return arrays


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_compiled_conv_input_grad_matches_the_reference(dtype, backend):
    module = merged([_case(name, dtype) for name in CASES])
    model = tlir.compile(module, backend=backend)
    for finite in (True, False):
        arrays = _arrays(dtype, finite, seed=7)
        got = model(*arrays)
        want = evaluate(module, arrays)
        for name, g, w in zip(CASES, got, want, strict=True):
            assert same_bits(g, w), f"{name}, finite={finite}"
        if not finite:
            # the exact fallback kept finite values where the GEMM would give NaN
            same = got[list(CASES).index("same_3x3")]
            assert np.isfinite(same).any() and np.isnan(same).any()


def test_reference_follows_d6_order():
    """Against a plain loop over positions, output channels, then cells."""
    module = _case("groups_odd", "f64")
    grad, weight = _arrays("f64", True, seed=3)[4:6]
    x, g_shape, _, stride, padding, dilation, groups, axis = CASES["groups_odd"]
    cin, cout = weight.shape[0] // groups, weight.shape[1]
    want = np.zeros(x)
    for c in range(x[1]):
        group = c // cin
        for i in np.ndindex(*x[2:]):
            acc = 0.0
            for m in range(cout):
                for k in np.ndindex(*weight.shape[2:]):
                    o = [i[a] + padding[a] - k[a] * dilation[a] for a in range(2)]
                    if all(0 <= o[a] < g_shape[2 + a] for a in range(2)):
                        acc = acc + grad[0, group * cout + m, o[0], o[1]] * weight[c, m, *k]
            want[0, c, *i] = acc
    (got,) = evaluate(module, [grad, weight])
    assert same_bits(got, want)


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_a_plane_unit_covers_a_whole_sample(dtype):
    """With the plane packer, one work unit per sample where the stack allows
    (each channel plane filled once per sample, not once per column block)."""
    from xdsl.dialects import func

    from tlir.dialects import tlir_ad as A
    from tlir.passes.contraction_kernels import contraction_kernel, host_target

    function = next(op for op in _case("wide_plane", dtype).walk() if isinstance(op, func.FuncOp))
    op = next(op for op in function.walk() if isinstance(op, A.ConvInputGradOp))
    kernel = contraction_kernel(op, "k", host_target())
    assert kernel.attributes["tlir.parallel_extent"].value.data == 2  # two samples, not 6 or 10


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_the_exact_fallback_keeps_the_fused_epilogue(dtype, backend):
    """A VJP adds the input gradient to another cotangent of the same value;
    kernel formation fuses that `tlir.add` into the GEMM's kernel. With a
    non-finite weight the kernel takes the exact fallback, which must apply
    the add too (it once stored the bare gradient)."""
    x, g, wt, *_ = CASES["same_3x3"]
    base = to_text(_case("same_3x3", dtype))
    t = _type(x, dtype)
    text = base.replace(
        f"func.func @main(%g: {_type(g, dtype)}, %wt: {_type(wt, dtype)}) -> {t} {{",
        f"func.func @main(%g: {_type(g, dtype)}, %wt: {_type(wt, dtype)}, %e: {t}) -> {t} {{",
    ).replace(
        f"func.return %dx : {t}",
        f"%s = tlir.add %e, %dx : ({t}, {t}) -> {t}\n  func.return %s : {t}",
    )
    module = tlir.parse_module(text)
    grad, weight = _arrays(dtype, False, seed=5)[:2]
    other = np.arange(np.prod(x), dtype=grad.dtype).reshape(x) + 1
    got = tlir.compile(module, backend=backend)(grad, weight, other)
    want = evaluate(module, [grad, weight, other])
    assert same_bits(got[0], want[0])
    assert np.isfinite(got[0]).any() and np.isnan(got[0]).any()  # the fallback ran
