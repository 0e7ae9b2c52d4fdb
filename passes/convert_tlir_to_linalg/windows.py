"""Windows: pooling and convolution as `linalg.generic` over (…, outputs, window).

The window offsets are the innermost dimensions, in row-major order, so each
output folds its window cells in the spec's order. Padded coordinates are
`o·stride + w·dilation` in the zero-padded input.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.convert_tlir_to_linalg.emit import (
    PARALLEL,
    REDUCTION,
    Body,
    Emitter,
    amap,
    collapse,
    dim,
    dims,
    expand,
    identity,
    pad_zero,
    shape_of,
)
from tlir.passes.convert_tlir_to_linalg.reductions import divide, fold_sum
from tlir.passes.convert_tlir_to_linalg.registry import lowers


def _ints(attr) -> tuple[int, ...]:
    return T._ints(attr)


class PoolGeometry:
    """Dims (lead…, o_1…o_d, k_1…k_d) of a pooling generic."""

    def __init__(self, op: T.WindowOp):
        self.kernel, self.stride, self.padding = (
            _ints(op.kernel),
            _ints(op.stride),
            _ints(op.padding),
        )
        self.d = len(self.kernel)
        self.in_shape = shape_of(op.input)
        self.lead = len(self.in_shape) - self.d
        self.out_shape = shape_of(op.result)
        self.ndims = self.lead + 2 * self.d
        self.iterators = [PARALLEL] * (self.lead + self.d) + [REDUCTION] * self.d

    def out_dim(self, a: int) -> int:
        return self.lead + a

    def window_dim(self, a: int) -> int:
        return self.lead + self.d + a

    def input_map(self):
        spatial = [
            dim(self.out_dim(a)) * self.stride[a] + dim(self.window_dim(a)) for a in range(self.d)
        ]
        return amap(self.ndims, [*dims(range(self.lead)), *spatial])

    def output_map(self):
        return amap(self.ndims, dims(range(self.lead + self.d)))

    def padded_input(self, e: Emitter, x: SSAValue) -> SSAValue:
        low = (0,) * self.lead + self.padding
        return pad_zero(e, x, low, low)

    def window(self, e: Emitter) -> tuple[SSAValue, object]:
        """A shape-only operand of the kernel's extents (as MLIR's pooling ops
        take), so the window dimensions have a range; its values are never read."""
        return e.empty(self.kernel), amap(
            self.ndims, dims(self.window_dim(a) for a in range(self.d))
        )


@lowers(T.AvgPoolOp)
def lower_avg_pool(op: T.AvgPoolOp, e: Emitter) -> SSAValue:
    """Fold-sum over the window with padding as 0, then divide by the kernel volume."""
    g = PoolGeometry(op)
    window, window_map = g.window(e)
    total = fold_sum(
        e,
        [g.padded_input(e, op.input), window],
        [g.input_map(), window_map],
        g.out_shape,
        g.output_map(),
        g.iterators,
        lambda b, args: args[0],
    )
    return divide(e, total, math.prod(g.kernel))


@lowers(T.MaxPoolOp)
def lower_max_pool(op: T.MaxPoolOp, e: Emitter) -> SSAValue:
    """Padded cells never count; the first real cell is taken, later ones only if
    strictly greater. Two outputs: the best value (from 0) and a `seen` flag."""
    g = PoolGeometry(op)
    best = e.filled(g.out_shape, 0.0)
    seen = e.filled(g.out_shape, False, IntegerType(1))

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        value, _window, current, was_seen = args
        valid = _inside_input(b, g)
        greater = b.cmp("ogt", value, current)
        unseen = b(arith.XOrIOp(was_seen, b.bool(True)))
        take = b(arith.OrIOp(unseen, greater))
        if valid is not None:
            take = b(arith.AndIOp(valid, take))
            now_seen = b(arith.OrIOp(was_seen, valid))
        else:
            now_seen = b.bool(True)
        return [b.select(take, value, current), now_seen]

    window, window_map = g.window(e)
    maps = [g.input_map(), window_map, g.output_map(), g.output_map()]
    inputs = [g.padded_input(e, op.input), window]
    return e.generic(inputs, [best, seen], maps, g.iterators, body)[0]


def _inside_input(b: Body, g: PoolGeometry) -> SSAValue | None:
    """Whether the padded coordinate of every spatial axis lies in the input
    (`p ≤ o·s + w < p + in`); None when no axis is padded."""
    valid = None
    for a in range(g.d):
        pad = g.padding[a]
        if pad == 0:
            continue
        scaled = b(arith.MuliOp(b.index(g.out_dim(a)), b.index_const(g.stride[a])))
        coord = b(arith.AddiOp(scaled, b.index(g.window_dim(a))))
        extent = g.in_shape[g.lead + a]
        low = b(arith.CmpiOp(coord, b.index_const(pad), "sge"))
        high = b(arith.CmpiOp(coord, b.index_const(pad + extent), "slt"))
        inside = b(arith.AndIOp(low, high))
        valid = inside if valid is None else b(arith.AndIOp(valid, inside))
    return valid


@lowers(T.ConvOp)
def lower_conv(op: T.ConvOp, e: Emitter) -> SSAValue:
    """docs/ops.md#conv with the channels split into groups: dims (lead…, g, oc, l, k…, o…);
    input [lead, G, inC/G, padded…], weight [G, outC/G, G, inC/G, k…] read on its
    block diagonal (g, oc, g, l, k…), so off-block weights are never read."""
    cfg = op.config
    x_shape, out_shape = shape_of(op.input), shape_of(op.result)
    lead, d, groups = cfg.channel_axis, cfg.spatial_rank, cfg.groups
    cin, cout = cfg.in_channels // groups, cfg.out_channels // groups
    outs = out_shape[lead + 1 :]

    low = (0,) * (lead + 1) + cfg.padding
    high = (0,) * (lead + 1) + cfg.padding_after
    padded = pad_zero(e, op.input, low, high)
    padded_spatial = shape_of(padded)[lead + 1 :]
    x_groups = [[a] for a in range(lead)] + [[lead, lead + 1]] + [[lead + 2 + a] for a in range(d)]
    x_grouped = expand(e, padded, x_groups, (*x_shape[:lead], groups, cin, *padded_spatial))
    w_groups = [[0, 1], [2, 3]] + [[4 + a] for a in range(d)]
    w_grouped = expand(e, op.weight, w_groups, (groups, cout, groups, cin, *cfg.kernel))

    # Dims (lead…, g, oc, l, k…, o…): the reductions (l outermost, then the kernel
    # offsets row-major) sit outside the output positions, so the innermost loop
    # runs along an output row while each output still folds in the spec's order.
    g_dim, oc_dim = lead, lead + 1
    l_dim = lead + 2
    k_dims = [l_dim + 1 + a for a in range(d)]
    o_dims = [l_dim + 1 + d + a for a in range(d)]
    ndims = l_dim + 1 + 2 * d
    spatial = [
        dim(o) * s + dim(k) * dl
        for o, k, s, dl in zip(o_dims, k_dims, cfg.stride, cfg.dilation, strict=True)
    ]
    x_map = amap(ndims, [*dims(range(lead)), dim(g_dim), dim(l_dim), *spatial])
    w_map = amap(ndims, [dim(g_dim), dim(oc_dim), dim(g_dim), dim(l_dim), *dims(k_dims)])
    grouped_out = (*x_shape[:lead], groups, cout, *outs)
    out_map = amap(ndims, [*dims(range(l_dim)), *dims(o_dims)])
    iterators = [PARALLEL] * l_dim + [REDUCTION] * (1 + d) + [PARALLEL] * d
    acc = fold_sum(
        e, [x_grouped, w_grouped], [x_map, w_map], grouped_out, out_map, iterators,
        lambda b, args: b.mul(args[0], args[1]),
    )  # fmt: skip

    rank = len(grouped_out)
    bias = expand(e, op.bias, [[0, 1]], (groups, cout))
    biased = e.generic(
        [acc, bias],
        [e.empty(grouped_out)],
        [identity(rank), amap(rank, [dim(g_dim), dim(oc_dim)]), identity(rank)],
        [PARALLEL] * rank,
        lambda b, args: [b.add(args[0], args[1])],
    )[0]
    out_groups = (
        [[a] for a in range(lead)] + [[lead, lead + 1]] + [[lead + 2 + a] for a in range(d)]
    )
    return collapse(e, biased, out_groups, out_shape)
