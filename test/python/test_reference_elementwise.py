"""Reference evaluator, elementwise ops: values worked out by hand from docs/ops.md."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from conftest import run_mlir, unary_module

NAN, INF = math.nan, math.inf


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def same_bits(a: np.ndarray, b: list[float]) -> bool:
    return [bits(v) for v in np.asarray(a, np.float64).ravel().tolist()] == [bits(v) for v in b]


def unary(op: str, values: list[float], dtype: str = "f64") -> np.ndarray:
    x = np.array(values, np.float32 if dtype == "f32" else np.float64)
    return run_mlir(unary_module(op, f"{len(values)}x", dtype), x)[0]


def test_relu_select_form():
    # select(x <= 0, +0, x): -0 -> +0, NaN stays NaN
    assert same_bits(unary("relu", [-2.0, -0.0, 0.0, 3.5, INF]), [0.0, 0.0, 0.0, 3.5, INF])
    assert math.isnan(unary("relu", [NAN])[0])


def test_sqrt_of_max_with_zero():
    assert same_bits(unary("sqrt", [-4.0, -0.0, 4.0, 2.0]), [0.0, 0.0, 2.0, math.sqrt(2.0)])
    assert math.isnan(unary("sqrt", [NAN])[0])


def test_inv_abs_signed_zero():
    assert same_bits(unary("inv", [0.0, -0.0, 4.0]), [INF, -INF, 0.25])
    assert same_bits(unary("abs", [-0.0, -3.0, 2.0]), [0.0, 3.0, 2.0])


def test_transcendentals_are_the_c_library():
    xs = [0.1 * k - 3.0 for k in range(61)]
    for name in ("exp", "tanh", "sin", "cos"):
        assert same_bits(unary(name, xs), [getattr(math, name)(x) for x in xs]), name
    positive = [0.05 * k + 0.01 for k in range(60)]
    assert same_bits(unary("log", positive), [math.log(x) for x in positive])


def test_log_rejects_non_positive():
    from tlir.diagnostics import TlirError

    with pytest.raises(TlirError, match="not > 0"):
        unary("log", [1.0, 0.0])
    with pytest.raises(TlirError, match="not > 0"):
        unary("log", [NAN])


def test_sigmoid_two_branches():
    xs = [-30.0, -1.0, 0.0, 0.5, 30.0]
    expect = [1 / (1 + math.exp(-x)) if x > 0 else math.exp(x) / (1 + math.exp(x)) for x in xs]
    got = unary("sigmoid", xs)
    assert same_bits(got, expect)
    assert got[2] == 0.5


def test_softplus_two_branches():
    xs = [-20.0, -0.5, 0.0, 0.5, 40.0]
    expect = [x + math.log(1 + math.exp(-x)) if x > 0 else math.log(1 + math.exp(x)) for x in xs]
    assert same_bits(unary("softplus", xs), expect)


def test_max_min_are_leans_select_forms():
    text = """
    func.func @main(%a: tensor<6xf64>, %b: tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>) {
      %mx = tlir.max_elem %a, %b : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xf64>
      %mn = tlir.min_elem %a, %b : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xf64>
      func.return %mx, %mn : tensor<6xf64>, tensor<6xf64>
    }"""
    a = np.array([NAN, 1.0, 0.0, -0.0, 2.0, 5.0])
    b = np.array([1.0, NAN, -0.0, 0.0, 3.0, 4.0])
    mx, mn = run_mlir(text, a, b)
    # max(a,b) = a <= b ? b : a ; min(a,b) = a <= b ? a : b
    assert math.isnan(mx[0]) and mx[1] == 1.0 and mn[0] == 1.0 and math.isnan(mn[1])
    assert same_bits(mx[2:], [-0.0, 0.0, 3.0, 5.0])  # ties give the second operand
    assert same_bits(mn[2:], [0.0, -0.0, 2.0, 4.0])  # ties give the first operand


def test_binary_arithmetic_and_safe_log():
    text = """
    func.func @main(%a: tensor<3xf64>, %b: tensor<3xf64>, %e: tensor<f64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
      %0 = tlir.add %a, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      %1 = tlir.sub %a, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      %2 = tlir.mul_elem %a, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      %3 = tlir.safe_log %a, %e : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
      func.return %0, %1, %2, %3 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
    }"""
    a, b = np.array([0.1, -2.0, 1e300]), np.array([0.2, 0.5, 1e300])
    add, sub, mul, safe = run_mlir(text, a, b, np.array(1e-6))
    assert same_bits(add, [0.1 + 0.2, -1.5, 2e300])
    assert same_bits(sub, [0.1 - 0.2, -2.5, 0.0])
    assert same_bits(mul, [0.1 * 0.2, -1.0, INF])

    def softplus(x):
        return x + math.log(1 + math.exp(-x)) if x > 0 else math.log(1 + math.exp(x))

    assert same_bits(safe[:2], [math.log(softplus(x) + 1e-6) for x in (0.1, -2.0)])


def test_float32_rounds_every_operation_and_uses_float32_libm():
    import ctypes
    import ctypes.util

    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.expf.restype, libm.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    xs = [0.3 * k - 6.0 for k in range(41)]
    got = unary("exp", xs, "f32")
    expect = np.array([libm.expf(float(np.float32(x))) for x in xs], np.float32)
    assert got.dtype == np.float32 and np.array_equal(got, expect)
    # sigmoid in float32: each step rounded to float32
    got = unary("sigmoid", [0.7], "f32")[0]
    t = np.float32(libm.expf(float(np.float32(-0.7))))
    assert got == np.float32(1) / (np.float32(1) + t)


def test_detach_is_identity_and_rank_zero_works():
    x = np.array(-0.0)
    y = run_mlir(unary_module("detach", "", "f64"), x)[0]
    assert y.shape == () and same_bits(y, [-0.0])
