"""Attributes built without xDSL's verifier (tlir.attrs): the same attribute
as the verified constructor's, for the importer's locations and payloads."""

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float32Type,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
)
from xdsl.utils.exceptions import VerifyException

from tlir.attrs import name_location, unverified
from tlir.dense import dense_to_numpy, numpy_to_dense
from tlir.diagnostics import node_location


def test_name_location_equals_the_verified_one():
    built = node_location("m.json", 7)
    expected = NameLoc(StringAttr("m.json: node 7"), NoneAttr())
    assert built == expected and hash(built) == hash(expected)
    assert str(built) == 'loc("m.json: node 7")'
    assert name_location("x") == NameLoc(StringAttr("x"), NoneAttr())


def test_unverified_skips_the_verifier_only():
    typ = TensorType(Float32Type(), [])
    two_values = BytesAttr(bytes(8))  # a zero-rank tensor holds one value
    with pytest.raises(VerifyException):
        DenseIntOrFPElementsAttr(typ, two_values)
    attr = unverified(DenseIntOrFPElementsAttr, typ, two_values)
    assert attr.type == typ and attr.data == two_values


def test_numpy_to_dense_equals_the_verified_attribute():
    array = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    dense = numpy_to_dense(array)
    typ = TensorType(Float32Type(), [2, 3])
    assert dense == DenseIntOrFPElementsAttr(typ, BytesAttr(array.astype("<f4").tobytes()))
    np.testing.assert_array_equal(dense_to_numpy(dense), array)
