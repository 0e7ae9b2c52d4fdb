"""Elementwise maps fused into the gathers that feed them, across a reshape.

A window's backward pass often ends in a gather (a `tlir_ad.fold` with only
parallel dimensions: tiled pooling windows, docs/autodiff.md#performance)
reshaped to the input's shape, and the rule of the op before it is a
`tlir_ad.map` on that cotangent (relu's mask, a product with a stored value).
Kernel formation does not fuse across the reshape (a view), so run as two
kernels the gathered value is written out and read back; as one, each element
goes straight from the gather's body into the map's. (Forward mode is not
rewritten: its gathers feed their consumers directly, and kernel formation
already fuses them.)

`fuse_maps_into_gathers` rewrites

    %f = tlir_ad.fold ins(%a…) init(%z) {all dimensions parallel} {body}
    %r = tlir.reshape %f                      (merging neighbouring axes, adding axes
                                               of extent 1; or none)
    %m = tlir_ad.map(…, %r, …) {map body}

into one fold over the gather's box that reads the map's other operands
through the reshape's index (rank-0 ones as scalars) and yields the map body
applied to the gather body's value, then the reshape of that. Every element
is computed by the very same scalar ops on the very same values (a gather
visits each point once, so its accumulator is always the init), so no bit
changes; only the intermediate buffer disappears. Taken only when the gather
and the reshape have no other use and the map has one result.
"""

from __future__ import annotations

import math

from xdsl.dialects import func
from xdsl.ir import Block, Operation, Region, SSAValue

from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as A
from tlir.passes.convert_tlir_to_linalg.emit import amap
from tlir.passes.convert_tlir_to_linalg.emit import dim as d


def _shape(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())


def merged_axes(source: tuple[int, ...], target: tuple[int, ...]) -> list[list[int]] | None:
    """For each target axis, the consecutive source axes it merges (their extents'
    product is its extent), or None if the reshape is not such a merge."""
    groups: list[list[int]] = []
    axis = 0
    for extent in target:
        group: list[int] = []
        size = 1
        while axis < len(source) and (not group or size < extent):
            if size * source[axis] > extent and group:
                break
            group.append(axis)
            size *= source[axis]
            axis += 1
        if size != extent:
            return None
        groups.append(group)
    if axis < len(source):  # trailing axes of extent 1 join the last group
        if not groups or math.prod(source[axis:]) != 1:
            return None
        groups[-1] += list(range(axis, len(source)))
    return groups


def _single_use(value: SSAValue, user: Operation) -> bool:
    uses = list(value.uses)
    return len(uses) == 1 and uses[0].operation is user


def _gather_operand(op: A.MapOp):
    """(operand index, reshape or None, gather, axis groups) of a fusable
    operand, or None."""
    if len(op.outs) != 1:
        return None
    for index, value in enumerate(op.inputs):
        if not _single_use(value, op) or sum(1 for v in op.inputs if v is value) != 1:
            continue
        reshape = value.owner if isinstance(value.owner, T.ReshapeOp) else None
        gather = reshape.operands[0].owner if reshape is not None else value.owner
        if not isinstance(gather, A.FoldOp) or len(gather.outs) != 1:
            continue
        if gather.kinds.count(A.PARALLEL) != len(gather.kinds):
            continue
        if reshape is not None and not _single_use(gather.outs[0], reshape):
            continue
        groups = merged_axes(_shape(gather.outs[0]), _shape(op.outs[0]))
        if groups is not None:
            return index, reshape, gather, groups
    return None


def _clone_body(source: Block, target: Block, arguments: list[SSAValue]) -> list[SSAValue]:
    """`source`'s ops (all but its yield) into `target` on `arguments`; what it yields."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(source.args, arguments, strict=True))
    for inner in source.ops:
        if isinstance(inner, A.YieldOp):
            return [mapping.get(v, v) for v in inner.values]
        clone = inner.clone(value_mapper=mapping)
        target.add_op(clone)
        mapping.update(zip(inner.results, clone.results, strict=True))
    raise AssertionError("a tlir_ad body ends in tlir_ad.yield")


def _fuse(op: A.MapOp, index: int, reshape: T.ReshapeOp | None, gather: A.FoldOp, groups) -> None:
    bounds = list(A.ints(gather.bounds))
    shape = _shape(gather.outs[0])
    reads: list = []
    for group in groups:
        # A target axis merging no source axis is a new axis of extent 1: index 0.
        expr = 0
        for position, axis in enumerate(group):
            scale = math.prod(shape[a] for a in group[position + 1 :])
            term = d(axis) * scale if scale != 1 else d(axis)
            expr = term if position == 0 else expr + term
        reads.append(expr)
    others = [v for k, v in enumerate(op.inputs) if k != index]
    other_maps = [amap(len(bounds), [] if not _shape(v) else reads) for v in others]
    element = op.outs[0].type.element_type
    inputs = list(gather.inputs)
    body = Block(arg_types=[element] * (len(inputs) + len(others) + 1))
    gather_args = [*body.args[: len(inputs)], body.args[-1]]
    (value,) = _clone_body(gather.body.block, body, gather_args)
    map_args = list(body.args[len(inputs) : len(inputs) + len(others)])
    map_args.insert(index, value)
    body.add_op(A.YieldOp(*_clone_body(op.body.block, body, map_args)))
    fused = A.FoldOp(
        [*inputs, *others],
        list(gather.inits),
        bounds,
        [*gather.maps.data, *other_maps],
        list(gather.kinds),
        Region(body),
    )
    fused.location = op.location
    A.keep_row_strips(gather, fused)
    block = op.parent_block()
    block.insert_op_before(fused, op)
    value = fused.outs[0]
    if reshape is not None:
        result = T.ReshapeOp.create(operands=[value], result_types=[op.outs[0].type])
        result.location = reshape.location
        block.insert_op_before(result, op)
        value = result.results[0]
    op.outs[0].replace_all_uses_with(value)
    for dead in (op, reshape, gather):
        if dead is not None:
            block.erase_op(dead)


def fuse_maps_into_gathers(function: func.FuncOp) -> None:
    """Every fusable map of `function`'s body fused into its gather (see above)."""
    for op in list(function.body.block.ops):
        if isinstance(op, A.MapOp):
            found = _gather_operand(op)
            if found is not None:
                _fuse(op, *found)
