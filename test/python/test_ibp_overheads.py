"""The compiled IBP's layout of a conv → relu → max_pool chain
(docs/verification.md#performance): the conv's sums start from a broadcast
row of zeros, and `max_pool` takes both ends in one fold that reads through
the relu and the conv's permute back (its cells as separate operands, relu
applied in the fold, the pooled result permuted). Bit-identical to the
reference rules on both back ends, f64 and f32, 1 and 2 threads, the fast
and the exact contraction, with ±0, subnormals, ±inf, NaN and overflow in
the boxes and the weights."""

from __future__ import annotations

import numpy as np
import pytest
from test_ibp_compiled import BACKENDS, _adversarial, _dense, assert_same_bounds, random_box

import tlir
from tlir.dialects import tlir as T

CONV = (
    "tlir.conv {x}, %w, %b {{kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, "
    "padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, "
    "groups = 1 : i64, channel_axis = 1 : i64, in_channels = 3 : i64, out_channels = 8 : i64}}"
)


def _pool(kernel: int, stride: int, padding: int = 0) -> str:
    return (
        f"{{kernel = array<i64: {kernel}, {kernel}>, stride = array<i64: {stride}, {stride}>, "
        f"padding = array<i64: {padding}, {padding}>}}"
    )


def _tensor(shape, t: str) -> str:
    return "tensor<" + "".join(f"{n}x" for n in shape) + t + ">"


def _literal(values: np.ndarray) -> str:
    return _dense(values).replace("'", "")


def conv_pool_module(t: str, relu: bool, pool: str, out_spatial: int, weight, bias) -> str:
    """x [2, 3, 8, 8] → conv 3×3 (8 channels, padding 1) → relu? → max_pool."""
    conv_shape, x_shape = (2, 8, 8, 8), (2, 3, 8, 8)
    out = (2, 8, out_spatial, out_spatial)
    w_type, b_type = _tensor(weight.shape, t), _tensor(bias.shape, t)
    lines = [
        f"func.func @main(%x: {_tensor(x_shape, t)}) -> {_tensor(out, t)} {{",
        f"  %w = tlir.const {{value = dense<{_literal(weight)}> : {w_type}}} : {w_type}",
        f"  %b = tlir.const {{value = dense<{_literal(bias)}> : {b_type}}} : {b_type}",
        f"  %c = {CONV.format(x='%x')} : ({_tensor(x_shape, t)}, {w_type}, {b_type}) -> "
        f"{_tensor(conv_shape, t)}",
    ]
    pooled = "%c"
    if relu:
        lines.append(
            f"  %r = tlir.relu %c : ({_tensor(conv_shape, t)}) -> {_tensor(conv_shape, t)}"
        )
        pooled = "%r"
    lines += [
        f"  %y = tlir.max_pool {pooled} {pool} : ({_tensor(conv_shape, t)}) -> {_tensor(out, t)}",
        f"  func.return %y : {_tensor(out, t)}",
        "}",
    ]
    return "\n".join(lines)


def _parameters(dtype: str, seed: int, specials=()) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    np_type = np.float32 if dtype == "f32" else np.float64
    weight = rng.normal(0, 0.5, (8, 3, 3, 3)).astype(np_type)
    weight.reshape(-1)[::7] = 0.0
    for k, value in enumerate(specials):
        weight.reshape(-1)[11 * k + 3] = value
    bias = rng.normal(0, 0.1, 8).astype(np_type)
    return weight, bias


POOLS = {  # name: (relu, pool attributes, output extent)
    "relu_pool2": (True, _pool(2, 2), 4),
    "pool2": (False, _pool(2, 2), 4),
    "relu_pool3_overlapping": (True, _pool(3, 1), 6),
    "relu_pool2_padded": (True, _pool(2, 2, 1), 5),
}


def _boxes(dtype: str, seed: int, adversarial: bool):
    np_type = np.float32 if dtype == "f32" else np.float64
    x = np.random.default_rng(seed).normal(size=(2, 3, 8, 8)).astype(np_type)
    lows, highs = random_box([x], seed + 1)
    if adversarial:
        lows, highs = _adversarial(lows, highs, seed + 2)
    return lows, highs


def _overflowing(dtype: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Inputs near the format's largest value: the conv's sums overflow mid-sum."""
    big = np.finfo(np.float32 if dtype == "f32" else np.float64).max / 4
    lows, highs = _boxes(dtype, 7, False)
    return [lo * 0 + big for lo in lows], [hi * 0 + big for hi in highs]


def _check_all(module_text: str, backend: str, threads: int, dtype: str) -> None:
    module = tlir.parse_module(module_text)
    model = tlir.compile(module, backend=backend, threads=threads)
    assert_same_bounds(model, module, *_boxes(dtype, 1, False), "random")
    assert_same_bounds(model, module, *_boxes(dtype, 3, True), "adversarial")
    assert_same_bounds(model, module, *_overflowing(dtype), "overflow")


@pytest.fixture(params=["fast", "exact"])
def contraction(request, monkeypatch):
    """The conv's fast path (every contraction, however small) or the exact rule."""
    from tlir.passes.ibp import structured

    monkeypatch.setattr(structured, "FAST_TERMS", 0 if request.param == "fast" else 1 << 62)
    return request.param


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("pool", list(POOLS))
def test_conv_relu_max_pool_bit_identical(pool, threads, backend, contraction):
    relu, attributes, extent = POOLS[pool]
    tiny = {"f64": np.finfo(np.float64).smallest_subnormal,
            "f32": np.finfo(np.float32).smallest_subnormal}  # fmt: skip
    for dtype in ("f64", "f32"):
        specials = [0.0, -0.0, tiny[dtype], -tiny[dtype]]
        weight, bias = _parameters(dtype, 5, specials)
        bias[1], bias[2] = -0.0, tiny[dtype]
        _check_all(
            conv_pool_module(dtype, relu, attributes, extent, weight, bias),
            backend,
            threads,
            dtype,
        )
        # weights with infinities and NaN: the fast path's check sends these
        # to the exact program; NaN and ±inf then reach relu and max_pool
        weight, bias = _parameters(dtype, 6, [np.inf, -np.inf, np.nan])
        bias[3] = np.nan
        _check_all(
            conv_pool_module(dtype, relu, attributes, extent, weight, bias),
            backend,
            threads,
            dtype,
        )


def _ops(module_text: str) -> list[type]:
    from tlir.passes.tlir_ibp import TlirIbp
    from tlir.universe import context

    module = tlir.parse_module(module_text)
    TlirIbp(function="main", fast=True).apply(context(), module)
    ibp = next(f for f in module.ops if f.sym_name.data == "main_ibp")
    return [type(op) for op in ibp.body.block.ops]


def test_pool_reads_through_relu_and_permute():
    """One fold pools both ends, adding the conv's bias and applying relu to
    each cell: no max_pool, relu or bias fold is left, and the conv's permute
    back to channels first is applied only to the pooled result (one permute
    per end); a padded pool keeps the forward op."""
    from tlir.dialects import tlir_ad as A

    weight, bias = _parameters("f64", 5)
    ops = _ops(conv_pool_module("f64", True, _pool(2, 2), 4, weight, bias))
    assert T.MaxPoolOp not in ops and T.ReluOp not in ops
    # the weight's permute and the pooled ends' two; folds: the conv's sums and
    # the pool (the bias added in it)
    assert ops.count(T.PermuteOp) == 3 and ops.count(A.FoldOp) == 2
    padded = _ops(conv_pool_module("f64", True, _pool(2, 2, 1), 5, weight, bias))
    assert padded.count(T.MaxPoolOp) == 2


def pool_module(t: str, shape, perm, relu: bool, pool: str, out) -> str:
    """x → permute? → relu? → max_pool: the pool's operands straight from the box."""
    permuted = [shape[p] for p in perm] if perm else list(shape)
    lines = [f"func.func @main(%x: {_tensor(shape, t)}) -> {_tensor(out, t)} {{"]
    value = "%x"
    if perm:
        lines.append(
            f"  %p = tlir.permute %x {{perm = array<i64: {', '.join(map(str, perm))}>}} : "
            f"({_tensor(shape, t)}) -> {_tensor(permuted, t)}"
        )
        value = "%p"
    if relu:
        lines.append(
            f"  %r = tlir.relu {value} : ({_tensor(permuted, t)}) -> {_tensor(permuted, t)}"
        )
        value = "%r"
    lines += [
        f"  %y = tlir.max_pool {value} {pool} : ({_tensor(permuted, t)}) -> {_tensor(out, t)}",
        f"  func.return %y : {_tensor(out, t)}",
        "}",
    ]
    return "\n".join(lines)


def _ties(shape, dtype: str, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Boxes of a few values, so that windows hold ties of +0 and -0, NaN,
    ±inf, subnormals (and lo > hi boxes)."""
    np_type = np.float32 if dtype == "f32" else np.float64
    tiny = np.finfo(np_type).smallest_subnormal
    values = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, tiny, -tiny, np.inf, -np.inf, np.nan],
                      np_type)  # fmt: skip
    rng = np.random.default_rng(seed)
    return [rng.choice(values, shape)], [rng.choice(values, shape)]


POOLED_BOXES = {  # name: (input shape, permutation, relu, pool, output shape)
    "relu_pool2": ((2, 4, 6, 6), None, True, _pool(2, 2), (2, 4, 3, 3)),
    "pool2": ((2, 4, 6, 6), None, False, _pool(2, 2), (2, 4, 3, 3)),
    "permute_relu_pool3": ((2, 6, 6, 4), (0, 3, 1, 2), True, _pool(3, 1), (2, 4, 4, 4)),
    "permute_pool2": ((2, 6, 6, 4), (0, 3, 1, 2), False, _pool(2, 2), (2, 4, 3, 3)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", list(POOLED_BOXES))
def test_max_pool_of_boxes_with_ties_and_nan(case, threads, backend):
    """The fold's chain takes the first cell and a later one only where
    strictly greater, relu maps -0 to +0 and keeps NaN: the forward op's bits
    on windows of ±0 ties, NaN, ±inf and subnormals."""
    shape, perm, relu, pool, out = POOLED_BOXES[case]
    for dtype in ("f64", "f32"):
        module = tlir.parse_module(pool_module(dtype, shape, perm, relu, pool, out))
        model = tlir.compile(module, backend=backend, threads=threads)
        for seed in range(3):
            assert_same_bounds(model, module, *_ties(shape, dtype, seed), f"{dtype} {seed}")


def _conv_op(x: str, w: str, b: str, c_in: int, c_out: int, types: str) -> str:
    return (
        f"tlir.conv {x}, {w}, {b} {{kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, "
        "padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, "
        "dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, "
        f"in_channels = {c_in} : i64, out_channels = {c_out} : i64}} : {types}"
    )


def _const(name: str, values: np.ndarray, t: str) -> str:
    typ = _tensor(values.shape, t)
    return f"  %{name} = tlir.const {{value = dense<{_literal(values)}> : {typ}}} : {typ}"


def permuted_conv_module(t: str, seed: int, specials=()) -> str:
    """x [2, 8, 8, 3] → permute to channels first → conv (3 → 8) → relu →
    max_pool 2×2 → conv (8 → 8): each conv reads its input through a permute
    (the first from the graph, the second the pool's back to channels first)."""
    w1, b1 = _parameters(t, seed, specials)
    rng = np.random.default_rng(seed + 1)
    w2 = rng.normal(0, 0.3, (8, 8, 3, 3)).astype(w1.dtype)
    b2 = rng.normal(0, 0.1, 8).astype(w1.dtype)
    x, c1, p = _tensor((2, 8, 8, 3), t), _tensor((2, 8, 8, 8), t), _tensor((2, 8, 4, 4), t)
    first = f"({_tensor((2, 3, 8, 8), t)}, {_tensor(w1.shape, t)}, {_tensor(b1.shape, t)}) -> {c1}"
    second = f"({p}, {_tensor(w2.shape, t)}, {_tensor(b2.shape, t)}) -> {p}"
    return "\n".join([
        f"func.func @main(%x: {x}) -> {p} {{",
        _const("w1", w1, t), _const("b1", b1, t), _const("w2", w2, t), _const("b2", b2, t),
        f"  %xp = tlir.permute %x {{perm = array<i64: 0, 3, 1, 2>}} : ({x}) -> "
        f"{_tensor((2, 3, 8, 8), t)}",
        f"  %c = {_conv_op('%xp', '%w1', '%b1', 3, 8, first)}",
        f"  %r = tlir.relu %c : ({c1}) -> {c1}",
        f"  %m = tlir.max_pool %r {_pool(2, 2)} : ({c1}) -> {p}",
        f"  %y = {_conv_op('%m', '%w2', '%b2', 8, 8, second)}",
        f"  func.return %y : {p}",
        "}",
    ])  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("threads", [1, 2])
def test_conv_reads_through_a_permute(threads, backend, contraction):
    """A conv whose input boxes come from one permute pads and reads the
    permute's operands (its index maps permuted): the reference's bits."""
    tiny = {"f64": np.finfo(np.float64).smallest_subnormal,
            "f32": np.finfo(np.float32).smallest_subnormal}  # fmt: skip
    for dtype in ("f64", "f32"):
        for specials in ([0.0, -0.0, tiny[dtype], -tiny[dtype]], [np.inf, np.nan]):
            module = tlir.parse_module(permuted_conv_module(dtype, 5, specials))
            model = tlir.compile(module, backend=backend, threads=threads)
            np_type = np.float32 if dtype == "f32" else np.float64
            x = np.random.default_rng(2).normal(size=(2, 8, 8, 3)).astype(np_type)
            assert_same_bounds(model, module, *random_box([x], 3), f"{dtype} random")
            boxes = _adversarial(*random_box([x], 4), seed=5)
            assert_same_bounds(model, module, *boxes, f"{dtype} adversarial")
            big = np.finfo(np_type).max / 4
            assert_same_bounds(model, module, [x * 0 + big], [x * 0 + big], f"{dtype} overflow")


def test_conv_of_a_permute_pads_the_permutes_operand():
    """No permute of a whole box is left on the path to either conv."""
    from tlir.passes.tlir_ibp import TlirIbp
    from tlir.universe import context

    module = tlir.parse_module(permuted_conv_module("f64", 5))
    TlirIbp(function="main", fast=True).apply(context(), module)
    ibp = next(f for f in module.ops if f.sym_name.data == "main_ibp")
    from tlir.dialects import tlir_ad as A

    pads = [op for op in ibp.body.block.ops if isinstance(op, A.PadOp)]
    assert len(pads) == 4
    assert all(not isinstance(op.input.owner, T.PermuteOp) for op in pads)
