"""Contraction kernels that take the batch B at run time (docs/design.md#dynamic-batch).

A kernel of a dynamic model carries `tlir.batch_axes`: per value, per axis, k
where the axis's extent is k·B (0: static). Of the GEMM a contraction is made
of, exactly one extent may then be a multiple of B:

* `batch`, the number of GEMMs (conv's samples, conv_input_grad's leading
  positions, one of matmul's batch axes): the number of work units changes,
  and where the batch-sized axis of a matmul is not its outermost, the strides
  of the axes outside it (`linalg_ops.matmul_spec`'s `set_batch_extent`);
* `m`, the rows (linear's flattened leading axes, a matmul's rows, the JVP's
  tangent contractions): the row blocks are counted at run time, and the
  rows past the last whole register tile go through 4-row tiles, then 2 and 1
  (`tail_tiles`);
* `k`, the summed index (the VJP's dW = gᵀ·x, a matmul's, conv_kernel_grad's
  leading and output positions): the number of k blocks and the last block's
  length are computed at run time.

Every output is one accumulator lane that adds its terms in ascending k from
+0, whatever the tiling (`gemm.py`), so the kernel is bit-identical at every
B to a static kernel at that B. Its tiling is chosen once, as if B were
`TILING_BATCH` (a static compile at that batch gets the same tiling), never
from B0, the batch the kernel's static types were formed at.

The lowered kernel takes `batch` after `hi` and states how its work units and
its scratch buffer grow with B (`tlir.parallel_rule`, `tlir.scratch_rule`):

    units(B) = a·⌈k·B/d⌉ + c          scratch i: s0_i + s1_i·units(B) bytes
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as A
from tlir.passes.contraction_kernels.builder import Index, KernelBuilder

if TYPE_CHECKING:  # gemm.py emits with the functions below
    from tlir.passes.contraction_kernels.gemm import GemmSpec
    from tlir.passes.contraction_kernels.tiling import Tiling

BATCH_AXES = "tlir.batch_axes"
PARALLEL_RULE = "tlir.parallel_rule"
SCRATCH_RULE = "tlir.scratch_rule"

TILING_BATCH = 128
"""The batch a batch-generic kernel's tiling is chosen for."""

Marks = tuple[int, ...]


@dataclass
class RunTime:
    """The extents of a batch-generic kernel that are multiples of the batch B,
    computed from its `batch` argument (None: the spec's own, static). The
    spec's own values of these are then the nominal ones its tiling was chosen
    for."""

    batch: Index | None = None
    m: Index | None = None
    k: Index | None = None
    a_si: Index | None = None


def run_time_blocks(kb: KernelBuilder, kc: int, k: Index, block: Callable) -> None:
    """The k blocks of a run-time k ≥ 1, as the static ones: the first from +0,
    whole blocks of kc, and the last, shorter one that ends the fold;
    `block(k0, length, first, last)` emits one."""
    blocks = kb.ceil_div(k, kc)
    kb.when(kb.equal(blocks, 1), lambda: block(0, k, True, True))

    def several() -> None:
        block(0, kc, True, False)

        def middle(p: Index, carried: list) -> list:
            block(kb.mul(p, kc), kc, False, False)
            return []

        kb.loop(1, kb.sub(blocks, 1), 1, [], middle)
        k0 = kb.mul(kb.sub(blocks, 1), kc)
        block(k0, kb.sub(k, k0), False, True)

    kb.when(kb.less(1, blocks), several)


def tail_tiles(kb: KernelBuilder, mr: int, start: Index, end: Index, row_tile: Callable) -> None:
    """The rows [start, end) past the last whole register tile (of mr rows) of a
    run-time m: a loop of 4-row tiles, then a tile of 2 rows and one of 1 where
    the count has them (each output's fold is the same in any tile);
    `row_tile(row, [], rows=r)` emits one. Same-process A/B at B = 125 and 127
    (13 and 15 rows left): as fast as tiles of 8, 4, 2, 1 rows, whose code took
    LLVM 30-50 % longer; one-row tiles compile faster still but ran the MLP's
    layers 8-18 % slower."""
    count = kb.max(kb.sub(end, start), 0)  # units short of the tail: none
    step = 4 if mr > 4 else 2 if mr > 2 else 1
    at = kb.add(start, kb.round_down(count, step))
    kb.loop(start, at, step, [], functools.partial(row_tile, rows=step))
    rows = step // 2
    while rows >= 1:
        taken = kb.less(0, kb.bits(count, rows))
        kb.when(taken, lambda at=at, rows=rows: row_tile(at, [], rows=rows))
        if rows > 1:
            at = kb.add(at, kb.bits(count, rows))
        rows //= 2


class NotBatchGeneric(ValueError):
    """The contraction's batch-sized extents are not ones the generator takes
    at run time (then the kernel takes the linalg route)."""


@dataclass(frozen=True)
class Scaling:
    """Which extent of the GEMM is `coefficient`·B (kind None: none is)."""

    kind: str | None
    coefficient: int
    nominal_batch: int
    """B0: the batch of the kernel's static types."""
    result_axis: tuple[int, int] = (0, 0)
    """(axis, k) of the result's batch-sized axis (k = 0: none)."""

    def nominal(self, spec: GemmSpec) -> None:
        """Sets the spec's extent to its value at `TILING_BATCH` (the tiling's)."""
        if self.kind is None:
            return
        value = self.coefficient * TILING_BATCH
        if self.kind == "k" and spec.a_si == spec.k:  # A's rows are k long
            spec.a_si = value
        setattr(spec, self.kind, value)

    def bind(self, kb: KernelBuilder, batch: SSAValue, spec: GemmSpec) -> RunTime | None:
        """The run-time extent, computed from the kernel's `batch` argument."""
        if self.kind is None:
            return None
        axis, factor = self.result_axis
        if self.kind == "batch" and axis and spec.set_extent is not None:
            spec.set_extent(axis, kb.mul(batch, factor))  # matmul's batch strides
        value = kb.mul(batch, self.coefficient)
        if self.kind in ("m", "k") and spec.set_extent is not None:
            spec.set_extent(self.kind, value)  # a batched matmul's matrix sizes
        run = RunTime(**{self.kind: value})
        if self.kind == "k" and spec.a_si == spec.k:
            run.a_si = value
        return run

    def rule(self, spec: GemmSpec, tiling: Tiling) -> tuple[int, int, int, int]:
        """(a, k, d, c) of `units(B) = a·⌈k·B/d⌉ + c` (with the nominal spec)."""
        row_blocks, column_blocks = -(-spec.m // tiling.mc), -(-spec.n // tiling.nc)
        if self.kind == "batch":
            return row_blocks * column_blocks, self.coefficient, 1, 0
        if self.kind == "m":
            return spec.batch * column_blocks, self.coefficient, tiling.mc, 0
        return 0, 0, 1, tiling.units(spec.batch, spec.m, spec.n)


def units(rule: Sequence[int], batch: int) -> int:
    a, k, d, c = rule
    return a * -(-k * batch // d) + c


def _one(marks: Marks, what: str) -> int:
    """The factor of the only batch-sized axis in `marks` (0: none)."""
    marked = [m for m in marks if m]
    if len(marked) > 1:
        raise NotBatchGeneric(f"{what} has {len(marked)} batch-sized axes")
    return marked[0] if marked else 0


def _static(marks: Marks, what: str) -> None:
    if any(marks):
        raise NotBatchGeneric(f"{what} is batch-sized")


def _matmul(op: T.MatmulOp, marks: Sequence[Marks]) -> tuple[str | None, int]:
    a_marks, b_marks, out_marks = marks
    a_shape, b_shape = op.lhs.type.get_shape(), op.rhs.type.get_shape()
    out_shape = op.result.type.get_shape()
    matrices = (len(a_shape) >= 2) + (len(b_shape) >= 2)
    batch_rank = len(out_shape) - (2 if matrices == 2 else 1 if matrices else 0)
    factor = _one(out_marks[:batch_rank], "matmul's batch")
    if factor:
        axis = next(i for i, m in enumerate(out_marks) if m)
        if out_shape[axis] == 1:  # at B0 = 1 a batch-sized axis looks broadcast
            raise NotBatchGeneric("matmul: a batch of 1 at B0 hides which axes broadcast")
        for shape, own in ((a_shape, a_marks), (b_shape, b_marks)):
            rank = len(shape) - (2 if len(shape) >= 2 else 1)
            aligned = axis - (batch_rank - rank)  # the operand's axis against `axis`
            wanted = [factor if i == aligned and shape[i] != 1 else 0 for i in range(rank)]
            if list(own[:rank]) != wanted:
                raise NotBatchGeneric("matmul: an operand's batch axes are not the result's")
            _static(own[rank:], "matmul's matrix")
        _static(out_marks[batch_rank:], "matmul's matrix")
        return "batch", math.prod(out_shape[:batch_rank])
    if matrices != 2:
        for what, own in (("lhs", a_marks), ("rhs", b_marks)):
            _static(own, f"matmul's {what}")
        return None, 0
    _static(a_marks[:-2] + b_marks[:-2], "matmul's operand batch")
    a_marks, b_marks = a_marks[-2:], b_marks[-2:]
    _static(b_marks[1:], "matmul's columns")
    if a_marks[0]:
        _static(a_marks[1:] + b_marks, "matmul's k with its rows")
        return "m", a_shape[-2]
    if a_marks[1] or b_marks[0]:
        if a_marks[1] != b_marks[0]:
            raise NotBatchGeneric("matmul: k is batch-sized in one operand only")
        return "k", a_shape[-1]
    return None, 0


def _linear(op: T.LinearOp, marks: Sequence[Marks]) -> tuple[str | None, int]:
    x_marks = marks[0]
    _static(x_marks[-1:], "linear's features")
    for own in marks[1:3]:
        _static(own, "linear's parameters")
    if _one(x_marks[:-1], "linear's input"):
        return "m", math.prod(op.input.type.get_shape()[:-1])
    return None, 0


def _conv(op: T.ConvOp, marks: Sequence[Marks]) -> tuple[str | None, int]:
    lead = op.config.channel_axis
    x_marks = marks[0]
    _static(x_marks[lead:], "conv's channels and positions")
    for own in marks[1:3]:
        _static(own, "conv's parameters")
    if _one(x_marks[:lead], "conv's input"):
        shape = op.input.type.get_shape()
        return "batch", math.prod(shape[:lead]) * op.config.groups
    return None, 0


def _conv_input_grad(op: A.ConvInputGradOp, marks: Sequence[Marks]) -> tuple[str | None, int]:
    geometry = op.geometry
    lead = len(geometry.lead)
    out_marks = marks[-1]
    _static(out_marks[lead:], "conv_input_grad's channels and positions")
    if _one(out_marks[:lead], "conv_input_grad's result"):
        return "batch", math.prod(geometry.lead) * geometry.groups
    return None, 0


def _conv_kernel_grad(op: A.ConvKernelGradOp, marks: Sequence[Marks]) -> tuple[str | None, int]:
    geometry = op.geometry
    lead = len(geometry.lead)
    x_marks, g_marks, out_marks = marks
    _static(x_marks[lead:] + g_marks[lead:], "conv_kernel_grad's channels and positions")
    _static(out_marks, "conv_kernel_grad's result")
    factor = _one(x_marks[:lead], "conv_kernel_grad's input")
    if factor != _one(g_marks[:lead], "conv_kernel_grad's cotangent"):
        raise NotBatchGeneric("conv_kernel_grad: the input and cotangent batches differ")
    if factor:
        return "k", math.prod(geometry.lead) * math.prod(geometry.out_spatial)
    return None, 0


_KINDS: dict[type, Callable[[Operation, Sequence[Marks]], tuple[str | None, int]]] = {
    T.MatmulOp: _matmul,
    T.LinearOp: _linear,
    T.ConvOp: _conv,
    A.ConvInputGradOp: _conv_input_grad,
    A.ConvKernelGradOp: _conv_kernel_grad,
}


def nominal_batch(values: Sequence[SSAValue], marks: Sequence[Marks]) -> int:
    """B0, read off a batch-sized axis (1 if there is none)."""
    for value, own in zip(values, marks, strict=True):
        for extent, factor in zip(value.type.get_shape(), own, strict=True):
            if factor:
                return extent // factor
    return 1


def scaling(op: Operation, marks: Sequence[Marks]) -> Scaling:
    """How the GEMM of `op` grows with B, given the marks of its operands and of
    its result; `NotBatchGeneric` where the generator cannot take it."""
    values = [*op.operands, op.results[0]]
    if len(marks) != len(values):
        raise NotBatchGeneric(f"{op.name}: {len(marks)} batch_axes for {len(values)} values")
    for value, own in zip(values, marks, strict=True):
        if len(own) != len(value.type.get_shape()):
            raise NotBatchGeneric(f"{op.name}: batch_axes of the wrong rank")
    b0 = nominal_batch(values, marks)
    kind, extent = _KINDS[type(op)](op, marks)
    if kind is None:
        return Scaling(None, 0, b0)
    if extent % b0:
        raise NotBatchGeneric(f"{op.name}: extent {extent} is not a multiple of B0 = {b0}")
    axis = next((i for i, factor in enumerate(marks[-1]) if factor), 0)
    return Scaling(kind, extent // b0, b0, (axis, marks[-1][axis] if marks[-1] else 0))
