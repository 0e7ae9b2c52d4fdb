"""Maps fused into the gathers that feed them (`passes/autodiff/fusion.py`): the
fused VJP programs, interpreted and compiled on both back ends, equal the
reference bit for bit (non-finite values and -0 included), the fusion is
taken where it should be, and the reshape's axis groups."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_util import BACKENDS, derivative, same_bits

import tlir
from tlir.passes.autodiff.fusion import merged_axes
from tlir.reference import evaluate, vjp

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
    program = derivative(_text(name, "f64"), "vjp", wrt="all")
    names = [op.name for op in program.walk()]
    assert "tlir_ad.map" not in names, name


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_fused_vjp_matches_the_reference(name, dtype, backend):
    text = _text(name, dtype)
    module = tlir.parse_module(text)
    x, dy = _arrays(name, dtype, module)
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


def test_fusion_without_reshape_and_with_a_scalar_operand():
    """A map that reads the gather first, a scalar second, and no reshape between:
    the fused program computes the same bits, and no map is left."""
    from xdsl.dialects import func

    from tlir.passes.autodiff.fusion import fuse_maps_into_gathers

    text = """
func.func @main(%a: tensor<3x4xf64>, %s: tensor<f64>) -> tensor<4x3xf64> {
  %z = tlir.const {value = dense<0.0> : tensor<4x3xf64>} : tensor<4x3xf64>
  %t = tlir_ad.fold ins(%a) init(%z) {bounds = array<i64: 4, 3>,
         maps = [affine_map<(d0, d1) -> (d1, d0)>], iterators = ["parallel", "parallel"]}
         : (tensor<3x4xf64>), (tensor<4x3xf64>) -> tensor<4x3xf64> {
  ^bb0(%x: f64, %acc: f64):
    %n = arith.negf %x : f64
    tlir_ad.yield %n : f64
  }
  %m = tlir_ad.map(%t, %s) : (tensor<4x3xf64>, tensor<f64>) -> tensor<4x3xf64> {
  ^bb0(%u: f64, %v: f64):
    %q = arith.subf %u, %v : f64
    tlir_ad.yield %q : f64
  }
  func.return %m : tensor<4x3xf64>
}
"""
    module = tlir.parse_module(text)
    a = np.arange(12.0).reshape(3, 4) - 5.5
    a[0, 1] = np.nan
    s = np.array(0.25)
    (want,) = evaluate(module, [a, s])
    fuse_maps_into_gathers(next(op for op in module.walk() if isinstance(op, func.FuncOp)))
    module.verify()
    assert "tlir_ad.map" not in [op.name for op in module.walk()]
    (got,) = evaluate(module, [a, s])
    assert same_bits(got, want)
    assert same_bits(want, -a.T - 0.25)


def _unit_axis_text(op: str, rows: int, dtype: str) -> str:
    """x [rows, 1] → op → reshape [rows]; x → reshape [rows]; concat: the VJP's
    slice gather of the first operand is reshaped to [rows, 1], a new axis of
    extent 1 that merges no axis of the gather, then the op's map is fused into it."""
    x, v, c = f"tensor<{rows}x1x{dtype}>", f"tensor<{rows}x{dtype}>", f"tensor<{2 * rows}x{dtype}>"
    return f"""func.func @main(%x: {x}) -> {c} {{
  %u = tlir.{op} %x : ({x}) -> {x}
  %a = tlir.reshape %u : ({x}) -> {v}
  %b = tlir.reshape %x : ({x}) -> {v}
  %y = tlir.concat %a, %b axis = 0 : ({v}, {v}) -> {c}
  func.return %y : {c}
}}
"""


def _unit_axis_arrays(rows: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    np_type = np.float32 if dtype == "f32" else np.float64
    x = np.array([[2.0], [-0.0], [0.5]][:rows], dtype=np_type)
    dy = np.linspace(-1.5, 2.0, 2 * rows).astype(np_type)
    return x, dy


def test_merged_axes_of_a_new_unit_axis():
    assert merged_axes((2,), (2, 1)) == [[0], []]
    assert merged_axes((3, 1), (3, 1, 1)) == [[0], [1], []]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize(("op", "rows"), [("sqrt", 2), ("tanh", 3), ("exp", 2), ("relu", 3)])
def test_vjp_through_a_reshape_adding_a_unit_axis(op, rows, dtype, backend):
    """The fused fold reads the map's other operands at index 0 on the new axis
    (it read the axis through no expression at all, and the loop lowering failed)."""
    text = _unit_axis_text(op, rows, dtype)
    module = tlir.parse_module(text)
    x, dy = _unit_axis_arrays(rows, dtype)
    want = vjp(module, [x], [dy])
    program = derivative(text, "vjp", wrt="all")  # verified: every map is an affine read
    assert "tlir_ad.map" not in [o.name for o in program.walk()]
    interpreted = evaluate(program, [x, dy])
    assert all(same_bits(g, w) for g, w in zip(interpreted, want, strict=True))
    ys, gxs, _ = tlir.compile(module, backend=backend, cache=False).vjp([x], [dy])
    assert all(same_bits(g, w) for g, w in zip([*ys, *gxs], want, strict=True))


@pytest.mark.parametrize("backend", BACKENDS)
def test_vjp_through_a_unit_axis_unfused_at_O0_in_one_process(backend, monkeypatch):
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "1")
    module = tlir.parse_module(_unit_axis_text("sin", 3, "f64"))
    x, dy = _unit_axis_arrays(3, "f64")
    want = vjp(module, [x], [dy])
    model = tlir.compile(module, backend=backend, opt_level=0, fuse=False, cache=False)
    ys, gxs, _ = model.vjp([x], [dy])
    assert all(same_bits(g, w) for g, w in zip([*ys, *gxs], want, strict=True))
