"""The affine ops of relu-mode CROWN (docs/verification.md#crown): each as
`y = M·x + b` on its varying operand `x`, with `M` within `radius` of a point
operator and `b` in a box, and the sound boxes of `y` they give.

An operator multiplies coefficients (`times`: `a @ M`), and values
(`forward`: `M @ v`, or `|M| @ v`), without forming `M` where the op has
structure (a linear's weight row by row, a conv's own windows and transposed
windows), and knows the most nonzero products of one sum each way (`terms`,
`forward_terms`) for the error bounds of `tlir.reference.sound_linalg`.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation

from tlir.dialects import tlir as T
from tlir.optable import OpTable
from tlir.reference import crown_maps as maps
from tlir.reference.interval import Box, div_bounds, interval_mul, max2, sqrt_bounds
from tlir.reference.sound_linalg import (
    F64,
    UNIT,
    PointMatrix,
    absolute,
    add_down,
    add_up,
    centre_radius,
    dense,
    is_sparse,
    mul_up,
    relative,
    signed_rows,
    sub_down,
    sub_up,
    up_scalar,
    upper_sum,
)


class RowsLinear:
    """`linear`'s `W` (n × m) on every one of `lead` rows of its input."""

    def __init__(self, weight: np.ndarray, lead: int):
        self.weight, self.magnitude_weight, self.lead = weight, np.abs(weight), lead
        nonzero = weight != 0
        self.terms = int(nonzero.sum(axis=0).max(initial=0))
        self.forward_terms = int(nonzero.sum(axis=1).max(initial=0))

    def times(self, left) -> np.ndarray:
        n, m = self.weight.shape
        rows = left.shape[0]
        if is_sparse(left):
            if self.lead == 1:
                picked = signed_rows(left, self.weight)
                return left @ self.weight if picked is None else picked
            left = dense(left)
        return (left.reshape(rows * self.lead, n) @ self.weight).reshape(rows, self.lead * m)

    def forward(self, v: np.ndarray, magnitude: bool = False) -> np.ndarray:
        """`M @ v` (or `|M| @ v`), `v` a vector or a matrix of columns."""
        weight = self.magnitude_weight if magnitude else self.weight
        if self.lead == 1:
            return weight @ v
        columns = v.reshape(self.lead, weight.shape[1], -1)
        return (weight @ columns).reshape((-1, *v.shape[1:]))


class Diagonal:
    """A diagonal matrix (a per-cell scale)."""

    def __init__(self, scale: np.ndarray):
        self.scale, self.terms, self.forward_terms = scale, 1, 1

    def times(self, left):
        if is_sparse(left):
            out = left.tocsr(copy=True)
            out.data = out.data * self.scale[out.indices]
            return out
        return left * self.scale

    def forward(self, v: np.ndarray, magnitude: bool = False) -> np.ndarray:
        scale = np.abs(self.scale) if magnitude else self.scale
        return (scale if v.ndim == 1 else scale[:, np.newaxis]) * v


@dataclass(frozen=True)
class Affine:
    """`y = M·x + b` on operand `operand` (flat, float64): `M` within
    `radius` of the point operator `matrix` (`radius(v)` bounds `|M − M̃|·v`
    above for `v ≥ 0`; None: `M` is the point), `b` in the box `bias`.
    `exact_ibp`: TorchLean's IBP rule of the op is, in exact arithmetic, the
    range of this map on a box (point parameters, a single linear product)."""

    operand: int
    matrix: object
    bias: Box
    radius: Callable[[np.ndarray], np.ndarray] | None = None
    exact_ibp: bool = False
    roundings: int = 1
    extra: np.ndarray | None = None

    @functools.cached_property
    def bias_centre_radius(self) -> tuple[np.ndarray, np.ndarray]:
        """`centre_radius(bias)`, once per map (a map is kept across calls)."""
        return centre_radius(self.bias)

    def sizes(self, size: np.ndarray) -> np.ndarray:
        """An upper bound of `(|M̃| + R)·m` for sizes `m ≥ 0` of the operand."""
        matrix = self.matrix
        with np.errstate(all="ignore"):
            w = upper_sum(matrix.forward(size, magnitude=True), max(matrix.forward_terms, 1))
            return w if self.radius is None else add_up(w, self.radius(size))

    def evaluation_error(self, sizes: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """An upper bound of how far the evaluator's rounded `y` (in the
        model's carrier) is from the exact map of its operand: a sum of
        `n = roundings` rounded terms, each at most `sizes` (`(|M̃| + R)·m`)
        plus the bias's size (or `extra`: the sizes of the terms the op
        rounds besides its products), is within `γ(n)` of their sum."""
        n = self.roundings + max(self.matrix.forward_terms, 1)
        factor, tiny = _evaluation_factors(n, np.dtype(dtype))
        with np.errstate(all="ignore"):
            return add_up(mul_up(add_up(sizes, self.extra_sizes), factor), tiny)

    @functools.cached_property
    def extra_sizes(self) -> np.ndarray:
        """`extra`, or the bias's sizes: once per map."""
        if self.extra is not None:
            return self.extra
        return np.maximum(np.abs(self.bias[0]), np.abs(self.bias[1]))

    @functools.cached_property
    def bias_spread(self) -> np.ndarray:
        """`radius(b) + relative(n)·(|centre(b)| + radius(b))` rounded up (`n`
        the output's size): the bias's part of `AffineTerms`, once per map."""
        centre, radius = self.bias_centre_radius
        with np.errstate(all="ignore"):
            scaled = mul_up(add_up(np.abs(centre), radius), relative(max(centre.size, 1)))
            return add_up(radius, scaled)


@functools.lru_cache(maxsize=256)
def _evaluation_factors(n: int, dtype: np.dtype) -> tuple[np.float64, np.float64]:
    """`evaluation_error`'s relative factor `2(n + 1)·u` and absolute term
    (at least `2(n + 1)·η` of the carrier), rounded up."""
    info = np.finfo(dtype)
    factor = up_scalar(2.0 * (n + 1) * float(info.eps) / 2)
    tiny = max(up_scalar(2.0 * (n + 1) * float(info.smallest_subnormal)), absolute(n))
    return factor, tiny


def _point(box: Box | None) -> np.ndarray | None:
    found = maps.point(box)
    return None if found is None else np.asarray(found, F64)


AFFINE_RULES: OpTable = OpTable("CROWN affine map")


@AFFINE_RULES.register(T.LinearOp)
def _linear(op, boxes):
    weight, bias = _point(boxes[1]), _point(boxes[2])
    if weight is None or bias is None:
        return None
    lead = maps.size(op.operands[0]) // weight.shape[1]
    tiled = np.tile(bias, lead)
    return Affine(0, RowsLinear(weight, lead), (tiled, tiled), exact_ibp=True, roundings=2)


@AFFINE_RULES.register(T.ConvOp)
def _conv(op, boxes):
    weight, bias = _point(boxes[1]), _point(boxes[2])
    if weight is None or bias is None:
        return None
    flat = maps.conv_bias(op, bias)
    return Affine(0, maps.ConvTranspose(op, weight), (flat, flat), exact_ibp=True, roundings=2)


@AFFINE_RULES.register(T.MatmulOp)
def _matmul(op, boxes):
    found = maps.linear_map(op, boxes)
    if found is None:
        return None
    zeros = np.zeros(maps.size(op.results[0]), F64)
    matrix = PointMatrix.of(found.matrix)
    return Affine(found.operand, matrix, (zeros, zeros), exact_ibp=True)


@AFFINE_RULES.register(T.AvgPoolOp)
def _avg_pool(op, boxes):
    """The window sums' 0/1 incidence matrix times `q = fl(1/K)`, within
    `|1/K − q| ≤ u·q/(1 − u) ≤ 2u·q` per entry of the exact `1/K`."""
    incidence = maps.avg_pool_incidence(op, F64)
    q = 1.0 / float(maps.kernel_volume(op))
    terms = int(np.count_nonzero(incidence, axis=1).max(initial=0))
    width = float(up_scalar(2 * UNIT * q))

    def radius(v: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return mul_up(upper_sum(incidence @ v, max(terms, 1)), width)

    zeros = np.zeros(maps.size(op.results[0]), F64)
    return Affine(0, PointMatrix.of(incidence * q), (zeros, zeros), radius, roundings=3)


def _batch_norm_scale_shift(op: T.BatchNormEvalOp, params: list[Box]) -> tuple[Box, Box] | None:
    """Scale `γ/sqrt(max(var, 0) + eps)` and shift `β − mean·scale` per channel,
    as intervals from the parameters' boxes by the directed operations."""
    (g_lo, g_hi), (b_lo, b_hi), (m_lo, m_hi), (v_lo, v_hi) = params
    dtype = g_lo.dtype
    eps, zero = dtype.type(op.eps.value.data), dtype.type(0)
    with np.errstate(all="ignore"):
        d_lo, d_hi, ok = sqrt_bounds(add_down(max2(v_lo, zero), eps), add_up(max2(v_hi, zero), eps))
        s_lo, s_hi, ok2 = div_bounds(g_lo, g_hi, d_lo, d_hi)
        p_lo, p_hi = interval_mul(m_lo, m_hi, s_lo, s_hi)
        t_lo, t_hi = sub_down(b_lo, p_hi), sub_up(b_hi, p_lo)
    finite = np.isfinite(np.stack([s_lo, s_hi, t_lo, t_hi]))
    if not (np.all(ok & ok2 & (d_lo > 0)) and np.all(finite)):
        return None
    return (s_lo, s_hi), (t_lo, t_hi)


@AFFINE_RULES.register(T.BatchNormEvalOp)
def _batch_norm_eval(op, boxes):
    """A diagonal map: the scale interval's centre, its radius the matrix's."""
    params = boxes[1:]
    if any(p is None for p in params):
        return None
    found = _batch_norm_scale_shift(op, params)
    if found is None:
        return None
    (s_lo, s_hi), (t_lo, t_hi) = found
    shape = tuple(op.input.type.get_shape())
    axis = op.channel_axis.value.data
    channels = np.arange(shape[axis]).reshape((-1,) + (1,) * (len(shape) - axis - 1))
    channel = np.broadcast_to(channels, shape).reshape(-1)
    centre, spread = centre_radius((s_lo[channel], s_hi[channel]))
    bias = (t_lo[channel].astype(F64), t_hi[channel].astype(F64))
    # the evaluator's ((x − mean) / std)·γ + β: six roundings of terms at most
    # |scale|·(|x| + |mean|) and |β|
    scale = np.maximum(np.abs(s_lo), np.abs(s_hi)).astype(F64)
    mean = np.maximum(np.abs(params[2][0]), np.abs(params[2][1])).astype(F64)
    beta = np.maximum(np.abs(params[1][0]), np.abs(params[1][1])).astype(F64)
    with np.errstate(all="ignore"):
        extra = add_up(mul_up(scale, mean), beta)[channel]

    def radius(v: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return mul_up(spread, v)

    return Affine(0, Diagonal(centre), bias, radius, roundings=8, extra=extra)


_MAPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""op → (its operands' boxes, its map): a linear or conv op met again with
the same parameters (a bound computed at many inputs) keeps its map, whose
sparse matrix took time to build."""


def _same_boxes(old: list[Box | None], new: list[Box | None]) -> bool:
    return len(old) == len(new) and all(
        (a is None) == (b is None) and (a is None or all(
            x is y or (x.shape == y.shape and np.array_equal(x, y))
            for x, y in zip(a, b, strict=True)))
        for a, b in zip(old, new, strict=True))  # fmt: skip


def affine_map(op: Operation, boxes: list[Box | None]) -> Affine | None:
    """The op as an affine map of its one varying operand, or None."""
    rule = AFFINE_RULES.lookup(op)
    if rule is None:
        return None
    if not isinstance(op, T.LinearOp | T.ConvOp):
        return rule(op, boxes)
    params = boxes[1:]  # the input's box changes from call to call, not the map
    kept = _MAPS.get(op)
    if kept is not None and _same_boxes(kept[0], params):
        return kept[1]
    found = rule(op, boxes)
    _MAPS[op] = ([None if b is None else (_kept(b[0]), _kept(b[1])) for b in params], found)
    return found


def _kept(a: np.ndarray) -> np.ndarray:
    """An array nothing can write (it and every array under it read-only: the
    constants' boxes, met again as the same object) as it is, any other copied."""
    base = a
    while isinstance(base, np.ndarray):
        if base.flags.writeable:
            return a.copy()
        base = base.base
    return a


# --- boxes -------------------------------------------------------------------------------


def _images(affine: Affine, pairs: list[tuple[np.ndarray, np.ndarray]]):
    """Per `(c, r)`: `(fl(M̃c), fl(|M̃|r), e, g, s)` with `e` bounding both
    products' errors, `2n·u·|M̃|(|c| + |r|) + 2n·η`, from `s ≥ |M̃|·g`,
    `g ≥ |c| + |r|`; all pairs in two products."""
    matrix, n = affine.matrix, max(affine.matrix.forward_terms, 1)
    with np.errstate(all="ignore"):
        gs = [add_up(np.abs(c), np.abs(r)) for c, r in pairs]
        centres = matrix.forward(np.stack([c for c, _ in pairs], axis=1))
        sizes = matrix.forward(np.stack([*(r for _, r in pairs), *gs], axis=1), magnitude=True)
        found = []
        for k, g in enumerate(gs):
            bound = upper_sum(sizes[:, len(pairs) + k], n)
            err = add_up(mul_up(bound, relative(n)), absolute(2 * n))
            found.append((centres[:, k], sizes[:, k], err, g, bound))
        return found


def _inner_centre(ends: Box) -> tuple[np.ndarray, np.ndarray]:
    """`c`, `r` with `c − r ≥ L` and `c + r ≤ H` (`r` may be negative)."""
    lo, hi = (np.asarray(b, F64).reshape(-1) for b in ends)
    with np.errstate(all="ignore"):
        c = lo * 0.5 + hi * 0.5
        return c, np.minimum(sub_down(hi, c), sub_down(c, lo))


@dataclass(frozen=True)
class Forward:
    """An affine op's boxes from one set of products: `box` (`outer_box`),
    `inner` (`inner_box` of the given ends, or None), and for the sweeps
    `sizes ≥ (|M̃| + R)·g`, `rounding` (the evaluation's bound) and `g`, the
    operand's sizes bounded above (`g ≥ |c| + r ≥ max(|lo|, |hi|)`)."""

    box: Box
    inner: Box | None
    sizes: np.ndarray
    rounding: np.ndarray
    g: np.ndarray


def outer_box(affine: Affine, box: Box, dtype: np.dtype, ends: Box | None = None) -> Forward:
    """A float64 box holding `M·x + b` for every `x` in `box`, and the
    evaluator's value of it in `dtype` (its centre's image, its radius's image
    by `|M̃|`, their errors, the matrix radius on `|c| + r`, the bias's own
    radius and the evaluation's rounding, the ends rounded outward). With
    `ends`, also (same products) `inner_box(affine, ends)`."""
    pairs = [centre_radius(box)] + ([] if ends is None else [_inner_centre(ends)])
    images = _images(affine, pairs)
    yc, yr, err, g, sizes = images[0]
    bc, br = affine.bias_centre_radius
    if affine.radius is not None:  # `g ≥ m`: (|M̃| + R)·g bounds the operand's sizes
        with np.errstate(all="ignore"):
            sizes = add_up(sizes, affine.radius(g))
    rounding = affine.evaluation_error(sizes, dtype)
    with np.errstate(all="ignore"):
        spread = add_up(add_up(add_up(yr, err), br), rounding)
        if affine.radius is not None:
            spread = add_up(spread, affine.radius(g))
        found = sub_down(add_down(yc, bc), spread), add_up(add_up(yc, bc), spread)
    inner = None if ends is None else _inner_ends(affine, images[1])
    return Forward(found, inner, sizes, rounding, g)


def _inner_ends(affine: Affine, image) -> Box | None:
    yc, yr, err, _, _ = image
    b = affine.bias[0]
    with np.errstate(all="ignore"):
        low = add_up(sub_up(add_up(yc, b), yr), err)
        high = sub_down(add_down(add_down(yc, b), yr), err)
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        return None
    return low, high


def inner_box(affine: Affine, ends: Box) -> Box | None:
    """Inner ends of the exact range of `M·x + b` (point `M`, `b`) on a box
    `[l, h]` whose ends lie inside `ends = (L, H)`: `L ≥ l`, `H ≤ h` (then
    `L > H` may be): a lower end `≥ M⁺l + M⁻h + b` and an upper end
    `≤ M⁺h + M⁻l + b`, or None if one is not finite. With `c` and `r` such
    that `c − r ≥ L` and `c + r ≤ H` (`r` may be negative),
    `M·c − |M|·r = M⁺(c − r) + M⁻(c + r) ≥ M⁺L + M⁻H ≥ M⁺l + M⁻h` (the upper
    end alike); each is moved inward by the products' error bound."""
    return _inner_ends(affine, _images(affine, [_inner_centre(ends)])[0])


__all__ = ["AFFINE_RULES", "Affine", "Diagonal", "Forward", "RowsLinear", "affine_map", "inner_box",
           "outer_box"]  # fmt: skip
