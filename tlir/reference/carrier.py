"""TorchLean's scalar carrier on NumPy arrays: `Float` (float64) or `Float32`.

Every helper keeps the carrier's dtype, so each operation rounds to it, and
keeps TorchLean's exact forms: `max`/`min` as `a ≤ b ? b : a` / `a ≤ b ? a : b`,
sums as left folds from +0 in ascending order (never NumPy's pairwise sum),
transcendentals from the C math library (NumPy's own `exp`/`tanh` differ from it
in the last bit on a sizeable share of inputs).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

import numpy as np

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")


def _libm(name: str, c_type) -> Callable[[float], float]:
    """The C function itself (Python's `math` raises where C returns NaN or
    inf, and so loses the sign of a NaN)."""
    function = getattr(_LIBM, name)
    function.restype = c_type
    function.argtypes = [c_type]
    return function


_NAMES = ("exp", "log", "tanh", "sin", "cos")
_F64 = {name: _libm(name, ctypes.c_double) for name in _NAMES}
_F32 = {name: _libm(name + "f", ctypes.c_float) for name in _NAMES}


def libm(name: str, x: np.ndarray) -> np.ndarray:
    """Apply the C library's `name` (float64) or `namef` (float32) elementwise."""
    table = _F32 if x.dtype == np.float32 else _F64
    function = table[name]
    flat = x.ravel()
    out = np.empty_like(flat)
    for index, value in enumerate(flat.tolist()):
        out[index] = function(value)
    return out.reshape(x.shape)


def cmax(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    """Lean's `max a b = if a ≤ b then b else a` (NaN-asymmetric)."""
    return np.where(a <= b, b, a).astype(a.dtype, copy=False)


def cmin(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    """Lean's `min a b = if a ≤ b then a else b`."""
    return np.where(a <= b, a, b).astype(a.dtype, copy=False)


def fold_sum(x: np.ndarray, axis: int) -> np.ndarray:
    """`((0 + x_0) + x_1) + …` along `axis`, vectorised over the other axes."""
    moved = np.moveaxis(x, axis, 0)
    acc = np.zeros(moved.shape[1:], x.dtype)
    for term in moved:
        acc = acc + term
    return acc


def fold_max(x: np.ndarray, axis: int) -> np.ndarray:
    """Softmax's max: start from x_0, `m ← (m ≤ x_i) ? x_i : m`."""
    moved = np.moveaxis(x, axis, 0)
    acc = moved[0].copy()
    for term in moved[1:]:
        acc = np.where(acc <= term, term, acc)
    return acc


def nat(n: int, dtype: np.dtype) -> np.generic:
    """`(n : α)`: a natural number rounded once to the carrier."""
    return dtype.type(n)
