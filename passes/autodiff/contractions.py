"""Derivative contractions as plain tlir contractions, where that is exact.

The folds of a derivative (docs/autodiff.md#forward-mode-dual-valued-execution,
docs/autodiff.md#d5-linear-vjp, docs/autodiff.md#d6-conv-vjp) run from +0 in ascending index
order, one product per term: when such a fold reads its operands in the order a
`tlir.matmul`/`tlir.linear`/`tlir.conv` folds, it *is* that op, so the rule
emits the op (the compiled contraction kernels) instead of a `tlir_ad.fold`.

* VJP, D5: dx = matmul(g, W), dW = matmul(gᵀ, x) (rows flattened); matmul:
  dA = matmul(g, Bᵀ), dB = matmul(Aᵀ, g) on an unbroadcast batch.
* VJP, D6: dK (one group) = `tlir_ad.conv_kernel_grad` on the padded input and
  g (fold over leading then output positions, padded cells included), one
  contraction op in [c, k…, oc] layout, transposed to [oc, c, k…];
  dX (any conv) = `tlir_ad.conv_input_grad` (`conv_input_vjp`), D6's fold as
  one contraction op, which the kernel generator compiles as one GEMM.
* JVP with parameter tangents +0 (unseeded): each term is (+0·x) + (W·dx). An
  accumulator from +0 is never −0, so a ±0 term leaves it unchanged and the
  sum equals the fold of W·dx, except that +0·x is NaN where x is infinite or
  NaN. W·(dx + (+0·x)) has the same two properties (it differs from W·dx at
  most in the sign of a zero, and is NaN where x is not finite), so the
  tangent is linear(dx + (+0·x), W, +0) (conv(…), any groups): one elementwise
  pass over the input instead of a mask over the output.

Anything else (zero-size operands, broadcast batches, groups in dK, seeded
parameter tangents) keeps the `tlir_ad.fold` of the rule.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from tlir.dense import dense_to_numpy
from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as A
from tlir.passes.autodiff.builder import Builder, Scalar, d, dims, element_of, shape_of


def is_positive_zero(value: SSAValue) -> bool:
    """A `tlir.const` holding +0 everywhere (an unseeded tangent)."""
    owner = value.owner
    if not isinstance(owner, T.ConstOp):
        return False
    array = dense_to_numpy(owner.value)
    return not array.any() and not np.signbit(array).any()


def _nonempty(*values: SSAValue) -> bool:
    return all(math.prod(shape_of(v)) > 0 for v in values)


def _transpose(b: Builder, value: SSAValue, axis1: int, axis2: int) -> SSAValue:
    shape = list(shape_of(value))
    shape[axis1], shape[axis2] = shape[axis2], shape[axis1]
    return b.tlir(T.TransposeOp, [value], shape, axis1=T.i64_attr(axis1), axis2=T.i64_attr(axis2))


def _matmul(b: Builder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    shape = [*shape_of(lhs)[:-1], shape_of(rhs)[-1]]
    return b.tlir(T.MatmulOp, [lhs, rhs], shape)


# --- VJP ---------------------------------------------------------------------


def linear_vjp(b: Builder, op: T.LinearOp, g: SSAValue, wants: list[bool]):
    """(dx, dW) of D5 as matmuls, or None where the fold stays."""
    if not _nonempty(op.input, op.weight, g):
        return None
    x = shape_of(op.input)
    out_dim, in_dim = shape_of(op.weight)
    rows = math.prod(x[:-1])
    g2 = b.reshape(g, [rows, out_dim])
    gx = gw = None
    if wants[0]:
        gx = b.reshape(_matmul(b, g2, op.weight), x)
    if wants[1]:
        x2 = b.reshape(op.input, [rows, in_dim])
        gw = _matmul(b, _transpose(b, g2, 0, 1), x2)
    return gx, gw


def matmul_vjp(b: Builder, op: T.MatmulOp, g: SSAValue, wants: list[bool]):
    """(dA, dB) as matmuls when both operands are matrices with the same batch."""
    a, c = shape_of(op.lhs), shape_of(op.rhs)
    if len(a) < 2 or len(c) < 2 or a[:-2] != c[:-2] or not _nonempty(op.lhs, op.rhs, g):
        return None
    last = len(a) - 1
    da = _matmul(b, g, _transpose(b, op.rhs, last - 1, last)) if wants[0] else None
    db = _matmul(b, _transpose(b, op.lhs, last - 1, last), g) if wants[1] else None
    return da, db


def conv_kernel_vjp(b: Builder, op: T.ConvOp, g: SSAValue) -> SSAValue | None:
    """dK of D6 for one group: one `tlir_ad.conv_kernel_grad` on the padded input
    and g, dKᵀ[c, k, oc] = fold over the leading positions, then the output
    positions (row-major), of x_pad·g (padded cells included, as in D6), moved
    to [oc, c, k] by a transpose of the [c·k, oc] matrix."""
    cfg = op.config
    if cfg.groups != 1 or not _nonempty(op.input, op.weight, g):
        return None
    lead = cfg.channel_axis
    channels, out_channels = cfg.in_channels, cfg.out_channels
    zeros = [0] * (lead + 1)
    x_pad = b.pad(op.input, zeros + list(cfg.padding), zeros + list(cfg.padding_after))
    geometry = dict(stride=cfg.stride, dilation=cfg.dilation, channel_axis=lead)
    result = TensorType(element_of(g), [channels, *cfg.kernel, out_channels])
    dkt = b.add(A.ConvKernelGradOp(x_pad, g, geometry, result)).results[0]
    width = channels * math.prod(cfg.kernel)
    dk = _transpose(b, b.reshape(dkt, [width, out_channels]), 0, 1)
    return b.reshape(dk, shape_of(op.weight))


# --- JVP ---------------------------------------------------------------------


def _zero_times(s: Scalar, value: SSAValue) -> SSAValue:
    return s.mul(s.const(0.0), value)


def _poisoned(b: Builder, tangent: SSAValue, primal: SSAValue) -> SSAValue:
    """tangent + (+0·primal): the tangent (up to the sign of a zero) where the
    primal is finite, NaN where it is not."""
    shape = shape_of(primal)
    every = dims(range(len(shape)))
    return b.fold(
        [tangent, primal],
        [every, every],
        shape,
        [],
        [0.0],
        lambda s, v: [s.add(v[0], _zero_times(s, v[1]))],
    )[0]


def linear_jvp(b: Builder, op: T.LinearOp, dots: list[SSAValue]) -> SSAValue | None:
    """The tangent of linear with +0 weight and bias tangents, or None."""
    if not (is_positive_zero(dots[1]) and is_positive_zero(dots[2])):
        return None
    if not _nonempty(op.input, op.weight):
        return None
    dx = _poisoned(b, dots[0], op.input)
    return b.tlir(T.LinearOp, [dx, op.weight, dots[2]], shape_of(op.result))


def conv_jvp(b: Builder, op: T.ConvOp, dots: list[SSAValue]) -> SSAValue | None:
    """The tangent of conv with +0 kernel and bias tangents, or None."""
    if not (is_positive_zero(dots[1]) and is_positive_zero(dots[2])):
        return None
    if not _nonempty(op.input, op.weight):
        return None
    props = dict(
        kernel=op.kernel,
        stride=op.stride,
        padding=op.padding,
        padding_after=op.padding_after,
        dilation=op.dilation,
        groups=op.groups,
        channel_axis=op.channel_axis,
        in_channels=op.in_channels,
        out_channels=op.out_channels,
    )
    dx = _poisoned(b, dots[0], op.input)
    return b.tlir(T.ConvOp, [dx, op.weight, dots[2]], shape_of(op.result), **props)


def conv_input_vjp(b: Builder, op: T.ConvOp, g: SSAValue) -> SSAValue:
    """dX of D6 as one `tlir_ad.conv_input_grad` on g and the weight's group
    blocks transposed to [in_channels, out_channels/groups, k…]: wt[gr·cin + l,
    m, k] = K[gr·cout + m, gr·cin + l, k] (K is dense and block-diagonal)."""
    cfg = op.config
    groups, kernel = cfg.groups, list(cfg.kernel)
    cin, cout = cfg.in_channels // groups, cfg.out_channels // groups
    if groups == 1:
        weight = _transpose(b, op.weight, 0, 1)
    else:
        cells = dims(range(3, 3 + len(kernel)))
        read = [d(0) * cout + d(2), d(0) * cin + d(1), *cells]
        bounds = [groups, cin, cout, *kernel]
        blocks = b.fold([op.weight], [read], bounds, [], [0.0], _copy)[0]
        weight = b.reshape(blocks, [cfg.in_channels, cout, *kernel])
    geometry = dict(
        stride=cfg.stride,
        padding=cfg.padding,
        dilation=cfg.dilation,
        groups=groups,
        channel_axis=cfg.channel_axis,
    )
    result = TensorType(element_of(g), list(shape_of(op.input)))
    return b.add(A.ConvInputGradOp(g, weight, geometry, result)).results[0]


def _copy(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
    return [v[0]]
