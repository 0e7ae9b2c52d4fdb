"""The tight rules of the transcendental ops as interval programs
(docs/verification.md#tight-rules): `tlir.reference.ibp_tight` step for step,
so the compiled bounds are the reference's bit for bit. The C library's
function at the endpoints (compiled code calls `exp`, `log`, `tanh`, ... as
the forward does), widened by `tlir.tight.steps` `nextafter` steps, clamped
to the function's range; a NaN end (or a `log` box reaching below 0) sets the
node's failure flag."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.optable import OpTable
from tlir.passes.autodiff.builder import Scalar, d, shape_of
from tlir.passes.ibp import scalar as D
from tlir.passes.ibp.elementwise import any_failed, softplus_bounds
from tlir.passes.ibp.table import Bound, Context, Out, Rule
from tlir.tight import steps

TIGHT_RULES: OpTable[Rule] = OpTable("tight interval rule")


def tight_rule(*op_classes: type[Operation]) -> Callable:
    def decorate(function: Callable) -> Callable:
        for op_class in op_classes:
            TIGHT_RULES.add(op_class, Rule(function))
        return function

    return decorate


def _dtype(s: Scalar) -> np.dtype:
    return np.dtype(np.float32 if s.element_type.bitwidth == 32 else np.float64)


def _widened(s: Scalar, name: str, value: SSAValue, step) -> SSAValue:
    for _ in range(steps(name, _dtype(s))):
        value = step(s, value)
    return value


def _at(s: Scalar, x: SSAValue, point: float, value: float, other: SSAValue) -> SSAValue:
    """`value` where `x == point` (an exact value of the function), else `other`."""
    return s.select(s.cmp("oeq", x, s.const(point)), s.const(value), other)


def _floor(s: Scalar, x: SSAValue, low: float) -> SSAValue:
    """`x < low ? low : x` (NaN kept)."""
    return s.select(s.cmp("olt", x, s.const(low)), s.const(low), x)


def _ceiling(s: Scalar, x: SSAValue, high: float) -> SSAValue:
    return s.select(s.cmp("ogt", x, s.const(high)), s.const(high), x)


def exp_down(s: Scalar, x: SSAValue) -> SSAValue:
    return _floor(s, _at(s, x, 0.0, 1.0, _widened(s, "exp", s.exp(x), D.down)), 0.0)


def exp_up(s: Scalar, x: SSAValue) -> SSAValue:
    return _at(s, x, 0.0, 1.0, _widened(s, "exp", s.exp(x), D.up))


def log_down(s: Scalar, x: SSAValue) -> SSAValue:
    return _at(s, x, 1.0, 0.0, _widened(s, "log", s.log(x), D.down))


def log_up(s: Scalar, x: SSAValue) -> SSAValue:
    return _at(s, x, 1.0, 0.0, _widened(s, "log", s.log(x), D.up))


def div_down(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return D.div_bounds(s, a, a, b, b)[0]


def div_up(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return D.div_bounds(s, a, a, b, b)[1]


def no_nan(s: Scalar, lo: SSAValue, hi: SSAValue) -> SSAValue:
    return s.cmp("ord", lo, hi)


def checked_pair(ctx: Context, inputs: Sequence[SSAValue], body) -> Out:
    """A map whose body returns (lo, hi, extra ok): the box, flagged where an
    end is NaN or `ok` fails."""

    def program(s: Scalar, args):
        lo, hi, ok = body(s, args)
        return [lo, hi, D.bad(s, s.both(ok, no_nan(s, lo, hi)))]

    lo, hi, flags = ctx.b.map(list(inputs), program, 3)
    return Out(lo, hi, [any_failed(ctx, flags)])


@tight_rule(T.ExpOp)
def _exp(ctx: Context, op: Operation, boxes: Sequence[Bound]) -> Out:
    return checked_pair(
        ctx, boxes[0].pair, lambda s, a: (exp_down(s, a[0]), exp_up(s, a[1]), s.bool(True))
    )


@tight_rule(T.LogOp)
def _log(ctx, op, boxes):
    def body(s: Scalar, args):
        lo, hi = args
        return log_down(s, lo), log_up(s, hi), s.cmp("uge", lo, s.const(0.0))

    return checked_pair(ctx, boxes[0].pair, body)


@tight_rule(T.TanhOp)
def _tanh(ctx, op, boxes):
    def body(s: Scalar, args):
        lo, hi = args
        low = _at(s, lo, 0.0, 0.0, _widened(s, "tanh", s.tanh(lo), D.down))
        high = _at(s, hi, 0.0, 0.0, _widened(s, "tanh", s.tanh(hi), D.up))
        return _floor(s, low, -1.0), _ceiling(s, high, 1.0), s.bool(True)

    return checked_pair(ctx, boxes[0].pair, body)


def _branch_arg(s: Scalar, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(x > 0, x > 0 ? -x : x): the forward's exp argument of sigmoid/softplus."""
    positive = s.cmp("ogt", x, s.const(0.0))
    return positive, s.select(positive, s.neg(x), x)


def sigmoid_down(s: Scalar, x: SSAValue) -> SSAValue:
    one = s.const(1.0)
    positive, arg = _branch_arg(s, x)
    t_hi, t_lo = exp_up(s, arg), exp_down(s, x)
    return s.select(
        positive,
        div_down(s, one, D.add_up(s, one, t_hi)),
        div_down(s, t_lo, D.add_up(s, one, t_lo)),
    )


def sigmoid_up(s: Scalar, x: SSAValue) -> SSAValue:
    one = s.const(1.0)
    positive, arg = _branch_arg(s, x)
    t_lo, t_hi = exp_down(s, arg), exp_up(s, x)
    return s.select(
        positive,
        div_up(s, one, D.add_down(s, one, t_lo)),
        div_up(s, t_hi, D.add_down(s, one, t_hi)),
    )


@tight_rule(T.SigmoidOp)
def _sigmoid(ctx, op, boxes):
    def body(s: Scalar, args):
        lo, hi = args
        return (
            _floor(s, sigmoid_down(s, lo), 0.0),
            _ceiling(s, sigmoid_up(s, hi), 1.0),
            s.bool(True),
        )

    return checked_pair(ctx, boxes[0].pair, body)


def tight_softplus(s: Scalar, lo: SSAValue, hi: SSAValue) -> tuple[SSAValue, SSAValue]:
    one = s.const(1.0)
    positive, arg = _branch_arg(s, lo)
    low_term = log_down(s, D.add_down(s, one, exp_down(s, arg)))
    low = s.select(positive, D.add_down(s, lo, low_term), low_term)
    positive, arg = _branch_arg(s, hi)
    high_term = log_up(s, D.add_up(s, one, exp_up(s, arg)))
    high = s.select(positive, D.add_up(s, hi, high_term), high_term)
    floor, ceiling = softplus_bounds(s, lo, hi)
    low = s.select(s.cmp("olt", low, floor), floor, low)
    return low, s.select(s.cmp("ogt", high, ceiling), ceiling, high)


@tight_rule(T.SoftplusOp)
def _softplus(ctx, op, boxes):
    return checked_pair(ctx, boxes[0].pair, lambda s, a: (*tight_softplus(s, *a), s.bool(True)))


@tight_rule(T.SafeLogOp)
def _safe_log(ctx, op, boxes):
    def body(s: Scalar, args):
        lo, hi, el, eh = args
        sl, sh = tight_softplus(s, lo, hi)
        zl, zh = D.add_down(s, sl, el), D.add_up(s, sh, eh)
        one = s.const(1.0)
        floor, ceiling = D.sub_down(s, one, div_up(s, one, zl)), D.sub_up(s, zh, one)
        low, high = log_down(s, zl), log_up(s, zh)
        low = s.select(s.cmp("olt", low, floor), floor, low)
        high = s.select(s.cmp("ogt", high, ceiling), ceiling, high)
        return low, high, s.cmp("ogt", zl, s.const(0.0))

    return checked_pair(ctx, [*boxes[0].pair, *boxes[1].pair], body)


def softmax_rows(
    ctx: Context, lo: SSAValue, hi: SSAValue, axis: int, allowed: np.ndarray | None = None
) -> Out:
    """`tlir.reference.ibp_tight.softmax_rows` along `axis`: one fold over
    (the output's indices, j) of the directed terms, j ascending, the diagonal
    chosen by an identity table (and blocked j zeroed by the mask); then the
    quotients (a blocked i is [0, 0])."""
    shape = shape_of(lo)
    rank = len(shape)
    n = shape[axis]
    own = [d(k) for k in range(rank)]
    other = [d(rank) if k == axis else d(k) for k in range(rank)]
    mask = np.ones(shape) if allowed is None else allowed.astype(np.float64)
    table = ctx.b.array(mask, ctx.element) if allowed is not None else None
    eye = ctx.b.array(np.eye(n), ctx.element)

    def terms(s: Scalar, args):
        l_i, u_j, l_j, u_i, diagonal, *rest = args
        same = s.cmp("oeq", diagonal, s.const(1.0))
        above = exp_up(s, D.sub_up(s, s.select(same, l_i, u_j), l_i))
        below = exp_down(s, D.sub_down(s, s.select(same, u_i, l_j), u_i))
        if table is not None:
            keep = s.cmp("oeq", rest.pop(0), s.const(1.0))
            above = s.select(keep, above, s.const(0.0))
            below = s.select(keep, below, s.const(0.0))
        acc_l, acc_h = rest
        return [D.add_down(s, acc_l, below), D.add_up(s, acc_h, above)]

    inputs, maps = [lo, hi, lo, hi, eye], [own, other, other, own, [d(axis), d(rank)]]
    if table is not None:
        inputs, maps = [*inputs, table], [*maps, other]
    sums = ctx.b.fold(inputs, maps, [*shape, n], [rank], [0.0, 0.0], terms)

    def quotients(s: Scalar, args):
        s_lo, s_hi, *rest = args
        one, zero = s.const(1.0), s.const(0.0)
        low = _floor(s, _at(s, s_hi, 1.0, 1.0, div_down(s, one, s_hi)), 0.0)
        high = _ceiling(s, div_up(s, one, s_lo), 1.0)
        if rest:
            keep = s.cmp("oeq", rest[0], one)
            low, high = s.select(keep, low, zero), s.select(keep, high, zero)
        return low, high, s.bool(True)

    return checked_pair(ctx, [*sums, *([table] if table is not None else [])], quotients)


@tight_rule(T.SoftmaxOp)
def _softmax(ctx, op, boxes):
    return softmax_rows(ctx, *boxes[0].pair, op.axis.value.data)


@tight_rule(T.HardMaskedSoftmaxOp)
def _hard_masked_softmax(ctx, op, boxes):
    shape = ctx.shape(op)
    allowed = np.array(op.mask.get_values(), bool).reshape(shape)
    if allowed.ndim == 0:
        value = ctx.b.array(allowed.astype(ctx.dtype), ctx.element)
        return Out(value, value)
    return softmax_rows(ctx, *boxes[0].pair, len(shape) - 1, allowed)


__all__ = ["TIGHT_RULES"]
