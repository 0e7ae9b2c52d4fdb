"""VJP rules of batch_norm_eval (docs/autodiff.md#d4-batch-norm-vjp) and
layernorm (docs/autodiff.md#reverse-mode, TorchLean's `layerNormBackward`): the
forward statistics recomputed exactly as the forward computes them, then the
closed forms, every sum a fold from +0."""

from __future__ import annotations

import math

from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import Scalar, d, dims, shape_of
from tlir.passes.autodiff.tables import vjp_rule


def _std(s: Scalar, variance: SSAValue, eps: float) -> SSAValue:
    """sqrt(max(max(v, 0) + eps, 0)), the forward's standard deviation."""
    return s.sqrt(s.clamp_at_zero(s.add(s.clamp_at_zero(variance), s.const(eps))))


@vjp_rule(T.BatchNormEvalOp, stops=[3, 4])
def batch_norm_eval(v, op: T.BatchNormEvalOp, g: SSAValue, wants: list[bool]) -> list:
    """D4: dx = (g·γ)/std; dγ = Σ g·((x − mean)/std); dβ = Σ g; the sums over every
    non-channel position in row-major order; no gradient for mean and var."""
    shape = shape_of(op.input)
    axis = op.channel_axis.value.data
    full, channel = dims(range(len(shape))), [d(axis)]
    others = [a for a in range(len(shape)) if a != axis]
    eps = op.eps.value.data
    gx = gg = gb = None
    if wants[0]:

        def dx(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
            grad, gamma, var = a[:3]
            return [s.div(s.mul(grad, gamma), _std(s, var, eps))]

        gx = v.b.fold([g, op.gamma, op.var], [full, channel, channel], shape, [], [0.0], dx)[0]
    if wants[1]:

        def dgamma(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
            grad, x, mean, var, acc = a
            xhat = s.div(s.sub(x, mean), _std(s, var, eps))
            return [s.add(acc, s.mul(grad, xhat))]

        inputs = [g, op.input, op.mean, op.var]
        maps = [full, full, channel, channel]
        gg = v.b.fold(inputs, maps, shape, others, [0.0], dgamma)[0]
    if wants[2]:
        gb = v.b.fold([g], [full], shape, others, [0.0], lambda s, a: [s.add(a[1], a[0])])[0]
    return [gx, gg, gb, None, None]


@vjp_rule(T.LayerNormOp)
def layernorm(v, op: T.LayerNormOp, g: SSAValue, wants: list[bool]) -> list:
    """Rows of the axes before `axis`, N elements each: xhat = c/σ as the forward
    computes them; gγ = g·γ (g without an affine part); dx = (1/σ)·((gγ − Σgγ/N)
    − xhat·(Σ(gγ·xhat)/N)); dγ = Σ over rows of g·xhat; dβ = Σ over rows of g."""
    x = op.input
    shape, axis = shape_of(x), op.axis.value.data
    full, rows = dims(range(len(shape))), dims(range(axis))
    norm, lead = list(range(axis, len(shape))), list(range(axis))
    count = float(math.prod(shape[axis:]))
    eps = op.eps.value.data
    b = v.b

    def add(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        return [s.add(a[-1], a[0])]

    def mean(s: Scalar, total: SSAValue) -> SSAValue:
        return s.div(total, s.const(count))

    s1 = b.fold([x], [full], shape, norm, [0.0], add)[0]
    c = b.fold([x, s1], [full, rows], shape, [], [0.0], lambda s, a: [s.sub(a[0], mean(s, a[1]))])[
        0
    ]
    s2 = b.fold([c], [full], shape, norm, [0.0], add)[0]

    def squares(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        dev = s.sub(a[0], mean(s, a[1]))
        return [s.add(a[2], s.mul(dev, dev))]

    s3 = b.fold([c, s2], [full, rows], shape, norm, [0.0], squares)[0]

    def normalized(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        return [s.div(a[0], _std(s, mean(s, a[1]), eps))]

    xhat = b.fold([c, s3], [full, rows], shape, [], [0.0], normalized)[0]
    affine = op.gamma is not None
    gx = gg = gb = None
    if wants[0]:
        scaled = g
        if affine:
            scaled = b.fold([g, op.gamma], [full, dims(norm)], shape, [], [0.0],
                            lambda s, a: [s.mul(a[0], a[1])])[0]  # fmt: skip
        t1 = b.fold([scaled], [full], shape, norm, [0.0], add)[0]
        t2 = b.fold([scaled, xhat], [full, full], shape, norm, [0.0],
                    lambda s, a: [s.add(a[2], s.mul(a[0], a[1]))])[0]  # fmt: skip

        def dx(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
            gg_, xh, total1, total2, var_sum = a[:5]
            inv_std = s.div(s.const(1.0), _std(s, mean(s, var_sum), eps))
            centred = s.sub(gg_, mean(s, total1))
            return [s.mul(inv_std, s.sub(centred, s.mul(xh, mean(s, total2))))]

        inputs = [scaled, xhat, t1, t2, s3]
        gx = b.fold(inputs, [full, full, rows, rows, rows], shape, [], [0.0], dx)[0]
    if affine and wants[1]:
        gg = b.fold([g, xhat], [full, full], shape, lead, [0.0],
                    lambda s, a: [s.add(a[2], s.mul(a[0], a[1]))])[0]  # fmt: skip
    if affine and wants[2]:
        gb = b.fold([g], [full], shape, lead, [0.0], add)[0]
    return [gx, gg, gb] if affine else [gx]
