"""One small evaluator per tlir op, exactly as docs/ops.md states its numerics.

Each takes the op and its operand values (NumPy arrays in the carrier dtype)
and returns the result. `EVALUATORS` maps op classes to them; the interpreter in
`tlir.reference` only dispatches.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Sequence

import numpy as np
from xdsl.ir import Operation

from tlir import rng
from tlir.dense import dense_to_numpy
from tlir.diagnostics import TlirError, describe_location
from tlir.dialects import tlir as T
from tlir.interface import numpy_dtype
from tlir.optable import OpTable
from tlir.reference.carrier import cmax, cmin, fold_max, fold_sum, libm, nat


class EvaluationError(Exception):
    """TorchLean's evaluation rejects the input (e.g. `log` of a non-positive)."""


@contextlib.contextmanager
def evaluating(op: Operation, where: str) -> Iterator[None]:
    """Evaluating `op`: floating-point warnings off, and a rejected input as the
    one-line error located at the op (the forward, JVP and VJP references)."""
    try:
        with np.errstate(all="ignore"):
            yield
    except EvaluationError as err:
        raise TlirError(describe_location(op.location, where), f"{op.name}: {err}") from None


def evaluate_op(op: Operation, args: list[np.ndarray], where: str) -> list[np.ndarray]:
    """The op's results (an evaluator returns a list for a multi-result op).
    The evaluators of the `tlir_ad` ops are those of `tlir.reference.ad_ops`,
    which the package loads first."""
    evaluator = EVALUATORS.lookup(op)
    if evaluator is None:
        raise TlirError(
            describe_location(op.location, where),
            f"the reference evaluator has no semantics for '{op.name}'",
        )
    if op.results and all(0 in r.type.get_shape() for r in op.results):
        # Nothing to compute: results of no elements are known by their types.
        # (An extreme attribute may empty them — a padding of 2**61 with a
        # batch of 0 — where building the op's intermediates could not work.)
        return [np.zeros(r.type.get_shape(), numpy_dtype(r.type)) for r in op.results]
    with evaluating(op, where):
        result = evaluator(op, args)
    results = [np.asarray(r) for r in (result if isinstance(result, list) else [result])]
    for value, array in zip(op.results, results, strict=True):
        # A float64 value leaking into float32 mode would round twice: refuse it.
        assert array.dtype == numpy_dtype(value.type), (op.name, array.dtype)
    return [r if r.flags.c_contiguous else r.copy(order="C") for r in results]


def check_log_domain(x: np.ndarray) -> None:
    """TorchLean's `log` takes only elements > 0 (a NaN is not)."""
    if not np.all(x > 0):
        raise EvaluationError("log of a tensor with an element that is not > 0 (or NaN)")


Evaluator = Callable[[Operation, Sequence[np.ndarray]], np.ndarray]

EVALUATORS: OpTable[Evaluator] = OpTable("reference evaluator")
"""One evaluator per tlir op; `tlir.reference` only dispatches."""

evaluates = EVALUATORS.register


def _result_shape(op: Operation) -> tuple[int, ...]:
    return tuple(op.results[0].type.get_shape())


def _dtype(op: Operation) -> np.dtype:
    width = op.results[0].type.element_type.bitwidth
    return np.dtype(np.float32 if width == 32 else np.float64)


# --- elementwise -------------------------------------------------------------


def _relu(x: np.ndarray) -> np.ndarray:
    return np.where(x <= 0, x.dtype.type(0), x)


def _sqrt(x: np.ndarray) -> np.ndarray:
    return np.sqrt(np.where(x <= 0, x.dtype.type(0), x))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    positive = x > 0
    t = libm("exp", np.where(positive, -x, x))
    return np.where(positive, one / (one + t), t / (one + t))


def _softplus(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    positive = x > 0
    t = libm("exp", np.where(positive, -x, x))
    log_term = libm("log", one + t)
    return np.where(positive, x + log_term, log_term)


def _log_checked(x: np.ndarray) -> np.ndarray:
    check_log_domain(x)
    return libm("log", x)


UNARY: dict[type[T.TlirOp], Callable[[np.ndarray], np.ndarray]] = {
    T.DetachOp: lambda x: x,
    T.AbsOp: np.abs,
    T.SqrtOp: _sqrt,
    T.InvOp: lambda x: x.dtype.type(1) / x,
    T.ReluOp: _relu,
    T.TanhOp: lambda x: libm("tanh", x),
    T.SigmoidOp: _sigmoid,
    T.ExpOp: lambda x: libm("exp", x),
    T.LogOp: _log_checked,
    T.SinOp: lambda x: libm("sin", x),
    T.CosOp: lambda x: libm("cos", x),
    T.SoftplusOp: _softplus,
}

BINARY: dict[type[T.TlirOp], Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    T.AddOp: np.add,
    T.SubOp: np.subtract,
    T.MulElemOp: np.multiply,
    T.MaxElemOp: cmax,
    T.MinElemOp: cmin,
}


@evaluates(T.SafeLogOp)
def _safe_log(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray:
    x, eps = args
    return libm("log", _softplus(x) + eps[()])


# --- basic -------------------------------------------------------------------


@evaluates(T.ConstOp)
def _const(op: T.ConstOp, args: Sequence[np.ndarray]) -> np.ndarray:
    return dense_to_numpy(op.value)


@evaluates(T.RandUniformOp)
def _rand_uniform(op: T.RandUniformOp, args: Sequence[np.ndarray]) -> np.ndarray:
    seed, node = op.seed.value.data, op.node_id.value.data
    return rng.uniform(seed, node, _result_shape(op), _dtype(op))


@evaluates(T.BernoulliMaskOp)
def _bernoulli_mask(op: T.BernoulliMaskOp, args: Sequence[np.ndarray]) -> np.ndarray:
    seed, node = op.seed.value.data, op.node_id.value.data
    return rng.bernoulli(seed, node, args[0][()], _result_shape(op), _dtype(op))


# --- data movement -----------------------------------------------------------


@evaluates(T.PermuteOp)
def _permute(op: T.PermuteOp, args: Sequence[np.ndarray]) -> np.ndarray:
    return np.transpose(args[0], T._ints(op.perm)).copy()


@evaluates(T.TransposeOp)
def _transpose(op: T.TransposeOp, args: Sequence[np.ndarray]) -> np.ndarray:
    return np.swapaxes(args[0], op.axis1.value.data, op.axis2.value.data).copy()


@evaluates(T.BroadcastToOp)
def _broadcast_to(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray:
    return np.broadcast_to(args[0], _result_shape(op)).copy()


@evaluates(T.ReshapeOp, T.FlattenOp)
def _reshape(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray:
    return args[0].reshape(_result_shape(op))


@evaluates(T.ConcatOp)
def _concat(op: T.ConcatOp, args: Sequence[np.ndarray]) -> np.ndarray:
    return np.concatenate(list(args), axis=op.axis.value.data)


# --- reductions --------------------------------------------------------------


@evaluates(T.ReduceSumOp)
def _reduce_sum(op: T.ReduceSumOp, args: Sequence[np.ndarray]) -> np.ndarray:
    return fold_sum(args[0], op.axis.value.data)


@evaluates(T.ReduceMeanOp)
def _reduce_mean(op: T.ReduceMeanOp, args: Sequence[np.ndarray]) -> np.ndarray:
    x, axis = args[0], op.axis.value.data
    return fold_sum(x, axis) / nat(x.shape[axis], x.dtype)


@evaluates(T.SumOp)
def _sum(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray:
    return fold_sum(args[0].reshape(-1), 0)


@evaluates(T.MseLossOp)
def _mse_loss(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray:
    prediction, target = args
    diff = (prediction - target).reshape(-1)
    denominator = diff.size if diff.size else 1
    return fold_sum(diff * diff, 0) / nat(denominator, diff.dtype)


# --- linear algebra ----------------------------------------------------------


@evaluates(T.MatmulOp)
def _matmul(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray:
    a, b = args
    a2 = a[np.newaxis, :] if a.ndim == 1 else a
    b2 = b[:, np.newaxis] if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    m, n, p = a2.shape[-2], a2.shape[-1], b2.shape[-1]
    acc = np.zeros(batch + (m, p), a.dtype)
    for k in range(n):
        acc = acc + a2[..., :, k, np.newaxis] * b2[..., np.newaxis, k, :]
    return acc.reshape(_result_shape(op))


@evaluates(T.LinearOp)
def _linear(op: Operation, args: Sequence[np.ndarray]) -> np.ndarray:
    x, weight, bias = args
    acc = np.zeros(x.shape[:-1] + (weight.shape[0],), x.dtype)
    for i in range(weight.shape[1]):
        acc = acc + weight[:, i] * x[..., i, np.newaxis]
    return acc + bias


def conv_padding(cfg) -> list[tuple[int, int]]:
    """`np.pad` widths of a conv's input: none before the channel axis, the conv's own after."""
    return [(0, 0)] * (cfg.channel_axis + 1) + list(
        zip(cfg.padding, cfg.padding_after, strict=True)
    )


def conv_fold(cfg, padded, weight, bias, acc):
    """docs/ops.md#conv on a padded input: from `acc` (zeros of the output's
    shape), per output, input channel of the group outermost, then kernel
    offsets in row-major order, acc + cell·tap; then + bias. Arrays or Dual
    numbers (the JVP reference) alike."""
    axis = cfg.channel_axis
    out_spatial = acc.shape[axis + 1 :]
    in_per_group = cfg.in_channels // cfg.groups
    out_per_group = cfg.out_channels // cfg.groups
    group_base = (np.arange(cfg.out_channels) // out_per_group) * in_per_group
    lead = (slice(None),) * axis
    spread = (slice(None),) + (np.newaxis,) * len(out_spatial)
    for local in range(in_per_group):
        channels = group_base + local
        for offset in itertools.product(*(range(k) for k in cfg.kernel)):
            window = tuple(
                slice(w * d, w * d + (o - 1) * s + 1, s) if o else slice(0, 0)
                for w, d, s, o in zip(offset, cfg.dilation, cfg.stride, out_spatial, strict=True)
            )
            cells = padded[lead + (channels,) + window]
            taps = weight[(np.arange(cfg.out_channels), channels) + offset]
            acc = acc + cells * taps[spread]
    return acc + bias[spread]


@evaluates(T.ConvOp)
def _conv(op: T.ConvOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """One fold per output (`conv_fold`); padded cells read as 0."""
    x, weight, bias = args
    padded = np.pad(x, conv_padding(op.config))
    return conv_fold(op.config, padded, weight, bias, np.zeros(_result_shape(op), x.dtype))


def window_cells(x, op: T.WindowOp, out_shape, pad=np.pad):
    """Yield (values, valid) per window offset in row-major order; `valid` marks
    cells inside the input (padding excluded). `x` an array, or Dual numbers
    with their own `pad` (the JVP reference)."""
    kernel, stride, padding = T._ints(op.kernel), T._ints(op.stride), T._ints(op.padding)
    lead_rank = len(x.shape) - len(kernel)
    out_spatial = out_shape[lead_rank:]
    widths = [(0, 0)] * lead_rank + [(p, p) for p in padding]
    padded = pad(x, widths)
    inside = np.pad(np.ones(x.shape[lead_rank:], bool), widths[lead_rank:])
    lead = (slice(None),) * lead_rank
    for offset in itertools.product(*(range(k) for k in kernel)):
        window = tuple(
            slice(w, w + (o - 1) * s + 1, s) if o else slice(0, 0)
            for w, s, o in zip(offset, stride, out_spatial, strict=True)
        )
        yield padded[lead + window], inside[window]


def _window_cells(x: np.ndarray, op: T.WindowOp):
    return window_cells(x, op, _result_shape(op))


@evaluates(T.MaxPoolOp)
def _max_pool(op: T.MaxPoolOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """Padded cells never contribute; a later cell replaces only if strictly greater."""
    x = args[0]
    shape = _result_shape(op)
    best = np.zeros(shape, x.dtype)
    seen = np.zeros(shape, bool)
    for values, valid in _window_cells(x, op):
        take = valid & (~seen | (values > best))
        best = np.where(take, values, best)
        seen = seen | valid
    return np.where(seen, best, x.dtype.type(0))


@evaluates(T.AvgPoolOp)
def _avg_pool(op: T.AvgPoolOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """Fold-sum with padding as 0, divided by the full kernel volume."""
    x = args[0]
    acc = np.zeros(_result_shape(op), x.dtype)
    for values, _valid in _window_cells(x, op):
        acc = acc + values
    return acc / nat(int(np.prod(T._ints(op.kernel))), x.dtype)


# --- normalization -----------------------------------------------------------


@evaluates(T.BatchNormEvalOp)
def _batch_norm_eval(op: T.BatchNormEvalOp, args: Sequence[np.ndarray]) -> np.ndarray:
    x, gamma, beta, mean, var = args
    eps = x.dtype.type(op.eps.value.data)
    spread = (slice(None),) + (np.newaxis,) * (x.ndim - op.channel_axis.value.data - 1)
    std = np.sqrt(cmax(cmax(var, 0) + eps, 0))
    return ((x - mean[spread]) / std[spread]) * gamma[spread] + beta[spread]


@evaluates(T.SoftmaxOp)
def _softmax(op: T.SoftmaxOp, args: Sequence[np.ndarray]) -> np.ndarray:
    x, axis = args[0], op.axis.value.data
    if x.shape[axis] == 0:
        return x.copy()
    m = np.expand_dims(fold_max(x, axis), axis)
    e = libm("exp", x - m)
    return e / np.expand_dims(fold_sum(e, axis), axis)


@evaluates(T.HardMaskedSoftmaxOp)
def _hard_masked_softmax(op: T.HardMaskedSoftmaxOp, args: Sequence[np.ndarray]) -> np.ndarray:
    x = args[0]
    allowed = np.array(op.mask.get_values(), bool).reshape(x.shape)
    one, zero = x.dtype.type(1), x.dtype.type(0)
    if x.ndim == 0:
        return np.array(one if allowed[()] else zero, x.dtype)
    row_max = np.zeros(x.shape[:-1], x.dtype)
    seen = np.zeros(x.shape[:-1], bool)
    for j in range(x.shape[-1]):
        value, ok = x[..., j], allowed[..., j]
        take = ok & (~seen | (value > row_max))
        row_max = np.where(take, value, row_max)
        seen = seen | ok
    numerators = np.where(allowed, libm("exp", x - row_max[..., np.newaxis]), zero)
    total = fold_sum(numerators, x.ndim - 1)[..., np.newaxis]
    return np.where(seen[..., np.newaxis], numerators / total, zero)


@evaluates(T.LayerNormOp)
def _layernorm(op: T.LayerNormOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """docs/ops.md#layernorm: mean, re-centred population variance, then the affine part."""
    x = args[0]
    axis = op.axis.value.data
    rows = x.reshape(
        int(np.prod(x.shape[:axis], dtype=np.int64)), int(np.prod(x.shape[axis:], dtype=np.int64))
    )
    n = nat(rows.shape[1], x.dtype)
    mu = fold_sum(rows, 1) / n
    centred = rows - mu[:, np.newaxis]
    mu2 = fold_sum(centred, 1) / n
    dev = centred - mu2[:, np.newaxis]
    var = cmax(fold_sum(dev * dev, 1) / n, 0)
    sigma = np.sqrt(cmax(var + x.dtype.type(op.eps.value.data), 0))
    y = centred / sigma[:, np.newaxis]
    if len(args) == 3:
        y = y * args[1].reshape(-1) + args[2].reshape(-1)
    return y.reshape(x.shape)


def _lift_unary(function: Callable[[np.ndarray], np.ndarray]) -> Evaluator:
    return lambda op, args: function(args[0])


def _lift_binary(function: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Evaluator:
    return lambda op, args: function(args[0], args[1])


for _op_class, _function in UNARY.items():
    EVALUATORS.add(_op_class, _lift_unary(_function))
for _op_class, _function in BINARY.items():
    EVALUATORS.add(_op_class, _lift_binary(_function))
