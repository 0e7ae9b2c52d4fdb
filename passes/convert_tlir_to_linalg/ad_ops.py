"""The `tlir_ad` ops (derivative programs): each becomes one `linalg.generic`
whose body is the op's own scalar region, so the fold order, the operand order
of every product and each select are exactly the ones the region states."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, IntegerType
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine.affine_expr import AffineDimExpr

from tlir.dense import numpy_to_dense
from tlir.dialects import tlir_ad as A
from tlir.passes.convert_tlir_to_linalg.emit import (
    PARALLEL,
    REDUCTION,
    Body,
    Emitter,
    amap,
    collapse,
    dim,
    identity,
    shape_of,
)
from tlir.passes.convert_tlir_to_linalg.registry import lowers
from tlir.passes.directed_steps import embedded_rounding, function_name, smallest_subnormal


def _inline_body(source: Block):
    """A `linalg.generic` body builder that copies `source`'s ops (all but the
    final `tlir_ad.yield`) and yields what it yields."""

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        mapping: dict[SSAValue, SSAValue] = dict(zip(source.args, args, strict=False))
        for op in source.ops:
            if isinstance(op, A.YieldOp):
                return [mapping.get(v, v) for v in op.values]
            if isinstance(op, A.NextUpOp | A.NextDownOp):
                value = mapping.get(op.input, op.input)
                mapping[op.result] = next_float(b, value, isinstance(op, A.NextUpOp))
                continue
            if isinstance(op, A.StepUpOp | A.StepDownOp):
                value = mapping.get(op.input, op.input)
                mapping[op.result] = step_float(b, value, isinstance(op, A.StepUpOp))
                continue
            clone = op.clone(value_mapper=mapping)
            b.builder.insert(clone)
            mapping.update(zip(op.results, clone.results, strict=True))
        raise AssertionError("the verifier guarantees a tlir_ad.yield")

    return body


def next_float(b: Body, x: SSAValue, upward: bool) -> SSAValue:
    """TorchLean's `nextUp` (`nextDown`) on the bits, which vectorises: two
    compares and three integer ops, each select a masked move. For `nextUp`:
    `x < 0` (-inf included) steps the pattern -1; otherwise `x < inf` (false
    for NaN and +inf, which stay) gives the pattern with the sign bit cleared
    plus 1, so ±0 both become the smallest positive subnormal and a positive
    `x` moves +1. `nextDown` is the mirror: `x > 0` (+inf included) steps -1;
    otherwise `x > -inf` gives the pattern with the sign bit set plus 1.

    With AVX-512's rounding in force (`tlir.passes.directed_steps`), a call
    of the step function instead, two instructions once vectorised."""
    width = x.type.bitwidth
    if embedded_rounding():
        name = function_name("next", "up" if upward else "down", f"f{width}")
        return b(func.CallOp(name, [x], [x.type]))
    integer = IntegerType(width)
    bits = b(arith.BitcastOp(x, integer))

    def int_const(value: int) -> SSAValue:
        return b(arith.ConstantOp(IntegerAttr(value, integer)))

    sign = -(2 ** (width - 1))
    zero, limit = b.const(0.0), b.const(float("inf") if upward else float("-inf"))
    if upward:
        steps_back = b.cmp("olt", x, zero)
        steps_on = b.cmp("olt", x, limit)
        base = b(arith.AndIOp(bits, int_const(~sign)))
    else:
        steps_back = b.cmp("ogt", x, zero)
        steps_on = b.cmp("ogt", x, limit)
        base = b(arith.OrIOp(bits, int_const(sign)))
    on = b.select(steps_on, b(arith.AddiOp(base, int_const(1))), bits)
    stepped = b.select(steps_back, b(arith.SubiOp(bits, int_const(1))), on)
    return b(arith.BitcastOp(stepped, x.type))


def step_float(b: Body, x: SSAValue, upward: bool) -> SSAValue:
    """`tlir_ad.step_up` (`step_down`): with AVX-512's rounding in force the
    rounding alone (one instruction); elsewhere `next_float` with its two
    differences put back: the far infinity stays, and the step from the
    smallest subnormal of the other sign gives a zero of this direction's sign."""
    width = x.type.bitwidth
    if embedded_rounding():
        name = function_name("step", "up" if upward else "down", f"f{width}")
        return b(func.CallOp(name, [x], [x.type]))
    stepped = next_float(b, x, upward)
    sign = 1.0 if upward else -1.0
    tiny = smallest_subnormal(width)
    far = b.cmp("oeq", x, b.const(-sign * float("inf")))
    stepped = b.select(far, x, stepped)
    onto_zero = b.cmp("oeq", x, b.const(-sign * tiny))
    return b.select(onto_zero, b.const(sign * 0.0), stepped)


@lowers(A.MapOp)
def lower_map(op: A.MapOp, e: Emitter) -> list[SSAValue]:
    shape = shape_of(op.outs[0])
    rank = len(shape)
    maps = [identity(rank) if shape_of(v) == shape else amap(rank, []) for v in op.inputs]
    outs = [e.empty(shape) for _ in op.outs]
    return e.generic(
        list(op.inputs),
        outs,
        [*maps, *(identity(rank) for _ in outs)],
        [PARALLEL] * rank,
        _inline_body(op.body.block),
    )


@lowers(A.FoldOp)
def lower_fold(op: A.FoldOp, e: Emitter) -> list[SSAValue]:
    """The box's dimensions are the generic's loops, in order; dimensions no
    input reads as a plain index get a shape-only operand (as the forward
    pooling lowering does) so that the generic knows their range."""
    bounds = A.ints(op.bounds)
    ndims = len(bounds)
    maps: list[AffineMapAttr] = list(op.maps.data)
    inputs = [_covered(e, v, m, bounds) for v, m in zip(op.inputs, maps, strict=True)]
    ranged = {
        expr.position for m in maps for expr in m.data.results if isinstance(expr, AffineDimExpr)
    } | set(op.parallel_dims)
    unranged = [d for d in range(ndims) if d not in ranged]
    if unranged:
        inputs.append(e.empty([bounds[d] for d in unranged]))
        maps.append(amap(ndims, [dim(d) for d in unranged]))
    out_map = amap(ndims, [dim(d) for d in op.parallel_dims])
    count = len(op.inputs)
    copy = _inline_body(op.body.block)

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        # drop the shape-only operand's argument: the region never sees it
        return copy(b, [*args[:count], *args[len(inputs) :]])

    return e.generic(
        inputs, _starts(op, e), [*maps, *(out_map for _ in op.outs)], list(op.kinds), body, op
    )


def _starts(op: A.FoldOp, e: Emitter) -> list[SSAValue]:
    """The fold's starts, an uninitialised tensor for each result whose value
    the region never reads (a stacking or pooling pass that only writes) where
    every reduced range is non-empty: the result is then the last term's, so
    its start (a fill, a whole pass over the result) would be written for
    nothing."""
    bounds = A.ints(op.bounds)
    if any(bounds[d] < 1 for d, kind in enumerate(op.kinds) if kind != PARALLEL):
        return list(op.inits)
    accumulators = op.body.block.args[len(op.inputs) :]
    return [
        e.add(tensor.EmptyOp([], init.type)) if _unread(arg, init) else init
        for init, arg in zip(op.inits, accumulators, strict=True)
    ]


def _unread(arg: SSAValue, init: SSAValue) -> bool:
    """The region does not read `arg` and `init`'s shape is static (an empty
    tensor of a dynamic shape would need its sizes)."""
    return not arg.uses and all(n >= 0 for n in shape_of(init))


def _covered(e: Emitter, value: SSAValue, map_attr: AffineMapAttr, bounds) -> SSAValue:
    """`value`, cut (a unit-stride slice from 0) on every axis read by a plain
    loop index whose range is shorter than the axis: a linalg operand indexed by
    a plain index must span exactly that loop's range (MLIR's verifier checks
    it, and loop ranges are inferred from such operands)."""
    shape = shape_of(value)
    sizes = list(shape)
    for axis, expr in enumerate(map_attr.data.results):
        if isinstance(expr, AffineDimExpr) and bounds[expr.position] < shape[axis]:
            sizes[axis] = bounds[expr.position]
    if sizes == list(shape):
        return value
    return e.add(tensor.ExtractSliceOp.from_static_parameters(value, [0] * len(shape), sizes))


@lowers(A.PadOp)
def lower_pad(op: A.PadOp, e: Emitter) -> SSAValue:
    return pad(e, op.input, A.ints(op.low), A.ints(op.high), A.ints(op.interior))


def pad(e: Emitter, value: SSAValue, low, high, interior) -> SSAValue:
    """A +0-filled result; the slice from `low` that the operand's elements span
    is written by one generic at `i·(interior + 1)` (a strided output map, a
    plain index where there is no interior padding), then inserted back.
    Without interior padding only the border is filled (`_bordered`): the
    slice is written anyway, and filling it too was most of a pad's time."""
    shape = shape_of(value)
    rank = len(shape)
    padded = [A.padded_extent(*args) for args in zip(shape, low, high, interior, strict=True)]
    if 0 in shape:
        return e.filled(padded, 0.0)
    filled = e.filled(padded, 0.0) if any(interior) else _bordered(e, padded, low, high)
    spans = [(n - 1) * (step + 1) + 1 for n, step in zip(shape, interior, strict=True)]
    window = e.add(tensor.ExtractSliceOp.from_static_parameters(filled, list(low), spans))
    out_map = amap(rank, [dim(a) * (interior[a] + 1) for a in range(rank)])
    written = e.generic(
        [value], [window], [identity(rank), out_map], [PARALLEL] * rank,
        lambda b, args: [args[0]],
    )[0]  # fmt: skip
    return e.add(tensor.InsertSliceOp.get(written, filled, spans, list(low), [1] * rank))


def _bordered(e: Emitter, padded: Sequence[int], low, high) -> SSAValue:
    """A tensor of `padded`'s shape, +0 outside the slice [low, padded − high)
    and unset inside: per padded axis, the slabs before and after the slice
    (over the whole extent of the axes before it, the slice's extent of the
    axes after it, so no cell is filled twice), each a fill inserted in place."""
    rank = len(padded)
    tensor_value = e.empty(padded)
    inner = [(lo, n - lo - hi) for n, lo, hi in zip(padded, low, high, strict=True)]
    for axis in range(rank):
        for start, extent in ((0, low[axis]), (padded[axis] - high[axis], high[axis])):
            if not extent:
                continue
            offsets = [0] * axis + [start] + [lo for lo, _ in inner[axis + 1 :]]
            sizes = [*padded[:axis], extent, *(n for _, n in inner[axis + 1 :])]
            slab = e.add(tensor.ExtractSliceOp.from_static_parameters(tensor_value, offsets, sizes))
            zeros = e.add(FillOp([e.scalar(0.0)], [slab], [slab.type]))
            tensor_value = e.add(
                tensor.InsertSliceOp.get(zeros, tensor_value, sizes, offsets, [1] * rank)
            )
    return tensor_value


@lowers(A.ConvInputGradOp)
def lower_conv_input_grad(op: A.ConvInputGradOp, e: Emitter) -> SSAValue:
    """The fold of D6 (docs/autodiff.md#d6-conv-vjp) as one generic over
    (lead…, group, l, i…, m, k…): the cotangent spread onto the input grid
    (output o at L + o·stride, L = dilation·(kernel − 1)) is read at
    L + i + padding − k·dilation, and a constant 0/1 grid of the same extent
    marks where an output sits, so each term is added only where D6 pairs the
    cell with the position."""
    geo = op.geometry
    lead, rank = len(geo.lead), len(geo.kernel)
    reach = [geo.dilation[a] * (geo.kernel[a] - 1) for a in range(rank)]
    extents, interior = [], [s - 1 for s in geo.stride]
    for a in range(rank):
        natural = (geo.out_spatial[a] - 1) * geo.stride[a] + 1 if geo.out_spatial[a] else 0
        extents.append(max(reach[a] + natural, reach[a] + geo.in_spatial[a] + geo.padding[a]))
    high = [n - r - (n_out - 1) * s - 1 if n_out else n - r for n, r, n_out, s in
            zip(extents, reach, geo.out_spatial, geo.stride, strict=True)]  # fmt: skip
    keep = [0] * (lead + 1)
    spread = pad(e, op.grad, keep + reach, keep + high, keep + interior)
    marks = np.zeros(extents, np.float64)
    marks[tuple(slice(r, r + n * s, s) for r, n, s in
                zip(reach, geo.out_spatial, geo.stride, strict=True))] = 1.0  # fmt: skip
    marks = e.add(arith.ConstantOp(numpy_to_dense(marks.astype(_numpy_type(e)))))
    group, channel = dim(lead), dim(lead + 1)
    ins = list(range(lead + 2, lead + 2 + rank))
    m = lead + 2 + rank
    cells = list(range(m + 1, m + 1 + rank))
    reads = [
        dim(i) + (reach[a] + geo.padding[a]) - dim(k) * geo.dilation[a]
        for a, (i, k) in enumerate(zip(ins, cells, strict=True))
    ]
    g_map = [*(dim(a) for a in range(lead)), group * geo.cout + dim(m), *reads]
    w_map = [group * geo.cin + channel, dim(m), *(dim(k) for k in cells)]
    out_dims = list(range(lead + 2 + rank))
    ndims = m + 1 + rank
    init = e.filled([*geo.lead, geo.groups, geo.cin, *geo.in_spatial], 0.0)

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        grad, mark, weight, acc = args
        term = b.add(acc, b.mul(grad, weight))
        return [b.select(b.cmp("une", mark, b.const(0.0)), term, acc)]

    maps = [amap(ndims, g_map), amap(ndims, reads), amap(ndims, w_map)]
    iterators = [PARALLEL] * len(out_dims) + [REDUCTION] * (rank + 1)
    out = e.generic(
        [spread, marks, op.weight], [init], [*maps, amap(ndims, [dim(d) for d in out_dims])],
        iterators, body,
    )[0]  # fmt: skip
    groups = [[a] for a in range(lead)] + [[lead, lead + 1]]
    groups += [[a] for a in range(lead + 2, lead + 2 + rank)]
    return collapse(e, out, groups, shape_of(op.result))


@lowers(A.ConvKernelGradOp)
def lower_conv_kernel_grad(op: A.ConvKernelGradOp, e: Emitter) -> SSAValue:
    """The fold of D6 (docs/autodiff.md#d6-conv-vjp) in transposed layout as one
    generic over (c, k…, oc, lead…, o…): the reductions innermost, leading
    positions before output positions, each row-major."""
    geo = op.geometry
    lead, rank = len(geo.lead), len(geo.kernel)
    cells = list(range(1, 1 + rank))
    oc = 1 + rank
    leads = list(range(oc + 1, oc + 1 + lead))
    outs = list(range(oc + 1 + lead, oc + 1 + lead + rank))
    ndims = outs[-1] + 1
    reads = [
        dim(o) * geo.stride[a] + dim(k) * geo.dilation[a]
        for a, (o, k) in enumerate(zip(outs, cells, strict=True))
    ]
    x_map = [*(dim(a) for a in leads), dim(0), *reads]
    g_map = [*(dim(a) for a in leads), dim(oc), *(dim(o) for o in outs)]
    init = e.filled(shape_of(op.result), 0.0)

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        x, g, acc = args
        return [b.add(acc, b.mul(x, g))]

    iterators = [PARALLEL] * (oc + 1) + [REDUCTION] * (lead + rank)
    return e.generic(
        [op.input, op.grad], [init],
        [amap(ndims, x_map), amap(ndims, g_map), amap(ndims, [dim(a) for a in range(oc + 1)])],
        iterators, body,
    )[0]  # fmt: skip


def _numpy_type(e: Emitter) -> type:
    return np.float32 if e.element_type.bitwidth == 32 else np.float64
