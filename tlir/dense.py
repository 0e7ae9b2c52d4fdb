"""NumPy arrays to and from MLIR dense elements attributes, without per-element work."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    TensorType,
)


def element_type(dtype: np.dtype) -> Float32Type | Float64Type:
    return Float32Type() if np.dtype(dtype) == np.float32 else Float64Type()


def numpy_to_dense(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    """A dense attribute of `tensor<shape x f32|f64>` holding `array`'s bits."""
    dtype = np.dtype(array.dtype)
    little = np.ascontiguousarray(array, dtype=dtype.newbyteorder("<"))
    typ = TensorType(element_type(dtype), list(array.shape))
    return DenseIntOrFPElementsAttr(typ, BytesAttr(little.tobytes()))


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
