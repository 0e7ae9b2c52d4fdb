"""The ATen lowerings of `tlir.from_torch`: one small function per core ATen op.

`LOWERINGS` maps each supported ATen op (the OpOverload object, as
tlir/optable.py keys by op class) to a function that reads the FX node's
arguments and emits tlir ops through the converter's `Emitter`
(tlir/frontend/pytorch.py). What a lowering cannot express is one `TlirError`
at the node. docs/pytorch.md#aten-coverage lists the table.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch.fx import Node
from xdsl.dialects.builtin import Float64Type, FloatAttr
from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.dialects.tlir import i64_array, i64_attr, seed_attr
from tlir.frontend.emitter import shape_of

if TYPE_CHECKING:
    from tlir.frontend.pytorch import Converter

aten = torch.ops.aten
Lowering = Callable[["Converter", Node], object]

LOWERINGS: dict[object, Lowering] = {}
"""ATen OpOverload → its lowering."""


def lowers(*ops: object) -> Callable[[Lowering], Lowering]:
    def register(fn: Lowering) -> Lowering:
        for op in ops:
            LOWERINGS[op] = fn
        return fn

    return register


class Boolean:
    """A boolean tensor (TorchLean has none): only the pattern that reads it
    (`where` of safe softmax or softplus) may use it."""

    def __init__(self, node: Node):
        self.node = node


def _shape(node: Node) -> tuple[int, ...]:
    return tuple(int(d) for d in node.meta["val"].shape)


def _arg(node: Node, index: int, name: str, default=None):
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


# --- elementwise ------------------------------------------------------------------

_UNARY = {
    aten.relu.default: T.ReluOp, aten.exp.default: T.ExpOp, aten.log.default: T.LogOp,
    aten.sin.default: T.SinOp, aten.cos.default: T.CosOp, aten.tanh.default: T.TanhOp,
    aten.sigmoid.default: T.SigmoidOp, aten.abs.default: T.AbsOp, aten.sqrt.default: T.SqrtOp,
    aten.reciprocal.default: T.InvOp,
}  # fmt: skip
_BINARY = {
    aten.add.Tensor: T.AddOp, aten.add.Scalar: T.AddOp, aten.sub.Tensor: T.SubOp,
    aten.sub.Scalar: T.SubOp, aten.mul.Tensor: T.MulElemOp, aten.mul.Scalar: T.MulElemOp,
    aten.maximum.default: T.MaxElemOp, aten.minimum.default: T.MinElemOp,
}  # fmt: skip


def _unary(c: Converter, node: Node) -> SSAValue:
    return c.e.unary(_UNARY[node.target], c.t(node.args[0]))


def _binary(c: Converter, node: Node) -> SSAValue:
    a, b = c.v(node.args[0]), c.v(node.args[1])
    alpha = node.kwargs.get("alpha", 1)
    if alpha != 1:
        b = c.e.binary(T.MulElemOp, b, float(alpha))
    if not isinstance(a, SSAValue) and not isinstance(b, SSAValue):
        raise c.e.error("an op on two numbers")
    return c.e.binary(_BINARY[node.target], a, b)


for _op in _UNARY:
    lowers(_op)(_unary)
for _op in _BINARY:
    lowers(_op)(_binary)


@lowers(aten.div.Tensor, aten.div.Scalar)
def _div(c: Converter, node: Node) -> SSAValue:
    if node.kwargs.get("rounding_mode") is not None:
        raise c.e.error("rounding division is not supported")
    return c.e.divide(c.v(node.args[0]), c.v(node.args[1]))


@lowers(aten.neg.default)
def _neg(c: Converter, node: Node) -> SSAValue:
    return c.e.binary(T.MulElemOp, c.t(node.args[0]), -1.0)


@lowers(aten.rsub.Scalar)
def _rsub(c: Converter, node: Node) -> SSAValue:
    """other − alpha·self."""
    x = c.t(node.args[0])
    alpha = _arg(node, 2, "alpha", 1)
    if alpha != 1:
        x = c.e.binary(T.MulElemOp, x, float(alpha))
    return c.e.binary(T.SubOp, c.v(node.args[1]), x)


@lowers(aten.pow.Tensor_Scalar)
def _pow(c: Converter, node: Node) -> SSAValue:
    """Small integer powers as products (x², x³, x⁴) and x⁻¹ as inv."""
    x, n = c.t(node.args[0]), node.args[1]
    if n == -1:
        return c.e.unary(T.InvOp, x)
    if n not in (1, 2, 3, 4):
        raise c.e.error(f"only the exponents -1, 1, 2, 3 and 4 are supported, got {n}")
    y = x
    for _ in range(int(n) - 1):
        y = c.e.binary(T.MulElemOp, y, x)
    return y


@lowers(aten.clamp.default, aten.hardtanh.default)
def _clamp(c: Converter, node: Node) -> SSAValue:
    default = (-1.0, 1.0) if node.target == aten.hardtanh.default else (None, None)
    names = ("min_val", "max_val") if node.target == aten.hardtanh.default else ("min", "max")
    low = _arg(node, 1, names[0], default[0])
    high = _arg(node, 2, names[1], default[1])
    if isinstance(low, Node) or isinstance(high, Node):
        raise c.e.error("only numbers are supported as bounds")
    return c.e.clamp(c.t(node.args[0]), _number(low), _number(high))


def _number(value) -> float | None:
    return None if value is None else float(value)


@lowers(aten.leaky_relu.default)
def _leaky_relu(c: Converter, node: Node) -> SSAValue:
    return c.e.leaky_relu(c.t(node.args[0]), float(_arg(node, 1, "negative_slope", 0.01)))


@lowers(aten.gelu.default)
def _gelu(c: Converter, node: Node) -> SSAValue:
    if node.kwargs.get("approximate", "none") != "tanh":
        raise c.e.error("exact GELU needs erf, which TorchLean lacks (use approximate='tanh')")
    return c.e.gelu_tanh(c.t(node.args[0]))


@lowers(aten.eq.Scalar, aten.logical_not.default, aten.any.dim, aten.gt.Scalar)
def _boolean(c: Converter, node: Node) -> Boolean:
    return Boolean(node)


@lowers(aten.full_like.default)
def _full_like(c: Converter, node: Node) -> SSAValue | Boolean:
    if not node.meta["val"].dtype.is_floating_point:
        return Boolean(node)
    return c.e.splat(float(node.args[1]), _shape(node))


@lowers(aten.log1p.default)
def _log1p(c: Converter, node: Node) -> object:
    """Only inside softplus's where (TorchLean has no log1p)."""
    return Boolean(node)


@lowers(aten.where.self)
def _where(c: Converter, node: Node) -> SSAValue:
    """Two patterns: PyTorch's safe softmax (rows that are all -inf give 0) and
    softplus (beta 1, threshold 20)."""
    cond, a, b = node.args
    if _is_safe_softmax(cond, a, b):
        return c.t(b)
    x = _softplus_input(cond, a, b)
    if x is not None:
        return c.e.unary(T.SoftplusOp, c.t(x))
    raise c.e.error(
        "TorchLean has no select op (only the where of softmax and of softplus is recognised)"
    )


def _is_safe_softmax(cond, a, b) -> bool:
    chain = cond
    for target in (aten.logical_not.default, aten.any.dim, aten.logical_not.default):
        if not isinstance(chain, Node) or chain.target != target:
            return False
        chain = chain.args[0]
    return (
        isinstance(chain, Node)
        and chain.target == aten.eq.Scalar
        and chain.args[1] == float("-inf")
        and isinstance(b, Node)
        and b.target == aten._softmax.default
        and chain.args[0] is b.args[0]
        and isinstance(a, Node)
        and a.target == aten.full_like.default
        and a.args[1] == 0
    )


def _softplus_input(cond, a, b):
    if not (isinstance(cond, Node) and cond.target == aten.gt.Scalar and cond.args[1] == 20):
        return None
    x = cond.args[0]
    if a is not x or not (isinstance(b, Node) and b.target == aten.log1p.default):
        return None
    exp = b.args[0]
    if isinstance(exp, Node) and exp.target == aten.exp.default and exp.args[0] is x:
        return x
    return None


# --- structure --------------------------------------------------------------------


_RESHAPES = (
    aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.unsqueeze.default,
    aten.squeeze.dims, aten.squeeze.dim, aten.squeeze.default,
)  # fmt: skip


@lowers(*_RESHAPES)
def _reshape(c: Converter, node: Node) -> SSAValue:
    return c.e.reshape(c.t(node.args[0]), _shape(node))


@lowers(aten.clone.default, aten.alias.default, aten.lift_fresh_copy.default)
def _identity(c: Converter, node: Node) -> SSAValue:
    """A copy or a view is the value itself; but `x.detach()` exports as an
    alias: it is TorchLean's detach (no gradient flows through it). (The
    recorded OpOverload is not the `aten.detach.default` object: compared by name.)"""
    if str(node.meta.get("original_aten")) == str(aten.detach.default):
        return c.e.unary(T.DetachOp, c.t(node.args[0]))
    return c.t(node.args[0])


@lowers(aten.detach.default)
def _detach(c: Converter, node: Node) -> SSAValue:
    return c.e.unary(T.DetachOp, c.t(node.args[0]))


@lowers(aten._to_copy.default)
def _to_copy(c: Converter, node: Node) -> SSAValue:
    x = c.t(node.args[0])
    if node.meta["val"].dtype != node.args[0].meta["val"].dtype:
        raise c.e.error("a dtype conversion inside the model is not supported")
    return x


@lowers(aten.permute.default)
def _permute(c: Converter, node: Node) -> SSAValue:
    return c.e.permute(c.t(node.args[0]), node.args[1])


@lowers(aten.expand.default)
def _expand(c: Converter, node: Node) -> SSAValue:
    return c.e.to_shape(c.t(node.args[0]), _shape(node))


@lowers(aten.cat.default)
def _cat(c: Converter, node: Node) -> SSAValue:
    values = [c.t(a) for a in node.args[0]]
    axis = _arg(node, 1, "dim", 0) % len(_shape(node))
    return c.e.concat(values, axis)


@lowers(aten.select.int)
def _select(c: Converter, node: Node) -> SSAValue:
    x = c.t(node.args[0])
    axis, index = node.args[1], node.args[2]
    n = shape_of(x)[axis]
    return c.e.take(x, axis, [index % n], keep_axis=False)


@lowers(aten.slice.Tensor)
def _slice(c: Converter, node: Node) -> SSAValue:
    x = c.t(node.args[0])
    axis = _arg(node, 1, "dim", 0)
    start, end, step = _arg(node, 2, "start"), _arg(node, 3, "end"), _arg(node, 4, "step", 1)
    indices = range(shape_of(x)[axis])[slice(start, end, step)]
    return c.e.take(x, axis, list(indices), keep_axis=True)


@lowers(aten.split_with_sizes.default)
def _split(c: Converter, node: Node) -> tuple:
    x = c.t(node.args[0])
    axis = _arg(node, 2, "dim", 0)
    parts, start = [], 0
    for size in node.args[1]:
        parts.append(c.e.take(x, axis, list(range(start, start + size)), keep_axis=True))
        start += size
    return tuple(parts)


@lowers(operator.getitem)
def _getitem(c: Converter, node: Node) -> SSAValue:
    source = c.values[node.args[0]]
    value = source[node.args[1]] if isinstance(source, tuple) else None
    if not isinstance(value, SSAValue):
        raise c.e.error(f"output {node.args[1]} of {node.args[0].target} is not supported")
    return value


# --- reductions and normalisations ----------------------------------------------


@lowers(aten.sum.dim_IntList, aten.sum.default)
def _sum(c: Converter, node: Node) -> SSAValue:
    x = c.t(node.args[0])
    axes = _arg(node, 1, "dim")
    keepdim = _arg(node, 2, "keepdim", False)
    if not axes:  # every axis: TorchLean's sum (one row-major fold)
        return c.e.reshape(c.e.emit(T.SumOp, [x], ()), _shape(node))
    return c.e.reduce(T.ReduceSumOp, x, axes, keepdim)


@lowers(aten.mean.dim, aten.mean.default)
def _mean(c: Converter, node: Node) -> SSAValue:
    x = c.t(node.args[0])
    axes = _arg(node, 1, "dim")
    keepdim = _arg(node, 2, "keepdim", False)
    if not axes:
        flat = c.e.reshape(x, (int(np.prod(shape_of(x))),))
        return c.e.reshape(c.e.reduce(T.ReduceMeanOp, flat, [0], False), _shape(node))
    return c.e.reduce(T.ReduceMeanOp, x, axes, keepdim)


@lowers(aten._softmax.default)
def _softmax(c: Converter, node: Node) -> SSAValue:
    x = c.t(node.args[0])
    axis = node.args[1] % len(shape_of(x))
    return c.e.emit(T.SoftmaxOp, [x], shape_of(x), {"axis": i64_attr(axis)})


@lowers(aten._log_softmax.default)
def _log_softmax(c: Converter, node: Node) -> SSAValue:
    return c.e.log_softmax(c.t(node.args[0]), node.args[1])


@lowers(aten.native_layer_norm.default)
def _layer_norm(c: Converter, node: Node) -> tuple:
    x, normalized, weight, bias, eps = node.args
    x = c.t(x)
    axis = len(shape_of(x)) - len(normalized)
    props = {"axis": i64_attr(axis), "eps": FloatAttr(float(eps), Float64Type())}
    if weight is not None and bias is not None:
        operands = [x, [c.t(weight)], [c.t(bias)]]
        return (c.e.emit(T.LayerNormOp, operands, shape_of(x), props), None, None)
    y = c.e.emit(T.LayerNormOp, [x, [], []], shape_of(x), props)
    if weight is not None:  # (c/σ)·γ: the rounding of TorchLean's affine layernorm
        y = c.e.binary(T.MulElemOp, y, c.t(weight))
    if bias is not None:
        y = c.e.binary(T.AddOp, y, c.t(bias))
    return (y, None, None)


@lowers(aten._native_batch_norm_legit_no_training.default)
def _batch_norm(c: Converter, node: Node) -> tuple:
    x, weight, bias, mean, var, _momentum, eps = node.args
    x = c.t(x)
    channels = shape_of(x)[1]
    ones = np.ones(channels)
    gamma = c.t(weight) if weight is not None else c.e.fixed(ones, "gamma")
    beta = c.t(bias) if bias is not None else c.e.fixed(0 * ones, "beta")
    props = {
        "channel_axis": i64_attr(1),
        "channels": i64_attr(channels),
        "eps": FloatAttr(float(eps), Float64Type()),
    }
    operands = [x, gamma, beta, c.t(mean), c.t(var)]
    return (c.e.emit(T.BatchNormEvalOp, operands, shape_of(x), props), None, None)


TRAINING_BATCH_NORM = (
    aten._native_batch_norm_legit_functional.default,
    aten._native_batch_norm_legit.default,
)


@lowers(*TRAINING_BATCH_NORM)
def batch_norm_training(c: Converter, node: Node) -> SSAValue:
    raise c.e.error("batch norm in training mode is not supported (export the model in eval())")


@lowers(aten.native_dropout.default)
def _dropout(c: Converter, node: Node) -> tuple:
    """Training-mode dropout: x · mask · 1/(1-p), the mask TorchLean's
    bernoulli_mask (keep probability 1-p) keyed by `seed`."""
    x, p, train = c.t(node.args[0]), float(node.args[1]), node.args[2]
    if not train or p == 0:
        return (x, None)
    if p >= 1:
        return (c.e.binary(T.MulElemOp, x, 0.0), None)
    keep = c.e.splat(1.0 - p, ())
    props = {"seed": seed_attr(c.seed + c.dropouts), "node_id": i64_attr(c.e.b.next_tensor_id)}
    c.dropouts += 1
    mask = c.e.emit(T.BernoulliMaskOp, [keep], shape_of(x), props)
    return (c.e.binary(T.MulElemOp, c.e.binary(T.MulElemOp, x, mask), 1.0 / (1.0 - p)), None)


# --- contractions and windows -------------------------------------------------------


@lowers(aten.mm.default, aten.bmm.default)
def _matmul(c: Converter, node: Node) -> SSAValue:
    return c.e.matmul(c.t(node.args[0]), c.t(node.args[1]))


@lowers(aten.addmm.default)
def _addmm(c: Converter, node: Node) -> SSAValue:
    """bias + x·Wᵀ with W a parameter is TorchLean's linear (W in nn.Linear's
    layout); any other addmm a matmul and an add (the same rounding)."""
    bias, m1, m2 = node.args[:3]
    if node.kwargs.get("beta", 1) != 1 or node.kwargs.get("alpha", 1) != 1:
        raise c.e.error("addmm with beta or alpha other than 1 is not supported")
    x = c.t(m1)
    weight = _transposed_parameter(c, m2)
    b = c.t(bias)
    if weight is not None and len(shape_of(b)) == 1:
        out = (shape_of(x)[0], shape_of(weight)[0])
        return c.e.emit(T.LinearOp, [x, weight, b], out)
    return c.e.binary(T.AddOp, c.e.matmul(x, c.t(m2)), b)


def _transposed_parameter(c: Converter, arg) -> SSAValue | None:
    if not (isinstance(arg, Node) and arg.target == aten.permute.default):
        return None
    source = arg.args[0]
    if list(arg.args[1]) != [1, 0] or source.op != "placeholder":
        return None
    value = c.values.get(source)
    return value if isinstance(value, SSAValue) else None


@lowers(aten.convolution.default)
def _convolution(c: Converter, node: Node) -> SSAValue:
    x, weight, bias, stride, padding, dilation, transposed, output_padding, groups = node.args
    if transposed:
        raise c.e.error("transposed convolution is not supported")
    x, packed = c.t(x), c.t(weight)
    out_c = shape_of(packed)[0]
    spatial = len(shape_of(packed)) - 2
    b = c.t(bias) if bias is not None else c.e.fixed(np.zeros(out_c), "bias")
    dense = c.e.dense_group_weight(packed, groups)
    props = {
        "kernel": i64_array(shape_of(packed)[2:]),
        "stride": i64_array(_per_axis(stride, spatial)),
        "padding": i64_array(_per_axis(padding, spatial)),
        "padding_after": i64_array(_per_axis(padding, spatial)),
        "dilation": i64_array(_per_axis(dilation, spatial)),
        "groups": i64_attr(groups),
        "channel_axis": i64_attr(1),
        "in_channels": i64_attr(shape_of(x)[1]),
        "out_channels": i64_attr(out_c),
    }
    return c.e.emit(T.ConvOp, [x, dense, b], _shape(node), props)


def _per_axis(values, rank: int) -> list[int]:
    values = list(values)
    return values * rank if len(values) == 1 else values


@lowers(aten.max_pool2d_with_indices.default)
def _max_pool(c: Converter, node: Node) -> tuple:
    x = c.t(node.args[0])
    kernel = list(node.args[1])
    stride = _arg(node, 2, "stride") or kernel
    padding = _per_axis(_arg(node, 3, "padding", [0]), len(kernel))
    if set(_arg(node, 4, "dilation", [1])) != {1} or _arg(node, 5, "ceil_mode", False):
        raise c.e.error("max pooling with dilation or ceil_mode is not supported")
    props = {"kernel": i64_array(kernel), "stride": i64_array(_per_axis(stride, len(kernel))),
             "padding": i64_array(padding)}  # fmt: skip
    return (c.e.emit(T.MaxPoolOp, [x], _pool_shape(node), props), None)


def _pool_shape(node: Node) -> tuple[int, ...]:
    val = node.meta["val"]
    return tuple(int(d) for d in (val[0] if isinstance(val, tuple | list) else val).shape)


@lowers(aten.avg_pool2d.default)
def _avg_pool(c: Converter, node: Node) -> SSAValue:
    x = c.t(node.args[0])
    kernel = list(node.args[1])
    stride = _arg(node, 2, "stride") or kernel
    padding = _per_axis(_arg(node, 3, "padding", [0]), len(kernel))
    if _arg(node, 4, "ceil_mode", False) or _arg(node, 6, "divisor_override") is not None:
        raise c.e.error("average pooling with ceil_mode or divisor_override is not supported")
    if any(padding) and not _arg(node, 5, "count_include_pad", True):
        raise c.e.error("padded average pooling needs count_include_pad=True")
    props = {"kernel": i64_array(kernel), "stride": i64_array(_per_axis(stride, len(kernel))),
             "padding": i64_array(padding)}  # fmt: skip
    return c.e.emit(T.AvgPoolOp, [x], _shape(node), props)
