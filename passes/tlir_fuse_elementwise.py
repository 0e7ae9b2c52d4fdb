"""`tlir-fuse-elementwise`: producer `linalg.generic`s fused into their consumers.

Stands in for MLIR's `linalg-fuse-elementwise-ops` on the IR
`convert-tlir-to-linalg` emits for one kernel. A producer is fused into a
consumer that reads its result as an input when

* the producer is all-parallel, has one result, never reads its output's
  initial value, and writes that result through a permutation map (so the
  consumer's index of the result names exactly one producer iteration);
* every `linalg.index` of the producer names a plain consumer dimension (or
  a constant) after the maps are composed;
* the producer has one use, or it calls no transcendental function (then it
  is cheap enough to recompute in each consumer);
* a transpose producer is fused only into an all-parallel consumer: in a loop
  nest with a reduction it would be read in the reduction's order, and its own
  buffer exists to make that contiguous (a broadcast keeps its order and fuses
  into reductions too: layernorm's `x − mean` into its sums).

The fused op reads the producer's inputs through the composed maps
(`producer input map ∘ producer output map⁻¹ ∘ consumer map`) and computes the
producer's scalar body in place of the consumer's block argument: the same
scalar operations in the same order, so every value keeps its bits; only the
intermediate tensor disappears. Chains of broadcasts, transposes and
elementwise ops become one loop nest.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr, ModuleOp
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce


def _maps(op: GenericOp) -> list[AffineMap]:
    return [m.data for m in op.indexing_maps]


def _all_parallel(op: GenericOp) -> bool:
    return all(str(i.data) == "parallel" for i in op.iterator_types)


LIBRARY_CALLS = (math.ExpOp, math.LogOp, math.TanhOp, math.SinOp, math.CosOp)
"""Scalar ops that become C library calls: too costly to recompute per consumer."""


def _expensive(op: GenericOp) -> bool:
    return any(isinstance(inner, LIBRARY_CALLS) for inner in op.body.walk())


def _fusable_producer(producer: Operation) -> bool:
    if not isinstance(producer, GenericOp) or len(producer.outputs) != 1:
        return False
    if not _all_parallel(producer):
        return False
    out_arg = producer.body.block.args[len(producer.inputs)]
    if out_arg.uses.get_length():
        return False  # reads its initial value: not elementwise
    return _maps(producer)[-1].inverse_permutation() is not None


def _index_map(producer: GenericOp, consumer_map: AffineMap) -> AffineMap:
    """Producer dimensions as functions of consumer dimensions."""
    inverse = _maps(producer)[-1].inverse_permutation()
    assert inverse is not None
    return inverse.compose(consumer_map)


def _indices_expressible(producer: GenericOp, index_map: AffineMap) -> bool:
    for op in producer.body.walk():
        if isinstance(op, IndexOp):
            expr = index_map.results[op.dim.value.data]
            if not isinstance(expr, AffineDimExpr | AffineConstantExpr):
                return False
    return True


def _fused_maps(consumer: GenericOp, position: int, producer: GenericOp) -> list[AffineMap]:
    consumer_maps = _maps(consumer)
    index_map = _index_map(producer, consumer_maps[position])
    producer_maps = [m.compose(index_map) for m in _maps(producer)[: len(producer.inputs)]]
    maps = consumer_maps[: len(consumer.inputs)]
    maps[position : position + 1] = producer_maps
    return maps + consumer_maps[len(consumer.inputs) :]


def _order_preserving(producer: GenericOp) -> bool:
    """Every input is read at the point written, or at a projection of it that
    keeps the order of the indices (a broadcast such as a row's mean `m[i]` in
    `x[i, j] - m[i]`): no transpose."""
    written = [e.position for e in _maps(producer)[-1].results if isinstance(e, AffineDimExpr)]
    for amap in _maps(producer)[:-1]:
        if not all(isinstance(e, AffineDimExpr) for e in amap.results):
            return False
        positions = [written.index(e.position) for e in amap.results]
        if positions != sorted(set(positions)):
            return False
    return True


def _keeps_access_order(consumer: GenericOp, producer: GenericOp) -> bool:
    """A transpose fused into a loop nest with a reduction would read its source
    in the reduction's order (a transposed weight read column by column): the
    producer's own buffer exists to make that access contiguous, so it stays.
    A broadcast reads its source in the order the consumer walks the result."""
    has_reduction = not _all_parallel(consumer)
    return not has_reduction or _order_preserving(producer)


def _bounds_known(maps: list[AffineMap]) -> bool:
    """Every loop keeps an operand dimension that gives its extent (a reduction
    over a dimension only the fused producer's result was indexed by would
    lose it)."""
    named = {e.position for m in maps for e in m.results if isinstance(e, AffineDimExpr)}
    return named == set(range(maps[0].num_dims))


def fuse(consumer: GenericOp, position: int, producer: GenericOp) -> GenericOp:
    """The consumer with its input `position` (the producer's result) computed inline."""
    index_map = _index_map(producer, _maps(consumer)[position])
    maps = _fused_maps(consumer, position, producer)
    inputs = list(consumer.inputs)
    inputs[position : position + 1] = list(producer.inputs)
    outputs = list(consumer.outputs)

    old_args = list(consumer.body.block.args)
    producer_args = producer.body.block.args[: len(producer.inputs)]
    arg_types = [a.type for a in old_args[:position]]
    arg_types += [a.type for a in producer_args]
    arg_types += [a.type for a in old_args[position + 1 :]]
    block = Block(arg_types=arg_types)
    new_args = list(block.args)
    count = len(producer_args)
    mapping: dict[SSAValue, SSAValue] = dict(
        zip(producer_args, new_args[position : position + count], strict=True)
    )
    for op in producer.body.block.ops:
        if isinstance(op, YieldOp):
            fused_value = mapping[op.operands[0]]
            break
        if isinstance(op, IndexOp):
            expr = index_map.results[op.dim.value.data]
            new = (
                IndexOp(expr.position)
                if isinstance(expr, AffineDimExpr)
                else arith.ConstantOp(IntegerAttr(expr.value, IndexType()))
            )
            block.add_op(new)
            mapping[op.results[0]] = new.results[0]
            continue
        block.add_op(op.clone(value_mapper=mapping))
    rest = new_args[:position] + [fused_value] + new_args[position + count :]
    for old, new in zip(old_args, rest, strict=True):
        old.replace_all_uses_with(new)
    for op in list(consumer.body.block.ops):
        op.detach()
        block.add_op(op)
    fused = GenericOp(
        inputs,
        outputs,
        Region(block),
        [AffineMapAttr(m) for m in maps],
        consumer.iterator_types,
        [r.type for r in consumer.results],
    )
    fused.location = consumer.location
    return fused


def _try_fuse_one(function: func.FuncOp) -> bool:
    for consumer in function.walk():
        if not isinstance(consumer, GenericOp):
            continue
        for position, value in enumerate(consumer.inputs):
            producer = value.owner
            if not _fusable_producer(producer):
                continue
            assert isinstance(producer, GenericOp)
            users = [use.operation for use in value.uses]
            if any(not isinstance(u, GenericOp) or value in u.outputs for u in users):
                continue
            if len(users) > 1 and _expensive(producer):
                continue
            index_map = _index_map(producer, _maps(consumer)[position])
            if not _indices_expressible(producer, index_map):
                continue
            if not _bounds_known(_fused_maps(consumer, position, producer)):
                continue
            if not _keeps_access_order(consumer, producer):
                continue
            fused = fuse(consumer, position, producer)
            block = consumer.parent_block()
            assert block is not None
            block.insert_op_before(fused, consumer)
            for old, new in zip(consumer.results, fused.results, strict=True):
                old.replace_all_uses_with(new)
            consumer.detach()
            consumer.erase()
            if not producer.results[0].uses.get_length():
                producer.detach()
                producer.erase()
            return True
    return False


@dataclass(frozen=True)
class TlirFuseElementwise(ModulePass):
    """Fuse elementwise producer generics into their consumers, in every function."""

    name = "tlir-fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [
            f for f in op.ops if isinstance(f, func.FuncOp) and len(f.body.blocks) == 1
        ]:
            while _try_fuse_one(function):
                pass
            region_dce(function.body)  # the destinations of fused producers
