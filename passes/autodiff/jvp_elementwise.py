"""JVP rules of the elementwise and data-movement ops (dual-valued execution:
docs/autodiff.md#d2-forward-mode).

Each rule emits the tangent half of the op's forward spec run on (primal,
tangent) pairs with TorchLean's `Dual` instances
(docs/autodiff.md#forward-mode-dual-valued-execution): branches test primals
only, and every native operation of an instance is emitted in its order, zero
terms included (a `0·x` with an infinite `x` is NaN in TorchLean too). Pure
index moves apply the forward op to the tangent.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import Pair, Scalar, shape_of
from tlir.passes.autodiff.tables import jvp_rule

# --- no tangent: constants, random numbers, detach (D9) --------------------


@jvp_rule(T.ConstOp, T.RandUniformOp, T.BernoulliMaskOp, T.DetachOp)
def zero_tangent(j, op: Operation, dots: list[SSAValue]) -> SSAValue:
    """+0: a constant's payload carries no tangent unless seeded (the driver seeds
    parameters); random values are constants; detach clears the tangent."""
    return j.b.zeros_like(op.results[0])


# --- index moves: the same op on the tangent -----------------------------------


@jvp_rule(
    T.PermuteOp, T.TransposeOp, T.BroadcastToOp, T.ReshapeOp, T.FlattenOp, T.ConcatOp,
    T.ReduceSumOp, T.SumOp,
)  # fmt: skip
def same_op(j, op: Operation, dots: list[SSAValue]) -> SSAValue:
    """Tangents move with their primals; sums fold the tangents in the same order."""
    clone = op.clone(value_mapper=dict(zip(op.operands, dots, strict=True)))
    return j.b.add(clone).results[0]


@jvp_rule(T.AddOp, T.SubOp)
def add_sub(j, op: Operation, dots: list[SSAValue]) -> SSAValue:
    """da + db, da − db."""
    return j.b.tlir(type(op), dots, shape_of(op.results[0]))


# --- scalar tangent programs ---------------------------------------------------


def elementwise(j, op: Operation, dots: list[SSAValue], program) -> SSAValue:
    """One `tlir_ad.map` over (x, dx, y, dy, …) running `program` on pairs."""
    inputs = [v for pair in zip(op.operands, dots, strict=True) for v in pair]

    def body(s: Scalar, args: list[SSAValue]) -> list[SSAValue]:
        pairs = [(args[2 * k], args[2 * k + 1]) for k in range(len(op.operands))]
        return [program(s, *pairs)]

    return j.b.map(inputs, body)[0]


def _mul(s: Scalar, a: Pair, b: Pair) -> SSAValue:
    return s.product(a, b)[1]


def _abs(s: Scalar, a: Pair) -> SSAValue:
    """x > 0: dx; x < 0: −dx; else (±0, NaN) 0."""
    x, dx = a
    zero = s.const(0.0)
    return s.choose((s.gt(x, zero), dx), (s.gt(zero, x), s.neg(dx)), otherwise=zero)


def _sqrt(s: Scalar, a: Pair) -> SSAValue:
    """sqrt(max(x, 0)): x > 0 gives dx/(2·sqrt x); a tie or x < 0 gives 0."""
    return s.guarded_sqrt(a)[1]


def _inv(s: Scalar, a: Pair) -> SSAValue:
    """(1, 0) / (x, dx) by the quotient rule (D1): ((0·x) − (1·dx)) / (x·x)."""
    return s.quotient((s.const(1.0), s.const(0.0)), a)[1]


def _relu(s: Scalar, a: Pair) -> SSAValue:
    """x == 0 gives the literal zero; otherwise max(x, 0) over duals."""
    x, _ = a
    is_zero = s.cmp("oeq", x, s.const(0.0))
    return s.select(is_zero, s.const(0.0), s.dual_max(a, s.zero())[1])


def _tanh(s: Scalar, a: Pair) -> SSAValue:
    """(1 − t·t)·dx with t = tanh x."""
    t = s.tanh(a[0])
    return s.mul(s.sub(s.const(1.0), s.mul(t, t)), a[1])


def _neg(s: Scalar, a: Pair) -> Pair:
    return s.neg(a[0]), s.neg(a[1])


def _sigmoid(s: Scalar, a: Pair) -> SSAValue:
    """x > 0: (1, 0) / (1 + exp(−x)); else exp(x) / (1 + exp(x)), all on duals."""
    one = (s.const(1.0), s.const(0.0))
    positive = s.quotient(one, s.one_plus(s.dual_exp(_neg(s, a))))[1]
    z = s.dual_exp(a)
    other = s.quotient(z, s.one_plus(z))[1]
    return s.select(s.gt(a[0], s.const(0.0)), positive, other)


def softplus_pair(s: Scalar, a: Pair) -> Pair:
    """x > 0: x + log(1 + exp(−x)); else log(1 + exp(x)); Dual log divides plainly."""
    x, dx = a
    positive_log = s.dual_log(s.one_plus(s.dual_exp(_neg(s, a))))
    other = s.dual_log(s.one_plus(s.dual_exp(a)))
    is_positive = s.gt(x, s.const(0.0))
    primal = s.select(is_positive, s.add(x, positive_log[0]), other[0])
    tangent = s.select(is_positive, s.add(dx, positive_log[1]), other[1])
    return primal, tangent


def _safe_log(s: Scalar, a: Pair, eps: Pair) -> SSAValue:
    """log(softplus(x) + eps): eps's tangent flows in (D8)."""
    sp, dsp = softplus_pair(s, a)
    return s.dual_log((s.add(sp, eps[0]), s.add(dsp, eps[1])))[1]


def _exp(s: Scalar, a: Pair) -> SSAValue:
    return s.dual_exp(a)[1]


def _log(s: Scalar, a: Pair) -> SSAValue:
    return s.dual_log(a)[1]


def _sin(s: Scalar, a: Pair) -> SSAValue:
    return s.mul(s.cos(a[0]), a[1])


def _cos(s: Scalar, a: Pair) -> SSAValue:
    return s.mul(s.neg(s.sin(a[0])), a[1])


PROGRAMS = {
    T.MulElemOp: _mul,
    T.AbsOp: _abs,
    T.SqrtOp: _sqrt,
    T.InvOp: _inv,
    T.MaxElemOp: lambda s, a, b: s.dual_max(a, b)[1],
    T.MinElemOp: lambda s, a, b: s.dual_min(a, b)[1],
    T.ReluOp: _relu,
    T.TanhOp: _tanh,
    T.SigmoidOp: _sigmoid,
    T.ExpOp: _exp,
    T.LogOp: _log,
    T.SinOp: _sin,
    T.CosOp: _cos,
    T.SoftplusOp: lambda s, a: softplus_pair(s, a)[1],
    T.SafeLogOp: _safe_log,
}


def _register(op_class, program) -> None:
    jvp_rule(op_class)(lambda j, op, dots: elementwise(j, op, dots, program))


for _op_class, _program in PROGRAMS.items():
    _register(_op_class, _program)
