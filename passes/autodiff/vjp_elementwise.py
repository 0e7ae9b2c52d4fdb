"""VJP rules of the elementwise ops and of index moves (docs/autodiff.md#reverse-mode; D8, D9).

`g` is the result's cotangent. A rule returns one contribution per operand in
operand order (None: nothing flows there); `wants[i]` says whether operand i
needs one at all, so unneeded contributions are not computed. Products put the
factor first where the spec does (`f(x)·g`), `g` first where it does (`g·b`).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import HALF, Scalar, shape_of
from tlir.passes.autodiff.tables import vjp_rule


@vjp_rule(T.ConstOp, T.RandUniformOp)
def leaf(v, op: Operation, g: SSAValue, wants: list[bool]) -> list:
    return []


@vjp_rule(T.DetachOp, T.BernoulliMaskOp, stops=[0])
def stop(v, op: Operation, g: SSAValue, wants: list[bool]) -> list:
    """D9: detach and the keep probability of a mask get nothing."""
    return [None]


@vjp_rule(T.AddOp)
def add(v, op: T.AddOp, g: SSAValue, wants: list[bool]) -> list:
    return [g, g]


@vjp_rule(T.SubOp)
def sub(v, op: T.SubOp, g: SSAValue, wants: list[bool]) -> list:
    """gb = 0 − g (a zero tensor minus g, not a negation: 0 − 0 is +0)."""
    gb = v.b.map([g], lambda s, a: [s.sub(s.const(0.0), a[0])])[0] if wants[1] else None
    return [g, gb]


@vjp_rule(T.MulElemOp)
def mul_elem(v, op: T.MulElemOp, g: SSAValue, wants: list[bool]) -> list:
    """ga = g·b, gb = g·a."""
    shape = shape_of(g)
    ga = v.b.tlir(T.MulElemOp, [g, op.rhs], shape) if wants[0] else None
    gb = v.b.tlir(T.MulElemOp, [g, op.lhs], shape) if wants[1] else None
    return [ga, gb]


def _factor(v, x: SSAValue, g: SSAValue, factor) -> SSAValue:
    """`factor(x)·g` elementwise."""
    return v.b.map([x, g], lambda s, a: [s.mul(factor(s, a[0]), a[1])])[0]


def _sign(s: Scalar, x: SSAValue) -> SSAValue:
    """1 if x > 0, −1 if x < 0, else 0 (±0 and NaN)."""
    zero = s.const(0.0)
    return s.choose((s.gt(x, zero), s.const(1.0)), (s.gt(zero, x), s.const(-1.0)), otherwise=zero)


def _sqrt_factor(s: Scalar, x: SSAValue) -> SSAValue:
    """1/(2·sqrt x) if x > 0 else 0 (formed before multiplying by g)."""
    zero = s.const(0.0)
    value = s.div(s.const(1.0), s.mul(s.const(2.0), s.sqrt(x)))
    return s.select(s.gt(x, zero), value, zero)


def _relu_factor(s: Scalar, x: SSAValue) -> SSAValue:
    return s.select(s.gt(x, s.const(0.0)), s.const(1.0), s.const(0.0))


def stable_sigmoid(s: Scalar, x: SSAValue) -> SSAValue:
    """x > 0 ? 1/(1 + exp(−x)) : exp(x)/(1 + exp(x)), as the forward computes it."""
    positive = s.gt(x, s.const(0.0))
    t = s.exp(s.select(positive, s.neg(x), x))
    one_plus = s.add(s.const(1.0), t)
    return s.select(positive, s.div(s.const(1.0), one_plus), s.div(t, one_plus))


def stable_softplus(s: Scalar, x: SSAValue) -> SSAValue:
    positive = s.gt(x, s.const(0.0))
    t = s.exp(s.select(positive, s.neg(x), x))
    log_term = s.log(s.add(s.const(1.0), t))
    return s.select(positive, s.add(x, log_term), log_term)


FACTORS = {
    T.AbsOp: _sign,
    T.SqrtOp: _sqrt_factor,
    T.ReluOp: _relu_factor,
    T.SoftplusOp: stable_sigmoid,
    T.LogOp: lambda s, x: s.div(s.const(1.0), x),
    T.SinOp: lambda s, x: s.cos(x),
    T.CosOp: lambda s, x: s.neg(s.sin(x)),
}
"""`f(x)·g` rules: the factor computed from the op's input."""

OUTPUT_FACTORS = {
    T.ExpOp: lambda s, y: y,
    T.TanhOp: lambda s, t: s.sub(s.const(1.0), s.mul(t, t)),
    T.SigmoidOp: lambda s, y: s.mul(y, s.sub(s.const(1.0), y)),
}
"""`f(y)·g` rules whose factor the spec recomputes from x (exp x, tanh x, the
stable sigmoid): the forward result y has those very bits, so it is reused."""


def _register_factor(op_class, factor) -> None:
    vjp_rule(op_class)(lambda v, op, g, wants: [_factor(v, op.input, g, factor)])


def _register_output_factor(op_class, factor) -> None:
    vjp_rule(op_class)(lambda v, op, g, wants: [_factor(v, op.result, g, factor)])


for _op_class, _factor_fn in FACTORS.items():
    _register_factor(_op_class, _factor_fn)
for _op_class, _factor_fn in OUTPUT_FACTORS.items():
    _register_output_factor(_op_class, _factor_fn)


@vjp_rule(T.InvOp)
def inv(v, op: T.InvOp, g: SSAValue, wants: list[bool]) -> list:
    """r = 1/x; (g·(r·r))·(−1)."""

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        r = s.div(s.const(1.0), a[0])
        return [s.mul(s.mul(a[1], s.mul(r, r)), s.const(-1.0))]

    return [v.b.map([op.input, g], body)[0]]


def _max_weight(s: Scalar, p: SSAValue, q: SSAValue) -> SSAValue:
    """1 if p > q, 0 if q > p, else ½ (ties and NaN)."""
    return s.choose((s.gt(p, q), s.const(1.0)), (s.gt(q, p), s.const(0.0)), otherwise=s.const(HALF))


def _min_weight(s: Scalar, p: SSAValue, q: SSAValue) -> SSAValue:
    """1 if q > p, 0 if p > q, else ½."""
    return s.choose((s.gt(q, p), s.const(1.0)), (s.gt(p, q), s.const(0.0)), otherwise=s.const(HALF))


def _weighted(v, op, g: SSAValue, wants: list[bool], weight) -> list:
    a, b = op.lhs, op.rhs
    ga = gb = None
    if wants[0]:
        ga = v.b.map([a, b, g], lambda s, x: [s.mul(weight(s, x[0], x[1]), x[2])])[0]
    if wants[1]:
        gb = v.b.map([a, b, g], lambda s, x: [s.mul(weight(s, x[1], x[0]), x[2])])[0]
    return [ga, gb]


@vjp_rule(T.MaxElemOp)
def max_elem(v, op: T.MaxElemOp, g: SSAValue, wants: list[bool]) -> list:
    return _weighted(v, op, g, wants, _max_weight)


@vjp_rule(T.MinElemOp)
def min_elem(v, op: T.MinElemOp, g: SSAValue, wants: list[bool]) -> list:
    return _weighted(v, op, g, wants, _min_weight)


@vjp_rule(T.SafeLogOp, stops=[1])
def safe_log(v, op: T.SafeLogOp, g: SSAValue, wants: list[bool]) -> list:
    """(sigmoid(x)/(softplus(x) + eps))·g; eps gets nothing (D8)."""

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        x, eps, grad = a
        factor = s.div(stable_sigmoid(s, x), s.add(stable_softplus(s, x), eps))
        return [s.mul(factor, grad)]

    return [v.b.map([op.input, op.eps, g], body)[0], None]
