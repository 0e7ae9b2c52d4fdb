"""`tlir_ad.conv_kernel_grad` (docs/autodiff.md#d6-conv-vjp) as one GEMM:

    C((c, w), oc) = fold over k = (lead, o) of X((c, w), k) · G(k, oc)

rows: the input channel c outermost, then the kernel cell w (row-major), the
result's [c, k…, oc] layout; columns: the output channels; k: the leading
positions, then the output positions, row-major (D6's order). Both operands
are read where they lie, with no materialised im2col matrix and no transposed
copy of the cotangent:

* X((c, w), k) = x_pad[lead, c, o·stride + w·dilation] is a row of A, which the
  GEMM packs per row tile and k block anyway (`KernelGradEmitter.pack_a`):
  each run of k with the same leading position and outer output coordinates
  is one row of the padded input, copied by vectors when the stride is 1 (when
  the k blocks hold whole runs, as with the usual 8- and 16-wide planes, each
  run is copied whole, its length known when the kernel is generated);
* G(k, oc) = g[lead, oc, o] is packed as B (`CotangentPacker`): when the output
  plane and the k block are whole numbers of vector lanes, each lanes × lanes
  square is `lanes` vector loads along o, a transpose in registers and `lanes`
  vector stores along oc; otherwise element by element.

Each output is one accumulator lane that adds x_pad·g term by term in
ascending k from +0, one product then one sum (the GEMM's contract), so the
result is D6's fold bit for bit, padded cells included.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import VectorType
from xdsl.ir import SSAValue

from tlir.dialects import tlir_ad as A
from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.conv import copy_run, unravel
from tlir.passes.contraction_kernels.gemm import GemmEmitter, GemmSpec
from tlir.passes.contraction_kernels.packing import Bases, _zero_pad, transpose
from tlir.passes.contraction_kernels.tiling import Tiling


@dataclass
class CotangentPacker:
    """Bp[k·ldp + j − c0] = g[l·OC·OS + j·OS + o] for k = l·OS + o (OS: output
    positions per leading position)."""

    buffer: SSAValue
    out_channels: int
    out_size: int

    def pack(self, kb, bases, dst, tiling, k0, kc, c0, c1, at_end) -> None:
        element = self.buffer.type.element_type
        lanes, ldp = tiling.lanes, tiling.ldp
        n, size = self.out_channels, self.out_size
        # A run-time kc (the batch-generic kernel's last block) ends at k = B·size,
        # a multiple of the lanes when `size` is, as every block's start is.
        whole = not isinstance(kc, int) or kc % lanes == 0
        squares = lanes > 1 and size % lanes == 0 and whole and n >= lanes
        first_scalar: Index = c0
        if squares:
            vt = VectorType(element, [lanes])
            n_vec = n - n % lanes

            def group(j0: Index, carried: list) -> list:
                out = kb.sub(j0, c0)

                def square(kk: Index, carried: list) -> list:
                    k = kb.add(k0, kk)
                    src = kb.add(kb.mul(kb.div(k, size), n * size), kb.rem(k, size))
                    src = kb.add(src, kb.mul(j0, size))
                    rows = [kb.vload(self.buffer, kb.add(src, t * size), vt) for t in range(lanes)]
                    for u, column in enumerate(transpose(kb, rows)):
                        kb.vstore(column, dst, kb.add(kb.mul(kb.add(kk, u), ldp), out))
                    return []

                kb.loop(0, kc, lanes, [], square)
                return []

            kb.loop(c0, kb.min(c1, n_vec), lanes, [], group)
            first_scalar = kb.max(c0, n_vec)

        def column(j: Index, carried: list) -> list:
            out = kb.sub(j, c0)

            def copy(kk: Index, carried: list) -> list:
                k = kb.add(k0, kk)
                src = kb.add(kb.mul(kb.div(k, size), n * size), kb.rem(k, size))
                value = kb.load(self.buffer, kb.add(src, kb.mul(j, size)))
                kb.store(value, dst, kb.add(kb.mul(kk, ldp), out))
                return []

            kb.loop(0, kc, 1, [], copy)
            return []

        if not squares or n % lanes:
            kb.loop(first_scalar, c1, 1, [], column)
        _zero_pad(kb, dst, ldp, kc, c0, n, tiling.nr, at_end, element)


@dataclass
class KernelGradSpec(GemmSpec):
    """The GEMM of a kernel gradient; A's rows are gathered by `pack_a`."""

    geometry: A.ConvKernelGradGeometry | None = None

    def emitter(self) -> type[GemmEmitter]:
        return KernelGradEmitter

    def may_read_a_in_place(self) -> bool:
        return False  # A's rows are gathered from the padded input by `pack_a`

    def adjust_tiling(self, tiling: Tiling, target: object) -> Tiling:
        """k blocks of whole vector-lane groups (for the packer's squares); at
        most two units of rows (each unit packs all of the cotangent)."""
        lanes, mr = tiling.lanes, tiling.mr
        mc = max(tiling.mc, -(-self.m // (2 * mr)) * mr)
        tiling = dataclasses.replace(tiling, mc=mc)
        if tiling.kc <= lanes:
            return tiling
        kc = tiling.kc - tiling.kc % lanes
        kcp = kc + (tiling.kcp - tiling.kc) if tiling.kcp else 0
        return dataclasses.replace(tiling, kc=kc, kcp=kcp)


class KernelGradEmitter(GemmEmitter):
    """The GEMM with A's rows gathered from the padded input."""

    def pack_a(self, bases, ir, rows, k0, kc) -> None:
        """Ap[r·kcp + k] = x_pad[lead, c, o·stride + w·dilation] for row ir + r
        = (c, w) and k0 + k = (lead, o): per row, one segment per run of k with
        the same leading position and outer output coordinates."""
        kb, s, t = self.kb, self.spec, self.tiling
        geo = s.geometry
        rank = len(geo.kernel)
        kvol = math.prod(geo.kernel)
        in_size = math.prod(geo.in_spatial)
        in_strides = [math.prod(geo.in_spatial[a + 1 :]) for a in range(rank)]
        width = geo.out_spatial[-1]
        outer_extents = geo.out_spatial[:-1]
        outer_size = math.prod(outer_extents)
        step = geo.stride[-1]
        # Blocks of whole runs (k0 and every block's end a multiple of the row
        # width, as k is): no bounds per run, copies of a length known now.
        whole_rows = step == 1 and t.kc % width == 0

        def row(r: Index, carried: list) -> list:
            i = kb.add(ir, r)
            channel, cell = kb.div(i, kvol), kb.rem(i, kvol)
            offsets = unravel(kb, cell, geo.kernel)
            base: Index = kb.mul(channel, in_size)
            for a in range(rank):
                base = kb.add(base, kb.mul(offsets[a], geo.dilation[a] * in_strides[a]))
            row_out = kb.sub(kb.mul(r, t.kcp), k0)

            def segment(q: Index, carried: list) -> list:
                lead, rest = kb.div(q, outer_size), kb.rem(q, outer_size)
                outer = unravel(kb, rest, outer_extents) if rank > 1 else []
                src = kb.add(base, kb.mul(lead, geo.channels * in_size))
                for a, coordinate in enumerate(outer):
                    src = kb.add(src, kb.mul(coordinate, geo.stride[a] * in_strides[a]))
                start = kb.mul(q, width)  # k of output column 0 of this run
                if whole_rows:  # the block holds the whole run: its length is known now
                    copy_run(kb, s.a, src, self.ap, kb.add(row_out, start), width, t.lanes)
                    return []
                lo = kb.sub(kb.max(k0, start), start)
                hi = kb.sub(kb.min(kb.add(k0, kc), kb.add(start, width)), start)
                out = kb.add(row_out, start)
                if step == 1:
                    kb.copy_range(s.a, src, self.ap, out, lo, hi, t.lanes)
                else:

                    def copy(o: Index, carried: list) -> list:
                        value = kb.load(s.a, kb.add(src, kb.mul(o, step)))
                        kb.store(value, self.ap, kb.add(out, o))
                        return []

                    kb.loop(lo, hi, 1, [], copy)
                return []

            first = kb.div(k0, width)
            last = kb.div(kb.add(kb.add(k0, kc), width - 1), width)
            kb.loop(first, last, 1, [], segment)
            return []

        kb.loop(0, rows, 1, [], row)


def conv_kernel_grad_spec(
    op: A.ConvKernelGradOp, kb: KernelBuilder, buffers: Sequence[SSAValue]
) -> KernelGradSpec:
    geo = op.geometry
    x_pad, g, out = buffers
    kvol = math.prod(geo.kernel)
    out_size = math.prod(geo.out_spatial)

    def bases(kb: KernelBuilder, u: Index) -> Bases:
        return Bases()

    return KernelGradSpec(
        element=op.result.type.element_type,
        batch=1,
        m=geo.channels * kvol,
        n=geo.out_channels,
        k=math.prod(geo.lead) * out_size,
        a=x_pad,
        a_si=0,
        a_sk=0,
        packer=CotangentPacker(g, geo.out_channels, out_size),
        c=out,
        c_si=geo.out_channels,
        bases=bases,
        geometry=geo,
    )
