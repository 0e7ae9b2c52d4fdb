"""What interval bound propagation (docs/verification.md) shares between the
reference rules, the `tlir-ibp` pass and the API: the one-step directed
operations on NumPy scalars and arrays, the input boxes, the count interval of
a directed mean, and the words of an unresolved node's reason.

Directed rounding is TorchLean's host policy: the round-to-nearest result moved
one step outward with `nextafter`, unconditionally (binary64 for `Float`,
binary32 for `Float32`), so even an exact `1 + 1` widens.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from tlir.diagnostics import TlirError
from tlir.tight import TIGHT_REASONS, product_threshold, tight

RESOLVED = math.inf
"""The status of a resolved output in the compiled bounds function; an
unresolved one holds the index of the first op on its path that gave no box."""


def down(x: np.ndarray) -> np.ndarray:
    """TorchLean's `nextDown`: NaN and -inf unchanged, ±0 to the smallest negative subnormal."""
    x = np.asarray(x)
    return np.nextafter(x, x.dtype.type(-np.inf))


def up(x: np.ndarray) -> np.ndarray:
    """TorchLean's `nextUp`: NaN and +inf unchanged, ±0 to the smallest positive subnormal."""
    x = np.asarray(x)
    return np.nextafter(x, x.dtype.type(np.inf))


def sum_error(a, b, s):
    """Knuth's TwoSum: `a + b - s` exactly for `s = RN(a + b)` when no step
    overflows; any overflow makes it ±inf or NaN (each later step only adds or
    subtracts), so a finite result is the exact error."""
    moved = s - a
    return (a - (s - moved)) + (b - moved)


def add_down_tight(a, b):
    """`a + b` rounded to nearest, one step down only where the exact sum
    `s + e` is below it (e < 0), or where e is not finite (overflow, NaN)."""
    s = np.asarray(a + b)
    e = sum_error(a, b, s)
    return np.where((e - e == 0) & (e >= 0), s, down(s))


def add_up_tight(a, b):
    s = np.asarray(a + b)
    e = sum_error(a, b, s)
    return np.where((e - e == 0) & (e <= 0), s, up(s))


def product_error(a, b, p) -> np.ndarray:
    """A value with the sign of `a·b − p` (p = RN(a·b)) wherever
    `product_known` holds; compiled code computes `fma(a, b, −p)`, exact there.
    Float32: the product of two float32 is exact in float64, and so is its
    difference with p. Float64: the significands (`frexp`, in [0.5, 1)) are
    multiplied with Dekker's exact product (Veltkamp's split by 2^27 + 1),
    which cannot overflow or underflow at that scale, and p scaled alike."""
    a, b, p = np.asarray(a), np.asarray(b), np.asarray(p)
    if a.dtype == np.float32:
        return a.astype(np.float64) * b.astype(np.float64) - p.astype(np.float64)
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    x = ma * mb
    split = 134217729.0  # 2^27 + 1
    ta, tb = split * ma, split * mb
    ah, bh = ta - (ta - ma), tb - (tb - mb)
    al, bl = ma - ah, mb - bh
    y = ((ah * bh - x) + ah * bl + al * bh) + al * bl
    scaled = np.ldexp(p, -(ea + eb))
    return (x - scaled) + y


def product_known(a, b, p) -> np.ndarray:
    """Where the error of `p = RN(a·b)` is known exactly: p finite, and |p|
    above `product_threshold` (no underflow in the error) or a factor zero."""
    a, b, p = np.asarray(a), np.asarray(b), np.asarray(p)
    big = np.abs(p) >= p.dtype.type(product_threshold(p.dtype))
    return (p - p == 0) & (big | (a == 0) | (b == 0))


def mul_down_tight(a, b):
    p = np.asarray(a * b)
    keep = product_known(a, b, p) & (product_error(a, b, p) >= 0)
    return np.where(keep, p, down(p))


def mul_up_tight(a, b):
    p = np.asarray(a * b)
    keep = product_known(a, b, p) & (product_error(a, b, p) <= 0)
    return np.where(keep, p, up(p))


def remainder(a, b, q) -> np.ndarray:
    """A value with the sign of `a − q·b` wherever `quotient_known` holds;
    compiled code computes `fma(−q, b, a)`. There `a − q·b` is a nonzero
    multiple of the smallest subnormal or 0 (the quanta of a and of q·b are at
    least that), so one rounding keeps its sign. Float32: exact in float64.
    Float64: Dekker's exact product of the significands of q and b against a
    scaled alike (q normal, so a scaled is within a factor 2 of it: the
    difference is exact)."""
    a, b, q = np.asarray(a), np.asarray(b), np.asarray(q)
    if q.dtype == np.float32:
        wide = np.float64
        return a.astype(wide) - q.astype(wide) * b.astype(wide)
    mq, eq = np.frexp(q)
    mb, eb = np.frexp(b)
    x = mq * mb
    split = 134217729.0  # 2^27 + 1
    tq, tb = split * mq, split * mb
    qh, bh = tq - (tq - mq), tb - (tb - mb)
    ql, bl = mq - qh, mb - bh
    y = ((qh * bh - x) + qh * bl + ql * bh) + ql * bl
    return (np.ldexp(a, -(eq + eb)) - x) - y


def quotient_known(a, b, q) -> np.ndarray:
    """Where the sign of the error of `q = RN(a/b)` is known: a, b, q finite,
    and q normal with |RN(q·b)| above `product_threshold`, or a zero (and b
    not): then the quotient is exactly ±0."""
    a, b, q = np.asarray(a), np.asarray(b), np.asarray(q)
    info = np.finfo(q.dtype)
    threshold = q.dtype.type(product_threshold(q.dtype))
    finite = (a - a == 0) & (b - b == 0) & (q - q == 0)
    big = (np.abs(q) >= info.smallest_normal) & (np.abs(q * b) >= threshold)
    return finite & (big | ((a == 0) & (b != 0)))


def div_down_tight(a, b):
    """`a / b` rounded to nearest, one step down unless the exact quotient
    `q + (a − q·b)/b` is not below it."""
    q = np.asarray(a / b)
    r = remainder(a, b, q)
    above = (r == 0) | ((r > 0) == (np.asarray(b) > 0))
    return np.where(quotient_known(a, b, q) & above, q, down(q))


def div_up_tight(a, b):
    q = np.asarray(a / b)
    r = remainder(a, b, q)
    below = (r == 0) | ((r < 0) == (np.asarray(b) > 0))
    return np.where(quotient_known(a, b, q) & below, q, up(q))


def count_interval(n: int, dtype: np.dtype) -> tuple[np.generic, np.generic]:
    """The count of a directed mean: 1 added to (0, 0) `n` times, down and up
    (exactly `n` in the tight rules while n is exact in the carrier)."""
    return _count_interval(n, np.dtype(dtype).str, tight())


@functools.lru_cache(maxsize=256)
def _count_interval(n: int, dtype_code: str, exact: bool) -> tuple[np.generic, np.generic]:
    dtype = np.dtype(dtype_code)
    one = dtype.type(1)
    low = high = dtype.type(0)
    add_low = add_down_tight if exact else lambda a, b: down(a + b)
    add_high = add_up_tight if exact else lambda a, b: up(a + b)
    with np.errstate(all="ignore"):
        for _ in range(n):
            low, high = add_low(low, one)[()], add_high(high, one)[()]
    return low, high


def outward(values, dtype: np.dtype, lower: bool) -> np.ndarray:
    """`values` in `dtype`: exact when it holds them, else rounded outward (a
    lower end down, an upper end up)."""
    wide = np.asarray(values, np.float64)
    narrow = wide.astype(dtype)
    if dtype == np.float64:
        return narrow
    with np.errstate(all="ignore"):
        moved = narrow.astype(np.float64) > wide if lower else narrow.astype(np.float64) < wide
        step = down(narrow) if lower else up(narrow)
    return np.where(moved, step, narrow).astype(dtype)


def ball(
    center: np.ndarray, eps: float, dtype: np.dtype, where: str, rules: str = "torchlean"
) -> tuple[np.ndarray, ...]:
    """TorchLean's ℓ∞ input box: `[subDown(c, eps), addUp(c, eps)]` per
    coordinate, the centre rounded to nearest and `eps` upward into `dtype`
    (the tight rules' `subDown`/`addUp` with `rules="tight"`)."""
    if isinstance(eps, bool) or not isinstance(eps, int | float | np.floating | np.integer):
        raise TlirError(where, f"eps must be a number, got {type(eps).__name__}")
    if not math.isfinite(float(eps)) or float(eps) < 0:
        raise TlirError(where, f"eps must be finite and >= 0, got {eps}")
    if type(center) is np.ndarray and center.dtype == dtype:
        c = center  # only read: the ends are new arrays
    else:
        c = np.asarray(center).astype(dtype)
    e = _radius(float(eps), np.dtype(dtype).str)
    with np.errstate(all="ignore"):
        if rules == "tight":
            return add_down_tight(c, -e), add_up_tight(c, e)
        return down(c - e), up(c + e)


@functools.lru_cache(maxsize=256)
def _radius(eps: float, dtype_code: str) -> np.generic:
    """`eps` rounded upward into the carrier (once per radius: a call of
    `ibp_ball` on a small model would spend as long on it as on the bounds)."""
    return outward(eps, np.dtype(dtype_code), lower=False)[()]


NO_RULE = "no interval rule for {kind} on {carrier}"

DATA_REASONS = {
    "tlir.sqrt": "an upper bound is < 0",
    "tlir.inv": "an interval of the divisor contains 0",
    "tlir.safe_log": "a lower bound of softplus(x) + eps is not > 0",
    "tlir.reduce_mean": "a sum or a quotient is not finite",
    "tlir.avg_pool": "a sum or a quotient is not finite",
    "tlir.mse_loss": "a sum or a quotient is not finite",
    "tlir.batch_norm_eval": "a parameter, an intermediate or a denominator is not finite "
    "or not > 0",
    "tlir.layernorm": "an input, a parameter, an intermediate or a denominator is not "
    "finite or not > 0",
}
"""Why an op's rule gave no box on the values it was given (the compiled
bounds report the node; its reason is this)."""


def carrier_name(dtype: np.dtype) -> str:
    return "Float32" if dtype == np.float32 else "Float"


def reason(op_name: str, dtype: np.dtype, rules: str = "torchlean") -> str:
    """Why an op gave no box: its data check, or no rule on the carrier."""
    if rules == "tight" and op_name in TIGHT_REASONS:
        return TIGHT_REASONS[op_name]
    if op_name in DATA_REASONS:
        return DATA_REASONS[op_name]
    return NO_RULE.format(kind=op_name.removeprefix("tlir."), carrier=carrier_name(dtype))


def unresolved_message(op, index: int, dtype: np.dtype, rules: str = "torchlean") -> str:
    """`model.json: node 4 (tlir.exp): no interval rule for exp on Float`: the op
    by its location (its index in the function when it has none), and why."""
    from tlir.diagnostics import describe_location

    place = describe_location(op.location, f"op {index}")
    return f"{place} ({op.name}): {reason(op.name, dtype, rules)}"


__all__ = [
    "DATA_REASONS",
    "add_down_tight",
    "add_up_tight",
    "NO_RULE",
    "RESOLVED",
    "ball",
    "carrier_name",
    "count_interval",
    "down",
    "mul_down_tight",
    "mul_up_tight",
    "outward",
    "product_error",
    "product_known",
    "reason",
    "unresolved_message",
    "up",
]
