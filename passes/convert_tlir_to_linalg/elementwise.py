"""Elementwise ops: one shared builder and a table of scalar bodies
(docs/ops.md#elementwise-ops),
as MLIR's TOSA-to-linalg does; the random ops, whose bodies draw numbers."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, math
from xdsl.ir import SSAValue

from tlir.dialects import random
from tlir.dialects import tlir as T
from tlir.optable import OpTable
from tlir.passes.convert_tlir_to_linalg.emit import Body, Emitter, amap, identity, shape_of
from tlir.passes.convert_tlir_to_linalg.registry import lowers

Scalar = Callable[..., SSAValue]


def _sqrt(b: Body, x: SSAValue) -> SSAValue:
    # sqrt(max(x, 0)): negative inputs and -0 give +0, NaN stays NaN
    return b(math.SqrtOp(b.clamp_at_zero(x)))


def _relu(b: Body, x: SSAValue) -> SSAValue:
    return b.clamp_at_zero(x)


def _stable_exp(b: Body, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """`positive = x > 0` and `t = exp(positive ? -x : x)` of the two-branch forms."""
    positive = b.cmp("ogt", x, b.const(0.0))
    t = b.exp(b.select(positive, b(arith.NegfOp(x)), x))
    return positive, t


def _sigmoid(b: Body, x: SSAValue) -> SSAValue:
    # x > 0 ? 1/(1+exp(-x)) : exp(x)/(1+exp(x))
    positive, t = _stable_exp(b, x)
    one_plus_t = b.add(b.const(1.0), t)
    return b.select(positive, b.div(b.const(1.0), one_plus_t), b.div(t, one_plus_t))


def softplus(b: Body, x: SSAValue) -> SSAValue:
    # x > 0 ? x + log(1 + exp(-x)) : log(1 + exp(x))  (log(1+·), not log1p)
    positive, t = _stable_exp(b, x)
    log_term = b.log(b.add(b.const(1.0), t))
    return b.select(positive, b.add(x, log_term), log_term)


def _safe_log(b: Body, x: SSAValue, eps: SSAValue) -> SSAValue:
    return b.log(b.add(softplus(b, x), eps))


SCALAR_BODIES: OpTable[Scalar] = OpTable(
    "scalar body",
    {
        T.AddOp: Body.add,
        T.SubOp: Body.sub,
        T.MulElemOp: Body.mul,
        T.MaxElemOp: Body.lean_max,
        T.MinElemOp: Body.lean_min,
        T.AbsOp: lambda b, x: b(math.AbsFOp(x)),
        T.SqrtOp: _sqrt,
        T.InvOp: lambda b, x: b.div(b.const(1.0), x),
        T.ReluOp: _relu,
        T.TanhOp: lambda b, x: b(math.TanhOp(x)),
        T.SigmoidOp: _sigmoid,
        T.ExpOp: Body.exp,
        T.LogOp: Body.log,
        T.SinOp: lambda b, x: b(math.SinOp(x)),
        T.CosOp: lambda b, x: b(math.CosOp(x)),
        T.SoftplusOp: softplus,
        T.SafeLogOp: _safe_log,
    },
)
"""Scalar body of every elementwise op, applied to the operands' elements."""


@lowers(*SCALAR_BODIES)
def lower_elementwise(op: T.TlirOp, e: Emitter) -> SSAValue:
    scalar = SCALAR_BODIES[type(op)]
    count = len(op.operands)
    return e.elementwise(
        list(op.operands), shape_of(op.results[0]), lambda b, args: [scalar(b, *args[:count])]
    )


@lowers(T.RandUniformOp)
def lower_rand_uniform(op: T.RandUniformOp, e: Emitter) -> SSAValue:
    shape = shape_of(op.result)
    key = e.add(random.KeyOp(op.seed.value.data, op.node_id.value.data))

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        draw = b(random.DrawOp(key, b.linear_index(shape)))
        return [b(random.UniformOp(draw, e.element_type))]

    out = e.empty(shape)
    return e.generic([], [out], [identity(len(shape))], ["parallel"] * len(shape), body)[0]


@lowers(T.BernoulliMaskOp)
def lower_bernoulli_mask(op: T.BernoulliMaskOp, e: Emitter) -> SSAValue:
    shape = shape_of(op.result)
    rank = len(shape)
    key = e.add(random.KeyOp(op.seed.value.data, op.node_id.value.data))

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        draw = b(random.DrawOp(key, b.linear_index(shape)))
        uniform = b(random.UniformOp(draw, e.element_type))
        return [b(random.BernoulliOp(args[0], uniform))]

    out = e.empty(shape)
    maps = [amap(rank, []), identity(rank)]
    return e.generic([op.input], [out], maps, ["parallel"] * rank, body)[0]
