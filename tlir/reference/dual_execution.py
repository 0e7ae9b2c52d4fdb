"""Reference forward mode: every op's forward spec run on `Dual` arrays
(docs/autodiff.md#d2-forward-mode).

`jvp(module, inputs, tangents, param_tangents=None)` returns `[y…, dy…]`, what
`tlir-jvp`'s `@main_jvp` returns. Each evaluator below restates the op's forward
semantics (as `tlir.reference.ops` does) over duals, so the tangent is the
dual-valued execution TorchLean's instances define; it shares no code with the
pass's rules.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from tlir.dialects import tlir as T
from tlir.interface import check_inputs, find_function, numpy_dtype
from tlir.optable import OpTable
from tlir.parameters import parameters
from tlir.reference import dual as D
from tlir.reference.dual import Dual, where
from tlir.reference.ops import (
    EVALUATORS,
    check_log_domain,
    conv_fold,
    conv_padding,
    evaluating,
    window_cells,
)

DualEvaluator = OpTable("reference JVP")
"""One dual evaluator per tlir op: (op, operand duals) -> result dual."""

jvp_of = DualEvaluator.register


def _shape(op: Operation) -> tuple[int, ...]:
    return tuple(op.results[0].type.get_shape())


def _zero_tangent(op: Operation, value: np.ndarray) -> Dual:
    return Dual(value, np.zeros(value.shape, value.dtype))


@jvp_of(T.ConstOp, T.RandUniformOp, T.BernoulliMaskOp)
def _constant(op: Operation, args: Sequence[Dual]) -> Dual:
    """The primal from the forward evaluator; the tangent +0 (a seeded parameter
    is handled by the interpreter)."""
    value = EVALUATORS[type(op)](op, [a.re for a in args])
    return _zero_tangent(op, np.asarray(value))


@jvp_of(T.DetachOp)
def _detach(op: Operation, args: Sequence[Dual]) -> Dual:
    return _zero_tangent(op, args[0].re)


def _softplus(x: Dual) -> Dual:
    return where(x.re > 0, x + D.log(1 + D.exp(-x)), D.log(1 + D.exp(x)))


def _log(x: Dual) -> Dual:
    """log on duals, its domain checked on the primals as the forward evaluator does."""
    check_log_domain(x.re)
    return D.log(x)


def _relu(x: Dual) -> Dual:
    return where(x.re == 0, D.zero_like(x), D.dual_max(x, D.zero_like(x)))


UNARY = {
    T.AbsOp: D.absolute,
    T.SqrtOp: D.guarded_sqrt,
    T.InvOp: lambda x: 1 / x,
    T.ReluOp: _relu,
    T.TanhOp: D.tanh,
    T.SigmoidOp: lambda x: where(x.re > 0, 1 / (1 + D.exp(-x)), D.exp(x) / (1 + D.exp(x))),
    T.ExpOp: D.exp,
    T.LogOp: _log,
    T.SinOp: D.sin,
    T.CosOp: D.cos,
    T.SoftplusOp: _softplus,
}
BINARY = {
    T.AddOp: lambda a, b: a + b,
    T.SubOp: lambda a, b: a - b,
    T.MulElemOp: lambda a, b: a * b,
    T.MaxElemOp: D.dual_max,
    T.MinElemOp: D.dual_min,
}

for _cls, _fn in UNARY.items():
    DualEvaluator.add(_cls, lambda op, args, fn=_fn: fn(args[0]).full())
for _cls, _fn in BINARY.items():
    DualEvaluator.add(_cls, lambda op, args, fn=_fn: fn(args[0], args[1]).full())


@jvp_of(T.SafeLogOp)
def _safe_log(op: Operation, args: Sequence[Dual]) -> Dual:
    return D.log(_softplus(args[0]) + args[1][()]).full()


@jvp_of(T.PermuteOp)
def _permute(op: T.PermuteOp, args: Sequence[Dual]) -> Dual:
    return D.apply(lambda a: np.transpose(a, T._ints(op.perm)).copy(), args[0])


@jvp_of(T.TransposeOp)
def _transpose(op: T.TransposeOp, args: Sequence[Dual]) -> Dual:
    a1, a2 = op.axis1.value.data, op.axis2.value.data
    return D.apply(lambda a: np.swapaxes(a, a1, a2).copy(), args[0])


@jvp_of(T.BroadcastToOp)
def _broadcast_to(op: Operation, args: Sequence[Dual]) -> Dual:
    return D.apply(lambda a: np.broadcast_to(a, _shape(op)).copy(), args[0])


@jvp_of(T.ReshapeOp, T.FlattenOp)
def _reshape(op: Operation, args: Sequence[Dual]) -> Dual:
    return D.apply(lambda a: a.reshape(_shape(op)), args[0])


@jvp_of(T.ConcatOp)
def _concat(op: T.ConcatOp, args: Sequence[Dual]) -> Dual:
    axis = op.axis.value.data
    return Dual(
        np.concatenate([a.re for a in args], axis), np.concatenate([a.du for a in args], axis)
    )


@jvp_of(T.ReduceSumOp)
def _reduce_sum(op: T.ReduceSumOp, args: Sequence[Dual]) -> Dual:
    return D.fold_sum(args[0], op.axis.value.data)


@jvp_of(T.ReduceMeanOp)
def _reduce_mean(op: T.ReduceMeanOp, args: Sequence[Dual]) -> Dual:
    x, axis = args[0], op.axis.value.data
    return D.fold_sum(x, axis) / x.const(x.shape[axis])


@jvp_of(T.SumOp)
def _sum(op: Operation, args: Sequence[Dual]) -> Dual:
    return D.fold_sum(D.apply(np.ravel, args[0]), 0)


@jvp_of(T.MseLossOp)
def _mse_loss(op: Operation, args: Sequence[Dual]) -> Dual:
    diff = D.apply(np.ravel, args[0] - args[1])
    return D.fold_sum(diff * diff, 0) / diff.const(diff.shape[0] or 1)


@jvp_of(T.MatmulOp)
def _matmul(op: Operation, args: Sequence[Dual]) -> Dual:
    a, b = args
    a2 = D.apply(lambda v: v[np.newaxis, :], a) if len(a.shape) == 1 else a
    b2 = D.apply(lambda v: v[:, np.newaxis], b) if len(b.shape) == 1 else b
    acc = None
    for k in range(a2.shape[-1]):
        term = a2[..., :, k, np.newaxis] * b2[..., np.newaxis, k, :]
        acc = (term.const(0) if acc is None else acc) + term
    if acc is None:  # nothing to fold: the +0 start
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
        zeros = np.zeros(batch + (a2.shape[-2], b2.shape[-1]), a.dtype)
        acc = Dual(zeros, zeros.copy())
    return D.apply(lambda v: v.reshape(_shape(op)), acc.full())


@jvp_of(T.LinearOp)
def _linear(op: Operation, args: Sequence[Dual]) -> Dual:
    x, weight, bias = args
    zeros = np.zeros(x.shape[:-1] + (weight.shape[0],), x.dtype)
    acc = Dual(zeros, zeros.copy())
    for i in range(weight.shape[1]):
        acc = acc + weight[:, i] * x[..., i, np.newaxis]
    return acc + bias


def _pad_dual(x: Dual, pad) -> Dual:
    return D.apply(lambda a: np.pad(a, pad), x)


@jvp_of(T.ConvOp)
def _conv(op: T.ConvOp, args: Sequence[Dual]) -> Dual:
    """As the forward (`conv_fold`), on dual numbers."""
    x, weight, bias = args
    padded = _pad_dual(x, conv_padding(op.config))
    zeros = np.zeros(_shape(op), x.dtype)
    return conv_fold(op.config, padded, weight, bias, Dual(zeros, zeros.copy()))


def _pool_cells(op: T.WindowOp, x: Dual):
    return window_cells(x, op, _shape(op), _pad_dual)


@jvp_of(T.MaxPoolOp)
def _max_pool(op: T.MaxPoolOp, args: Sequence[Dual]) -> Dual:
    """The first maximal real cell, dual and all."""
    zeros = np.zeros(_shape(op), args[0].dtype)
    best, seen = Dual(zeros, zeros.copy()), np.zeros(_shape(op), bool)
    for values, valid in _pool_cells(op, args[0]):
        take = valid & (~seen | (values.re > best.re))
        best = where(take, values, best)
        seen = seen | valid
    return best


@jvp_of(T.AvgPoolOp)
def _avg_pool(op: T.AvgPoolOp, args: Sequence[Dual]) -> Dual:
    zeros = np.zeros(_shape(op), args[0].dtype)
    acc = Dual(zeros, zeros.copy())
    for values, _valid in _pool_cells(op, args[0]):
        acc = acc + values
    return acc / acc.const(int(np.prod(T._ints(op.kernel))))


@jvp_of(T.BatchNormEvalOp)
def _batch_norm_eval(op: T.BatchNormEvalOp, args: Sequence[Dual]) -> Dual:
    x, gamma, beta, mean, var = args
    spread = (slice(None),) + (np.newaxis,) * (len(x.shape) - op.channel_axis.value.data - 1)
    eps = x.const(op.eps.value.data)
    std = D.guarded_sqrt(D.dual_max(var, D.zero_like(var)) + eps)
    return ((x - mean[spread]) / std[spread]) * gamma[spread] + beta[spread]


@jvp_of(T.SoftmaxOp)
def _softmax(op: T.SoftmaxOp, args: Sequence[Dual]) -> Dual:
    """maxVecSpec folds Max over every element, element 0 included, from x₀."""
    x, axis = args[0], op.axis.value.data
    if x.shape[axis] == 0:
        return x
    moved = D.apply(np.moveaxis, x, axis, -1)
    m = moved[..., 0]
    for i in range(moved.shape[-1]):
        m = D.dual_max(m, moved[..., i])
    e = D.exp(moved - m[..., np.newaxis])
    total = D.fold_sum(e, len(e.shape) - 1)
    y = e / total[..., np.newaxis]
    return D.apply(np.moveaxis, y, -1, axis)


@jvp_of(T.HardMaskedSoftmaxOp)
def _hard_masked_softmax(op: T.HardMaskedSoftmaxOp, args: Sequence[Dual]) -> Dual:
    x = args[0]
    allowed = np.array(op.mask.get_values(), bool).reshape(x.shape)
    if not x.shape:
        return _zero_tangent(op, np.asarray(1 if allowed[()] else 0, x.dtype))
    zeros = np.zeros(x.shape[:-1], x.dtype)
    best, seen = Dual(zeros, zeros.copy()), np.zeros(x.shape[:-1], bool)
    for j in range(x.shape[-1]):
        value, ok = x[..., j], allowed[..., j]
        best = where(ok & (~seen | (value.re > best.re)), value, best)
        seen = seen | ok
    numerators = where(allowed, D.exp(x - best[..., np.newaxis]), D.zero_like(x))
    total = D.fold_sum(numerators.full(), len(x.shape) - 1)[..., np.newaxis]
    return where(seen[..., np.newaxis], numerators / total, D.zero_like(x)).full()


@jvp_of(T.LayerNormOp)
def _layernorm(op: T.LayerNormOp, args: Sequence[Dual]) -> Dual:
    x = args[0]
    axis = op.axis.value.data
    rows_shape = (int(np.prod(x.shape[:axis], dtype=np.int64)), int(np.prod(x.shape[axis:])))
    rows = D.apply(lambda a: a.reshape(rows_shape), x)
    n = x.const(rows_shape[1])
    mu = D.fold_sum(rows, 1) / n
    centred = rows - mu[:, np.newaxis]
    mu2 = D.fold_sum(centred, 1) / n
    dev = centred - mu2[:, np.newaxis]
    var = D.dual_max(D.fold_sum(dev * dev, 1) / n, D.zero_like(x))
    sigma = D.guarded_sqrt(var + x.const(op.eps.value.data))
    y = centred / sigma[:, np.newaxis]
    if len(args) == 3:
        y = y * D.apply(np.ravel, args[1]) + D.apply(np.ravel, args[2])
    return D.apply(lambda a: a.reshape(x.shape), y.full())


@jvp_of(T.CustomOp)
def _custom(op: T.CustomOp, args: Sequence[Dual]) -> Dual:
    callee = SymbolTable.lookup_symbol(op, op.callee)
    assert isinstance(callee, func.FuncOp)
    return run_dual(callee, list(args), {})[0]


def run_dual(
    function: func.FuncOp, args: Sequence[Dual], seeds: dict[Operation, np.ndarray]
) -> list[Dual]:
    """The function on duals; `seeds` gives chosen constants a tangent."""
    values: dict[SSAValue, Dual] = dict(zip(function.body.block.args, args, strict=True))
    for op in function.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [values[v] for v in op.arguments]
        dtype = numpy_dtype(op.results[0].type)
        shape = _shape(op)
        if 0 in shape:  # nothing to compute (as in the forward evaluator)
            values[op.results[0]] = Dual(np.zeros(shape, dtype), np.zeros(shape, dtype))
            continue
        operands = [values[v] for v in op.operands]
        with evaluating(op, "input"):
            result = DualEvaluator[type(op)](op, operands)
        if op in seeds:
            result = Dual(result.re, seeds[op])
        values[op.results[0]] = Dual(
            np.broadcast_to(result.re, shape).astype(dtype),
            np.broadcast_to(result.du, shape).astype(dtype),
        )
    raise AssertionError("a function body ends in func.return")


def jvp(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    tangents: Sequence[np.ndarray],
    param_tangents: Sequence[np.ndarray] | None = None,
    function: str = "main",
) -> list[np.ndarray]:
    """`[y…, dy…]` of `@function` at `inputs` in direction `tangents` (and
    `param_tangents`, one per parameter in order, if given)."""
    target = find_function(module, function)
    xs = check_inputs(target, inputs, "input")
    dxs = check_inputs(target, tangents, "tangent")
    seeds: dict[Operation, np.ndarray] = {}
    if param_tangents is not None:
        consts = parameters(target)
        if len(param_tangents) != len(consts):
            raise ValueError(f"{len(consts)} parameters, got {len(param_tangents)} tangents")
        for const, tangent in zip(consts, param_tangents, strict=True):
            seeds[const] = np.asarray(tangent, numpy_dtype(const.result.type)).reshape(
                tuple(const.result.type.get_shape())
            )
    results = run_dual(target, [Dual(x, dx) for x, dx in zip(xs, dxs, strict=True)], seeds)
    return [np.array(r.re, order="C") for r in results] + [
        np.array(r.du, order="C") for r in results
    ]
