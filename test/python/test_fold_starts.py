"""A fold's start where its region does not read it (`convert-tlir-to-linalg`
gives that result an empty tensor and erases the start's computation): the
result is the last term's, on both back ends; an empty reduced range keeps
the start (then the result)."""

from __future__ import annotations

import numpy as np
import pytest
from test_ibp_compiled import BACKENDS

import tlir

FOLD = """
func.func @main(%a: tensor<2x{n}xf64>, %s: tensor<f64>) -> (tensor<2xf64>, tensor<2xf64>) {{
  %z = tlir.broadcast_to %s : (tensor<f64>) -> tensor<2xf64>
  %w = tlir.broadcast_to %s : (tensor<f64>) -> tensor<2xf64>
  %last, %sum = tlir_ad.fold ins(%a) init(%z, %w) {{bounds = array<i64: 2, {n}>, maps = [affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "reduction"]}} : (tensor<2x{n}xf64>), (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>, tensor<2xf64> {{
  ^bb0(%x: f64, %acc0: f64, %acc1: f64):
    %t = arith.addf %acc1, %x : f64
    tlir_ad.yield %x, %t : f64, f64
  }}
  func.return %last, %sum : tensor<2xf64>, tensor<2xf64>
}}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_unread_start_gives_the_last_term(backend):
    model = tlir.compile(tlir.parse_module(FOLD.format(n=3)), backend=backend)
    last, total = model(np.array([[1.0, 2.0, 3.0], [4.0, -0.0, 6.0]]), np.array(0.5))
    np.testing.assert_array_equal(last, [3.0, 6.0])
    np.testing.assert_array_equal(total, [6.5, 10.5])


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_range_gives_the_start(backend):
    model = tlir.compile(tlir.parse_module(FOLD.format(n=0)), backend=backend)
    last, total = model(np.zeros((2, 0)), np.array(-7.25))
    np.testing.assert_array_equal(last, [-7.25, -7.25])
    np.testing.assert_array_equal(total, [-7.25, -7.25])
