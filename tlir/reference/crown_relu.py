"""CROWN with ReLU relaxations (`crown(..., mode="relu")`, docs/verification.md#crown).

Beyond TorchLean's directed sweep, as auto_LiRPA's CROWN: a ReLU with a
crossing pre-activation interval `[l, u]` is bounded above by the triangle
line (slope `u/(u−l)`) and below by slope 1 if `u > −l` else 0; the
pre-activation bounds of every ReLU are themselves computed by a sweep to the
input (and intersected with their box), in op order, so each sweep sees the
tightened bounds of the ReLUs before it.

Every sweep bounds objectives from above: a lower bound of `c·y` is minus the
upper bound of `−c·y`, so the rows `[C; −C]` (or `[I; −I]` on a ReLU
operand's crossing cells) go back together as one float64 coefficient matrix.
Coefficients are point matrices computed in round-to-nearest (BLAS products,
the transposed conv); each step's rounding error is discharged at once
against the box of the value it multiplies (`tlir.reference.sound_linalg`
states the bounds), so the sweep's inequality `objective ≤ A·v + k` holds for
the exact-real function at every step, and `k` is a bound rounded up.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tlir.bounds import outward
from tlir.dialects import tlir as T
from tlir.interface import numpy_dtype
from tlir.optable import OpTable
from tlir.reference import crown_maps as maps
from tlir.reference.crown_affine import affine_map, inner_box, outer_box
from tlir.reference.ibp_rules import IBP_RULES, NoRule
from tlir.reference.interval import Box, NoBox, fold, interval_mul
from tlir.reference.sound_linalg import (
    F64,
    UNIT,
    absolute,
    add_up,
    dense,
    is_sparse,
    magnitude,
    mul_up,
    nonneg_dot_up,
    relative,
    sparse_module,
    sub_up,
    tiny_times,
    up_scalar,
    upper_on_box,
    upper_sum,
    with_negation,
)


@dataclass
class UpperSweep:
    """Point coefficients per value (rows × flat size, float64) and the upper
    bound `k` of the constant, one per row; `cache` keeps each op's affine map
    and error vector across the sweeps of one call (the boxes of an op's
    operands are final when a sweep first reaches it)."""

    boxes: dict[SSAValue, Box | None]
    k: np.ndarray
    cache: dict = field(default_factory=dict)
    coeffs: dict[SSAValue, np.ndarray] = field(default_factory=dict)

    def add(self, value: SSAValue, a: np.ndarray) -> None:
        """A second contribution is summed in round-to-nearest: `fl(a + b)` is
        within `u/(1 − u)·|fl(a + b)| ≤ 2u·|fl(a + b)|` of the exact sum, a
        difference discharged against the value's box."""
        if value not in self.coeffs:
            self.coeffs[value] = a
            return
        old = self.coeffs[value]
        if is_sparse(old) != is_sparse(a):
            old, a = dense(old), dense(a)
        total = old + a
        size = magnitude(self.box(value))
        with np.errstate(all="ignore"):
            self.constant(mul_up(nonneg_dot_up(abs(total), size), up_scalar(2 * UNIT)))
        self.coeffs[value] = total

    def constant(self, bound: np.ndarray) -> None:
        with np.errstate(all="ignore"):
            self.k = add_up(self.k, bound)

    def box(self, value: SSAValue) -> Box:
        found = self.boxes.get(value)
        if found is None:
            raise maps.SweepFailed()
        return found[0].reshape(-1), found[1].reshape(-1)

    def discharge(self, a: np.ndarray, value: SSAValue) -> None:
        self.constant(upper_on_box(a, self.box(value)))

    def cached(self, key, make):
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]


RELU_RULES: OpTable = OpTable("CROWN relaxation rule")


_discharge = maps.discharge_rule


@RELU_RULES.register(*maps.PASS_THROUGH)
def _pass_through(op, a, sweep):
    sweep.add(op.operands[0], a)


def _sum_rounding(op, a, sweep) -> None:
    """The evaluator's rounded `x ± y`: `|fl(s) − s| ≤ u|s| ≤ 2u|fl(s)|`, at
    most `2u` times the size of the result's box (the carrier's `u`)."""
    unit = float(np.finfo(numpy_dtype(op.results[0].type)).eps) / 2
    with np.errstate(all="ignore"):
        e = mul_up(magnitude(sweep.box(op.results[0])), up_scalar(2 * unit))
    sweep.constant(nonneg_dot_up(abs(a), e))


@RELU_RULES.register(T.AddOp)
def _add(op, a, sweep):
    _sum_rounding(op, a, sweep)
    sweep.add(op.operands[0], a)
    sweep.add(op.operands[1], a)


@RELU_RULES.register(T.SubOp)
def _sub(op, a, sweep):
    _sum_rounding(op, a, sweep)
    sweep.add(op.operands[0], a)
    sweep.add(op.operands[1], -a)  # negation is exact


def _operand_boxes(op: Operation, sweep: UpperSweep) -> list[Box | None]:
    return [sweep.boxes.get(v) for v in op.operands]


@dataclass(frozen=True)
class AffineTerms:
    """What an affine op adds to a row's constant beyond `a·centre(b)`: at
    most `|a|·v + carried`, with (each rounded up)

    * `relative(terms)·w`, `w ≥ (|M̃| + R)·m` (`m` the sizes of the varying
      operand's box): the product `fl(a·M̃)`'s error and the matrix radius,
      discharged on `|x| ≤ m`, whose absolute part is `terms·η·Σm`;
    * `e`: the evaluator's rounding of `y`;
    * `radius(b) + relative(n)·(|centre(b)| + radius(b))`: the bias's spread
      and the rounding of `a·centre(b)`, whose absolute part is `2n·η`.

    One product `|a| @ v` bounds them all (the sum is linear in `v`)."""

    v: np.ndarray
    centre: np.ndarray
    carried: float

    @staticmethod
    def of(op, affine, sweep) -> AffineTerms:
        kept = sweep.cache.get((op, "forward"))  # the box's products, on g ≥ the sizes
        if kept is not None:
            size, w, e = kept.g, kept.sizes, kept.rounding
        else:
            size = magnitude(sweep.box(op.operands[affine.operand]))
            w = affine.sizes(size)
            e = affine.evaluation_error(w, numpy_dtype(op.results[0].type))
        centre, _ = affine.bias_centre_radius
        n, terms = max(w.size, 1), max(affine.matrix.terms, 1)
        with np.errstate(all="ignore"):
            total = upper_sum(np.sum(size, keepdims=True), size.size)[0]
            v = add_up(add_up(mul_up(w, relative(terms)), e), affine.bias_spread)
            carried = add_up(tiny_times(terms, total), absolute(n))
        return AffineTerms(v, centre, float(carried))


@RELU_RULES.register(T.LinearOp, T.MatmulOp, T.ConvOp, T.AvgPoolOp, T.BatchNormEvalOp)
def _affine(op, a, sweep):
    """`a·y = fl(a·M̃)·x + (a·M − fl(a·M̃))·x + a·b + a·δ` (δ the evaluator's
    rounding of y): the product goes to `x`, the rest to the constant
    (`AffineTerms`)."""
    affine = sweep.cached((op, "affine"), lambda: affine_map(op, _operand_boxes(op, sweep)))
    if affine is None:
        return _discharge(op, a, sweep)
    terms = sweep.cached((op, "terms"), lambda: AffineTerms.of(op, affine, sweep))
    sweep.add(op.operands[affine.operand], affine.matrix.times(a))
    with np.errstate(all="ignore"):
        spread = add_up(nonneg_dot_up(abs(a), terms.v), terms.carried)
        sweep.constant(add_up(a @ terms.centre, spread))


@RELU_RULES.register(T.SumOp)
def _sum(op, a, sweep):
    """The coefficient broadcast; the evaluator's sum of `n` terms is within
    `γ(n)·Σ|x| ≤ 2n·u·Σm` of the exact one."""
    size = magnitude(sweep.box(op.operands[0]))
    unit = float(np.finfo(numpy_dtype(op.results[0].type)).eps) / 2
    with np.errstate(all="ignore"):
        total = upper_sum(np.sum(size, keepdims=True), max(size.size, 1))
        e = mul_up(total, up_scalar(2 * (size.size + 1) * unit))
    sweep.constant(nonneg_dot_up(abs(a), e))
    shape = (a.shape[0], maps.size(op.operands[0]))
    sweep.add(op.operands[0], np.broadcast_to(dense(a)[:, :1], shape).copy())


@RELU_RULES.register(*maps.INDEX_MAPS)
def _moved(op, a, sweep):
    a = dense(a)
    for operand, (out_pos, in_pos) in zip(op.operands, maps.index_map(op), strict=True):
        sweep.add(operand, maps.pull_back(a, out_pos, in_pos, maps.size(operand)))


def relu_lines(lo: np.ndarray, hi: np.ndarray):
    """Per cell of the pre-activation box: the lower slope (0 or 1, bias 0), the
    upper line (slope in [0, 1], bias rounded up from it), the cells whose
    lines hold (crossing 0 with finite ends) and the exact ones (slope 1 or 0
    both ways). The other cells (an infinite or NaN end) have no line."""
    dtype = lo.dtype
    zero, one = dtype.type(0), dtype.type(1)
    active, inactive = lo >= 0, hi <= 0
    exact = active | inactive
    lines = ~exact & np.isfinite(lo) & np.isfinite(hi)
    slopes = active.astype(dtype)
    lower, upper, bias = slopes.copy(), slopes, np.zeros_like(slopes)
    cells = np.flatnonzero(lines)  # the lines' arithmetic on their cells alone (often few)
    low, h = lo.reshape(-1)[cells], hi.reshape(-1)[cells]
    with np.errstate(all="ignore"):
        slope = np.clip(h / (h - low), zero, one)
        lines_bias = np.maximum(mul_up(slope, -low), mul_up(h, sub_up(one, slope)))
    for full, part in ((lower, np.where(h > -low, one, zero)), (upper, slope), (bias, lines_bias)):
        full.reshape(-1)[cells] = part
    return lower, upper, bias, lines, exact


@dataclass(frozen=True)
class ReluRelaxation:
    """A ReLU's lines on its operand's box, in float64: `base` the slope of
    every coefficient but a nonnegative one on a crossing cell (1 active, 0
    inactive, the lower slope crossing), `cross` the crossing cells with their
    upper slopes and `w ≥ t + u·s·m` (the line's bias and the slope product's
    rounding, discharged on `|z| ≤ m`), `tiny` their `η/2·Σm`, `loose` the
    cells without lines."""

    base: np.ndarray
    cross: np.ndarray
    slopes: np.ndarray
    w: np.ndarray
    tiny: np.float64
    loose: np.ndarray

    def per_cell(self, values: np.ndarray) -> np.ndarray:
        """Values of the crossing cells spread over all cells (0 elsewhere)."""
        full = np.zeros(self.base.size, F64)
        full[self.cross] = values
        return full

    @functools.cached_property
    def cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per cell (for sparse coefficients, once per relaxation): crossing or
        not, the upper slope (crossing cells), `w` (crossing cells)."""
        crossing = np.zeros(self.base.size, bool)
        crossing[self.cross] = True
        return crossing, self.per_cell(self.slopes), self.per_cell(self.w)

    @staticmethod
    def of(box: Box) -> ReluRelaxation:
        lo, hi = (np.asarray(b, F64) for b in box)
        lower, upper, bias, lines, exact = relu_lines(lo, hi)
        cross = np.flatnonzero(lines)
        size = np.maximum(np.abs(lo[cross]), np.abs(hi[cross]))
        with np.errstate(all="ignore"):
            w = add_up(bias[cross], mul_up(mul_up(upper[cross], UNIT), size))
            total = upper_sum(np.sum(size, keepdims=True), max(cross.size, 1))[0]
        base = np.where(exact | lines, lower, 0.0)
        return ReluRelaxation(base, cross, upper[cross], w, tiny_times(1, total),
                              np.flatnonzero(~lines & ~exact))  # fmt: skip


@RELU_RULES.register(T.ReluOp)
def _relu(op, a, sweep):
    """Per cell, the line the coefficient's sign asks for: a nonnegative
    coefficient on a crossing cell takes the upper line (its product rounded,
    `|a·s − fl(a·s)| ≤ u·a·s + η/2`), every other one its lower slope
    (exact: 0 or 1); the bias `max(a, 0)·t` and the roundings join the
    constant. A cell without lines is discharged against the ReLU's box."""
    relax = sweep.cached(op, lambda: ReluRelaxation.of(sweep.box(op.operands[0])))
    if is_sparse(a):
        return _relu_sparse(op, a, relax, sweep)
    out = a * relax.base
    if relax.cross.size:
        crossing = a[:, relax.cross]
        positive = np.maximum(crossing, 0.0)
        up = crossing >= 0
        out[:, relax.cross] = np.where(up, crossing * relax.slopes, out[:, relax.cross])
        with np.errstate(all="ignore"):
            bias = add_up(nonneg_dot_up(positive, relax.w), relax.tiny)
        sweep.constant(bias)
    if relax.loose.size:
        y_lo, y_hi = sweep.box(op.results[0])
        sweep.constant(upper_on_box(a[:, relax.loose], (y_lo[relax.loose], y_hi[relax.loose])))
        out[:, relax.loose] = 0.0
    sweep.add(op.operands[0], out)


def _relu_sparse(op, a, relax: ReluRelaxation, sweep) -> None:
    """`_relu` on the stored entries of a SciPy CSR coefficient."""
    a = a.tocsr()
    cells, data = a.indices, a.data
    crossing, upper, w = relax.cells
    up = crossing[cells] & (data >= 0)
    slope = relax.base[cells]
    up_cells = cells[up]
    slope[up] = upper[up_cells]
    out = data * slope
    if relax.cross.size:
        rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
        terms = data[up] * w[up_cells]
        with np.errstate(all="ignore"):
            found = np.bincount(rows[up], weights=terms, minlength=a.shape[0])
            sweep.constant(add_up(upper_sum(found, relax.cross.size), relax.tiny))
    if relax.loose.size:
        loose = np.zeros(relax.base.size, bool)
        loose[relax.loose] = True
        picked = loose[cells]
        part = type(a)((np.where(picked, data, 0.0), cells, a.indptr), shape=a.shape)
        part.eliminate_zeros()
        y_lo, y_hi = sweep.box(op.results[0])
        sweep.constant(upper_on_box(part, (np.where(loose, y_lo, 0.0), np.where(loose, y_hi, 0.0))))
        out[picked] = 0.0
    result = type(a)((out, cells.copy(), a.indptr.copy()), shape=a.shape)
    result.eliminate_zeros()
    sweep.add(op.operands[0], result)


def sweep_upper(ops, start, objective, boxes, x, cache) -> np.ndarray | None:
    """Per row, an upper bound of `objective·start` over the input's box
    (+inf where it is NaN); None if the sweep needs a box that is unresolved."""
    sweep = UpperSweep(boxes, np.zeros(objective.shape[0], F64), cache)
    sweep.coeffs[start] = objective
    try:
        maps.walk_back(ops, RELU_RULES, sweep)
        if x in sweep.coeffs:
            sweep.discharge(sweep.coeffs.pop(x), x)
    except maps.SweepFailed:
        return None
    return np.where(np.isnan(sweep.k), np.inf, sweep.k)


def bounds(ops, start, objective, boxes, x, cache) -> Box | None:
    """Lower and upper bounds of `objective·start` (float64), from one sweep of
    the rows `[C; −C]`."""
    if is_sparse(objective):
        both = with_negation(objective)
    else:
        both = np.concatenate([objective, -objective]).astype(F64)
    found = sweep_upper(ops, start, both, boxes, x, cache)
    if found is None:
        return None
    rows = objective.shape[0]
    return -found[rows:], found[:rows]


def intersect(found: Box | None, box: Box | None) -> Box | None:
    """Both enclosures hold the value, so does their intersection (NaN ends ignored)."""
    if found is None or box is None:
        return box if found is None else found
    return np.fmax(found[0], box[0]), np.fmin(found[1], box[1])


_CONSTANTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""A constant op → (its value attribute, its box, read-only): decoded once for
every call on the model (attributes are immutable; an op given a new value is
decoded again), and the same arrays let `affine_map` know its kept map at once."""


def ibp_step(op: Operation, boxes: dict[SSAValue, Box | None]) -> Box | None:
    """The op's IBP rule on the current boxes of its operands (None: unresolved)."""
    if isinstance(op, T.ConstOp):
        kept = _CONSTANTS.get(op)
        if kept is None or kept[0] is not op.value:
            box = _ibp_step(op, boxes)
            if box is not None:
                box = tuple(np.array(end) for end in box)  # owning their data
                for end in box:
                    end.setflags(write=False)
            kept = _CONSTANTS[op] = (op.value, box)
        return kept[1]
    return _ibp_step(op, boxes)


def _ibp_step(op: Operation, boxes: dict[SSAValue, Box | None]) -> Box | None:
    result = op.results[0]
    shape, dtype = tuple(result.type.get_shape()), numpy_dtype(result.type)
    if 0 in shape:
        return np.zeros(shape, dtype), np.zeros(shape, dtype)
    rule = IBP_RULES.lookup(op)
    parents = [boxes.get(v) for v in op.operands] if rule and rule.reads_operands else []
    if rule is None or any(p is None for p in parents):
        return None
    try:
        with np.errstate(all="ignore"):
            lo, hi = rule(op, parents, dtype)
    except (NoRule, NoBox):
        return None
    return np.asarray(lo, dtype).reshape(shape), np.asarray(hi, dtype).reshape(shape)


def carrier_box(found: Box, dtype: np.dtype, shape: tuple[int, ...] = (-1,)) -> Box:
    """A float64 box in a carrier (and shape), rounded outward."""
    lo = np.where(np.isnan(found[0]), -np.inf, found[0])  # a NaN end bounds nothing
    hi = np.where(np.isnan(found[1]), np.inf, found[1])
    return (outward(lo, dtype, lower=True).reshape(shape),
            outward(hi, dtype, lower=False).reshape(shape))  # fmt: skip


def _affine_of(op: Operation, boxes, cache):
    """The op's affine map (kept in `cache`), or None."""
    if not maps.nonempty(op) or len(op.results) != 1:
        return None
    key = (op, "affine")
    if key not in cache:
        cache[key] = affine_map(op, [boxes.get(v) for v in op.operands])
    return cache[key]


def box_step(op: Operation, boxes, cache, chain: InnerChain) -> Box | None:
    """An affine op of a varying operand: its sound mid-radius box (and the
    inner chain's next ends, from the same products); any other op: its IBP
    rule (and the inner chain moved or given up)."""
    affine = _affine_of(op, boxes, cache)
    if affine is None or boxes.get(op.operands[affine.operand]) is None:
        chain.move(op)
        return ibp_step(op, boxes)
    result = op.results[0]
    dtype, shape = numpy_dtype(result.type), tuple(result.type.get_shape())
    box, ends = boxes[op.operands[affine.operand]], chain.ends_for(op, affine)
    found = outer_box(affine, box, dtype, ends)
    chain.set(result, found.inner)
    cache[(op, "forward")] = found  # the sweeps' error vectors, from the same products
    return carrier_box(found.box, dtype, shape)


def tightened(ops, value: SSAValue, boxes, x, cache) -> Box | None:
    """A ReLU operand's box, its cells that cross 0 (or all, if it has no box)
    bounded by a sweep each and intersected with it. The other cells' lines are
    exact already."""
    box, n = boxes[value], maps.size(value)
    if box is None:
        cells = np.arange(n)
    else:
        cells = np.flatnonzero((box[0].reshape(-1) < 0) & (box[1].reshape(-1) > 0))
        if cells.size == 0:
            return box
    sparse = sparse_module()
    if sparse is not None:  # one-hot rows stay sparse through the first convs
        ones, starts = np.ones(cells.size, F64), np.arange(cells.size + 1)  # CSR form at once
        objective = sparse.csr_array((ones, cells, starts), shape=(cells.size, n))
    else:
        objective = np.zeros((cells.size, n), F64)
        objective[np.arange(cells.size), cells] = 1.0
    found = bounds(ops, value, objective, boxes, x, cache)
    if found is None:
        return box
    dtype = numpy_dtype(value.type)
    found = carrier_box(found, dtype)
    lo, hi = (np.full(n, -np.inf, dtype), np.full(n, np.inf, dtype)) if box is None else (
        box[0].reshape(-1).copy(), box[1].reshape(-1).copy())  # fmt: skip
    lo[cells], hi[cells] = intersect(found, (lo[cells], hi[cells]))
    shape = tuple(value.type.get_shape())
    return lo.reshape(shape), hi.reshape(shape)


# --- never looser than IBP ------------------------------------------------------------------

INNER_MOVES = (T.ReluOp, *maps.PASS_THROUGH)
"""Ops whose exact IBP rule maps an inner box to an inner box as it is."""


class InnerChain:
    """Float64 ends inside the exact-real IBP box of each value, hence inside
    TorchLean's (whose rules enclose their exact versions, which are
    inclusion-monotone), followed op by op beside the boxes while every
    varying op has such a rule here (affine ops with point parameters, relu,
    pass-through ops); given up at the first other one."""

    def __init__(self, x: SSAValue, input_box: Box):
        self.ends: dict[SSAValue, Box] | None = {
            x: tuple(np.asarray(b, F64).reshape(-1) for b in input_box)}  # fmt: skip

    def give_up(self) -> None:
        self.ends = None

    def set(self, value: SSAValue, ends: Box | None) -> None:
        if self.ends is None or ends is None:
            self.give_up()
        else:
            self.ends[value] = ends

    def ends_for(self, op: Operation, affine) -> Box | None:
        """The varying operand's ends, if the op's exact IBP rule is its map's range."""
        if self.ends is None or not affine.exact_ibp:
            return None
        varying = [v for v in op.operands if v in self.ends]
        operand = op.operands[affine.operand]
        return self.ends[operand] if varying == [operand] else None

    def move(self, op: Operation) -> None:
        if self.ends is None:
            return
        if not isinstance(op, INNER_MOVES) or op.operands[0] not in self.ends:
            return self.give_up()
        lo, hi = self.ends[op.operands[0]]
        relu = isinstance(op, T.ReluOp)
        self.ends[op.results[0]] = (np.maximum(lo, 0), np.maximum(hi, 0)) if relu else (lo, hi)

    def of(self, value: SSAValue) -> Box | None:
        return None if self.ends is None else self.ends.get(value)


def objective_inner(objective: np.ndarray | None, box: Box) -> Box | None:
    """A box inside the exact range of `C·y` on y's inner box (TorchLean's
    interval products of a point row, exactly, are its mid-radius range)."""
    if objective is None:
        return box
    from tlir.reference.crown_affine import Affine
    from tlir.reference.sound_linalg import PointMatrix

    zeros = np.zeros(objective.shape[0], F64)
    return inner_box(Affine(0, PointMatrix.of(objective), (zeros, zeros)), box)


def objective_box(objective: np.ndarray | None, box: Box | None) -> Box | None:
    """IBP's bounds of `C·y`: y's box itself for the identity, else the
    directed interval products of each row folded from 0."""
    if box is None or objective is None:
        return box and (box[0].reshape(-1), box[1].reshape(-1))
    lo, hi = (b.reshape(-1)[np.newaxis] for b in box)
    t_lo, t_hi = interval_mul(objective, objective, lo, hi)
    return fold(t_lo, t_hi, 1)


def within_ibp(found: Box, objective, inner: Box | None, reference_box) -> Box:
    """`found` intersected with TorchLean's IBP bounds of `C·y`. When `found`
    lies inside a box that lies inside them (`inner`, y's ends in the
    `InnerChain`), the intersection is `found` itself and TorchLean's IBP is
    not run; otherwise it is computed (`reference_box()`, y's box) and
    intersected."""
    if inner is not None:
        inner = objective_inner(objective, inner)
    if inner is not None and np.all(found[0] >= inner[0]) and np.all(found[1] <= inner[1]):
        return found
    return intersect(found, objective_box(objective, reference_box()))


def relu_crown(target: func.FuncOp, input_box: Box, objective: np.ndarray | None,
               reference_box) -> Box:  # fmt: skip
    """Boxes in op order, each ReLU's operand tightened by its own bounds; then
    the bounds of `C·y` (`objective` None: the identity), within IBP's
    (`reference_box()`: TorchLean's IBP box of y, or None)."""
    body = list(target.body.block.ops)
    ops, (y,) = body[:-1], body[-1].operands
    (x,) = target.body.block.args
    boxes: dict[SSAValue, Box | None] = {x: input_box}
    relu_inputs = {op.operands[0] for op in ops if isinstance(op, T.ReluOp)}
    varying, cache, chain = {x}, {}, InnerChain(x, input_box)
    # an op of the input alone keeps its box: a sweep gives its range again
    for k, op in enumerate(ops):
        result = op.results[0]
        if not any(v in varying for v in op.operands):
            boxes[result] = ibp_step(op, boxes)
            continue
        boxes[result] = box_step(op, boxes, cache, chain)
        varying.add(result)
        if result in relu_inputs and {v for v in op.operands if v in varying} != {x}:
            boxes[result] = tightened(ops[: k + 1], result, boxes, x, cache)
    dtype = numpy_dtype(y.type)
    if y not in varying:
        return objective_box(objective, boxes.get(y)) or (None, None)
    c = np.eye(maps.size(y), dtype=F64) if objective is None else objective
    found = intersect(bounds(ops, y, c, boxes, x, cache), objective_box(
        None if objective is None else objective.astype(F64), _f64(boxes.get(y))))  # fmt: skip
    if found is None:  # no sweep and no box of y here: TorchLean's, if any
        return objective_box(objective, reference_box()) or (None, None)
    found = (outward(found[0], dtype, lower=True), outward(found[1], dtype, lower=False))
    return within_ibp(found, objective, chain.of(y), reference_box)


def _f64(box: Box | None) -> Box | None:
    return box and (box[0].astype(F64), box[1].astype(F64))


__all__ = ["RELU_RULES", "ReluRelaxation", "relu_crown", "relu_lines"]
