"""Maps fused into the gathers that feed them (`passes/autodiff/fusion.py`): the
fused VJP and JVP programs, interpreted and compiled on both back ends, equal
the reference bit for bit (non-finite values and -0 included), the fusion is
taken where it should be, and the reshape's axis groups."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_util import derivative, same_bits

import tlir
from tlir.passes.autodiff.fusion import merged_axes
from tlir.reference import evaluate, jvp, vjp

POOL = "kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>"

# name: (input shape, body of @main on %x, result type); each ends in a tiled pool
MODELS = {
    "relu_max_pool": (
        (2, 3, 6, 4),
        "%r = tlir.relu %x : (tensor<2x3x6x4xT>) -> tensor<2x3x6x4xT>\n"
        f"  %y = tlir.max_pool %r {{{POOL}}} : (tensor<2x3x6x4xT>) -> tensor<2x3x3x2xT>",
        "tensor<2x3x3x2xT>",
    ),
    "tanh_avg_pool": (
        (3, 4, 4),
        "%r = tlir.tanh %x : (tensor<3x4x4xT>) -> tensor<3x4x4xT>\n"
        f"  %y = tlir.avg_pool %r {{{POOL}}} : (tensor<3x4x4xT>) -> tensor<3x2x2xT>",
        "tensor<3x2x2xT>",
    ),
    "sigmoid_max_pool": (
        (1, 2, 4, 6),
        "%r = tlir.sigmoid %x : (tensor<1x2x4x6xT>) -> tensor<1x2x4x6xT>\n"
        f"  %y = tlir.max_pool %r {{{POOL}}} : (tensor<1x2x4x6xT>) -> tensor<1x2x2x3xT>",
        "tensor<1x2x2x3xT>",
    ),
}

CONV = (
    "kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, "
    "padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, "
    "channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 3 : i64"
)

# forward mode: the NaN mask of a contraction's tangent, then relu's tangent map
JVP_MODELS = {
    "linear_relu": (
        (4, 5),
        "%w = tlir.const {value = dense<0.25> : tensor<3x5xT>} : tensor<3x5xT>\n"
        "  %b = tlir.const {value = dense<0.5> : tensor<3xT>} : tensor<3xT>\n"
        "  %l = tlir.linear %x, %w, %b : (tensor<4x5xT>, tensor<3x5xT>, tensor<3xT>) -> "
        "tensor<4x3xT>\n"
        "  %y = tlir.relu %l : (tensor<4x3xT>) -> tensor<4x3xT>",
        "tensor<4x3xT>",
    ),
    "conv_relu": (
        (2, 2, 5, 4),
        "%w = tlir.const {value = dense<0.25> : tensor<3x2x3x3xT>} : tensor<3x2x3x3xT>\n"
        "  %b = tlir.const {value = dense<-0.5> : tensor<3xT>} : tensor<3xT>\n"
        f"  %c = tlir.conv %x, %w, %b {{{CONV}}} : (tensor<2x2x5x4xT>, tensor<3x2x3x3xT>, "
        "tensor<3xT>) -> tensor<2x3x5x4xT>\n"
        "  %y = tlir.relu %c : (tensor<2x3x5x4xT>) -> tensor<2x3x5x4xT>",
        "tensor<2x3x5x4xT>",
    ),
}
MODELS.update(JVP_MODELS)


def _text(name: str, dtype: str) -> str:
    shape, body, result = MODELS[name]
    x = f"tensor<{'x'.join(map(str, shape))}x{dtype}>"
    result = result.replace("T>", f"{dtype}>")
    return (
        f"func.func @main(%x: {x}) -> {result} {{\n  {body.replace('xT>', f'x{dtype}>')}\n"
        f"  func.return %y : {result}\n}}\n"
    )


def _arrays(name: str, dtype: str, module) -> tuple[np.ndarray, np.ndarray]:
    np_type = np.float32 if dtype == "f32" else np.float64
    rng = np.random.default_rng(5)
    shape = MODELS[name][0]
    x = rng.normal(size=shape).astype(np_type)
    x.reshape(-1)[:4] = [-0.0, 0.0, np.inf, np.nan]
    x.reshape(-1)[-1] = -np.inf
    out = module.body.block.ops.first.function_type.outputs.data[0].get_shape()
    dy = rng.normal(size=out).astype(np_type)
    dy.reshape(-1)[1] = np.nan
    return x, dy


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_map_is_fused(name):
    mode = "jvp" if name in JVP_MODELS else "vjp"
    options = {} if mode == "jvp" else {"wrt": "all"}
    program = derivative(_text(name, "f64"), mode, **options)
    names = [op.name for op in program.walk()]
    assert "tlir_ad.map" not in names, name


@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_fused_derivative_matches_the_reference(name, dtype, backend):
    if backend == "mlir":
        from tlir.backend.mlir import find_tool

        if find_tool("mlir-opt") is None:
            pytest.skip("no mlir-opt")
    text = _text(name, dtype)
    module = tlir.parse_module(text)
    x, dy = _arrays(name, dtype, module)
    if name in JVP_MODELS:
        dx = np.random.default_rng(9).normal(size=x.shape).astype(x.dtype)
        want = jvp(module, [x], [dx])
        interpreted = evaluate(derivative(text, "jvp"), [x, dx])
        assert all(same_bits(g, w) for g, w in zip(interpreted, want, strict=True))
        ys, dys = tlir.compile(module, backend=backend).jvp([x], [dx])
        assert all(same_bits(g, w) for g, w in zip([*ys, *dys], want, strict=True))
        assert np.isnan(dys[0]).any() and np.isfinite(dys[0]).any()
        return
    want = vjp(module, [x], [dy])
    interpreted = evaluate(derivative(text, "vjp", wrt="all"), [x, dy])
    assert all(same_bits(g, w) for g, w in zip(interpreted, want, strict=True))
    model = tlir.compile(module, backend=backend)
    ys, gxs, _ = model.vjp([x], [dy])
    assert all(same_bits(g, w) for g, w in zip([*ys, *gxs], want, strict=True))
    assert np.isnan(gxs[0]).any() and np.isfinite(gxs[0]).any()


def test_merged_axes():
    assert merged_axes((2, 3, 4, 2, 4, 2), (2, 3, 8, 8)) == [[0], [1], [2, 3], [4, 5]]
    assert merged_axes((2, 3, 1), (2, 3)) == [[0], [1, 2]]
    assert merged_axes((1, 6), (6,)) == [[0, 1]]
    assert merged_axes((2, 3), (3, 2)) is None  # a split, not a merge
    assert merged_axes((4, 6), (8, 3)) is None
    assert merged_axes((6,), (2, 3)) is None
