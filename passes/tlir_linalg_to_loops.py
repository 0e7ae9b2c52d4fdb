"""`tlir-linalg-to-loops`: `linalg.generic` / `linalg.fill` on buffers to `scf.for` nests.

Stands in for MLIR's `convert-linalg-to-loops` + `lower-affine` on the IR tlir
emits: one loop per dimension in the order the dimensions are numbered (the
lowering numbers them so that each output folds its terms in TorchLean's
order), `memref.load`s of the inputs at their indexing maps (affine
expressions become `index` arithmetic directly), the generic's scalar body,
and one `memref.store` per output (`tlir.passes.loop_bodies` writes those
bodies; this module, the loops around them).

In a kernel (`tlir.kernel`, bufferized with `lo`/`hi` arguments), the
outermost loop of every nest runs over `[lo, min(hi, N))` when that is safe,
and the kernel records `tlir.parallel_extent = N`: callers may then split
`[0, N)` across threads. It is safe when every top-level linalg op iterates
the same parallel dimension 0 of extent N, and every buffer the kernel
writes, and every written buffer it reads back, is indexed by that dimension
as its own dimension 0 — each iteration then touches only its own slices, so
iterations of different threads never meet. Otherwise N = 1 and the kernel
ignores `lo`/`hi`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    i64,
)
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from tlir.dialects.tlir_ad import ROW_STRIPS
from tlir.passes import fast_ops as fast
from tlir.passes.loop_bodies import Flat, IndexEmitter, Linalg, access, emit_body
from tlir.passes.loop_starts import first_reduction, fused_starts, iterator_kinds
from tlir.passes.row_strips import RowStrips, StripTile, strip_tiles
from tlir.passes.tlir_bufferize import BATCH_AXES
from tlir.passes.tlir_form_kernels import is_kernel
from tlir.passes.vector_row_folds import emit_vector_strips, plan_row_fold

PARALLEL_ATTR = "tlir.parallel_extent"
RULE_ATTR = "tlir.parallel_rule"
"""Of a kernel that takes the batch: `a, k, d, c` with units(B) = a·⌈k·B/d⌉ + c."""


def _operands_and_maps(op: Linalg) -> tuple[list[SSAValue], list[AffineMap], list[int]]:
    """Buffers, their maps, and the loop extents of a linalg op."""
    if isinstance(op, FillOp):
        out = op.outputs[0]
        rank = len(out.type.get_shape())
        return [out], [AffineMap.identity(rank)], list(out.type.get_shape())
    values = [*op.inputs, *op.outputs]
    maps = [m.data for m in op.indexing_maps]
    extents: list[int | None] = [None] * maps[0].num_dims
    for value, amap in zip(values, maps, strict=True):
        shape = value.type.get_shape() if hasattr(value.type, "get_shape") else ()
        for position, expr in enumerate(amap.results):
            if isinstance(expr, AffineDimExpr) and extents[expr.position] is None:
                extents[expr.position] = shape[position]
    if any(e is None for e in extents):
        raise ValueError(f"{op.name}: a loop dimension has no extent")
    return values, maps, [e for e in extents if e is not None]


def _root_buffer(value: SSAValue) -> SSAValue:
    return _root(value)[0]


def _is_parallel_dim0(op: Linalg) -> bool:
    return isinstance(op, FillOp) or str(op.iterator_types.data[0].data) == "parallel"


def _root(value: SSAValue) -> tuple[SSAValue, bool]:
    """The buffer a view is taken of, and whether dimension 0 survives the views."""
    intact = True
    while isinstance(value.owner, memref.SubviewOp | memref.ExpandShapeOp | memref.CollapseShapeOp):
        view = value.owner
        if isinstance(view, memref.SubviewOp):
            offsets = view.static_offsets.get_values()
            sizes = view.static_sizes.get_values()
            intact &= offsets[0] == 0 and sizes[0] == view.source.type.get_shape()[0]
            value = view.source
        else:
            groups = view.reassociation.data
            intact &= [a.value.data for a in groups[0].data] == [0]
            value = view.src
    return value, intact


def parallel_extent(function: func.FuncOp, ops: Sequence[Linalg]) -> int:
    """N if the kernel's top-level ops can be split along dimension 0, else 1."""
    num_inputs = function.attributes["tlir.num_inputs"].value.data
    readonly = set(function.body.block.args[:num_inputs])
    extent = None
    written = set()
    accesses: list[tuple[SSAValue, AffineMap, bool]] = []
    for op in ops:
        values, maps, extents = _operands_and_maps(op)
        if not extents or not _is_parallel_dim0(op):
            return 1
        if extent not in (None, extents[0]):
            return 1
        extent = extents[0]
        outputs = 1 if isinstance(op, FillOp) else len(op.outputs)
        for index, (value, amap) in enumerate(zip(values, maps, strict=True)):
            is_output = index >= len(values) - outputs
            root, intact = _root(value)
            if is_output:
                written.add(root)
            accesses.append((root, amap, intact))
    for root, amap, intact in accesses:
        # Buffers no iteration writes (inputs, constants, a window's shape-only
        # operand) are read alike by every split.
        if root in readonly or root not in written or isinstance(root.owner, memref.GetGlobalOp):
            continue
        first = amap.results[0] if amap.results else None
        if not intact or not (isinstance(first, AffineDimExpr) and first.position == 0):
            return 1
    return extent if extent is not None and extent > 1 and written else 1


INTERLEAVE = 8
"""Outputs of a reduction whose terms are folded side by side (see `_interleaved_dim`)."""


def _interleaved_dim(op: Linalg, maps: list[AffineMap], extents: list[int]) -> int | None:
    """The parallel dimension whose outputs fold their terms side by side, or None
    (with fewer than INTERLEAVE outputs, only the vector strips use it).

    A reduction nest in dimension order ends in its reduction loops, so each
    output's fold is one chain of dependent adds: latency-bound (an add every 3
    cycles or so), whatever the CPU could do in parallel. When the innermost
    parallel dimension q comes right before the reduction dimensions, the nest
    instead runs INTERLEAVE consecutive outputs of q together: for a strip of
    them, the reduction loops, and inside, the body once per output of the
    strip. Every output still sees its own terms in ascending order, one
    operation at a time (its fold is unchanged, bit for bit); only the folds of
    different outputs interleave, which gives the CPU independent chains to
    overlap. Requires every output map to be made of parallel dimensions
    including q, so that the outputs of a strip are distinct elements, and
    inputs indexed by plain dimensions (row reductions, not sliding windows).
    """
    if not isinstance(op, GenericOp):
        return None
    kinds = iterator_kinds(op)
    parallel = [i for i, kind in enumerate(kinds) if kind == "parallel"]
    if not parallel or parallel[-1] == len(kinds) - 1:
        return None
    q = parallel[-1]
    # Windows (pooling: `oh·s + kh`) keep their order: their few terms per output
    # already overlap across the unrolled window, and strips of them run slower.
    for amap in maps[: len(op.inputs)]:
        if any(isinstance(e, AffineBinaryOpExpr) for e in amap.results):
            return None
    for amap in maps[len(op.inputs) :]:
        dims = [e.position for e in amap.results if isinstance(e, AffineDimExpr)]
        if len(dims) != len(amap.results) or q not in dims:
            return None
        if any(kinds[d] != "parallel" for d in dims):
            return None
    return q


def _whole_strips_end(emitter, lb: SSAValue, ub: SSAValue, step: SSAValue) -> SSAValue:
    """Where whole strips of `step` from `lb` end: lb + ⌊(ub − lb) / step⌋·step."""
    span = emitter.emit(arith.SubiOp(ub, lb))
    whole = emitter.emit(arith.MuliOp(emitter.emit(arith.DivUIOp(span, step)), step))
    return emitter.emit(arith.AddiOp(lb, whole))


def _for(block: Block, lb: SSAValue, ub: SSAValue, step: SSAValue) -> Block:
    """Append `scf.for %i = lb to ub step step` to `block`; its body block."""
    body = Block(arg_types=[IndexType()])
    block.add_op(scf.ForOp(lb, ub, step, [], body))
    return body


@dataclass(frozen=True)
class BatchBounds:
    """A kernel that takes the batch: `batch`, and the factor k of the leading
    axis of each argument buffer that leads with k·B (`tlir.batch_axes`)."""

    batch: SSAValue
    factors: dict[SSAValue, int]
    flat: Flat
    """Argument buffers with a batch-sized axis past the leading one (their
    strides hold B): a flat view of each, and its strides at run time."""
    marks: dict[SSAValue, tuple[int, ...]]

    def infer(self, ops: Sequence[Linalg], scratch: Sequence[SSAValue]) -> None:
        """Mark the axes of the kernel's scratch buffers that a loop over a
        batch-sized axis indexes (a layernorm's row statistics, a product kept
        with the batch past its leading axis), until none is left."""
        changed = True
        while changed:
            changed = False
            for op in ops:
                values, maps, _ = _operands_and_maps(op)
                dims = self.dims(values, maps)
                for value, amap in zip(values, maps, strict=True):
                    root, intact = _root(value)
                    first = amap.results[0] if amap.results else None
                    if (
                        root not in self.factors
                        and intact
                        and isinstance(first, AffineDimExpr)
                        and first.position in dims
                    ):
                        self.factors[root] = dims[first.position]
                        changed = True
                    if value not in scratch:
                        continue
                    old = self.marks.get(value, (0,) * len(amap.results))
                    new = tuple(
                        dims.get(e.position, 0) if isinstance(e, AffineDimExpr) else 0
                        for e in amap.results
                    )
                    merged = tuple(max(a, b) for a, b in zip(old, new, strict=True))
                    if merged != old:
                        self.marks[value] = merged
                        changed = True

    def dims(self, values: Sequence[SSAValue], maps: Sequence[AffineMap]) -> dict[int, int]:
        """Loop dimension → k, for the dimensions that index a batch-sized axis
        (a leading one, or any axis of a flat buffer)."""
        found: dict[int, int] = {}
        for value, amap in zip(values, maps, strict=True):
            root, intact = _root(value)
            first = amap.results[0] if amap.results else None
            if intact and root in self.factors and isinstance(first, AffineDimExpr):
                found[first.position] = self.factors[root]
            if value in self.marks:
                for expr, factor in zip(amap.results, self.marks[value], strict=True):
                    if factor and isinstance(expr, AffineDimExpr):
                        found[expr.position] = factor
        return found


def row_strips(op: Linalg) -> RowStrips | None:
    attr = op.attributes.get(ROW_STRIPS)
    if not isinstance(op, GenericOp) or not isinstance(attr, DenseArrayBase):
        return None
    dim, outer, *widths = (int(v) for v in attr.get_values())
    if not 0 < outer < dim or str(op.iterator_types.data[dim].data) != "parallel":
        return None
    return RowStrips(dim, outer, tuple(widths))


def lower_linalg(
    op: Linalg,
    bounds: tuple[SSAValue, SSAValue] | None,
    vector_bytes: int = 0,
    batch: BatchBounds | None = None,
    starts: Sequence[Linalg] = (),
) -> list[Operation]:
    """The loop nest of one linalg op; `bounds` overrides the outermost loop's.
    A row reduction runs strips of outputs on vectors of `vector_bytes` where
    its body allows (`tlir.passes.vector_row_folds`; 0: never). With `batch`,
    a loop over a batch-sized leading axis runs to k·batch. `starts` (fills
    of its outputs, `loop_starts.fused_starts`) run on each tile of outputs
    before the reduction loops that read it."""
    values, maps, extents = _operands_and_maps(op)
    if 0 in extents:
        return []
    outer = Block()
    one = IndexEmitter(outer).const(1)
    batch_dims = batch.dims(values, maps) if batch is not None else {}

    def bound(emitter: IndexEmitter, position: int) -> SSAValue:
        if position in batch_dims:
            assert batch is not None
            if batch_dims[position] == 1:
                return batch.batch
            factor = emitter.const(batch_dims[position])
            return emitter.emit(arith.MuliOp(batch.batch, factor))
        return emitter.const(extents[position])

    rows = row_strips(op)
    tiles: tuple[StripTile, ...] = ()
    if rows is not None and isinstance(op, GenericOp):
        tiles = strip_tiles(op, values, maps, extents, rows, set(batch_dims), _root_buffer) or ()
    local = [memref.AllocaOp.get(values[t.operand].type.element_type, 64, t.shape) for t in tiles]
    outer.add_ops(local)
    strips = _interleaved_dim(op, maps, extents) if rows is None else None
    fold = None
    flat = batch.flat if batch is not None else {}
    if any(v in flat for v in values):
        vector_bytes = 0  # the row folds' vectors address buffers by their static strides
    if strips is not None and isinstance(op, GenericOp) and vector_bytes:
        fold = plan_row_fold(op, values, maps, extents, strips, vector_bytes, _root_buffer)
    interleaved = strips if strips is not None and extents[strips] >= INTERLEAVE else None
    bodies: list[Block] = []
    tile_at = first_reduction(op) if starts else None

    def nest(
        block: Block,
        position: int,
        ivs: list[SSAValue],
        rows_at: tuple | None = None,
        offset: SSAValue | None = None,
    ) -> None:
        """The loops from `position` on; `rows_at`: inside a strip, (its first
        row, its width, whether its outputs are in the local tiles); `offset`:
        the row within the strip, where they are."""
        emitter = IndexEmitter(block)
        if rows is not None and rows_at is None and position == rows.outer:
            row_strip_loops(block, position, ivs)
            return
        if rows is not None and rows_at is not None and position == rows.dim:
            first, size, tiled = rows_at  # the strip's rows: one, or a loop of `size`
            if size == 1:
                nest(block, position + 1, [*ivs, first], rows_at)
                return
            body = _for(block, emitter.const(0), emitter.const(size), one)
            bodies.append(body)
            row = IndexEmitter(body).emit(fast.binary(arith.AddiOp, first, body.args[0]))
            nest(body, position + 1, [*ivs, row], rows_at, body.args[0] if tiled else None)
            return
        if position == len(extents):
            in_tiles = local_access(ivs, offset) if offset is not None else None
            emit_body(op, values, maps, ivs, emitter, flat, in_tiles)
            return
        if position == tile_at:
            start_tile(block, position, ivs)
        if position == 0 and bounds is not None:
            lb, ub = bounds
        else:
            lb, ub = emitter.const(0), bound(emitter, position)
        if position == strips and fold is not None:
            # vector strips first; the scalar strips and the rest from where they end
            terms = len(extents) - 1
            runtime = bound(emitter, terms) if terms in batch_dims else None
            lb = emit_vector_strips(fold, block, lb, ub, ivs, scalar_body, runtime)
        if position != interleaved:
            body = _for(block, lb, ub, one)
            bodies.append(body)
            nest(body, position + 1, [*ivs, body.args[0]], rows_at, offset)
            return
        # Strips of INTERLEAVE outputs over [lb, lb + whole strips), then the rest.
        width = emitter.const(INTERLEAVE)
        split = _whole_strips_end(emitter, lb, ub, width)
        strip = _for(block, lb, split, width)
        bodies.append(strip)
        strip_nest(strip, position + 1, ivs, strip.args[0])
        rest = _for(block, split, ub, one)
        bodies.append(rest)
        nest(rest, position + 1, [*ivs, rest.args[0]])

    def strip_nest(block: Block, position: int, ivs: list[SSAValue], first: SSAValue) -> None:
        """The reduction loops of a strip starting at output `first`, then one
        body per output of the strip."""
        emitter = IndexEmitter(block)
        if position < len(extents):
            body = _for(block, emitter.const(0), bound(emitter, position), one)
            bodies.append(body)
            strip_nest(body, position + 1, [*ivs, body.args[0]], first)
            return
        for offset in range(INTERLEAVE):
            index = first
            if offset:
                index = emitter.emit(fast.binary(arith.AddiOp, first, emitter.const(offset)))
            output_ivs = [*ivs]
            output_ivs.insert(interleaved, index)
            emit_body(op, values, maps, output_ivs, emitter, flat)

    def row_strip_loops(block: Block, position: int, ivs: list[SSAValue]) -> None:
        """Whole strips of each width from where the last end, then the rest
        one by one, each running the nest from `position` on."""
        assert rows is not None
        emitter = IndexEmitter(block)
        lb, ub = emitter.const(0), bound(emitter, rows.dim)
        for size in rows.widths:
            step = emitter.const(size)
            split = _whole_strips_end(emitter, lb, ub, step)
            loop = _for(block, lb, split, step)
            bodies.append(loop)
            tiled = bool(tiles) and size > 1
            if tiled:
                copy_tiles(loop, ivs, loop.args[0], size, into_tiles=True)
            nest(loop, position, ivs, (loop.args[0], size, tiled))
            if tiled:
                copy_tiles(loop, ivs, loop.args[0], size, into_tiles=False)
            lb = split
        loop = _for(block, lb, ub, one)
        bodies.append(loop)
        nest(loop, position, ivs, (loop.args[0], 1, False))

    def copy_tiles(
        block: Block, ivs: list[SSAValue], first: SSAValue, size: int, into_tiles: bool
    ) -> None:
        """Each output's elements of the strip from `first` (`size` rows, the
        outer indices `ivs`) into its local tile, or back."""
        assert rows is not None
        for tile, buffer in zip(tiles, local, strict=True):
            inner, at = block, []
            for d in tile.dims:
                emitter = IndexEmitter(inner)
                extent = size if d == rows.dim else extents[d]
                inner = _for(inner, emitter.const(0), emitter.const(extent), one)
                bodies.append(inner)
                at.append(inner.args[0])
            emitter = IndexEmitter(inner)
            full: list = [*ivs, *[None] * (len(extents) - len(ivs))]  # only tile dims read
            for d, index in zip(tile.dims, at, strict=True):
                full[d] = index
                if d == rows.dim:
                    full[d] = emitter.emit(fast.binary(arith.AddiOp, first, index))
            value = values[tile.operand]
            target, indices = access(value, maps[tile.operand], full, emitter, flat)
            source, dest = (target, indices), (buffer.memref, at)
            if not into_tiles:
                source, dest = dest, source
            emitter.emit(fast.store(emitter.emit(fast.load(*source)), *dest))

    def local_access(ivs: list[SSAValue], offset: SSAValue) -> dict:
        """Each tiled output's (local tile, indices) at `ivs`, row `offset` of its strip."""
        assert rows is not None
        return {
            values[tile.operand]: (
                buffer.memref,
                [offset if d == rows.dim else ivs[d] for d in tile.dims],
            )
            for tile, buffer in zip(tiles, local, strict=True)
        }

    def start_tile(block: Block, position: int, ivs: list[SSAValue]) -> None:
        """The starts of the outputs at the outer indices `ivs`: a loop per
        parallel dimension after `position`, each start's body at the
        output's indices (the parallel dimensions', in order)."""
        inner = [k for k in range(position, len(extents)) if kinds[k] == "parallel"]
        tile, out_ivs = block, list(ivs)
        for k in inner:
            emitter = IndexEmitter(tile)
            tile = _for(tile, emitter.const(0), bound(emitter, k), one)
            bodies.append(tile)
            out_ivs.append(tile.args[0])
        for start in starts:
            start_values, start_maps, _ = _operands_and_maps(start)
            emit_body(start, start_values, start_maps, out_ivs, IndexEmitter(tile), flat)

    kinds = iterator_kinds(op) if isinstance(op, GenericOp) else []

    def scalar_body(block: Block, ivs: list[SSAValue]) -> None:
        emit_body(op, values, maps, ivs, IndexEmitter(block), flat)

    nest(outer, 0, [])
    for body in bodies:
        body.add_op(scf.YieldOp())
    ops = list(outer.ops)
    for nested in ops:
        nested.detach()
    return ops


def _batch_factor(function: func.FuncOp, extent: int) -> int:
    """k if the kernel takes the batch (`tlir.batch_axes`) and its parallel
    dimension, the leading axis of the outputs it writes, is k·B; else 0."""
    axes = function.attributes.get(BATCH_AXES)
    if axes is None or extent <= 1:
        return 0
    num_inputs = function.attributes["tlir.num_inputs"].value.data
    num_outputs = function.attributes["tlir.num_outputs"].value.data
    outputs = function.body.block.args[num_inputs : num_inputs + num_outputs]
    factors = set()
    for arg, marks in zip(outputs, axes.data[num_inputs:], strict=True):
        shape = arg.type.get_shape()
        leading = marks.get_values()[0] if shape else 0
        if not leading or shape[0] != extent:
            return 0  # not every output leads with the parallel batch axis
        factors.add(leading)
    return factors.pop() if len(factors) == 1 else 0


def _batch_bounds(function: func.FuncOp) -> BatchBounds | None:
    axes = function.attributes.get(BATCH_AXES)
    if axes is None or not is_kernel(function):
        return None
    block = function.body.block
    args, batch = block.args, block.args[-1]
    marks = {arg: tuple(m.get_values()) for arg, m in zip(args, axes.data, strict=False)}
    factors = {arg: m[0] for arg, m in marks.items() if m and m[0]}
    return BatchBounds(batch, factors, {}, marks)


def _flat_views(function: func.FuncOp, batch: BatchBounds) -> None:
    """Flat views of the argument buffers (scratch included) with a batch-sized
    axis past the leading one that only linalg ops read and write."""
    block = function.body.block
    for arg in block.args:
        mark = batch.marks.get(arg, ())
        direct = all(isinstance(use.operation, GenericOp | FillOp) for use in arg.uses)
        if any(mark[1:]) and direct:
            batch.flat[arg] = _flat_view(block, arg, mark, batch.batch)


def _flat_view(
    block: Block, buffer: SSAValue, marks: tuple[int, ...], batch: SSAValue
) -> tuple[SSAValue, list[SSAValue]]:
    """A 1-d view of `buffer` and its strides, batch-sized extents (k > 0 in
    `marks`) taken as k·batch, at the top of `block`."""
    ops: list[Operation] = []

    def const(value: int) -> SSAValue:
        ops.append(arith.ConstantOp(IntegerAttr(value, IndexType())))
        return ops[-1].results[0]

    shape = buffer.type.get_shape()
    strides: list[SSAValue] = [const(1)]
    for extent, factor in zip(shape[:0:-1], marks[:0:-1], strict=True):
        size = const(extent) if not factor else None
        if factor:
            ops.append(arith.MuliOp(batch, const(factor)))
            size = ops[-1].results[0]
        ops.append(arith.MuliOp(strides[0], size))
        strides.insert(0, ops[-1].results[0])
    group = ArrayAttr([IntegerAttr(i, i64) for i in range(len(shape))])
    view = memref.CollapseShapeOp(
        operands=[buffer],
        properties={"reassociation": ArrayAttr([group])},
        result_types=[MemRefType(buffer.type.element_type, [math.prod(shape)])],
    )
    ops.append(view)
    first = block.first_op
    block.insert_ops_before(ops, first) if first else block.add_ops(ops)
    return view.results[0], strides


def lower_function(function: func.FuncOp, vector_bytes: int = 0) -> None:
    block = function.body.block
    ops = [op for op in block.ops if isinstance(op, GenericOp | FillOp)]
    bounds = None
    if is_kernel(function) and "tlir.num_inputs" in function.attributes:
        extent = parallel_extent(function, ops)
        function.attributes[PARALLEL_ATTR] = IntegerAttr(extent, i64)
        factor = _batch_factor(function, extent)
        if BATCH_AXES in function.attributes:
            rule = (1, factor, 1, 0) if factor else (0, 0, 1, extent)
            function.attributes[RULE_ATTR] = DenseArrayBase.from_list(i64, rule)
        if extent > 1:
            shift = BATCH_AXES in function.attributes  # `batch` follows `hi`
            lo, hi = block.args[-2 - shift], block.args[-1 - shift]
            assert isinstance(lo, BlockArgument) and isinstance(hi, BlockArgument)
            first = block.first_op
            n = arith.ConstantOp(IntegerAttr(factor or extent, IndexType()))
            clamp: list[Operation] = [n]
            if factor > 1:  # N = k·B from the batch argument (`tlir.parallel_rule`)
                clamp.append(arith.MuliOp(block.args[-1], n.result))
            units = block.args[-1] if factor == 1 else clamp[-1].results[0]
            clamp.append(arith.MinSIOp(hi, units))
            block.insert_ops_before(clamp, first) if first else block.add_ops(clamp)
            bounds = (lo, clamp[-1].results[0])
    batch = _batch_bounds(function)
    if batch is not None:
        outputs = (
            function.attributes["tlir.num_inputs"].value.data
            + function.attributes["tlir.num_outputs"].value.data
        )
        batch.infer(ops, list(block.args[outputs:-3]))  # the scratch buffers
        _flat_views(function, batch)
    starts = fused_starts(list(block.ops), _other_nests(ops))
    inside = {start for taken in starts.values() for start in taken}
    for op in ops:
        if op not in inside:
            lowered = lower_linalg(op, bounds, vector_bytes, batch, starts.get(op, ()))
            # local tiles in the entry block, before any loop: static stack slots
            tiles = [o for o in lowered if isinstance(o, memref.AllocaOp)]
            if tiles:
                block.insert_ops_before(tiles, block.first_op)
            block.insert_ops_before([o for o in lowered if o not in tiles], op)
    for op in ops:
        op.detach()
        op.erase()


def _other_nests(ops: Sequence[Linalg]) -> set[Operation]:
    """The ops whose nests are not the plain one in dimension order (row strips,
    interleaved outputs, vector strips) or that have none (an empty range):
    they take no starts."""
    return {op for op in ops if isinstance(op, GenericOp) and not _plain_nest(op)}


def _plain_nest(op: GenericOp) -> bool:
    _, maps, extents = _operands_and_maps(op)
    if 0 in extents or row_strips(op) is not None:
        return False
    return _interleaved_dim(op, maps, extents) is None


@dataclass(frozen=True)
class TlirLinalgToLoops(ModulePass):
    """Lower linalg on buffers to scf loops; kernels iterate `[lo, min(hi, N))`."""

    name = "tlir-linalg-to-loops"

    vector_bytes: int = -1
    """Vector width of the row folds' strips (`vector_row_folds`): -1 the host
    CPU's, 0 none (scalar strips only)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        width = self.vector_bytes
        if width < 0:
            from tlir.passes.contraction_kernels import host_target

            width = host_target().vector_bytes
        for function in op.ops:
            if isinstance(function, func.FuncOp) and len(function.body.blocks) == 1:
                lower_function(function, width)


__all__ = ["PARALLEL_ATTR", "ROW_STRIPS", "TlirLinalgToLoops", "lower_linalg", "parallel_extent"]
