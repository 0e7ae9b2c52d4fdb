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
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr, ModuleOp, UnknownLoc
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce

from tlir.dialects.tlir_ad import keep_row_strips
from tlir.passes import fast_ops as fast


def _output_map(op: GenericOp) -> AffineMap:
    return op.indexing_maps.data[-1].data


def _all_parallel(op: GenericOp) -> bool:
    return all(str(i.data) == "parallel" for i in op.iterator_types)


LIBRARY_CALLS = (math.ExpOp, math.LogOp, math.TanhOp, math.SinOp, math.CosOp)
"""Scalar ops that become C library calls: too costly to recompute per consumer."""


def _fusable_producer(producer: Operation) -> bool:
    if not isinstance(producer, GenericOp) or len(producer.outputs) != 1:
        return False
    if not _all_parallel(producer):
        return False
    out_arg = producer.body.block.args[len(producer.inputs)]
    if out_arg.uses:
        return False  # reads its initial value: not elementwise
    return _output_map(producer).inverse_permutation() is not None


def _index_map(producer: GenericOp, consumer_map: AffineMap) -> AffineMap:
    """Producer dimensions as functions of consumer dimensions."""
    inverse = _output_map(producer).inverse_permutation()
    assert inverse is not None
    return inverse.compose(consumer_map)


def _order_preserving(producer: GenericOp) -> bool:
    """Every input is read at the point written, or at a projection of it that
    keeps the order of the indices (a broadcast such as a row's mean `m[i]` in
    `x[i, j] - m[i]`): no transpose."""
    maps = [m.data for m in producer.indexing_maps]
    written = [e.position for e in maps[-1].results if isinstance(e, AffineDimExpr)]
    for amap in maps[:-1]:
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


def _fresh(op: IndexOp) -> bool:
    """As an index op made by a fusion is: unnamed, no location, no attributes."""
    return op.results[0].name_hint is None and op.location == UnknownLoc() and not op.attributes


@dataclass(eq=False)
class _Body:
    """What fusion asks of a generic's body (its size, whether it calls the C
    library, its `linalg.index` ops), kept as bodies merge so that no fusion
    walks a body it does not copy."""

    size: int
    expensive: bool
    index_ops: dict[IndexOp, None]  # in no particular order
    stale: list[IndexOp]  # the index ops that are not `_fresh`
    dims: set[int]  # the dimensions the index ops name

    @staticmethod
    def scan(op: GenericOp) -> _Body:
        ops = list(op.body.walk())
        index_ops = [o for o in ops if isinstance(o, IndexOp)]
        return _Body(
            size=len(ops),
            expensive=any(isinstance(o, LIBRARY_CALLS) for o in ops),
            index_ops=dict.fromkeys(index_ops),
            stale=[o for o in index_ops if not _fresh(o)],
            dims={o.dim.value.data for o in index_ops},
        )

    def merge(self, other: _Body) -> _Body:
        """The body of both (the producer's yield dropped), the larger table kept."""
        big, small = (self, other) if len(self.index_ops) >= len(other.index_ops) else (other, self)
        big.size = self.size + other.size - 1
        big.expensive = self.expensive or other.expensive
        big.index_ops.update(small.index_ops)
        big.stale.extend(small.stale)
        big.dims |= small.dims
        return big


def _new_index(expr: AffineDimExpr | AffineConstantExpr) -> Operation:
    if isinstance(expr, AffineDimExpr):
        return IndexOp(expr.position)
    return arith.ConstantOp(IntegerAttr(expr.value, IndexType()))


def _replace_index(body: _Body, op: IndexOp, expr: AffineDimExpr | AffineConstantExpr) -> None:
    new = _new_index(expr)
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(new, op)
    op.results[0].replace_all_uses_with(new.results[0])
    new.results[0].name_hint = None  # a fresh value, as a copy's would be
    op.detach()
    op.erase()
    del body.index_ops[op]
    if isinstance(new, IndexOp):
        body.index_ops[new] = None


def _reindex(body: _Body, index_map: AffineMap) -> None:
    """The producer's index ops, in place, as the consumer's dimensions name
    them: each becomes a fresh op, as in a copy of the body, unless it is one
    already and names the same dimension (in a chain of plain elementwise ops:
    none to look at)."""
    results = index_map.results

    def unchanged(dim: int) -> bool:
        return isinstance(results[dim], AffineDimExpr) and results[dim].position == dim

    if not all(unchanged(d) for d in body.dims):
        for op in list(body.index_ops):
            dim = op.dim.value.data
            if not (unchanged(dim) and _fresh(op)):
                _replace_index(body, op, results[dim])
        body.dims = {op.dim.value.data for op in body.index_ops}
    else:
        for op in body.stale:
            if op in body.index_ops:
                _replace_index(body, op, results[op.dim.value.data])
    body.stale = []


@dataclass
class FusionCounts:
    """Work done by one run of the pass (for tests: each grows linearly with
    the length of an elementwise chain)."""

    candidates: int = 0  # (consumer, input) pairs examined
    fusions: int = 0
    ops_moved: int = 0  # body ops moved or copied from one block to another
    restarts: int = 0


class _Fuser:
    """Fuses the generics of one function.

    The result is the one of the simplest procedure (walk the function, fuse the
    first fusable (consumer, input) pair, start again until none is left), in
    one pass: a pair found not fusable stays so when later fusions happen, with
    one exception (a producer erased that wrote into another generic's result,
    which that result's readers may then fuse), after which the walk starts
    again. A fused generic is examined again from the input where its producer
    was, and it reuses the larger of the two bodies, so that a chain's body is
    never copied: moving the smaller one makes a chain of n ops O(n)."""

    def __init__(self) -> None:
        self.bodies: dict[GenericOp, _Body] = {}
        self.counts = FusionCounts()
        self.restart = False

    def body(self, op: GenericOp) -> _Body:
        body = self.bodies.get(op)
        if body is None:
            body = self.bodies[op] = _Body.scan(op)
        return body

    def sweep(self, function: func.FuncOp) -> bool:
        """One walk of the function; True if it must start again."""
        for consumer in [op for op in function.walk() if isinstance(op, GenericOp)]:
            position, inputs = 0, consumer.inputs
            while position < len(inputs):
                fused = self.try_fuse(consumer, position, inputs[position])
                if fused is None:
                    position += 1
                    continue
                consumer, inputs = fused, fused.inputs
                if self.restart:
                    self.restart = False
                    self.counts.restarts += 1
                    return True
        return False

    def try_fuse(self, consumer: GenericOp, position: int, value: SSAValue) -> GenericOp | None:
        self.counts.candidates += 1
        producer = value.owner
        if not _fusable_producer(producer):
            return None
        assert isinstance(producer, GenericOp)
        users = [use.operation for use in value.uses]
        if any(not isinstance(u, GenericOp) or value in u.outputs for u in users):
            return None
        if len(users) > 1 and self.body(producer).expensive:
            return None
        index_map = _index_map(producer, consumer.indexing_maps.data[position].data)
        if not all(
            isinstance(index_map.results[d], AffineDimExpr | AffineConstantExpr)
            for d in self.body(producer).dims
        ):
            return None
        maps = _fused_map_attrs(consumer, position, producer, index_map)
        if not _bounds_known([m.data for m in maps]):
            return None
        if not _keeps_access_order(consumer, producer):
            return None
        return self.fuse(consumer, position, producer, index_map, maps, last_use=len(users) == 1)

    def fuse(
        self,
        consumer: GenericOp,
        position: int,
        producer: GenericOp,
        index_map: AffineMap,
        maps: list[AffineMapAttr],
        last_use: bool,
    ) -> GenericOp:
        """The consumer with its input `position` (the producer's result)
        computed inline: the producer's scalar body (index ops renamed through
        `index_map`) in place of the consumer's block argument."""
        self.counts.fusions += 1
        consumer_body = self.bodies.pop(consumer, None) or _Body.scan(consumer)
        if last_use and self.body(producer).size >= consumer_body.size:
            block, producer_body = self._into_producer_block(
                consumer, position, producer, index_map
            )
        else:
            block, producer_body = self._into_consumer_block(
                consumer, position, producer, index_map, move=last_use
            )
        inputs = list(consumer.inputs)
        inputs[position : position + 1] = list(producer.inputs)
        fused = fast.generic(
            inputs,
            list(consumer.outputs),
            Region(block),
            maps,
            consumer.iterator_types.data,
            [r.type for r in consumer.results],
        )
        fused.location = consumer.location
        keep_row_strips(consumer, fused)
        self.bodies[fused] = producer_body.merge(consumer_body)
        parent = consumer.parent_block()
        assert parent is not None
        parent.insert_op_before(fused, consumer)
        for old, new in zip(consumer.results, fused.results, strict=True):
            old.replace_all_uses_with(new)
        consumer.detach()
        consumer.erase()
        if last_use:
            # its destination loses a reader: a generic that wrote it may now fuse
            self.restart = any(isinstance(v.owner, GenericOp) for v in producer.outputs)
            self.bodies.pop(producer, None)
            producer.detach()
            producer.erase()
        return fused

    def _into_producer_block(
        self, consumer: GenericOp, position: int, producer: GenericOp, index_map: AffineMap
    ) -> tuple[Block, _Body]:
        """The producer's block, read once: the consumer's arguments around
        the producer's, the consumer's ops after the producer's."""
        body = self.bodies.pop(producer, None) or _Body.scan(producer)
        _reindex(body, index_map)
        block = producer.body.detach_block(producer.body.block)
        count = len(producer.inputs)
        for arg in block.args[:count]:
            arg.name_hint = None  # a fresh argument, as a copy's would be
        yield_op = block.last_op
        assert isinstance(yield_op, YieldOp)
        fused_value = yield_op.operands[0]
        yield_op.detach()
        yield_op.erase()
        for arg in block.args[count:]:
            block.erase_arg(arg)
        old_args = consumer.body.block.args
        for index, old in enumerate(old_args[:position]):
            old.replace_all_uses_with(block.insert_arg(old.type, index))
        _take_value(old_args[position], fused_value, body)
        for old in old_args[position + 1 :]:
            old.replace_all_uses_with(block.insert_arg(old.type, len(block.args)))
        ops = list(consumer.body.block.ops)
        for op in ops:
            op.detach()
            block.add_op(op)
        self.counts.ops_moved += len(ops)
        return block, body

    def _into_consumer_block(
        self,
        consumer: GenericOp,
        position: int,
        producer: GenericOp,
        index_map: AffineMap,
        move: bool,
    ) -> tuple[Block, _Body]:
        """The consumer's block, the producer's ops moved (its last use) or
        copied to its start and its arguments in place of the consumer's one."""
        block = consumer.body.detach_block(consumer.body.block)
        source = producer.body.block
        count = len(producer.inputs)
        args = [
            block.insert_arg(arg.type, position + 1 + k)
            for k, arg in enumerate(source.args[:count])
        ]
        first = block.first_op
        assert first is not None
        if move:
            body = self.bodies.pop(producer, None) or _Body.scan(producer)
            _reindex(body, index_map)
            for old, new in zip(source.args[:count], args, strict=True):
                old.replace_all_uses_with(new)
                new.name_hint = None
            yield_op = source.last_op
            assert isinstance(yield_op, YieldOp)
            fused_value = yield_op.operands[0]
            ops = list(source.ops)[:-1]
            for op in ops:
                op.detach()
                block.insert_op_before(op, first)
        else:
            mapping: dict[SSAValue, SSAValue] = dict(zip(source.args[:count], args, strict=True))
            ops, index_ops = [], []
            for op in source.ops:
                if isinstance(op, YieldOp):
                    fused_value = mapping[op.operands[0]]
                    break
                if isinstance(op, IndexOp):
                    new = _new_index(index_map.results[op.dim.value.data])
                    mapping[op.results[0]] = new.results[0]
                    if isinstance(new, IndexOp):
                        index_ops.append(new)
                else:
                    new = op.clone(value_mapper=mapping)
                block.insert_op_before(new, first)
                ops.append(new)
            dims = {op.dim.value.data for op in index_ops}
            expensive = self.body(producer).expensive
            body = _Body(len(ops) + 1, expensive, dict.fromkeys(index_ops), [], dims)
        self.counts.ops_moved += len(ops)
        old = block.args[position]
        _take_value(old, fused_value, body)
        block.erase_arg(old)
        return block, body


def _take_value(arg: SSAValue, value: SSAValue, body: _Body) -> None:
    """The consumer's argument replaced by the producer's value, which takes its
    name if it has none (an index op's value too: no longer `_fresh`)."""
    arg.replace_all_uses_with(value)
    if isinstance(value.owner, IndexOp):
        body.stale.append(value.owner)


def _fused_map_attrs(
    consumer: GenericOp, position: int, producer: GenericOp, index_map: AffineMap
) -> list[AffineMapAttr]:
    """The consumer's maps, the producer's composed with `index_map` in place
    of the one at `position` (the producer's own where that is the identity)."""
    consumer_maps = list(consumer.indexing_maps.data)
    producer_maps = producer.indexing_maps.data[: len(producer.inputs)]
    if index_map != AffineMap.identity(index_map.num_dims):
        producer_maps = [AffineMapAttr(m.data.compose(index_map)) for m in producer_maps]
    consumer_maps[position : position + 1] = producer_maps
    return consumer_maps


def fuse_function(function: func.FuncOp) -> FusionCounts:
    """Fuse the generics of a one-block function; what it took."""
    fuser = _Fuser()
    while fuser.sweep(function):
        pass
    region_dce(function.body)  # the destinations of fused producers
    return fuser.counts


@dataclass(frozen=True)
class TlirFuseElementwise(ModulePass):
    """Fuse elementwise producer generics into their consumers, in every function."""

    name = "tlir-fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [
            f for f in op.ops if isinstance(f, func.FuncOp) and len(f.body.blocks) == 1
        ]:
            fuse_function(function)
