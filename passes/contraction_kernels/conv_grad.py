"""`tlir_ad.conv_input_grad` (docs/autodiff.md#d6-conv-vjp), stride 1, as an
implicit GEMM per (sample, group), the forward conv's form with the roles of
input and output swapped:

    C(l, i) = fold over k = (m, w) of wt[g·cin + l, m, w] · G(k, i)

rows l: the group's input channels; columns i: input positions; k: the
group's output channel m outermost, then the kernel cell w in row-major order
(D6's order). G is the cotangent's im2col matrix for "dilation −dilation,
padding −padding": G((m, w), i) = g[…, g·cout + m, i + padding − w·dilation],
+0 where that lies outside g — `Im2colPacker` packs it as it packs the forward
conv's input (its bounds arithmetic holds for any sign).

Those +0 entries are the terms D6 leaves out. Where the weight cell is finite,
such a term is +0·w = ±0, and adding ±0 to the running sum changes nothing
(the sum starts at +0 and so is never −0), so the GEMM is exact. A non-finite
weight cell would make the left-out term NaN; so each call first sums (x − x)
over the weight (+0 exactly when every weight is finite) and, if that is not
+0, computes its units with a scalar loop nest that adds only D6's terms.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Attribute, SSAValue

from tlir.dialects import tlir_ad as A
from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.conv import Im2colPacker, unravel
from tlir.passes.contraction_kernels.epilogue import BoundEpilogue
from tlir.passes.contraction_kernels.gemm import GemmEmitter, GemmSpec
from tlir.passes.contraction_kernels.packing import Bases, _zero_pad
from tlir.passes.contraction_kernels.target import TargetInfo
from tlir.passes.contraction_kernels.tiling import Tiling


def supported(op: A.ConvInputGradOp) -> bool:
    """Stride 1: each (cell, position) pair reads one cotangent element at a
    fixed offset, which is what an im2col packer copies."""
    return all(s == 1 for s in op.geometry.stride)


@dataclass
class ExactFallback:
    """The checked fast path's other branch (see the module docstring)."""

    weight: SSAValue
    grad: SSAValue
    out: SSAValue
    element: Attribute
    geometry: A.ConvGradGeometry

    def check(self, kb: KernelBuilder, lanes: int) -> SSAValue:
        """Σ (x − x) over the weight, in vectors then lanes: +0 exactly when
        every element is finite (x − x is NaN for ±inf and NaN)."""
        count = math.prod(self.weight.type.get_shape())
        vt = VectorType(self.element, [lanes])
        main = count - count % lanes
        lane_sums = kb.alloca(lanes, self.element)

        def vector_step(k: Index, carried: list) -> list:
            x = kb.vload(self.weight, k, vt)
            return [kb.binary(arith.AddfOp, carried[0], kb.binary(arith.SubfOp, x, x))]

        (total,) = kb.loop(0, main, lanes, [kb.constant(0.0, vt)], vector_step)
        kb.vstore(total, lane_sums, 0)
        total = kb.constant(0.0, self.element)
        for lane in range(lanes):
            total = kb.binary(arith.AddfOp, total, kb.load(lane_sums, lane))

        def scalar_step(k: Index, carried: list) -> list:
            x = kb.load(self.weight, k)
            return [kb.binary(arith.AddfOp, carried[0], kb.binary(arith.SubfOp, x, x))]

        return kb.loop(main, count, 1, [total], scalar_step)[0]

    def unit(
        self, kb: KernelBuilder, bases: Bases, r0, r1, c0, c1, epilogue: BoundEpilogue | None
    ) -> None:
        """C(l, i) for rows [r0, r1) and positions [c0, c1): a fold from +0 of
        only the terms D6 pairs, one product then one sum each, then the fused
        epilogue (the GEMM path applies it too: a fused `add` of another
        cotangent must not be lost on this path)."""
        geo = self.geometry
        kvol = math.prod(geo.kernel)
        in_size, out_size = math.prod(geo.in_spatial), math.prod(geo.out_spatial)
        out_strides = [math.prod(geo.out_spatial[a + 1 :]) for a in range(len(geo.kernel))]
        zero = kb.constant(0.0, self.element)

        def row(r: Index, carried: list) -> list:
            def column(j: Index, carried: list) -> list:
                position = unravel(kb, j, geo.in_spatial)

                def channel(m: Index, carried: list) -> list:
                    def cell(w: Index, carried: list) -> list:
                        offsets = unravel(kb, w, geo.kernel)
                        valid: bool | SSAValue = True
                        at: Index = kb.add(bases.b, kb.mul(m, out_size))
                        for a, (i, k) in enumerate(zip(position, offsets, strict=True)):
                            o = kb.sub(kb.add(i, geo.padding[a]), kb.mul(k, geo.dilation[a]))
                            inside = kb.both(kb.at_least(o, 0), kb.less(o, geo.out_spatial[a]))
                            valid = kb.both(valid, inside)
                            at = kb.add(at, kb.mul(o, out_strides[a]))
                        at = kb.select(valid, at, 0)  # a read in bounds, unused if not valid
                        weight_at = kb.add(bases.a, kb.mul(r, geo.cout * kvol))
                        weight_at = kb.add(weight_at, kb.add(kb.mul(m, kvol), w))
                        summed = kb.multiply_add(carried[0], kb.load(self.grad, at),
                                                 kb.load(self.weight, weight_at))  # fmt: skip
                        return [kb.select(valid, summed, carried[0])]

                    return kb.loop(0, kvol, 1, carried, cell)

                (total,) = kb.loop(0, geo.cout, 1, [zero], channel)
                at = kb.add(bases.c, kb.add(kb.mul(r, in_size), j))
                if epilogue is not None:
                    total = epilogue.apply_scalar(kb, total, at, 0)
                kb.store(total, self.out, at)
                return []

            kb.loop(c0, c1, 1, [], column)
            return []

        kb.loop(r0, r1, 1, [], row)


PLANE_BYTES = 16 * 1024
"""Largest zero-margined cotangent plane kept on the stack (`PlanePacker`)."""


@dataclass
class PlanePacker:
    """G((m, w), i) for stride 1 from one channel plane of g copied into a
    stack buffer with zero margins wide enough for every kernel cell: then each
    packed row is, per output row, one contiguous copy at the cell's offset,
    with no bounds arithmetic (the margins are the +0 terms). The plane is
    refilled when the packed rows reach a new channel m."""

    buffer: SSAValue
    plane: SSAValue
    geometry: A.ConvGradGeometry
    margins: tuple[int, ...]
    extents: tuple[int, ...]
    n: int

    @staticmethod
    def build(kb: KernelBuilder, g: SSAValue, geo: A.ConvGradGeometry) -> PlanePacker | None:
        """The packer with its plane zeroed, or None if the plane is too large."""
        rank = len(geo.kernel)
        margins = tuple(
            max(0, geo.dilation[a] * (geo.kernel[a] - 1) - geo.padding[a]) for a in range(rank)
        )
        extents = tuple(
            margins[a] + max(geo.out_spatial[a], geo.in_spatial[a] + geo.padding[a])
            for a in range(rank)
        )
        element = g.type.element_type
        if math.prod(extents) * element.bitwidth // 8 > PLANE_BYTES:
            return None
        plane = kb.alloca(math.prod(extents), element)
        zero = kb.constant(0.0, element)

        def clear(at: Index, carried: list) -> list:
            kb.store(zero, plane, at)
            return []

        kb.loop(0, math.prod(extents), 1, [], clear)
        return PlanePacker(g, plane, geo, margins, extents, math.prod(geo.in_spatial))

    @property
    def columns_multiple(self) -> int:
        """Units of whole rows (where they fit) make every packed row segment a
        copy of one full row, of a size known when the kernel is generated."""
        return self.geometry.in_spatial[-1]

    def _strides(self) -> list[int]:
        return [math.prod(self.extents[a + 1 :]) for a in range(len(self.extents))]

    def _fill(
        self, kb: KernelBuilder, bases: Bases, m: Index, lanes: int, plane=None, offset: Index = 0
    ) -> None:
        """Channel m of g into the interior of the plane (or of the one at
        `offset` in `plane`); the margins stay +0."""
        geo, strides = self.geometry, self._strides()
        width = geo.out_spatial[-1]
        channel = kb.add(bases.b, kb.mul(m, math.prod(geo.out_spatial)))
        plane = self.plane if plane is None else plane

        def row(q: Index, carried: list) -> list:
            outer = unravel(kb, q, geo.out_spatial[:-1]) if len(geo.kernel) > 1 else []
            at: Index = kb.add(offset, self.margins[-1])
            for a, coordinate in enumerate(outer):
                at = kb.add(at, kb.mul(kb.add(coordinate, self.margins[a]), strides[a]))
            src = kb.add(channel, kb.mul(q, width))
            kb.copy_range(self.buffer, src, plane, at, 0, width, lanes)
            return []

        kb.loop(0, math.prod(geo.out_spatial[:-1]), 1, [], row)

    def pack(self, kb, bases, dst, tiling, k0, kc, c0, c1, at_end) -> None:
        geo, strides = self.geometry, self._strides()
        kvol, width = math.prod(geo.kernel), geo.in_spatial[-1]
        ldp, lanes = tiling.ldp, tiling.lanes
        whole_rows = tiling.nc % width == 0  # then c0 and c1 fall on row starts

        def k_row(kk: Index, carried: list) -> list:
            k = kb.add(k0, kk)
            m, w = kb.div(k, kvol), kb.rem(k, kvol)
            fresh = kb.equal(kk, 0)
            if not (isinstance(w, int) and w != 0):
                # known now when the k loop has one iteration (kk is an int)
                fresh = kb.either(kb.equal(w, 0), fresh)
            kb.when(fresh, lambda: self._fill(kb, bases, m, lanes))
            cell = unravel(kb, w, geo.kernel)
            shift: Index = 0  # the plane offset of input position 0 for this cell
            for a, c in enumerate(cell):
                at = kb.sub(self.margins[a] + geo.padding[a], kb.mul(c, geo.dilation[a]))
                shift = kb.add(shift, kb.mul(at, strides[a]))
            row_out = kb.sub(kb.mul(kk, ldp), c0)

            def segment(r: Index, carried: list) -> list:
                outer = unravel(kb, r, geo.in_spatial[:-1]) if len(geo.kernel) > 1 else []
                src = shift
                for a, coordinate in enumerate(outer):
                    src = kb.add(src, kb.mul(coordinate, strides[a]))
                row_start = kb.mul(r, width)
                lo, hi = 0, width
                if whole_rows is False:
                    lo = kb.sub(kb.max(c0, row_start), row_start)
                    hi = kb.sub(kb.min(c1, kb.add(row_start, width)), row_start)
                out = kb.add(row_out, row_start)
                kb.copy_range(self.plane, src, dst, out, lo, hi, lanes)
                return []

            first_row = kb.div(c0, width)
            last_row = kb.div(kb.add(c1, width - 1), width)
            kb.loop(first_row, last_row, 1, [], segment)
            return []

        kb.loop(0, kc, 1, [], k_row)
        element = self.plane.type.element_type
        _zero_pad(kb, dst, ldp, kc, c0, self.n, tiling.nr, at_end, element)


@dataclass
class PlaneGemmSpec(GemmSpec):
    """The GEMM of an input gradient whose packer copies from a channel plane."""

    kvol: int = 1
    direct: bool = False
    """B read straight from the planes of the k block's channels (`DirectEmitter`)."""

    def emitter(self) -> type[GemmEmitter]:
        return DirectEmitter

    def adjust_tiling(self, tiling: Tiling, target: TargetInfo) -> Tiling:
        tiling = self._whole_samples(tiling, target)
        direct = self._direct(tiling, target)
        if direct is not None:
            self.direct = True
            return direct
        return tiling

    def takes_partials(self) -> bool:
        return not self.direct  # the direct path's tiles carry their sums in C

    def may_read_a_in_place(self) -> bool:
        return False  # the direct path reads the packed rows of A

    def _direct(self, tiling: Tiling, target: TargetInfo) -> Tiling | None:
        """The tiling of the direct path, or None where it does not apply: a unit
        holds a whole sample, A is packed (several rows per tile), every tile
        lies in one row of positions, and the planes of a block's channels fit
        the stack (then no B panel is packed at all)."""
        plane = self.packer
        if not isinstance(plane, PlanePacker) or not tiling.kcp or tiling.nc < self.n:
            return None
        if self.epilogue is not None:
            return None
        if plane.geometry.in_spatial[-1] % tiling.nr:
            return None
        element = self.element.bitwidth // 8
        size = math.prod(plane.extents)
        fixed = (tiling.mr * (tiling.kcp - tiling.kc) + 2 * tiling.mr * tiling.nr) * element
        budget = target.stack_bytes - PLANE_BYTES - 1024 - fixed
        per_channel = (size + tiling.mr * self.kvol) * element
        channels = -(-self.k // self.kvol)
        fit = min(channels, budget // per_channel)
        if fit < 1:
            return None
        blocks = -(-channels // fit)
        kc = -(-channels // blocks) * self.kvol
        kcp = kc + (tiling.kcp - tiling.kc)
        return dataclasses.replace(tiling, kc=kc, kcp=kcp, ldp=1)

    def _whole_samples(self, tiling: Tiling, target: TargetInfo) -> Tiling:
        """Each unit all of a sample's positions, and k blocks of whole channels,
        where the stack allows: each channel plane is then filled once per
        sample, not once per column block (the benchmark CNN's first conv, 3
        rows for 16 × 9 summed indices: a quarter of the fills, 1.5× faster)."""
        element = self.element.bitwidth // 8
        line = 64 // element
        nr = tiling.nr
        nc = -(-self.n // nr) * nr
        ldp = nc + line if (nc // line) % 2 == 0 else nc
        kcp_extra = tiling.kcp - tiling.kc if tiling.kcp else 0
        budget = target.stack_bytes - PLANE_BYTES - 1024
        per_k = (ldp + (tiling.mr if kcp_extra else 0)) * element
        fixed = (tiling.mr * kcp_extra + 2 * tiling.mr * nr + nr) * element
        kc = (budget - fixed) // per_k // self.kvol * self.kvol
        if kc < self.kvol or nc <= tiling.nc:
            return tiling
        channels = -(-self.k // self.kvol)
        blocks = -(-channels // (kc // self.kvol))
        kc = -(-channels // blocks) * self.kvol  # blocks of equal whole channels
        kcp = kc + kcp_extra if kcp_extra else 0
        return dataclasses.replace(tiling, kc=kc, kcp=kcp, nc=nc, ldp=ldp)


@dataclass
class DirectPlanes:
    """The direct path's packer: the planes of the k block's channels, each
    inside the +0 margins that `DirectEmitter.emit` clears once per call."""

    packer: PlanePacker
    planes: SSAValue
    kvol: int

    def pack(self, kb, bases, dst, tiling, k0, kc, c0, c1, at_end) -> None:
        size = math.prod(self.packer.extents)
        first = kb.div(k0, self.kvol)

        def channel(j: Index, carried: list) -> list:
            m = kb.add(first, j)
            self.packer._fill(kb, bases, m, tiling.lanes, self.planes, kb.mul(j, size))
            return []

        kb.loop(0, kc // self.kvol, 1, [], channel)


class DirectEmitter(GemmEmitter):
    """The GEMM of a `PlaneGemmSpec` with `direct`: the B vector of summed index
    (m, w) and tile column jr is read from the plane of channel m at the cell's
    shift, so the planes are filled once per block and nothing else is packed
    (with 3 rows of output, the packing cost as much as the arithmetic). The
    fold is the GEMM's: channels ascending, then the cells in row-major order,
    one product then one sum each."""

    def emit(self, lo, hi) -> None:
        s, t, kb = self.spec, self.tiling, self.kb
        if not s.direct:
            super().emit(lo, hi)
            return
        plane = s.packer
        size = math.prod(plane.extents)
        count = t.kc // s.kvol
        self.planes = kb.alloca(count * size, s.element)
        zero = kb.constant(0.0, s.element)

        def clear(at: Index, carried: list) -> list:
            kb.store(zero, self.planes, at)
            return []

        kb.loop(0, count * size, 1, [], clear)
        s.packer = DirectPlanes(plane, self.planes, s.kvol)
        self.plane = plane
        super().emit(lo, hi)
        s.packer = plane

    def micro(self, bases, ir, rows, jr, c0, width, k0, kc, first, last) -> None:
        s, t = self.spec, self.tiling
        if not s.direct:
            super().micro(bases, ir, rows, jr, c0, width, k0, kc, first, last)
            return
        assert width is None and s.epilogue is None and s.row_bias is None and s.col_bias is None
        kb, vt, lanes, nv = self.kb, self.vt, t.lanes, t.nv
        plane, geo = self.plane, self.plane.geometry
        strides = plane._strides()
        size = math.prod(plane.extents)
        c_row = [kb.add(kb.add(bases.c, kb.mul(kb.add(ir, r), s.c_si)), jr) for r in range(rows)]
        if first is True:
            acc = [self.zero] * (rows * nv)
        else:
            acc = [
                kb.vload(s.c, kb.add(c_row[r], v * lanes), vt)
                for r in range(rows)
                for v in range(nv)
            ]
        column: Index = 0  # the plane offset of position jr
        for a, coordinate in enumerate(unravel(kb, jr, geo.in_spatial)):
            column = kb.add(column, kb.mul(coordinate, strides[a]))
        shifts = []
        for w in itertools.product(*(range(k) for k in geo.kernel)):
            shift = 0
            for a, c in enumerate(w):
                shift += (plane.margins[a] + geo.padding[a] - c * geo.dilation[a]) * strides[a]
            shifts.append(shift)

        def channel(j: Index, acc: list) -> list:
            base = kb.add(kb.mul(j, size), column)
            a_at = kb.mul(j, s.kvol)
            acc = list(acc)
            for w, shift in enumerate(shifts):
                at = kb.add(base, shift)
                b = [kb.vload(self.planes, kb.add(at, v * lanes), vt) for v in range(nv)]
                for r in range(rows):
                    a = kb.broadcast(kb.load(self.ap, kb.add(a_at, r * t.kcp + w)), vt)
                    for v in range(nv):
                        acc[r * nv + v] = kb.multiply_add(acc[r * nv + v], a, b[v])
            return acc

        acc = kb.loop(0, kc // s.kvol, 1, acc, channel)
        for r in range(rows):
            for v in range(nv):
                kb.vstore(acc[r * nv + v], s.c, kb.add(c_row[r], v * lanes))


def conv_input_grad_spec(
    op: A.ConvInputGradOp, kb: KernelBuilder, buffers: Sequence[SSAValue]
) -> GemmSpec:
    geo = op.geometry
    kvol = math.prod(geo.kernel)
    in_size, out_size = math.prod(geo.in_spatial), math.prod(geo.out_spatial)
    groups, cin, cout = geo.groups, geo.cin, geo.cout
    g, wt, dx = buffers
    element = op.result.type.element_type

    def bases(kb: KernelBuilder, u: Index) -> Bases:
        n, group = kb.div(u, groups), kb.rem(u, groups)
        return Bases(
            a=kb.mul(group, cin * cout * kvol),
            b=kb.add(kb.mul(n, groups * cout * out_size), kb.mul(group, cout * out_size)),
            c=kb.add(kb.mul(n, groups * cin * in_size), kb.mul(group, cin * in_size)),
        )

    rank = len(geo.kernel)
    plane = PlanePacker.build(kb, g, geo)
    packer = plane or Im2colPacker(
        g, geo.out_spatial, geo.in_spatial, geo.kernel, (1,) * rank,
        tuple(-dl for dl in geo.dilation), tuple(-p for p in geo.padding), in_size,
    )  # fmt: skip
    spec = PlaneGemmSpec if plane is not None else GemmSpec
    extra = {"kvol": kvol} if plane is not None else {}
    return spec(
        **extra,
        element=element,
        batch=math.prod(geo.lead) * groups,
        m=cin,
        n=in_size,
        k=cout * kvol,
        a=wt,
        a_si=cout * kvol,
        a_sk=1,
        packer=packer,
        c=dx,
        c_si=in_size,
        bases=bases,
        exact=ExactFallback(wt, g, dx, element, geo),
    )
