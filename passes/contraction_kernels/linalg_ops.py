"""`tlir.matmul` (docs/ops.md#matmul, all four rank cases, batch broadcasting) and
`tlir.linear` (docs/ops.md#linear, any leading dims) as GEMMs.

matmul, both operands of rank ≥ 2: C = A·B per output batch entry, the batch
index projected onto each operand (index 0 on broadcast axes). A vector operand
is a 1-row matrix; when B is the vector (`[…, m, n]·[n]`), the product is
computed transposed, Cᵀ = bᵀ·Aᵀ, so the output's m entries are the vector lanes:
each output is still the fold over k of A[i, k]·b[k] in ascending k (IEEE
multiplication commutes; only the order of the additions matters).

linear: C = x·Wᵀ over the flattened leading dims, W packed transposed, the
bias added to each output after its fold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.gemm import GemmSpec
from tlir.passes.contraction_kernels.packing import Bases, StridedPacker


def _shape(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())


def _batch_offsets(
    kb: KernelBuilder,
    b: Index,
    out_batch: Sequence[Index],
    operands: Sequence[tuple[Sequence[Index], int]],
) -> list[Index]:
    """Offsets of output batch entry `b` in each operand, given per operand its
    batch shape (right-aligned against `out_batch`) and matrix size. An extent
    may be a run-time value (a batch-generic kernel's batch-sized axis)."""
    offsets: list[Index] = [0] * len(operands)
    strides: list[list[Index]] = []
    for batch, size in operands:
        stride, per_axis = size, []
        for extent in reversed(batch):
            per_axis.append(stride)
            stride = kb.mul(stride, extent)
        strides.append(per_axis[::-1])
    rest = b
    for axis in reversed(range(len(out_batch))):
        extent = out_batch[axis]
        index = kb.rem(rest, extent) if axis else rest
        rest = kb.div(rest, extent) if axis else 0
        for o, (batch, _size) in enumerate(operands):
            own = axis - (len(out_batch) - len(batch))
            if own < 0 or (isinstance(batch[own], int) and batch[own] == 1):
                continue
            offsets[o] = kb.add(offsets[o], kb.mul(index, strides[o][own]))
    return offsets


def matmul_spec(op: T.MatmulOp, kb: KernelBuilder, buffers: Sequence[SSAValue]) -> GemmSpec:
    a_shape, b_shape, out = _shape(op.lhs), _shape(op.rhs), _shape(op.result)
    a, b, c = buffers[0], buffers[1], buffers[2]
    element = op.result.type.element_type
    dims: dict[str, Index] = {}  # run-time rows or summed index (`set_extent`)
    if len(a_shape) >= 2 and len(b_shape) >= 2:
        (m, k), n = a_shape[-2:], b_shape[-1]
        out_batch = list(out[:-2])
        operands = [(list(a_shape[:-2]), m * k), (list(b_shape[:-2]), k * n)]

        def bases(kb: KernelBuilder, u: Index) -> Bases:
            rows, summed = dims.get("m", m), dims.get("k", k)
            sizes = [kb.mul(rows, summed), kb.mul(summed, n)]
            shapes = [(shape, size) for (shape, _), size in zip(operands, sizes, strict=True)]
            a_off, b_off = _batch_offsets(kb, u, out_batch, shapes)
            return Bases(a=a_off, b=b_off, c=kb.mul(u, kb.mul(rows, n)))

        spec = dict(m=m, n=n, k=k, a=a, a_si=k, a_sk=1, c_si=n, batch=math.prod(out_batch))
        packer = dict(buffer=b, sk=n, sj=1, n=n)
    elif len(b_shape) >= 2:  # [k] · [..., k, n]
        k, n = b_shape[-2:]
        out_batch = list(out[:-1])
        operands = [(list(b_shape[:-2]), k * n)]

        def bases(kb: KernelBuilder, u: Index) -> Bases:
            (b_off,) = _batch_offsets(kb, u, out_batch, operands)
            return Bases(b=b_off, c=kb.mul(u, n))

        spec = dict(m=1, n=n, k=k, a=a, a_si=0, a_sk=1, c_si=0, batch=math.prod(out_batch))
        packer = dict(buffer=b, sk=n, sj=1, n=n)
    elif len(a_shape) >= 2:  # [..., m, k] · [k], computed transposed
        m, k = a_shape[-2:]
        out_batch = list(out[:-1])
        operands = [(list(a_shape[:-2]), m * k)]

        def bases(kb: KernelBuilder, u: Index) -> Bases:
            (a_off,) = _batch_offsets(kb, u, out_batch, operands)
            return Bases(b=a_off, c=kb.mul(u, m))

        spec = dict(m=1, n=m, k=k, a=b, a_si=0, a_sk=1, c_si=0, batch=math.prod(out_batch))
        packer = dict(buffer=a, sk=1, sj=k, n=m)
    else:  # [k] · [k]
        (k,) = a_shape
        out_batch, operands = [], []

        def bases(kb: KernelBuilder, u: Index) -> Bases:
            return Bases()

        spec = dict(m=1, n=1, k=k, a=a, a_si=0, a_sk=1, c_si=0, batch=1)
        packer = dict(buffer=b, sk=1, sj=0, n=1)

    def set_extent(axis: int | str, extent: Index) -> None:
        """The output's batch axis `axis` (and each operand's that it does not
        broadcast), or every matrix's rows ("m") or summed index ("k"), is
        `extent` long, for the offsets `bases` computes."""
        if isinstance(axis, str):
            dims[axis] = extent
            return
        for batch in (out_batch, *(shape for shape, _ in operands)):
            own = axis - (len(out_batch) - len(batch))
            if own >= 0 and batch[own] != 1:
                batch[own] = extent

    return GemmSpec(
        element=element,
        packer=StridedPacker(**packer),
        c=c,
        bases=bases,
        set_extent=set_extent,
        **spec,
    )


def linear_spec(op: T.LinearOp, kb: KernelBuilder, buffers: Sequence[SSAValue]) -> GemmSpec:
    x_shape = _shape(op.input)
    n, k = _shape(op.weight)
    m = math.prod(x_shape[:-1])
    x, w, bias, y = buffers[0], buffers[1], buffers[2], buffers[3]
    element = op.result.type.element_type
    return GemmSpec(
        element=element,
        batch=1,
        m=m,
        n=n,
        k=k,
        a=x,
        a_si=k,
        a_sk=1,
        packer=StridedPacker(w, sk=1, sj=k, n=n),
        c=y,
        c_si=n,
        bases=lambda kb, u: Bases(),
        col_bias=bias,
    )
