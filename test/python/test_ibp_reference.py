"""The reference interval rules (tlir.reference.ibp) against the test vectors
of TorchLean's verification engine, derived by hand from its rules (binary64:
every operation rounded to nearest, then one step outward)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tlir
from tlir.bounds import ball, count_interval
from tlir.diagnostics import TlirError
from tlir.reference.ibp import boxes, ibp

F64 = np.dtype(np.float64)


def nd(x: float) -> float:
    return math.nextafter(x, -math.inf)


def nu(x: float) -> float:
    return math.nextafter(x, math.inf)


def unary(op: str, lo, hi, dtype: str = "f64", attrs: str = ""):
    """Bounds of `tlir.<op>` on one box (None where unresolved) and the cause."""
    n = len(lo)
    t = f"tensor<{n}x{dtype}>"
    text = (f"func.func @main(%x: {t}) -> {t} {{\n  %y = tlir.{op} %x {attrs}: ({t}) -> {t}\n"
            f"  func.return %y : {t}\n}}\n")  # fmt: skip
    np_dtype = np.float32 if dtype == "f32" else np.float64
    found = boxes(tlir.parse_module(text), [np.array(lo, np_dtype)], [np.array(hi, np_dtype)])
    box, cause = found.output_boxes()[0], found.output_causes()[0]
    return (None if box is None else (box[0].tolist(), box[1].tolist())), cause


def binary(op: str, x, y):
    t = f"tensor<{len(x[0])}xf64>"
    text = (f"func.func @main(%x: {t}, %y: {t}) -> {t} {{\n  %z = tlir.{op} %x, %y : ({t}, {t}) -> {t}\n"
            f"  func.return %z : {t}\n}}\n")  # fmt: skip
    arrays = [np.array(v, np.float64) for v in (x[0], y[0], x[1], y[1])]
    lows, highs = ibp(tlir.parse_module(text), arrays[:2], arrays[2:])
    return lows[0].tolist(), highs[0].tolist()


def test_ball_widens_one_step_even_when_exact():
    lo, hi = ball(np.array([0.0, 1.0]), 1.0, F64, "x")
    assert lo.tolist() == [-1.0000000000000002, -5e-324]
    assert hi.tolist() == [1.0000000000000002, 2.0000000000000004]
    lo, hi = ball(np.array(1.0), 0.5, F64, "x")
    assert (lo[()], hi[()]) == (0.49999999999999994, 1.5000000000000002)


@pytest.mark.parametrize("eps", [-1.0, math.inf, math.nan, "0.1"])
def test_ball_rejects_a_bad_radius(eps):
    with pytest.raises(TlirError, match="eps"):
        ball(np.zeros(2), eps, F64, "x")


MLP = """
func.func @main(%x: tensor<2xf64>) -> tensor<1xf64> {
  %w1 = tlir.const {value = dense<[[1.0, -2.0], [3.0, 1.0]]> : tensor<2x2xf64>} : tensor<2x2xf64>
  %b1 = tlir.const {value = dense<[0.5, -1.0]> : tensor<2xf64>} : tensor<2xf64>
  %w2 = tlir.const {value = dense<[[1.0, 1.0]]> : tensor<1x2xf64>} : tensor<1x2xf64>
  %b2 = tlir.const {value = dense<[0.0]> : tensor<1xf64>} : tensor<1xf64>
  %z = tlir.linear %x, %w1, %b1 : (tensor<2xf64>, tensor<2x2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %h = tlir.relu %z : (tensor<2xf64>) -> tensor<2xf64>
  %y = tlir.linear %h, %w2, %b2 : (tensor<2xf64>, tensor<1x2xf64>, tensor<1xf64>) -> tensor<1xf64>
  func.return %y : tensor<1xf64>
}
"""


def test_linear_relu_linear_every_node():
    module = tlir.parse_module(MLP)
    lo, hi = ball(np.array([0.0, 1.0]), 1.0, F64, "x")
    found = boxes(module, [lo], [hi])
    by_name = {v.name_hint: b for v, b in found.boxes.items()}
    z, h, y = by_name["z"], by_name["h"], by_name["y"]
    assert [v.hex() for v in z[0]] == ["-0x1.2000000000005p+2", "-0x1.0000000000003p+2"]
    assert [v.hex() for v in z[1]] == ["0x1.8000000000005p+0", "0x1.0000000000005p+2"]
    assert h[0].tolist() == [0.0, 0.0] and h[1].tolist() == z[1].tolist()
    assert y[0].tolist() == [-2.5e-323] and y[1][0].hex() == "0x1.600000000000ap+2"


def test_identity_linear_widens_three_times():
    text = """
func.func @main(%x: tensor<1xf64>) -> tensor<1xf64> {
  %w = tlir.const {value = dense<[[1.0]]> : tensor<1x1xf64>} : tensor<1x1xf64>
  %b = tlir.const {value = dense<[0.0]> : tensor<1xf64>} : tensor<1xf64>
  %y = tlir.linear %x, %w, %b : (tensor<1xf64>, tensor<1x1xf64>, tensor<1xf64>) -> tensor<1xf64>
  func.return %y : tensor<1xf64>
}"""
    lows, highs = ibp(tlir.parse_module(text), [np.ones(1)], [np.ones(1)])
    assert lows[0][0] == nd(nd(nd(1.0) + 0.0) + 0.0) == 0.9999999999999997
    assert highs[0][0] == 1.0000000000000007


def test_bundled_mlp_certificate_vector():
    w1 = [[float(1 + i + j) for j in range(3)] for i in range(4)]
    w2 = [[float(2 + i + j) for j in range(4)] for i in range(2)]
    text = f"""
func.func @main(%x: tensor<3xf64>) -> tensor<2xf64> {{
  %w1 = tlir.const {{value = dense<{w1}> : tensor<4x3xf64>}} : tensor<4x3xf64>
  %b1 = tlir.const {{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>}} : tensor<4xf64>
  %w2 = tlir.const {{value = dense<{w2}> : tensor<2x4xf64>}} : tensor<2x4xf64>
  %b2 = tlir.const {{value = dense<[0.0, 1.0]> : tensor<2xf64>}} : tensor<2xf64>
  %z = tlir.linear %x, %w1, %b1 : (tensor<3xf64>, tensor<4x3xf64>, tensor<4xf64>) -> tensor<4xf64>
  %h = tlir.relu %z : (tensor<4xf64>) -> tensor<4xf64>
  %y = tlir.linear %h, %w2, %b2 : (tensor<4xf64>, tensor<2x4xf64>, tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}}"""
    lo, hi = ball(np.array([1.0, 2.0, 3.0]), 1.0, F64, "x")
    assert lo.tolist() == [-5e-324, 0.9999999999999999, 1.9999999999999998]
    assert hi.tolist() == [2.0000000000000004, 3.0000000000000004, 4.000000000000001]
    found = boxes(tlir.parse_module(text), [lo], [hi])
    h = {v.name_hint: b for v, b in found.boxes.items()}["h"]
    assert h[0].tolist() == [8.999999999999995, 12.999999999999993, 16.99999999999999,
                             20.999999999999986]  # fmt: skip
    assert h[1].tolist() == [21.000000000000018, 31.00000000000002, 41.00000000000003,
                             51.000000000000036]  # fmt: skip
    y_lo, y_hi = found.output_boxes()[0]
    assert [v.hex() for v in y_lo] == ["0x1.cbffffffffff6p+7", "0x1.22ffffffffff9p+8"]
    assert [v.hex() for v in y_hi] == ["0x1.1500000000007p+9", "0x1.5d80000000008p+9"]


def test_interval_products():
    lo, hi = binary("mul_elem", ([-2.0], [3.0]), ([-1.0], [4.0]))
    assert (lo, hi) == ([-8.000000000000002], [12.000000000000002])
    assert binary("mul_elem", ([0.0], [0.0]), ([1.0], [2.0])) == ([-5e-324], [5e-324])
    assert binary("add", ([0.1], [0.1]), ([0.2], [0.2])) == ([0.3], [0.3000000000000001])
    lo, _ = binary("sub", ([1.0], [2.0]), ([0.5], [0.5]))
    assert lo == [0.49999999999999994]


def test_pointwise_vectors():
    assert unary("abs", [-3.0, -5.0, 1.0], [2.0, -2.0, 4.0])[0] == (
        [0.0, 2.0, 1.0],
        [3.0, 5.0, 4.0],
    )
    assert unary("relu", [-2.0, -5.0], [3.0, -1.0])[0] == ([0.0, 0.0], [3.0, 0.0])
    assert unary("softplus", [-2.0], [3.0])[0] == ([0.0], [4.000000000000001])
    assert unary("inv", [2.0], [4.0])[0] == ([0.24999999999999997], [0.5000000000000001])
    assert unary("sqrt", [-1.0], [4.0])[0] == ([-5e-324], [2.0000000000000004])
    assert unary("sigmoid", [-7.0], [9.0])[0] == ([0.0], [1.0])
    assert unary("tanh", [-7.0], [9.0])[0] == ([-1.0], [1.0])
    assert unary("sin", [-7.0], [9.0], "f32")[0] == ([-1.0], [1.0])


@pytest.mark.parametrize(
    "op, lo, hi, dtype, why",
    [
        ("inv", -1.0, 1.0, "f64", "an interval of the divisor contains 0"),
        ("sqrt", -3.0, -1.0, "f64", "an upper bound is < 0"),
        ("log", 1.0, 2.0, "f64", "no interval rule for log on Float"),
        ("exp", 1.0, 2.0, "f32", "no interval rule for exp on Float32"),
        ("sigmoid", 1.0, 2.0, "f32", "no interval rule for sigmoid on Float32"),
        ("tanh", 1.0, 2.0, "f32", "no interval rule for tanh on Float32"),
    ],
)
def test_unresolved_nodes_say_why(op, lo, hi, dtype, why):
    box, cause = unary(op, [lo], [hi], dtype)
    assert box is None
    assert cause.index == 0 and cause.message().endswith(f" (tlir.{op}): {why}")


def test_unresolved_propagates_and_names_the_first_node():
    text = """
func.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %a = tlir.exp %x : (tensor<2xf64>) -> tensor<2xf64>
  %b = tlir.inv %x : (tensor<2xf64>) -> tensor<2xf64>
  %c = tlir.add %b, %a : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %r = tlir.rand_uniform {seed = 1 : i64, node_id = 4 : i64} : tensor<2xf64>
  %s = tlir.sum %c : (tensor<2xf64>) -> tensor<f64>
  %m = tlir.bernoulli_mask %s {seed = 1 : i64, node_id = 5 : i64} : (tensor<f64>) -> tensor<2xf64>
  func.return %c, %m : tensor<2xf64>, tensor<2xf64>
}"""
    module = tlir.parse_module(text)
    found = boxes(module, [np.array([-1.0, 1.0])], [np.array([1.0, 2.0])])
    assert found.output_causes()[0].index == 0  # exp (0) before inv (1)
    assert found.output_boxes()[1] is not None  # random ops read no parent
    values = [op.results[0] for op in list(list(module.ops)[0].body.block.ops)[:6]]
    b, r, s, m = (found.boxes[values[k]] for k in (1, 3, 4, 5))
    assert b is None and s is None and r[1].tolist() == [1.0, 1.0] and m[1].tolist() == [1.0, 1.0]


def test_sum_and_count_interval():
    text = """
func.func @main(%x: tensor<2xf64>) -> tensor<f64> {
  %s = tlir.sum %x : (tensor<2xf64>) -> tensor<f64>
  func.return %s : tensor<f64>
}"""
    lows, highs = ibp(tlir.parse_module(text), [np.array([1.0, 2.0])], [np.array([1.0, 2.0])])
    assert (lows[0][()], highs[0][()]) == (2.9999999999999996, 3.0000000000000004)
    assert count_interval(2, F64) == (1.9999999999999998, 2.0000000000000004)


def test_structural_and_normalisation_vectors():
    sm = "axis = 0"
    assert unary("softmax", [0.0] * 3, [1.0] * 3, attrs=sm)[0] == ([0.0] * 3, [1.0] * 3)
    assert unary("softmax", [5.0], [6.0], attrs=sm)[0] == ([1.0], [1.0])
    mask = "{mask = dense<[true, false, true]> : tensor<3xi1>}"
    assert unary("hard_masked_softmax", [0.0] * 3, [1.0] * 3, attrs=mask)[0] == (
        [0.0, 0.0, 0.0], [1.0, 0.0, 1.0])  # fmt: skip
    mask = "{mask = dense<[false, true, false]> : tensor<3xi1>}"
    assert unary("hard_masked_softmax", [0.0] * 3, [1.0] * 3, attrs=mask)[0] == (
        [0.0, 1.0, 0.0], [0.0, 1.0, 0.0])  # fmt: skip
    ln = "{axis = 0 : i64, eps = 1.0e-05 : f64}"
    r = 2.0000000000000004
    assert unary("layernorm", [0.0] * 4, [1.0] * 4, attrs=ln)[0] == ([-r] * 4, [r] * 4)
    assert unary("layernorm", [0.0], [1.0], attrs=ln)[0] == ([0.0], [0.0])
    box, cause = unary("layernorm", [0.0, math.inf], [1.0, math.inf], attrs=ln)
    assert box is None and "not finite" in cause.reason


def test_batch_norm_and_avg_pool_enclose_the_exact_vectors():
    text = """
func.func @main(%x: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %g = tlir.const {value = dense<2.0> : tensor<1xf64>} : tensor<1xf64>
  %b = tlir.const {value = dense<0.5> : tensor<1xf64>} : tensor<1xf64>
  %m = tlir.const {value = dense<1.0> : tensor<1xf64>} : tensor<1xf64>
  %v = tlir.const {value = dense<3.0> : tensor<1xf64>} : tensor<1xf64>
  %y = tlir.batch_norm_eval %x, %g, %b, %m, %v {channel_axis = 1 : i64, channels = 1 : i64, eps = 1.0 : f64} : (tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> tensor<1x1xf64>
  func.return %y : tensor<1x1xf64>
}"""
    lows, highs = ibp(tlir.parse_module(text), [np.array([[-1.0]])], [np.array([[3.0]])])
    lo, hi = lows[0][0, 0], highs[0][0, 0]
    # exact [-1.5, 2.5]: centred [-2,2] (one step out), /[2,2] (one step), ×2, +0.5
    assert nd(nd(-1.5)) >= lo > -1.5 - 1e-14 and nu(nu(2.5)) <= hi < 2.5 + 1e-14
    for size, pad, lo, hi, want in ((2, 0, [0.0, 1.0], [2.0, 3.0], (0.5, 2.5)),
                                    (1, 1, [1.0], [3.0], (0.5, 1.5))):  # fmt: skip
        out = size + 2 * pad - 1
        text = f"""
func.func @main(%x: tensor<{size}xf64>) -> tensor<{out}xf64> {{
  %y = tlir.avg_pool %x {{kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: {pad}>}} : (tensor<{size}xf64>) -> tensor<{out}xf64>
  func.return %y : tensor<{out}xf64>
}}"""
        out = (size + 2 * pad - 2) // 2 + 1
        text = text.replace(f"tensor<{size + 2 * pad - 1}xf64>", f"tensor<{out}xf64>")
        lows, highs = ibp(tlir.parse_module(text), [np.array(lo)], [np.array(hi)])
        # padding counts in the divisor; the sum and the quotient each step out
        assert want[0] - 1e-14 < lows[0][0] < want[0] and want[1] < highs[0][0] < want[1] + 1e-14


def test_api_errors_are_one_line():
    module = tlir.parse_module(MLP)
    with pytest.raises(TlirError, match="expected 1 lower and upper bounds"):
        boxes(module, [], [])
    with pytest.raises(TlirError, match="lower bound 0 has shape"):
        boxes(module, [np.zeros(3)], [np.zeros(2)])


def test_mse_loss_vector():
    """y ∈ [1, 2], t = [0.5, 0.5]: sub [0.5, 1.5] (one step out), the square,
    then the directed mean over one term (sum from 0, count [nd(1), nu(1)])."""
    text = """
func.func @main(%y: tensor<1xf64>, %t: tensor<1xf64>) -> tensor<f64> {
  %l = tlir.mse_loss %y, %t : (tensor<1xf64>, tensor<1xf64>) -> tensor<f64>
  func.return %l : tensor<f64>
}"""
    lows, highs = ibp(
        tlir.parse_module(text), [np.array([1.0]), np.array([0.5])],
        [np.array([2.0]), np.array([0.5])],
    )  # fmt: skip
    low, high = nd(1.0 - 0.5), nu(2.0 - 0.5)
    sq_lo, sq_hi = min(nd(low * low), nd(high * high)), max(nu(low * low), nu(high * high))
    s_lo, s_hi = nd(0.0 + sq_lo), nu(0.0 + sq_hi)
    c_lo, c_hi = nd(0.0 + 1.0), nu(0.0 + 1.0)
    quotients_lo = [s_lo / c_lo, s_lo / c_hi, s_hi / c_lo, s_hi / c_hi]
    assert lows[0][()] == nd(min(quotients_lo)) and highs[0][()] == nu(max(quotients_lo))
    assert lows[0][()] < 0.25 and 2.25 < highs[0][()] < 2.25 + 1e-14
