"""Row folds on vectors: one output of a reduction per vector lane.

A row reduction (`reduce_sum`, the mean and variance of `layernorm`, …) folds
each output's terms one after another, from the first index to the last. Its
terms cannot be added side by side within one output without changing the
result, but the folds of different outputs are independent: with `lanes`
outputs in the lanes of one vector, one vector operation advances `lanes`
folds by one term each, every fold still in its own order, bit for bit.

The terms of `lanes` consecutive outputs sit in `lanes` rows of memory. A
square of `lanes` rows × `lanes` columns is `lanes` vector loads along the
rows and a transpose in registers (`packing.transpose`); its columns are then
the next `lanes` terms of every fold, in ascending order. A body that reads
its input with the outputs' index last (a fold over rows: `x[k, i]`) loads its
columns directly. The last `extent mod lanes` terms of each fold run element
by element after the vector part has stored its partial results, and the
outputs that do not fill a vector go back to `tlir-linalg-to-loops`'
interleaved scalar strips.

The vector body is the generic's own scalar body rebuilt on vectors, so only
bodies of plain float arithmetic qualify (`_VECTOR_SAFE`: xDSL 0.74 builds
`cmpf`/`select` on scalars only); a maximum, or a call of the C library such
as `exp`, keeps the scalar strips, and so do small folds (`MIN_TERMS`).
Stands in for what MLIR's vectorizer (`linalg::vectorize` with a transposing
read) would do with the inner reduction kept in order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    MemRefType,
    NoneAttr,
    VectorType,
)
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.epilogue import VECTOR_SAFE
from tlir.passes.contraction_kernels.packing import transpose
from tlir.passes.loop_starts import iterator_kinds

MIN_TERMS = 4096
"""Folds with fewer terms in all (outputs × terms each) keep the scalar strips:
there the vectors save well under a microsecond per call, and their code
costs a compile 10-30 ms per kernel (a 103-node transformer of 8 × 16 rows:
0.81 against 0.70 s)."""

PEEL_SQUARES = 4
"""Rows shorter than this many squares are not aligned first: the element-by-
element terms before the first vector boundary would be a large share."""

ScalarBody = Callable[[Block, list[SSAValue]], None]
"""Emits the generic's scalar body at the end of a block for the given loop ivs."""


@dataclass(frozen=True)
class Operand:
    """How the vector strips read one input of the body."""

    value: SSAValue
    amap: AffineMap
    along_rows: bool
    """Its index depends on the outputs' dimension."""
    along_terms: bool
    """Its index depends on the reduction dimension."""
    terms_last: bool
    """Its last index is the reduction dimension (a square needs a transpose)."""


@dataclass(frozen=True)
class RowFold:
    """A reduction generic whose strips of `lanes` outputs run on vectors."""

    op: GenericOp
    extents: tuple[int, ...]
    rows: int
    """The parallel dimension whose consecutive outputs share a vector."""
    terms: int
    """The reduction dimension (the last one)."""
    lanes: int
    inputs: dict[SSAValue, Operand]
    """Body argument → how it is read (arguments the body never reads are absent)."""
    output: Operand
    aligned: Operand | None
    """A transposed input whose rows all start at the same offset within a
    vector: the first terms up to its next vector boundary run element by
    element, so that its squares load whole aligned vectors."""

    @property
    def vector_type(self) -> VectorType:
        return VectorType(self.output.value.type.element_type, [self.lanes])


def _contiguous(value: SSAValue) -> bool:
    typ = value.type
    return isinstance(typ, MemRefType) and isinstance(typ.layout, NoneAttr)


def _operand(value: SSAValue, amap: AffineMap, rows: int, terms: int) -> Operand | None:
    if not all(isinstance(e, AffineDimExpr | AffineConstantExpr) for e in amap.results):
        return None
    dims = [e.position for e in amap.results if isinstance(e, AffineDimExpr)]
    last = amap.results[-1] if amap.results else None
    last_dim = last.position if isinstance(last, AffineDimExpr) else None
    operand = Operand(value, amap, rows in dims, terms in dims, last_dim == terms)
    if operand.along_rows and last_dim not in (rows, terms):
        return None  # neither a row of terms nor a run of outputs is contiguous
    return operand


def _body_vectorizes(op: GenericOp) -> bool:
    block = op.body.block
    known = set(block.args)
    for inner in block.ops:
        if isinstance(inner, YieldOp):
            return all(v in known for v in inner.operands)
        if not isinstance(inner, VECTOR_SAFE) or any(v not in known for v in inner.operands):
            return False
        if isinstance(inner, arith.ConstantOp) and not isinstance(inner.value, FloatAttr):
            return False
        known.update(inner.results)
    return False


def plan_row_fold(
    op: GenericOp,
    values: Sequence[SSAValue],
    maps: Sequence[AffineMap],
    extents: Sequence[int],
    rows: int,
    vector_bytes: int,
    root: Callable[[SSAValue], SSAValue],
) -> RowFold | None:
    """The vector strips of a reduction whose interleaved dimension is `rows`,
    or None where they do not apply (see the module docstring)."""
    terms = len(extents) - 1
    kinds = iterator_kinds(op)
    if rows != terms - 1 or kinds[terms] != "reduction" or len(op.outputs) != 1:
        return None
    element = op.outputs[0].type.element_type
    if not isinstance(element, Float32Type | Float64Type):
        return None
    lanes = vector_bytes // (4 if isinstance(element, Float32Type) else 8)
    if lanes < 2 or lanes & (lanes - 1) or min(extents[rows], extents[terms]) < lanes:
        return None
    if math.prod(extents) < MIN_TERMS:
        return None
    if not all(_contiguous(v) for v in values) or not _body_vectorizes(op):
        return None
    output = _operand(values[-1], maps[-1], rows, terms)
    if output is None or output.along_terms or output.terms_last or not output.along_rows:
        return None
    written = root(values[-1])
    inputs: dict[SSAValue, Operand] = {}
    args = op.body.block.args
    for arg, value, amap in zip(args[: len(op.inputs)], values, maps, strict=False):
        if not arg.uses.get_length():
            continue
        operand = _operand(value, amap, rows, terms)
        if operand is None or root(value) == written:
            return None
        inputs[arg] = operand
    aligned = next(
        (
            o
            for o in inputs.values()
            if extents[terms] >= PEEL_SQUARES * lanes
            and o.along_rows
            and o.terms_last
            and _row_stride(o, rows) * (vector_bytes // lanes) % vector_bytes == 0
        ),
        None,
    )
    return RowFold(op, tuple(extents), rows, terms, lanes, inputs, output, aligned)


def _row_stride(operand: Operand, rows: int) -> int:
    """Elements between consecutive outputs' terms in `operand`."""
    shape = operand.value.type.get_shape()
    results = operand.amap.results
    position = next(i for i, e in enumerate(results) if getattr(e, "position", None) == rows)
    stride = 1
    for extent in shape[position + 1 :]:
        stride *= extent
    return stride


def _flat_index(kb: KernelBuilder, operand: Operand, ivs: Sequence[Index]) -> Index:
    """The row-major position of `operand` at the loop indices `ivs`."""
    shape = operand.value.type.get_shape()
    at: Index = 0
    stride = 1
    for expr, extent in zip(reversed(operand.amap.results), reversed(shape), strict=True):
        index = ivs[expr.position] if isinstance(expr, AffineDimExpr) else expr.value
        at = kb.add(at, kb.mul(index, stride))
        stride *= extent
    return at


def _vector_body(kb: KernelBuilder, op: GenericOp, mapping: dict[SSAValue, SSAValue],
                 typ: VectorType) -> SSAValue:  # fmt: skip
    """The generic's scalar body on vectors of `typ` (its ops are `VECTOR_SAFE`)."""
    for inner in op.body.block.ops:
        if isinstance(inner, YieldOp):
            return mapping[inner.operands[0]]
        if isinstance(inner, arith.ConstantOp):
            mapping[inner.result] = kb.constant(inner.value.value.data, typ)
            continue
        rebuilt = type(inner).create(
            operands=[mapping[v] for v in inner.operands],
            result_types=[typ],
            properties=dict(inner.properties),
            attributes=dict(inner.attributes),
        )
        mapping[inner.results[0]] = kb.emit(rebuilt)
    raise ValueError("a linalg.generic body without a yield")


def emit_vector_strips(
    fold: RowFold,
    block: Block,
    lower: SSAValue,
    upper: SSAValue,
    outer_ivs: Sequence[SSAValue],
    scalar_body: ScalarBody,
    terms: SSAValue | None = None,
) -> SSAValue:
    """Strips of `lanes` outputs over [lower, lower + whole strips), appended to
    `block`; returns where the scalar strips take over. `terms`: the terms'
    extent at run time (a fold over the batch of a kernel that takes it)."""
    kb = KernelBuilder(block)
    lanes, typ = fold.lanes, fold.vector_type
    span = kb.sub(upper, lower)
    split = kb.add(lower, kb.mul(kb.div(span, lanes), lanes))
    assert isinstance(split, SSAValue)
    # in the operands' order (a set of values would order them by address: the
    # views, and so the kernel's text, would change from one run to the next)
    buffers = dict.fromkeys(o.value for o in (*fold.inputs.values(), fold.output))
    flat = {v: kb.flat(v) for v in buffers}
    extent: Index = fold.extents[fold.terms] if terms is None else terms
    element_bytes = typ.element_type.bitwidth // 8
    vector_bytes = lanes * element_bytes
    base = None
    if fold.aligned is not None:
        base = kb.emit(memref.ExtractAlignedPointerAsIndexOp.get(fold.aligned.value))

    def ivs(row: Index, term: Index) -> list[Index]:
        return [*outer_ivs, row, term]

    def strip(first: Index, carried: list) -> list:
        out = fold.output
        out_at = _flat_index(kb, out, ivs(first, 0))
        fixed: dict[SSAValue, SSAValue] = {}
        for arg, operand in fold.inputs.items():
            if operand.along_terms:
                continue
            at = _flat_index(kb, operand, ivs(first, 0))
            if operand.along_rows:  # a run of the outputs' own values (a mean, …)
                fixed[arg] = kb.vload(flat[operand.value], at, typ)
            else:
                fixed[arg] = kb.broadcast(kb.load(flat[operand.value], at), typ)

        def square(k0: Index, acc: list) -> list:
            columns: dict[SSAValue, list[SSAValue]] = {}
            for arg, operand in fold.inputs.items():
                if not operand.along_terms:
                    continue
                buffer = flat[operand.value]
                if operand.along_rows and operand.terms_last:
                    rows = [
                        kb.vload(buffer, _flat_index(kb, operand, ivs(kb.add(first, i), k0)), typ)
                        for i in range(lanes)
                    ]
                    columns[arg] = transpose(kb, rows)
                elif operand.along_rows:
                    columns[arg] = [
                        kb.vload(buffer, _flat_index(kb, operand, ivs(first, kb.add(k0, j))), typ)
                        for j in range(lanes)
                    ]
                else:
                    columns[arg] = [
                        kb.broadcast(
                            kb.load(buffer, _flat_index(kb, operand, ivs(first, kb.add(k0, j)))),
                            typ,
                        )
                        for j in range(lanes)
                    ]
            value = acc[0]
            accumulator = fold.op.body.block.args[-1]
            for j in range(lanes):
                mapping = {arg: columns[arg][j] for arg in columns}
                mapping.update(fixed)
                mapping[accumulator] = value
                value = _vector_body(kb, fold.op, mapping, typ)
            return [value]

        def one_by_one(term: Index, carried: list) -> list:
            for i in range(lanes):
                scalar_body(kb.block, [*outer_ivs, kb.index(kb.add(first, i)), kb.index(term)])
            return []

        peel: Index = 0
        if fold.aligned is not None and base is not None:
            row = _flat_index(kb, fold.aligned, ivs(first, 0))
            address = kb.add(base, kb.mul(row, element_bytes))
            to_boundary = kb.rem(kb.sub(vector_bytes, kb.rem(address, vector_bytes)), vector_bytes)
            peel = kb.div(to_boundary, element_bytes)
            if terms is not None:  # fewer terms than the peel at a small batch
                peel = kb.min(peel, extent)
            kb.loop(0, peel, 1, [], one_by_one)
        end = kb.add(peel, kb.mul(kb.div(kb.sub(extent, peel), lanes), lanes))
        start = kb.vload(flat[out.value], out_at, typ)
        (result,) = kb.loop(peel, end, lanes, [start], square)
        kb.vstore(result, flat[out.value], out_at)
        kb.loop(end, extent, 1, [], one_by_one)
        return []

    kb.loop(lower, split, lanes, [], strip)
    return split
