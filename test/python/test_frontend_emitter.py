"""The front ends' shared emitter (tlir/frontend/emitter.py), without torch or
onnx: fixed constants are not parameters, selections and grouped conv weights
as docs/pytorch.md describes them, evaluated by the reference evaluator."""

from __future__ import annotations

import numpy as np
import pytest

from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.frontend.emitter import Emitter, check_dynamic_batch
from tlir.parameters import parameter_names
from tlir.reference import evaluate, vjp


def main_of(module):
    return next(iter(module.ops))


def test_fixed_constants_are_not_parameters():
    e = Emitter("test", np.dtype(np.float64), (2, 3))
    weight = e.parameter(np.ones((3,)), "w")
    mask = e.fixed(np.full((3,), 2.0), "mask")
    y = e.binary(T.MulElemOp, e.binary(T.MulElemOp, e.input, weight), mask)
    module = e.finish([e.binary(T.AddOp, y, 1.5)])
    assert parameter_names(main_of(module)) == ["w"]
    x = np.arange(6.0).reshape(2, 3)
    results = vjp(module, [x], [np.ones((2, 3))])  # [y, dx, dparams...]
    assert len(results) == 3  # one parameter gradient: w's, Σ_rows 2·x
    np.testing.assert_array_equal(results[2], [6.0, 10.0, 14.0])


def test_take_selects_exactly_but_for_negative_zero_and_non_finite_neighbours():
    e = Emitter("test", np.dtype(np.float64), (3, 4))
    module = e.finish([e.take(e.input, 1, [2, 0], keep_axis=True)])
    x = np.array([[1.5, -2.0, 3.25, 7.0], [-0.0, 1.0, -0.0, 2.0], [1.0, np.inf, 4.0, 5.0]])
    (y,) = evaluate(module, [x])
    np.testing.assert_array_equal(y[0], [3.25, 1.5])
    assert y[1, 0] == 0.0 and not np.signbit(y[1, 0])  # -0 comes out +0
    assert np.isnan(y[2]).all()  # an inf elsewhere on the axis: 0·inf


def test_dense_group_weight_is_block_diagonal():
    e = Emitter("test", np.dtype(np.float64), (4, 1, 3))  # packed [outC=4, inC/groups=1, k=3]
    module = e.finish([e.dense_group_weight(e.input, 2)])
    packed = np.arange(12.0).reshape(4, 1, 3) + 1
    (dense,) = evaluate(module, [packed])
    assert dense.shape == (4, 2, 3)
    np.testing.assert_array_equal(dense[:2, 0], packed[:2, 0])
    np.testing.assert_array_equal(dense[2:, 1], packed[2:, 0])
    assert not dense[:2, 1].any() and not dense[2:, 0].any()


def test_dynamic_batch_is_a_bool():
    check_dynamic_batch(False, "here")
    check_dynamic_batch(True, "here")
    with pytest.raises(TlirError, match="dynamic_batch must be True or False, got str"):
        check_dynamic_batch("yes", "here")
