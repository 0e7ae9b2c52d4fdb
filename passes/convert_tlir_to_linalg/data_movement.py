"""Data movement and the basic ops: constants, calls, identities, permutations,
broadcasts, reshapes and concatenation."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func
from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.convert_tlir_to_linalg.emit import (
    PARALLEL,
    Emitter,
    amap,
    collapse,
    copy_into,
    dim,
    expand,
    identity,
    shape_of,
)
from tlir.passes.convert_tlir_to_linalg.registry import lowers


@lowers(T.ConstOp)
def lower_const(op: T.ConstOp, e: Emitter) -> SSAValue:
    return e.add(arith.ConstantOp(op.value))


@lowers(T.CustomOp)
def lower_custom(op: T.CustomOp, e: Emitter) -> SSAValue:
    return e.add(func.CallOp(op.callee, list(op.args), [op.result.type]))


@lowers(T.DetachOp)
def lower_detach(op: T.DetachOp, e: Emitter) -> SSAValue:
    """Forward identity: the result is the operand itself."""
    return op.input


def gather(e: Emitter, x: SSAValue, out_shape: Sequence[int], input_exprs: list) -> SSAValue:
    """Y[j] = X[input_exprs(j)]: a copying generic over the output."""
    rank = len(out_shape)
    maps = [amap(rank, input_exprs), identity(rank)]
    return e.generic([x], [e.empty(out_shape)], maps, [PARALLEL] * rank, lambda b, a: [a[0]])[0]


def _permutation(e: Emitter, x: SSAValue, perm: Sequence[int], out_shape) -> SSAValue:
    """torch.permute: Y[j] = X[k] with k[perm[i]] = j[i]."""
    source_of = {axis: i for i, axis in enumerate(perm)}
    return gather(e, x, out_shape, [dim(source_of[a]) for a in range(len(perm))])


@lowers(T.PermuteOp)
def lower_permute(op: T.PermuteOp, e: Emitter) -> SSAValue:
    return _permutation(e, op.input, T._ints(op.perm), shape_of(op.result))


@lowers(T.TransposeOp)
def lower_transpose(op: T.TransposeOp, e: Emitter) -> SSAValue:
    perm = list(range(len(shape_of(op.input))))
    a1, a2 = op.axis1.value.data, op.axis2.value.data
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return _permutation(e, op.input, perm, shape_of(op.result))


@lowers(T.BroadcastToOp)
def lower_broadcast_to(op: T.BroadcastToOp, e: Emitter) -> SSAValue:
    """Right-aligned; a source extent 1 that expands reads index 0."""
    source, target = shape_of(op.input), shape_of(op.result)
    offset = len(target) - len(source)
    exprs = [
        0 if extent == 1 and target[offset + t] != 1 else dim(offset + t)
        for t, extent in enumerate(source)
    ]
    return gather(e, op.input, target, exprs)


def reshape(e: Emitter, x: SSAValue, target: Sequence[int]) -> SSAValue:
    """Row-major reinterpretation: collapse to one axis, then expand to `target`."""
    source = shape_of(x)
    target = tuple(target)
    if source == target:
        return x
    if not target or not source:
        # one element: read it directly (a rank-0 reassociation is an edge case
        # that xDSL and MLIR verify differently)
        return gather(e, x, target, [0] * len(source))
    flat = x if len(source) == 1 else collapse(e, x, [list(range(len(source)))], (_size(source),))
    if len(target) == 1:
        return flat
    return expand(e, flat, [list(range(len(target)))], target)


def _size(shape: Sequence[int]) -> int:
    count = 1
    for extent in shape:
        count *= extent
    return count


@lowers(T.ReshapeOp, T.FlattenOp)
def lower_reshape(op: T.ReshapeOp | T.FlattenOp, e: Emitter) -> SSAValue:
    return reshape(e, op.input, shape_of(op.result))


@lowers(T.ConcatOp)
def lower_concat(op: T.ConcatOp, e: Emitter) -> SSAValue:
    """tensor.empty, then each operand copied in at its offset along the axis
    (MLIR 19 cannot bufferize tensor.concat)."""
    axis = op.axis.value.data
    result = e.empty(shape_of(op.result))
    offset = 0
    for part in op.inputs:
        sizes = shape_of(part)
        if 0 not in sizes:
            result = copy_into(
                e, part, result, [offset if a == axis else 0 for a in range(len(sizes))]
            )
        offset += sizes[axis]
    return result
