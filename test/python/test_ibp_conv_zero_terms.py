"""The fast interval conv's zero terms (kernel cells in the padding after the
input): added as the constants `−m`, `m` without the products where the cell
is the same for the whole vector, with the weight's finiteness checked where
it could not show in the sums. Each case compares the fast program's own
result (its checks zero: no fall back to the exact one) with the reference's
bits, and the public `bounds` with the reference where the checks send the
call to the exact program."""

from __future__ import annotations

import fuzz_graphs
import numpy as np
import pytest
from op_cases import _conv as conv_case
from test_ibp_compiled import (
    BACKENDS,
    _adversarial,
    _one_dtype_per_backend,
    assert_same_bounds,
    random_box,
    with_constants,
)

import tlir
from tlir.passes.ibp import conv_cells
from tlir.reference.ibp import boxes as reference_boxes


def _case(name, x, cout, kernel, stride, pad, pad_after, dilation, groups, axis=1):
    """A conv case with its output shape worked out (`_conv` takes it given)."""
    spatial = x[axis + 1 :]
    out = [
        (n + p + q - dl * (k - 1) - 1) // s + 1
        for n, k, s, p, q, dl in zip(spatial, kernel, stride, pad, pad_after, dilation, strict=True)
    ]
    w = (cout, x[axis], *kernel)  # dense, block-diagonal over the groups
    return conv_case(name, x, w, (*x[: axis + 1 - 1], cout, *out), kernel, stride, pad,
                     pad_after, dilation, groups, axis)  # fmt: skip


# every case has at least 2^15 terms (the fast path); all but the last have
# at least as many output channels per group as the last axis has positions
# (the channels-inner layout, where the zero terms take the shortcut)
SYMMETRIC = _case("symmetric", (2, 4, 8, 8), 16, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1)
CASES = [
    SYMMETRIC,
    _case("after_only", (2, 3, 9, 7), 16, (3, 3), (1, 1), (0, 1), (2, 1), (1, 1), 1),
    _case("stride_dilation", (3, 4, 11, 10), 16, (3, 3), (2, 2), (1, 1), (2, 2), (2, 2), 1),
    _case("groups", (2, 8, 6, 6), 32, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 2),
    _case("conv_1d", (4, 8, 20), 32, (3,), (1,), (1,), (2,), (1,), 1),
    _case("conv_3d", (1, 2, 5, 6, 4), 16, (3, 3, 2), (1, 1, 1), (1, 1, 0), (1, 1, 1),
          (1, 1, 1), 1),
    _case("positions_inner", (2, 3, 10, 40), 4, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),
]  # fmt: skip

# kernel rows 1 and 2 read only the padding after the input (rows 6 and 7 of
# a padded height of 8, of which rows 0 and 1 are the input)
NEVER_INSIDE = _case("never_inside", (2, 8, 2, 16), 32, (3, 3), (1, 1), (0, 1), (6, 1), (3, 1), 1)


def _fast(model, lows, highs):
    """The fast program's boxes and its checks (nonzero: the call would fall back)."""
    arrays, numbers = model._derivative("ibp", "fast").run_split([*lows, *highs], 2)
    return arrays, numbers[1:]


def assert_fast_is_reference(model, module, lows, highs, context=""):
    """The fast program itself (no check set) gives the reference's bits."""
    (lo, hi), checks = _fast(model, lows, highs)
    assert not any(checks), (checks, context)
    want = reference_boxes(module, lows, highs).output_boxes()[0]
    assert fuzz_graphs.same_bits(lo, want[0]), context
    assert fuzz_graphs.same_bits(hi, want[1]), context


def _tiny(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The arrays scaled so that a product of two is a few smallest
    subnormals: every sum lies in the subnormal range, where `s + (−m)` is not
    `s` (scaling keeps each box's order)."""
    scale = 1e-160 if arrays[0].dtype == np.float64 else 1e-22
    return [(a * scale).astype(a.dtype) for a in arrays]


def _tiny_box(case, dtype: str, seed: int):
    """A box of tiny inputs and weights and a zero bias (which would absorb
    the sums)."""
    lows, highs = random_box(case.inputs(dtype, seed=seed), seed + 1)
    lows, highs = _tiny(lows), _tiny(highs)
    lows[2][...], highs[2][...] = 0.0, 0.0
    return lows, highs


def assert_random_tiny_and_adversarial(case, dtype: str, backend: str) -> None:
    """The fast program's own bits on a random box and on one with sums in
    the subnormal range; the bounds (which may fall back) on adversarial
    boxes with ±0, subnormals, ±inf and NaN."""
    module = tlir.parse_module(case.text(dtype))
    model = tlir.compile(module, backend=backend)
    assert_fast_is_reference(model, module, *random_box(case.inputs(dtype), 1), "random")
    assert_fast_is_reference(model, module, *_tiny_box(case, dtype, 2), "subnormal sums")
    boxes = _adversarial(*random_box(case.inputs(dtype, seed=4), 5), seed=6)
    assert_same_bounds(model, module, *boxes, "adversarial")


@pytest.mark.parametrize("case, dtype, backend", _one_dtype_per_backend(CASES))
def test_zero_terms_give_the_reference_bits(case, dtype, backend):
    """Random boxes and weights, the same with sums in the subnormal range,
    and boxes with ±0, subnormals, ±inf and NaN (those may fall back)."""
    assert_random_tiny_and_adversarial(case, dtype, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_zero_terms_with_one_table_per_axis(dtype, backend, monkeypatch):
    """One code table per padded axis (beyond `MASK_CELLS`): a cell before the
    input on one axis and after it on another is skipped, not a zero term."""
    monkeypatch.setattr(conv_cells, "MASK_CELLS", 0)
    module = tlir.parse_module(SYMMETRIC.text(dtype))
    model = tlir.compile(module, backend=backend)
    assert_fast_is_reference(model, module, *random_box(SYMMETRIC.inputs(dtype, 7), 8), "random")
    assert_fast_is_reference(model, module, *_tiny_box(SYMMETRIC, dtype, 9), "subnormal sums")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_subnormal_sums_with_signed_zeros(dtype, backend):
    """Sums of a few smallest subnormals from inputs and weights with zeros of
    both signs and points: each zero term moves such a sum by exactly `m`."""
    module = tlir.parse_module(SYMMETRIC.text(dtype))
    model = tlir.compile(module, backend=backend)
    points = _tiny(SYMMETRIC.inputs(dtype, seed=10))
    points[2][...] = 0.0
    rng = np.random.default_rng(11)
    for array in points:
        flat = array.reshape(-1)
        flat[rng.random(flat.size) < 0.2] = 0.0
        flat[rng.random(flat.size) < 0.2] = -0.0
    assert_fast_is_reference(model, module, points, points, "points")
    lows, highs = _tiny_box(SYMMETRIC, dtype, 12)
    for low, high in zip(lows, highs, strict=True):  # zeros and zero-width boxes
        low.reshape(-1)[::7], high.reshape(-1)[::7] = -0.0, 0.0
        low.reshape(-1)[3::11] = high.reshape(-1)[3::11]
    assert_fast_is_reference(model, module, lows, highs, "boxes")


def _with_weight_at(case, dtype: str, cells: list[tuple], value: float) -> str:
    """The case's module with a constant weight and bias, the weight `value`
    at output channel 0, input channel 0 and each kernel cell of `cells`."""
    _, w, b = case.inputs(dtype, seed=13)
    for cell in cells:
        w[(0, 0, *cell)] = value
    return with_constants(case, dtype, w, b)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_a_weight_read_only_by_zero_terms_falls_back(value, dtype, backend):
    """A non-finite constant weight at kernel cells that never lie on the
    input: the shortcut does not read it, so the weight's check sends the call
    to the exact program (0·inf is NaN there): the reference's result."""
    module = tlir.parse_module(_with_weight_at(NEVER_INSIDE, dtype, [(1, 0), (2, 2)], value))
    model = tlir.compile(module, backend=backend)
    x = NEVER_INSIDE.inputs(dtype, seed=14)[:1]
    lows, highs = random_box(x, 15)
    _, checks = _fast(model, lows, highs)
    assert any(checks)
    assert_same_bounds(model, module, lows, highs, "non-finite weight")
    finite = tlir.parse_module(_with_weight_at(NEVER_INSIDE, dtype, [(1, 0)], 0.5))
    assert_fast_is_reference(tlir.compile(finite, backend=backend), finite, lows, highs)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("value", [np.inf, np.nan])
def test_non_finite_weights_fall_back(value, dtype, backend):
    """A constant weight whose every cell lies on the input needs no check of
    its own (a non-finite entry makes a full term's sum non-finite: the sums'
    check falls back); a weight box always has one. Both: the reference's."""
    module = tlir.parse_module(_with_weight_at(SYMMETRIC, dtype, [(2, 2), (0, 1)], value))
    model = tlir.compile(module, backend=backend)
    lows, highs = random_box(SYMMETRIC.inputs(dtype, seed=16)[:1], 17)
    _, checks = _fast(model, lows, highs)
    assert len(checks) == 1 and checks[0]  # the sums' check alone, and it is set
    assert_same_bounds(model, module, lows, highs, "constant")
    boxes = tlir.parse_module(SYMMETRIC.text(dtype))
    model = tlir.compile(boxes, backend=backend)
    lows, highs = random_box(SYMMETRIC.inputs(dtype, seed=18), 19)
    lows[1][0, 0, 2, 2] = value
    _, checks = _fast(model, lows, highs)
    assert len(checks) == 2 and any(checks)
    assert_same_bounds(model, boxes, lows, highs, "box")


def _table_codes(case, option) -> set[float]:
    """The codes in the cell table of the conv's fold in the IBP program."""
    from tlir.compiler.model import derivative_module

    module = derivative_module(tlir.parse_module(case.text("f64")), "main", "ibp", option)
    folds = [op for op in module.walk() if op.name == "tlir_ad.fold"]
    fold = max(folds, key=lambda op: len(op.bounds.get_values()))
    return set(fold.inputs[-1].owner.value.get_values())


def test_zero_terms_only_where_the_vector_shares_the_cell():
    """The fast program's channels-inner conv marks its zero terms apart
    (code 0 between the input's -1 and the skip's 1); a conv vectorised over
    positions (whose vector mixes cells) and the exact program do not."""
    assert _table_codes(SYMMETRIC, "fast") == {-1.0, 0.0, 1.0}
    assert _table_codes(CASES[-1], "fast") == {0.0, 1.0}
    assert _table_codes(SYMMETRIC, "torchlean") == {0.0, 1.0}
