"""NumPy arrays to and from MLIR dense elements attributes, without per-element work."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    TensorType,
)
from xdsl.ir import Attribute

from tlir.attrs import unverified


def element_type(dtype: np.dtype) -> Float32Type | Float64Type:
    return Float32Type() if np.dtype(dtype) == np.float32 else Float64Type()


def numpy_to_dense(array: np.ndarray, typ: TensorType | None = None) -> DenseIntOrFPElementsAttr:
    """A dense attribute of `tensor<shape x f32|f64>` holding `array`'s bits;
    `typ`, when given, is that type already built (a builder's cached type)."""
    dtype = np.dtype(array.dtype)
    little = np.ascontiguousarray(array, dtype=dtype.newbyteorder("<"))
    if typ is None:
        typ = TensorType(element_type(dtype), list(array.shape))
    # Valid by construction (the bytes of an array of the type's shape and
    # element type), so not verified again: one per payload of an imported graph.
    return unverified(DenseIntOrFPElementsAttr, typ, BytesAttr(little.tobytes()))


def dense_to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The attribute's values as a float32/float64 array of its shape."""
    typ = attr.get_type() if hasattr(attr, "get_type") else attr.type
    dtype = np.dtype("<f4") if isinstance(typ.element_type, Float32Type) else np.dtype("<f8")
    shape = tuple(typ.get_shape())
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.frombuffer(attr.data.data, dtype=dtype)
    if raw.size == 1 and count != 1:  # a splat
        raw = np.full(count, raw[0], dtype)
    return raw.astype(dtype.newbyteorder("="), copy=True).reshape(shape)


def round_to(value: float, typ: Attribute) -> float:
    """`value` rounded once to `typ` (f32: IEEE round-to-nearest-even, so a finite
    f64 beyond binary32's range becomes ±inf, as everywhere a constant meets the
    float32 carrier — see docs/numerics.md)."""
    if isinstance(typ, Float32Type):
        with np.errstate(over="ignore"):
            return float(np.float32(value))
    return float(value)


def float_attr(value: float, typ: Attribute) -> FloatAttr:
    """A float constant of type `typ`, rounded to it first (xDSL refuses to
    store a finite f64 beyond binary32's range in an f32 attribute)."""
    return FloatAttr(round_to(value, typ), typ)


def to_carrier(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 values in the carrier `dtype`: rounded once, overflow to ±inf
    being the intended IEEE rounding (so NumPy's warning about it is silenced).
    Values already in `dtype` are returned as they are, every bit kept (a
    round trip through float64 would quiet a float32 signalling NaN)."""
    if isinstance(values, np.ndarray) and values.dtype == dtype:
        return values
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(dtype)
