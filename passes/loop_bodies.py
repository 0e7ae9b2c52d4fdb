"""The scalar body of a linalg op: whether it has effects, and what it does at
given loop indices.

`pure_body` says whether a body only computes values (no op in it writes or
calls anything): `convert-tlir-to-linalg` then drops such an op when nothing
reads its result, and `loop_starts` may write such a start of a fold's outputs
inside the fold's nest. For `tlir-linalg-to-loops`, `emit_body` writes, at the
end of a block, what one iteration of a `linalg.generic` or `linalg.fill` does
at the induction variables `ivs`: a `memref.load` of each input its body
reads, at its indexing map (affine expressions become `index` arithmetic
directly, `IndexEmitter`), the body's ops cloned, and one `memref.store` per
output. A select between two inputs that read one buffer at indices differing
only in constants is one load at the selected index (`_selected_load`). A
buffer with a flat view (a batch-sized axis past its leading one, whose
strides are known at run time only) is addressed through the view at one
linear index. The loop nests around the bodies are `tlir_linalg_to_loops`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IndexOp, YieldOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.traits import IsTerminator, is_side_effect_free

from tlir.passes import fast_ops as fast

Linalg = GenericOp | FillOp

Flat = dict[SSAValue, tuple[SSAValue, list[SSAValue]]]
"""Buffers addressed through a flat view: the view, and the buffer's strides
(`index` values) by which a multi-index becomes the view's one index."""


def pure_body(op: Linalg) -> bool:
    """Whether every op of `op`'s body, at any depth, is free of side effects
    or a terminator (`linalg.yield` declares no memory effects)."""
    return all(
        is_side_effect_free(inner) or inner.has_trait(IsTerminator)
        for inner in op.walk()
        if inner is not op
    )


class IndexEmitter:
    """Emits `index` arithmetic at the end of a block."""

    def __init__(self, block: Block):
        self.block = block

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: int) -> SSAValue:
        return self.emit(fast.index_constant(value))

    def expr(self, expr: AffineExpr, ivs: Sequence[SSAValue]) -> SSAValue:
        match expr:
            case AffineDimExpr():
                return ivs[expr.position]
            case AffineConstantExpr():
                return self.const(expr.value)
            case AffineBinaryOpExpr():
                lhs, rhs = self.expr(expr.lhs, ivs), self.expr(expr.rhs, ivs)
                kind = {
                    AffineBinaryOpKind.Add: arith.AddiOp,
                    AffineBinaryOpKind.Mul: arith.MuliOp,
                    # indices are never negative: truncation is floor
                    AffineBinaryOpKind.FloorDiv: arith.DivUIOp,
                    AffineBinaryOpKind.Mod: arith.RemUIOp,
                }[expr.kind]
                return self.emit(fast.binary(kind, lhs, rhs))
        raise ValueError(f"unsupported affine expression {expr}")

    def indices(self, amap: AffineMap, ivs: Sequence[SSAValue]) -> list[SSAValue]:
        return [self.expr(e, ivs) for e in amap.results]


def access(
    value: SSAValue,
    amap: AffineMap,
    ivs: list[SSAValue],
    emitter: IndexEmitter,
    flat: Flat,
) -> tuple[SSAValue, list[SSAValue]]:
    """The buffer and indices of an access: a flat buffer's at its run-time strides."""
    return _flat_access(value, emitter.indices(amap, ivs), emitter, flat)


def _selected_load(op: GenericOp, select: Operation, maps: list[AffineMap]) -> bool:
    """Whether `select` chooses between two inputs of `op` that read one buffer
    at indices differing only in constants (`select(c, x[0, i], x[1, i])`):
    it is then one load at the selected index, no vector blend or branch
    where `c` is the same for a whole vector (`_selected_indices`)."""
    if not isinstance(select, arith.SelectOp):
        return False
    args, inputs = op.body.block.args, len(op.inputs)
    pair = [select.lhs, select.rhs]
    if not all(isinstance(v, BlockArgument) and v.owner is op.body.block for v in pair):
        return False
    k1, k2 = (args.index(v) for v in pair)
    if k1 >= inputs or k2 >= inputs or op.inputs[k1] is not op.inputs[k2]:
        return False
    return all(
        a == b or (isinstance(a, AffineConstantExpr) and isinstance(b, AffineConstantExpr))
        for a, b in zip(maps[k1].results, maps[k2].results, strict=True)
    )


def _selected_indices(
    select: arith.SelectOp,
    mapping: dict[SSAValue, SSAValue],
    maps: list[AffineMap],
    ivs: list[SSAValue],
    emitter: IndexEmitter,
) -> list[SSAValue]:
    """The indices of `_selected_load`'s load: each constant that differs
    between the two inputs' maps chosen by the select's condition."""
    args = list(select.lhs.owner.args)  # type: ignore[union-attr]
    first, second = (maps[args.index(v)] for v in (select.lhs, select.rhs))
    condition = mapping.get(select.cond, select.cond)
    indices = []
    for a, b in zip(first.results, second.results, strict=True):
        if a == b:
            indices.append(emitter.expr(a, ivs))
        else:
            chosen = arith.SelectOp(condition, emitter.expr(a, ivs), emitter.expr(b, ivs))
            indices.append(emitter.emit(chosen))
    return indices


def _flat_access(
    value: SSAValue,
    indices: list[SSAValue],
    emitter: IndexEmitter,
    flat: Flat,
) -> tuple[SSAValue, list[SSAValue]]:
    if value not in flat:
        return value, indices
    view, strides = flat[value]
    at = None
    for index, stride in zip(indices, strides, strict=True):
        term = emitter.emit(fast.binary(arith.MuliOp, index, stride))
        at = term if at is None else emitter.emit(fast.binary(arith.AddiOp, at, term))
    return view, [at if at is not None else emitter.const(0)]


def emit_body(
    op: Linalg,
    values: list[SSAValue],
    maps: list[AffineMap],
    ivs: list[SSAValue],
    emitter: IndexEmitter,
    flat: Flat | None = None,
    local: Flat | None = None,
) -> None:
    """The body at `ivs`; `local`: outputs read and written at these (buffer,
    indices) instead (`row_strips.strip_tiles`)."""
    flat, local = flat or {}, local or {}
    if isinstance(op, FillOp):
        target, indices = access(values[0], maps[0], ivs, emitter, flat)
        emitter.emit(fast.store(op.inputs[0], target, indices))
        return
    args = op.body.block.args
    selects = {inner for inner in op.body.block.ops if _selected_load(op, inner, maps)}
    mapping: dict[SSAValue, SSAValue] = {}
    for arg, value, amap in zip(args, values, maps, strict=True):
        if any(use.operation not in selects for use in arg.uses):
            buffer, indices = local.get(value) or access(value, amap, ivs, emitter, flat)
            mapping[arg] = emitter.emit(fast.load(buffer, indices))
    for inner in op.body.block.ops:
        if inner in selects:
            value = values[list(args).index(inner.lhs)]
            indices = _selected_indices(inner, mapping, maps, ivs, emitter)
            buffer, indices = _flat_access(value, indices, emitter, flat)
            mapping[inner.results[0]] = emitter.emit(fast.load(buffer, indices))
            continue
        if isinstance(inner, YieldOp):
            outputs = values[len(op.inputs) :]
            out_maps = maps[len(op.inputs) :]
            for result, target, amap in zip(inner.operands, outputs, out_maps, strict=True):
                buffer, indices = local.get(target) or access(target, amap, ivs, emitter, flat)
                emitter.emit(fast.store(mapping.get(result, result), buffer, indices))
            return
        if isinstance(inner, IndexOp):
            mapping[inner.results[0]] = ivs[inner.dim.value.data]
            continue
        emitter.emit(inner.clone(value_mapper=mapping))


__all__ = ["Flat", "IndexEmitter", "access", "emit_body", "pure_body"]
