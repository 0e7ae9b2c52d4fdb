"""Which folds of a kernel start their outputs inside their own loop nest.

A fold (a `linalg.generic` with reduction dimensions) whose output buffer is
first written by a fill or a broadcast just before it would, lowered as is,
run one pass that fills the whole output, then the fold's nest that reads it
back one output at a time: on the bench CNN's interval convs, 1.5 MB written
and read again, about 3 % of the call. Instead `tlir-linalg-to-loops` writes
the start of the outputs one tile at a time inside the fold's nest, right
before the reduction loops that read it (`lower_linalg`'s `starts`): the same
values into the same elements before the first read of each, so the fold is
unchanged bit for bit, and the tile is in cache (LLVM forwards the stored
start to the registers that keep the sums).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from tlir.passes.loop_bodies import pure_body

Linalg = GenericOp | FillOp


def iterator_kinds(op: GenericOp) -> list[str]:
    """Each dimension's iterator kind, "parallel" or "reduction"."""
    return [str(t.data) for t in op.iterator_types.data]


def first_reduction(op: GenericOp) -> int | None:
    """The first reduction dimension of `op`, where at least one parallel
    dimension comes before it (the outermost loop, which threads split, then
    also indexes every output tile), else None."""
    kinds = iterator_kinds(op)
    if "reduction" not in kinds:
        return None
    first = kinds.index("reduction")
    return first if first > 0 else None


def _start(op: Operation) -> SSAValue | None:
    """The buffer `op` fills with values that depend only on the element's
    index (a fill, or an all-parallel generic over its one output, identity
    map, pure body), else None."""
    if isinstance(op, FillOp):
        return op.outputs[0] if len(op.outputs) == 1 else None
    if not isinstance(op, GenericOp) or len(op.outputs) != 1 or "reduction" in iterator_kinds(op):
        return None
    out_map = op.indexing_maps.data[-1].data
    if out_map != AffineMap.identity(out_map.num_dims):
        return None
    if not pure_body(op):
        return None
    if op.body.block.args[-1].uses:  # reads what the buffer held
        return None
    return op.outputs[0]


def _projects(op: GenericOp, output: int) -> bool:
    """Whether `op`'s output `output` is indexed by its parallel dimensions in order."""
    out_map = op.indexing_maps.data[len(op.inputs) + output].data
    parallel = [d for d, kind in enumerate(iterator_kinds(op)) if kind == "parallel"]
    dims = [e.position for e in out_map.results if isinstance(e, AffineDimExpr)]
    return len(dims) == len(out_map.results) and dims == parallel


def fused_starts(
    ops: Sequence[Operation], inlined: set[Operation]
) -> dict[Operation, list[Linalg]]:
    """For each fold of `ops` (a function's ops, in order) the starts it
    takes into its nest: the fills just before it (only other such fills
    between) of a buffer that is one of its outputs, indexed as `_projects`
    says (the fold then writes every element, tile by tile, after its start),
    from inputs the fold does not write. `inlined` holds the ops whose nests have other shapes
    (interleaved strips, row strips): they take none."""
    taken: dict[Operation, list[Linalg]] = {}
    pending: list[tuple[Linalg, SSAValue]] = []
    for op in ops:
        buffer = _start(op)
        if buffer is not None:
            pending.append((op, buffer))
            continue
        if isinstance(op, GenericOp) and op not in inlined and first_reduction(op) is not None:
            outputs = list(op.outputs)
            starts = []
            for fill, buffer in pending:
                if buffer not in outputs or not _projects(op, outputs.index(buffer)):
                    continue
                if outputs.count(buffer) != 1 or [b for _, b in pending].count(buffer) != 1:
                    continue
                if any(v in outputs for v in fill.operands[: len(fill.operands) - 1]):
                    continue
                starts.append(fill)
            if starts:
                taken[op] = starts
        pending = []
    return taken
