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


def count_interval(n: int, dtype: np.dtype) -> tuple[np.generic, np.generic]:
    """The count of a directed mean: 1 added to (0, 0) `n` times, down and up."""
    return _count_interval(n, np.dtype(dtype).str)


@functools.lru_cache(maxsize=256)
def _count_interval(n: int, dtype_code: str) -> tuple[np.generic, np.generic]:
    dtype = np.dtype(dtype_code)
    one = dtype.type(1)
    low = high = dtype.type(0)
    with np.errstate(all="ignore"):
        for _ in range(n):
            low, high = down(low + one)[()], up(high + one)[()]
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


def ball(center: np.ndarray, eps: float, dtype: np.dtype, where: str) -> tuple[np.ndarray, ...]:
    """TorchLean's ℓ∞ input box: `[subDown(c, eps), addUp(c, eps)]` per
    coordinate, the centre rounded to nearest and `eps` upward into `dtype`."""
    if isinstance(eps, bool) or not isinstance(eps, int | float | np.floating | np.integer):
        raise TlirError(where, f"eps must be a number, got {type(eps).__name__}")
    if not math.isfinite(float(eps)) or float(eps) < 0:
        raise TlirError(where, f"eps must be finite and >= 0, got {eps}")
    c = np.asarray(center).astype(dtype)
    e = outward(float(eps), dtype, lower=False)[()]
    with np.errstate(all="ignore"):
        return down(c - e), up(c + e)


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


def reason(op_name: str, dtype: np.dtype) -> str:
    """Why an op gave no box: its data check, or no rule on the carrier."""
    if op_name in DATA_REASONS:
        return DATA_REASONS[op_name]
    return NO_RULE.format(kind=op_name.removeprefix("tlir."), carrier=carrier_name(dtype))


def unresolved_message(op, index: int, dtype: np.dtype) -> str:
    """`model.json: node 4 (tlir.exp): no interval rule for exp on Float`: the op
    by its location (its index in the function when it has none), and why."""
    from tlir.diagnostics import describe_location

    place = describe_location(op.location, f"op {index}")
    return f"{place} ({op.name}): {reason(op.name, dtype)}"


__all__ = [
    "DATA_REASONS",
    "NO_RULE",
    "RESOLVED",
    "ball",
    "carrier_name",
    "count_interval",
    "down",
    "outward",
    "reason",
    "unresolved_message",
    "up",
]
