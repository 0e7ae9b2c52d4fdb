"""CROWN with ReLU relaxations (`crown(..., mode="relu")`, docs/verification.md#crown).

Beyond TorchLean's directed sweep, as auto_LiRPA's CROWN: a ReLU with a
crossing pre-activation interval `[l, u]` is bounded above by the triangle
line (slope `u/(u−l)`) and below by slope 1 if `u > −l` else 0; the
pre-activation bounds of every ReLU are themselves computed by a sweep to the
input (and intersected with their IBP box), in op order, so each sweep sees
the tightened bounds of the ReLUs before it.

Each bound is its own sweep, lower or upper, with interval coefficients that
hold the exact ones: products and sums are the carrier's, widened by their
error bounds (`tlir.reference.sound_linalg`); a line's bias is computed from
the slope actually used, rounded up. At a ReLU the coefficient's sign picks
the line; a coefficient interval that straddles 0 is discharged against the
ReLU's box. Ops without a rule here are discharged against their box, given
by the IBP rules from the (tightened) boxes of their operands.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.interface import numpy_dtype
from tlir.optable import OpTable
from tlir.reference import crown_maps as maps
from tlir.reference.ibp_rules import IBP_RULES, NoRule
from tlir.reference.interval import (
    Box,
    NoBox,
    add_down,
    add_up,
    div_bounds,
    down,
    fold,
    interval_mul,
    max2,
    mul_down,
    mul_up,
    sqrt_bounds,
    sub_down,
    sub_up,
    up,
)
from tlir.reference.sound_linalg import PointMatrix, interval_dot, interval_matmul, row_sums


@dataclass
class DirectedSweep:
    """One direction's interval coefficients (rows × flat size) and the sound
    bound of its constant in that direction."""

    boxes: dict[SSAValue, Box | None]
    upper: bool
    k: np.ndarray
    cache: dict = field(default_factory=dict)
    coeffs: dict[SSAValue, Box] = field(default_factory=dict)

    def add(self, value: SSAValue, lo: np.ndarray, hi: np.ndarray) -> None:
        if value in self.coeffs:
            old_lo, old_hi = self.coeffs[value]
            lo, hi = add_down(old_lo, lo), add_up(old_hi, hi)
        self.coeffs[value] = (lo, hi)

    def constant(self, bound: Box) -> None:
        self.k = add_up(self.k, bound[1]) if self.upper else add_down(self.k, bound[0])

    def box(self, value: SSAValue) -> Box:
        found = self.boxes.get(value)
        if found is None:
            raise maps.SweepFailed()
        return found[0].reshape(-1), found[1].reshape(-1)

    def discharge(self, a: Box, value: SSAValue) -> None:
        self.constant(interval_dot(a, self.box(value)))

    def cached(self, op: Operation, make):
        if op not in self.cache:
            self.cache[op] = make()
        return self.cache[op]


RELU_RULES: OpTable = OpTable("CROWN relaxation rule")


_discharge = maps.discharge_rule
for _op in maps.PASS_THROUGH:
    RELU_RULES.add(_op, maps.pass_through_rule)
RELU_RULES.add(T.AddOp, maps.add_rule)


@RELU_RULES.register(T.SubOp)
def _sub(op, a, sweep):
    sweep.add(op.operands[0], *a)
    sweep.add(op.operands[1], -a[1], -a[0])  # negation is exact


def _operand_boxes(op: Operation, sweep: DirectedSweep) -> list[Box | None]:
    return [sweep.boxes.get(v) for v in op.operands]


@RELU_RULES.register(T.LinearOp)
def _linear(op, a, sweep):
    found = maps.linear_rows(op, _operand_boxes(op, sweep))
    if found is None:
        return _discharge(op, a, sweep)
    weight, bias = found
    matrix = sweep.cached(op, lambda: PointMatrix.of(weight))
    rows, (m, n) = a[0].shape[0], weight.shape
    lead = a[0].shape[1] // m
    lo, hi = interval_matmul(tuple(x.reshape(rows * lead, m) for x in a), matrix)
    sweep.add(op.operands[0], lo.reshape(rows, lead * n), hi.reshape(rows, lead * n))
    tiled = np.tile(bias, lead)
    sweep.constant(interval_dot(a, (tiled, tiled)))


def _dense_map(op, sweep):
    """(operand, the product operator, the flat bias) of a matmul with a point
    operand or a conv with point parameters (its transposed conv)."""
    boxes = _operand_boxes(op, sweep)
    if isinstance(op, T.ConvOp):
        weight, bias = maps.point(boxes[1]), maps.point(boxes[2])
        if weight is None or bias is None:
            return None
        return 0, maps.ConvTranspose(op, weight), maps.conv_bias(op, bias)
    found = maps.linear_map(op, boxes)
    return found and (found.operand, PointMatrix.of(found.matrix), found.bias)


@RELU_RULES.register(T.MatmulOp, T.ConvOp)
def _dense(op, a, sweep):
    found = sweep.cached(op, lambda: _dense_map(op, sweep))
    if found is None:
        return _discharge(op, a, sweep)
    operand, matrix, bias = found
    sweep.add(op.operands[operand], *interval_matmul(a, matrix))
    sweep.constant(interval_dot(a, (bias, bias)))


@RELU_RULES.register(T.SumOp)
def _sum(op, a, sweep):
    shape = (a[0].shape[0], maps.size(op.operands[0]))
    sweep.add(op.operands[0], *(np.broadcast_to(x[:, :1], shape).copy() for x in a))


@RELU_RULES.register(*maps.INDEX_MAPS)
def _moved(op, a, sweep):
    for operand, (out_pos, in_pos) in zip(op.operands, maps.index_map(op), strict=True):
        n = maps.size(operand)
        sweep.add(operand, *(maps.pull_back(x, out_pos, in_pos, n) for x in a))


@RELU_RULES.register(T.AvgPoolOp)
def _avg_pool(op, a, sweep):
    """The window sums' incidence matrix, the coefficient times [1/K] (one step
    each way around the quotient)."""
    dtype = a[0].dtype
    incidence = sweep.cached(op, lambda: PointMatrix.of(maps.avg_pool_incidence(op, dtype)))
    q = dtype.type(1) / dtype.type(maps.kernel_volume(op))
    scaled = interval_mul(a[0], a[1], down(q), up(q))
    sweep.add(op.operands[0], *interval_matmul(scaled, incidence))


def _batch_norm_affine(op: T.BatchNormEvalOp, params: list[Box], dtype) -> tuple[Box, Box] | None:
    """Scale `γ/sqrt(max(var, 0) + eps)` and shift `β − mean·scale` per channel, as intervals."""
    (g_lo, g_hi), (b_lo, b_hi), (m_lo, m_hi), (v_lo, v_hi) = params
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


@RELU_RULES.register(T.BatchNormEvalOp)
def _batch_norm_eval(op, a, sweep):
    """A diagonal affine map: the coefficient times the scale interval, the
    shift's interval product added to the constant."""
    params = _operand_boxes(op, sweep)[1:]
    if any(p is None for p in params):
        return _discharge(op, a, sweep)
    affine = _batch_norm_affine(op, params, a[0].dtype)
    if affine is None:
        return _discharge(op, a, sweep)
    (s_lo, s_hi), (t_lo, t_hi) = affine
    shape = tuple(op.input.type.get_shape())
    axis = op.channel_axis.value.data
    channels = np.arange(shape[axis]).reshape((-1,) + (1,) * (len(shape) - axis - 1))
    channel = np.broadcast_to(channels, shape).reshape(-1)
    scale = (s_lo[channel][np.newaxis], s_hi[channel][np.newaxis])
    sweep.add(op.operands[0], *interval_mul(a[0], a[1], *scale))
    sweep.constant(interval_dot(a, (t_lo[channel], t_hi[channel])))


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
    slopes = np.where(active, one, zero)
    lower = np.where(lines, np.where(hi > -lo, one, zero), slopes)
    with np.errstate(all="ignore"):
        slope = np.clip(hi / (hi - lo), zero, one)
        bias = np.maximum(mul_up(slope, -lo), mul_up(hi, sub_up(one, slope)))
    upper = np.where(lines, slope, slopes)
    return lower, upper, np.where(lines, bias, zero), lines, exact


@RELU_RULES.register(T.ReluOp)
def _relu(op, a, sweep):
    """Per cell, the line the coefficient's sign asks for (exact cells pass
    with their slope, 0 or 1); a coefficient that straddles 0, or a cell
    without lines, is discharged against the ReLU's box."""
    lo, hi = sweep.box(op.operands[0])
    lower, upper, bias, lines, exact = relu_lines(lo, hi)
    a_lo, a_hi = a
    line_up = (a_lo >= 0) if sweep.upper else (a_hi <= 0)
    line_down = ((a_hi <= 0) if sweep.upper else (a_lo >= 0)) & ~line_up
    take_up = line_up & lines
    take_down = (line_down & lines) | exact
    zero = a_lo.dtype.type(0)
    # slopes are >= 0: the product's ends are the coefficient's ends times the slope
    sweep.add(
        op.operands[0],
        np.where(take_up, mul_down(a_lo, upper), np.where(take_down, a_lo * lower, zero)),
        np.where(take_up, mul_up(a_hi, upper), np.where(take_down, a_hi * lower, zero)),
    )
    rows, cols = np.nonzero(take_up)
    t = bias[cols]
    parts = [(rows, mul_down(a_lo[rows, cols], t), mul_up(a_hi[rows, cols], t))]
    rows, cols = np.nonzero(~take_up & ~take_down)
    y_lo, y_hi = sweep.box(op.results[0])
    d_lo, d_hi = interval_mul(a_lo[rows, cols], a_hi[rows, cols], y_lo[cols], y_hi[cols])
    parts.append((rows, d_lo, d_hi))
    which = np.concatenate([p[0] for p in parts])
    found_lo = row_sums(which, np.concatenate([p[1] for p in parts]), len(a_lo), a_lo.dtype)
    found_hi = row_sums(which, np.concatenate([p[2] for p in parts]), len(a_lo), a_lo.dtype)
    sweep.constant((found_lo[0], found_hi[1]))


def sweep_bound(ops, start, objective, boxes, x, cache, upper: bool) -> np.ndarray | None:
    """One direction's bound of `objective·start` over the input's box."""
    rows, dtype = objective.shape[0], objective.dtype
    sweep = DirectedSweep(boxes, upper, np.zeros(rows, dtype), cache)
    sweep.coeffs[start] = (objective, objective.copy())
    try:
        for op in reversed(ops):
            live = [r for r in op.results if r in sweep.coeffs]
            if len(op.results) != 1:  # no rule reads several results: each is discharged
                for r in live:
                    sweep.discharge(sweep.coeffs.pop(r), r)
            elif live:
                rule = (RELU_RULES.lookup(op) or _discharge) if maps.nonempty(op) else _discharge
                rule(op, sweep.coeffs.pop(live[0]), sweep)
        if x in sweep.coeffs:
            sweep.discharge(sweep.coeffs[x], x)
    except maps.SweepFailed:
        return None
    fill = dtype.type(np.inf if upper else -np.inf)
    return np.where(np.isnan(sweep.k), fill, sweep.k)


def bounds(ops, start, objective, boxes, x, cache) -> Box | None:
    lo = sweep_bound(ops, start, objective, boxes, x, cache, upper=False)
    hi = sweep_bound(ops, start, objective, boxes, x, cache, upper=True)
    return None if lo is None or hi is None else (lo, hi)


def intersect(found: Box | None, box: Box | None) -> Box | None:
    """Both enclosures hold the value, so does their intersection (NaN ends ignored)."""
    if found is None or box is None:
        return box if found is None else found
    return np.fmax(found[0], box[0]), np.fmin(found[1], box[1])


def ibp_step(op: Operation, boxes: dict[SSAValue, Box | None]) -> Box | None:
    """The op's IBP rule on the current boxes of its operands (None: unresolved)."""
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


def objective_box(objective: np.ndarray | None, box: Box | None) -> Box | None:
    """IBP's bounds of `C·y`: y's box itself for the identity, else the
    directed interval products of each row folded from 0."""
    if box is None or objective is None:
        return box and (box[0].reshape(-1), box[1].reshape(-1))
    lo, hi = (b.reshape(-1)[np.newaxis] for b in box)
    t_lo, t_hi = interval_mul(objective, objective, lo, hi)
    return fold(t_lo, t_hi, 1)


def tightened(ops, value: SSAValue, boxes, x, cache) -> Box | None:
    """A ReLU operand's box, its cells that cross 0 (or all, if it has no box)
    bounded by a sweep each and intersected with it. The other cells' lines are
    exact already."""
    box, n = boxes[value], maps.size(value)
    dtype = numpy_dtype(value.type)
    if box is None:
        cells = np.arange(n)
    else:
        cells = np.flatnonzero((box[0].reshape(-1) < 0) & (box[1].reshape(-1) > 0))
        if cells.size == 0:
            return box
    found = bounds(ops, value, np.eye(n, dtype=dtype)[cells], boxes, x, cache)
    if found is None:
        return box
    lo, hi = (np.full(n, -np.inf, dtype), np.full(n, np.inf, dtype)) if box is None else (
        box[0].reshape(-1).copy(), box[1].reshape(-1).copy())  # fmt: skip
    lo[cells], hi[cells] = intersect(found, (lo[cells], hi[cells]))
    shape = tuple(value.type.get_shape())
    return lo.reshape(shape), hi.reshape(shape)


def relu_crown(target: func.FuncOp, input_box: Box, objective: np.ndarray | None):
    """Boxes in op order, each ReLU's operand tightened by its own bounds; then
    the bounds of `C·y` (`objective` None: the identity), within IBP's."""
    body = list(target.body.block.ops)
    ops, (y,) = body[:-1], body[-1].operands
    (x,) = target.body.block.args
    boxes: dict[SSAValue, Box | None] = {x: input_box}
    relu_inputs = {op.operands[0] for op in ops if isinstance(op, T.ReluOp)}
    varying, cache = {x}, {}
    # an op of the input alone keeps its box: a sweep gives its range again
    for k, op in enumerate(ops):
        result = op.results[0]
        boxes[result] = ibp_step(op, boxes)
        if not any(v in varying for v in op.operands):
            continue
        varying.add(result)
        if result in relu_inputs and {v for v in op.operands if v in varying} != {x}:
            boxes[result] = tightened(ops[: k + 1], result, boxes, x, cache)
    ibp_bound = objective_box(objective, boxes.get(y))
    if y not in varying:
        return ibp_bound or (None, None)
    dtype = numpy_dtype(y.type)
    c = np.eye(maps.size(y), dtype=dtype) if objective is None else objective
    return intersect(bounds(ops, y, c, boxes, x, cache), ibp_bound) or (None, None)


__all__ = ["RELU_RULES", "relu_crown", "relu_lines"]
