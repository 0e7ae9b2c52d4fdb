"""TorchLean's `Dual` scalar on NumPy arrays: the reference of forward mode
(docs/autodiff.md#forward-mode-dual-valued-execution).

A `Dual` holds a primal and a tangent array of one carrier dtype. Its operators
are the spec's instances, each native operation in TorchLean's order:
products `(da·b) + (a·db)`, the quotient rule of D1
(docs/autodiff.md#d1-quotient-rule), Max/Min that return the
strict winner and split ties (and NaN) ½/½, the guarded sqrt and abs, `log`
dividing plainly. Comparisons look at primals only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tlir.reference.carrier import cmax, cmin, libm


@dataclass
class Dual:
    re: np.ndarray
    du: np.ndarray

    @property
    def dtype(self) -> np.dtype:
        return self.re.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.re.shape

    def const(self, value: float) -> Dual:
        """A literal of the carrier: (value, 0)."""
        return Dual(np.asarray(value, self.dtype), np.asarray(0, self.dtype))

    def _lift(self, other: Dual | float) -> Dual:
        return other if isinstance(other, Dual) else self.const(other)

    def __add__(self, other: Dual | float) -> Dual:
        o = self._lift(other)
        return Dual(self.re + o.re, self.du + o.du)

    def __radd__(self, other: float) -> Dual:
        return self.const(other) + self

    def __sub__(self, other: Dual | float) -> Dual:
        o = self._lift(other)
        return Dual(self.re - o.re, self.du - o.du)

    def __rsub__(self, other: float) -> Dual:
        return self.const(other) - self

    def __neg__(self) -> Dual:
        return Dual(-self.re, -self.du)

    def __mul__(self, other: Dual | float) -> Dual:
        o = self._lift(other)
        return Dual(self.re * o.re, self.du * o.re + self.re * o.du)

    def __truediv__(self, other: Dual | float) -> Dual:
        """D1: q = a/b, den = b·b, n1 = da·b, n2 = a·db, dq = (n1 − n2)/den."""
        o = self._lift(other)
        q = self.re / o.re
        den = o.re * o.re
        n1 = self.du * o.re
        n2 = self.re * o.du
        return Dual(q, (n1 - n2) / den)

    def __rtruediv__(self, other: float) -> Dual:
        return self.const(other) / self

    def __getitem__(self, index) -> Dual:
        return Dual(self.re[index], self.du[index])

    def full(self) -> Dual:
        """Both parts broadcast to one shape (after a literal took part)."""
        re, du = np.broadcast_arrays(self.re, self.du)
        return Dual(re.astype(self.dtype), du.astype(self.dtype))


def where(condition: np.ndarray, a: Dual, b: Dual) -> Dual:
    """Select whole duals by a condition on primals."""
    dtype = a.dtype
    return Dual(
        np.where(condition, a.re, b.re).astype(dtype), np.where(condition, a.du, b.du).astype(dtype)
    )


def zero_like(x: Dual) -> Dual:
    return x.const(0)


def _half(x: Dual) -> np.generic:
    return x.dtype.type(1) / x.dtype.type(2)


def dual_max(a: Dual, b: Dual) -> Dual:
    """a > b: a; b > a: b; else (max(a, b), ½·da + ½·db)."""
    h = _half(a)
    tie = Dual(cmax(np.asarray(a.re), b.re), h * a.du + h * b.du)
    return where(a.re > b.re, a, where(b.re > a.re, b, tie))


def dual_min(a: Dual, b: Dual) -> Dual:
    h = _half(a)
    tie = Dual(cmin(np.asarray(a.re), b.re), h * a.du + h * b.du)
    return where(a.re < b.re, a, where(b.re < a.re, b, tie))


def exp(x: Dual) -> Dual:
    e = libm("exp", np.asarray(x.re))
    return Dual(e, e * x.du)


def log(x: Dual) -> Dual:
    """(log a, da / a): the carrier's division, not the quotient rule."""
    return Dual(libm("log", np.asarray(x.re)), x.du / x.re)


def tanh(x: Dual) -> Dual:
    t = libm("tanh", np.asarray(x.re))
    return Dual(t, (x.dtype.type(1) - t * t) * x.du)


def sin(x: Dual) -> Dual:
    return Dual(libm("sin", np.asarray(x.re)), libm("cos", np.asarray(x.re)) * x.du)


def cos(x: Dual) -> Dual:
    return Dual(libm("cos", np.asarray(x.re)), -libm("sin", np.asarray(x.re)) * x.du)


def sqrt(x: Dual) -> Dual:
    """The Dual sqrt: r = sqrt a; a > 0 ? da / (2·r) : 0 (2 a natural cast)."""
    r = np.sqrt(x.re)
    two = x.dtype.type(2)
    return Dual(r, np.where(x.re > 0, x.du / (two * r), x.dtype.type(0)).astype(x.dtype))


def absolute(x: Dual) -> Dual:
    zero = x.dtype.type(0)
    tangent = np.where(x.re > 0, x.du, np.where(x.re < 0, -x.du, zero))
    return Dual(np.abs(x.re), tangent.astype(x.dtype))


def guarded_sqrt(x: Dual) -> Dual:
    """The spec's sqrt(max(x, 0))."""
    return sqrt(dual_max(x, zero_like(x)))


def fold_sum(x: Dual, axis: int) -> Dual:
    """A dual left fold of + from (0, 0) along `axis`."""
    re, du = np.moveaxis(x.re, axis, 0), np.moveaxis(x.du, axis, 0)
    acc = Dual(np.zeros(re.shape[1:], x.dtype), np.zeros(re.shape[1:], x.dtype))
    for k in range(re.shape[0]):
        acc = acc + Dual(re[k], du[k])
    return acc


def apply(function, x: Dual, *args, **kwargs) -> Dual:
    """An index move applied to both parts."""
    return Dual(function(x.re, *args, **kwargs), function(x.du, *args, **kwargs))
