"""`tlir-jvp` and `tlir-vjp` as passes: signatures and options, accumulation
(docs/autodiff.md#d7-accumulation), parameters (docs/autodiff.md#d10-parameters) of the bundled models, `tlir.custom` differentiated
through its callee, located errors, and locations of emitted ops."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from autodiff_util import derivative, merged, normal, output_shapes, same_bits

import tlir
from tlir.diagnostics import TlirError, describe_location
from tlir.interface import find_function
from tlir.parameters import parameter_names, parameters
from tlir.passes.tlir_jvp import TlirJvp
from tlir.passes.tlir_vjp import TlirVjp
from tlir.reference import jvp, vjp
from tlir.universe import context

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

THREE_USES = """func.func @main(%x: tensor<1xf64>, %unused: tensor<2xf64>) -> tensor<1xf64> {
  %w1 = tlir.const {value = dense<-1.0e16> : tensor<1xf64>} : tensor<1xf64>
  %w2 = tlir.const {value = dense<1.0e16> : tensor<1xf64>} : tensor<1xf64>
  %w3 = tlir.const {value = dense<1.0> : tensor<1xf64>} : tensor<1xf64>
  %m1 = tlir.mul_elem %x, %w1 : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  %m2 = tlir.mul_elem %x, %w2 : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  %m3 = tlir.mul_elem %x, %w3 : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  %s = tlir.add %m1, %m2 : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  %y = tlir.add %s, %m3 : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  func.return %y : tensor<1xf64>
}
"""


def test_accumulation_is_descending_first_stored_then_existing_plus_new():
    """x's contributions arrive from m3, m2, m1 (descending): 1 is stored, then
    1 + 1e16 = 1e16 (a tie, to even), then 1e16 + (−1e16) = 0. Ascending order
    would give 1. The unused input gets +0; wrt=all adds the three weights'
    gradients g·x."""
    args = [np.array([1.0]), np.zeros(2), np.array([1.0])]
    expected = [[1.0], [0.0], [0.0, 0.0], [1.0], [1.0], [1.0]]
    module = tlir.parse_module(THREE_USES)
    got_reference = vjp(module, args[:2], args[2:])
    got_compiled = tlir.compile(derivative(THREE_USES, "vjp"))(*args)
    for got in (got_reference, got_compiled):
        assert all(same_bits(g, np.array(w)) for g, w in zip(got, expected))


def test_a_single_arrival_is_stored_as_is():
    """g·w = (+0)·(−1) = −0 reaches x once and stays −0 (adding it to a +0
    start would give +0)."""
    single = """func.func @main(%x: tensor<1xf64>) -> tensor<1xf64> {
  %w = tlir.const {value = dense<-1.0> : tensor<1xf64>} : tensor<1xf64>
  %y = tlir.mul_elem %x, %w : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  func.return %y : tensor<1xf64>
}
"""
    args = [np.array([3.0]), np.array([0.0])]
    for got in (
        vjp(tlir.parse_module(single), args[:1], args[1:], wrt="inputs"),
        tlir.compile(derivative(single, "vjp", wrt="inputs"))(*args),
    ):
        assert same_bits(got[1], np.array([-0.0]))


def test_signatures_follow_the_options():
    module = tlir.parse_module(THREE_USES)
    TlirJvp(params=True).apply(context(), module)
    TlirVjp(wrt="params").apply(context(), module)
    jvp_type = find_function(module, "main_jvp").function_type
    vjp_type = find_function(module, "main_vjp").function_type
    assert [str(t) for t in jvp_type.inputs] == ["tensor<1xf64>", "tensor<2xf64>"] * 2 + [
        "tensor<1xf64>"
    ] * 3
    assert len(jvp_type.outputs) == 2
    assert [str(t) for t in vjp_type.inputs] == ["tensor<1xf64>", "tensor<2xf64>", "tensor<1xf64>"]
    assert [str(t) for t in vjp_type.outputs] == ["tensor<1xf64>"] * 4


def test_bad_options_and_name_clashes_are_errors():
    module = tlir.parse_module(THREE_USES)
    with pytest.raises(TlirError, match="wrt must be one of inputs, params, all"):
        TlirVjp(wrt="weights").apply(context(), module)
    TlirJvp().apply(context(), module)
    with pytest.raises(TlirError, match="already has a function @main_jvp"):
        TlirJvp().apply(context(), module)


@pytest.mark.parametrize("name, compiled", [("cnn", True), ("transformer_block", False)])
def test_bundled_models_differentiate_in_parameters(name, compiled):
    """JVP in input and parameter directions and VJP for inputs and parameters:
    the two adjoint to each other; compiled = reference bit for bit (the cnn
    only: the transformer's ops are all covered by the op cases)."""
    module = tlir.load_model(str(EXAMPLES / f"{name}.json"))
    main = find_function(module)
    x = np.load(EXAMPLES / f"{name}_input.npy")
    shapes = [tuple(p.result.type.get_shape()) for p in parameters(main)]
    dx = normal(x.shape, "f64", seed=1)
    dps = [normal(s, "f64", seed=2 + i) for i, s in enumerate(shapes)]
    dys = [normal(s, "f64", seed=30 + i) for i, s in enumerate(output_shapes(module))]
    forward = jvp(module, [x], [dx], dps)
    backward = vjp(module, [x], dys, wrt="all")
    outputs = len(dys)
    lhs = sum(float(np.sum(a * b)) for a, b in zip(dys, forward[outputs:]))
    rhs = sum(float(np.sum(a * b)) for a, b in zip(backward[outputs:], [dx, *dps]))
    assert abs(lhs - rhs) <= 1e-10 * max(1.0, abs(lhs))
    if compiled:
        both = merged([derivative(module, "jvp", params=True), derivative(module, "vjp")])
        got = tlir.compile(both)(x, dx, *dps, x, *dys)
        assert all(same_bits(g, w) for g, w in zip(got, [*forward, *backward]))


def test_bundled_parameter_names():
    names = parameter_names(find_function(tlir.load_model(str(EXAMPLES / "cnn.json"))))
    assert names[:2] == ["node1.weight", "node1.bias"]
    assert all(n.startswith("node") for n in names)
    unnamed = parameter_names(find_function(tlir.parse_module(THREE_USES)))
    assert unnamed == ["const0", "const1", "const2"]


CUSTOM = """func.func @main(%x: tensor<3xf64>, %s: tensor<3xf64>) -> tensor<3xf64> {
  %a = tlir.custom @kernel(%x, %x) {name = "square plus relu"} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %b = tlir.custom @kernel(%a, %s) {name = "square plus relu"} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  func.return %b : tensor<3xf64>
}
func.func @kernel(%u: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %p = tlir.mul_elem %u, %u : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %r = tlir.relu %v : (tensor<3xf64>) -> tensor<3xf64>
  %q = tlir.add %p, %r : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  func.return %q : tensor<3xf64>
}
"""


def test_custom_is_differentiated_through_its_callee():
    module = tlir.parse_module(CUSTOM)
    xs = [np.array([0.5, -2.0, 3.0]), np.array([1.0, -1.0, 0.0])]
    dxs = [np.array([1.0, 2.0, -1.0]), np.array([0.5, 0.5, 0.5])]
    dy = [np.array([1.0, -1.0, 2.0])]
    # by hand: a = kernel(x, x) = x·x + relu(x); b = kernel(a, s) = a·a + relu(s)
    a = xs[0] * xs[0] + np.maximum(xs[0], 0)
    da = 2 * xs[0] * dxs[0] + (xs[0] > 0) * dxs[0]
    expected_tangent = 2 * a * da + (xs[1] > 0) * dxs[1]
    forward = jvp(module, xs, dxs)
    assert np.allclose(forward[1], expected_tangent, rtol=1e-15)
    backward = vjp(module, xs, dy, wrt="inputs")
    ga = 2 * a * dy[0]
    assert np.allclose(backward[1], (2 * xs[0] + (xs[0] > 0)) * ga, rtol=1e-15)
    assert np.allclose(backward[2], (xs[1] > 0) * dy[0], rtol=1e-15)
    compiled_forward = tlir.compile(derivative(CUSTOM, "jvp"))(*xs, *dxs)
    compiled_backward = tlir.compile(derivative(CUSTOM, "vjp", wrt="inputs"))(*xs, *dy)
    assert all(same_bits(g, w) for g, w in zip(compiled_forward, forward))
    assert all(same_bits(g, w) for g, w in zip(compiled_backward, backward))


POOLED = """func.func @main(%x: tensor<1x6xf64>) -> tensor<1x3xf64> {
  %a = tlir.custom @block(%x) {name = "relu pool"} : (tensor<1x6xf64>) -> tensor<1x3xf64>
  %b = tlir.max_pool %a {kernel = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 1>} : (tensor<1x3xf64>) -> tensor<1x4xf64>
  %c = tlir.reduce_sum %b axis = 1 : (tensor<1x4xf64>) -> tensor<1xf64>
  %d = tlir.broadcast_to %c : (tensor<1xf64>) -> tensor<1x3xf64>
  %e = tlir.mul_elem %a, %d : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  func.return %e : tensor<1x3xf64>
}
func.func @block(%u: tensor<1x6xf64>) -> tensor<1x3xf64> {
  %r = tlir.relu %u : (tensor<1x6xf64>) -> tensor<1x6xf64>
  %p = tlir.max_pool %r {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>} : (tensor<1x6xf64>) -> tensor<1x3xf64>
  func.return %p : tensor<1x3xf64>
}
"""


def test_pools_take_their_value_from_the_derivative_fold():
    """max_pool's dual fold (JVP) and winner fold (VJP forward copy) give the
    pool's value, so no tlir.max_pool is left, in a callee too; values, ties
    (first maximum), padding and the pooled value's second use (the product)
    stay bit-identical to the reference."""
    module = tlir.parse_module(POOLED)
    x = [np.array([[1.0, 3.0, 3.0, -1.0, 0.0, -0.0]])]
    dx = [np.array([[0.5, 2.0, -1.0, 4.0, 1.5, 3.0]])]
    dy = [np.array([[1.0, -2.0, 0.5]])]
    for mode, args, want in [
        ("jvp", [*x, *dx], jvp(module, x, dx)),
        ("vjp", [*x, *dy], vjp(module, x, dy, wrt="inputs")),
    ]:
        derived = derivative(POOLED, mode, **({"wrt": "inputs"} if mode == "vjp" else {}))
        names = [op.name for op in find_function(derived).walk()]
        assert "tlir.max_pool" not in names and "tlir.custom" not in names, mode
        assert all(same_bits(g, w) for g, w in zip(tlir.compile(derived)(*args), want)), mode


def test_a_callee_without_rules_is_a_located_one_line_error():
    text = CUSTOM.replace(
        "%q = tlir.add %p, %r : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>",
        "%q = arith.addf %p, %r : tensor<3xf64>",
    )
    for pass_ in (TlirJvp(), TlirVjp()):
        module = tlir.parse_module(text, "model.mlir")
        with pytest.raises(TlirError) as caught:
            pass_.apply(context(), module)
        message = str(caught.value)
        assert message == (
            f"model.mlir:2:3: error: {pass_.name}: cannot differentiate 'tlir.custom' @kernel: "
            "its callee uses 'arith.addf', which has no derivative rule"
        )


def test_every_emitted_op_has_the_location_of_the_op_it_differentiates():
    module = tlir.load_model(str(EXAMPLES / "transformer_block.json"))
    TlirJvp(params=True).apply(context(), module)
    TlirVjp().apply(context(), module)
    for name in ("main_jvp", "main_vjp"):
        function = find_function(module, name)
        places = {describe_location(op.location, "?") for op in function.body.block.ops}
        assert all("transformer_block.json" in p for p in places), places
        assert len(places) > 5  # one per node, not one for all
