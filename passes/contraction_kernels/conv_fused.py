"""A 2-D conv of stride 1 whose im2col is packed one column tile at a time,
into a micro-panel that stays in L1.

`conv.BandPacker` packs a whole kc × nc block of X before its tiles run: 56-60
KiB on AVX-512 (the stack budget), more than L1 holds, so the packing's stores
go to L2 and every row tile streams the block back from there; on the bench
conv that packing took 8-16 % of the kernel's time. Here each k block first
copies its channels' input rows into zero-margined bands (one per channel of
the block, `BandPacker`'s band layout, in one stack buffer); then, for each
column tile of the unit (nr output positions), the kc × nr micro-panel of X is
packed out of the bands — per channel, its kernel offsets unrolled, each
vector one load, or two and a shuffle where it spans two output rows, at a
shift known when the kernel is generated — and every row tile of that column
tile reads it from L1.

The code that packs a micro-panel depends on the tile's place in the unit
(where its vectors cross rows), so there is one per column tile of a full
unit, chosen by the tile's index (`pack_panel`); the row tiles' code is
shared. Units are whole output rows (`BandPacker.columns_multiple`) of whole
column tiles, or one unit of all; the last unit may have fewer tiles, its last
one partial: that tile's lanes past N read band cells of output rows past the
unit, inside the band (`band_size` counts them), whose results are never
stored.

Each output still folds its terms in ascending k, from the same partial sums,
with the same values of X (+0 in the padding), so the bits are `BandPacker`'s.
Same-process A/B on the Xeon (the bench conv, one thread, calls interleaved
with PyTorch's): exact f64 1.05-1.14x, f32 1.05-1.13x; fma 1.06-1.12x.
(Packing each vector in the first row tile's k loop instead, as it is
multiplied, made seven copies of that tile's code per unit: 1.03x, and LLVM
took 6x as long. Filling the next block's bands during this block's column
tiles, in two sets: within noise.)
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import VectorType
from xdsl.ir import SSAValue

from tlir.passes.contraction_kernels.builder import Index
from tlir.passes.contraction_kernels.conv import BAND_BYTES, TAPS, BandPacker, copy_run, zero_run
from tlir.passes.contraction_kernels.gemm import GemmEmitter, GemmSpec
from tlir.passes.contraction_kernels.tiling import Tiling

ENABLED = True
"""Whether convs that allow it take this emitter (off: `BandPacker` packs the
whole block; for same-process A/B measurements)."""


def applies(spec: GemmSpec, tiling: Tiling) -> bool:
    """Whether the conv of `spec` with `tiling` takes the fused packing: 2-D,
    stride 1, k blocks of whole channels of at most `TAPS` offsets, register
    tiles of several rows, units of whole output rows and whole column tiles
    (or one unit of all), rows at least a vector wide (a vector
    spans at most two), and the blocks' bands within `BAND_BYTES`. (Row tiles
    of fewer rows at the end of M, a partial column tile at the end of N.)"""
    packer = spec.packer
    if not ENABLED or not isinstance(packer, BandPacker) or spec.run_time is not None:
        return False
    kvol = math.prod(packer.kernel)
    width = packer.out_spatial[-1]
    shape_ok = len(packer.kernel) == 2 and packer.stride == (1, 1) and kvol <= TAPS
    tiles_ok = tiling.mr > 1 and not tiling.merge_units and tiling.nc % tiling.nr == 0
    blocks_ok = tiling.kc % kvol == 0 and spec.k % kvol == 0
    whole_rows = tiling.nc % width == 0 or tiling.nc >= spec.n  # every unit starts a row
    units_ok = whole_rows and width >= tiling.lanes
    if not (shape_ok and tiles_ok and blocks_ok and units_ok):
        return False
    return band_elements(packer, tiling) * spec.element.bitwidth // 8 <= BAND_BYTES


def band_size(packer: BandPacker, tiling: Tiling) -> int:
    """Elements of one channel's band: the plane rows that a unit's column tiles
    read (all their lanes, those past N too, and one row more for the second
    load of a vector that spans two rows), a vector spare on each side."""
    positions = -(-min(tiling.nc, packer.n) // tiling.nr) * tiling.nr
    rows = -(-positions // packer.out_spatial[-1])
    rows += (packer.kernel[0] - 1) * packer.dilation[0] + 1
    return rows * packer.extents[-1] + 2 * tiling.lanes


def band_elements(packer: BandPacker, tiling: Tiling) -> int:
    return tiling.kc // math.prod(packer.kernel) * band_size(packer, tiling)


class FusedConvEmitter(GemmEmitter):
    """`GemmEmitter` packing per column tile from bands (see the module's
    docstring) where `applies`; else the plain emitter."""

    def __init__(self, kb, spec, tiling) -> None:
        super().__init__(kb, spec, tiling)
        self.fused = applies(spec, tiling)

    def panel_buffer(self) -> SSAValue:
        if not self.fused:
            return super().panel_buffer()
        t, s = self.tiling, self.spec
        self.bands = self.kb.alloca(band_elements(s.packer, t), s.element)
        return self.kb.alloca(t.kc * t.nr, s.element)  # the micro-panel

    # --- the bands ----------------------------------------------------------------

    def pack_block(self, bases, k0, kc, c0, c1, at_end) -> None:
        """The block's channels' input rows into their bands (the unit's first
        block zeroes them all: the margins stay +0)."""
        if not self.fused:
            super().pack_block(bases, k0, kc, c0, c1, at_end)
            return
        kb, p, t = self.kb, self.spec.packer, self.tiling
        kvol, lanes = math.prod(p.kernel), t.lanes
        size, pw = band_size(p, t), p.extents[-1]
        height, in_width = p.in_spatial
        kb.when(kb.equal(k0, 0), lambda: zero_run(kb, self.bands, 0, t.kc // kvol * size, lanes))
        first_row = kb.div(c0, p.out_spatial[-1])
        last_row = kb.div(kb.add(c1, p.out_spatial[-1] - 1), p.out_spatial[-1])
        rows_end = kb.add(last_row, (p.kernel[0] - 1) * p.dilation[0])  # plane rows [first, end)
        first_channel = kb.div(k0, kvol)

        def channel(c: Index, carried: list) -> list:
            source = kb.add(bases.b, kb.mul(kb.add(first_channel, c), height * in_width))
            slot = kb.add(kb.mul(c, size), lanes + p.padding[-1])

            def row(q: Index, carried: list) -> list:
                y = kb.sub(q, p.padding[0])
                inside = kb.both(kb.at_least(y, 0), kb.less(y, height))
                src = kb.add(source, kb.mul(y, in_width))
                dst = kb.add(slot, kb.mul(kb.sub(q, first_row), pw))
                kb.when(inside, lambda: copy_run(kb, p.buffer, src, self.bands, dst, in_width,
                                                 lanes))  # fmt: skip
                return []

            kb.loop(first_row, rows_end, 1, [], row)
            return []

        kb.loop(0, kb.ceil_div(kc, kvol), 1, [], channel)

    # --- the tiles ----------------------------------------------------------------

    def tiles(self, bases, r0, r1, c0, c1, k0, kc, first, last) -> None:
        if not self.fused:
            super().tiles(bases, r0, r1, c0, c1, k0, kc, first, last)
            return
        kb, s, t = self.kb, self.spec, self.tiling
        nr, mr = t.nr, t.mr
        m_full = s.m - s.m % mr
        rows = [(r0, kb.min(r1, m_full), mr)] if m_full else []
        if s.m % mr:
            rows.append((kb.max(r0, m_full), r1, s.m % mr))
        n_full = s.n - s.n % nr
        ranges = [(c0, kb.min(c1, n_full), None)] if n_full else []
        if s.n % nr:
            ranges.append((kb.max(c0, n_full), c1, s.n % nr))
        for c_lo, c_hi, width in ranges:

            def column(jr: Index, carried: list, width=width) -> list:
                self.pack_panel(kb.div(kb.sub(jr, c0), nr), kc)

                for r_lo, r_hi, height in rows:

                    def row_tile(ir: Index, carried: list, height=height) -> list:
                        self.micro(bases, ir, height, jr, c0, width, k0, kc, first, last,
                                   self.from_panel)  # fmt: skip
                        return []

                    kb.loop(r_lo, r_hi, mr, [], row_tile)
                return []

            kb.loop(c_lo, c_hi, nr, [], column)

    def from_panel(self, k: Index, u: int, nv: int) -> list[SSAValue]:
        """The tile's vectors of X at summed index k + u, from the micro-panel."""
        kb, t = self.kb, self.tiling
        at = kb.mul(kb.add(k, u), t.nr)
        vt = VectorType(self.spec.element, [t.lanes])
        return [kb.vload(self.bp, kb.add(at, v * t.lanes), vt) for v in range(nv)]

    def pack_panel(self, index: Index, kc: Index) -> None:
        """The micro-panel of the unit's column tile `index` (kc × nr, rows nr
        apart), from the block's bands: code per tile of the unit, each
        vector's row crossing known now."""
        kb, t = self.kb, self.tiling
        for tile in range(t.nc // t.nr):
            kb.when(kb.equal(index, tile), lambda tile=tile: self.pack_tile(tile, kc))

    def pack_tile(self, tile: int, kc: Index) -> None:
        kb, s, t = self.kb, self.spec, self.tiling
        p = s.packer
        nr, lanes = t.nr, t.lanes
        kvol, kernel_width = math.prod(p.kernel), p.kernel[1]
        width, pw = p.out_spatial[-1], p.extents[-1]
        size = band_size(p, t)
        vt = VectorType(s.element, [lanes])

        def channel(c: Index, carried: list) -> list:
            band = kb.mul(c, size)
            for u in range(kvol):
                dy, dx = divmod(u, kernel_width)
                shift = dy * p.dilation[0] * pw + dx * p.dilation[1] + lanes
                for v in range(t.nv):
                    row, column = divmod(tile * nr + v * lanes, width)
                    at = kb.add(band, shift + row * pw + column)
                    value = kb.vload(self.bands, at, vt)
                    split = width - column  # lanes from this output row; the rest, the next
                    if split < lanes:
                        after = kb.vload(self.bands, kb.add(at, pw - width), vt)
                        mask = [lane if lane < split else lanes + lane for lane in range(lanes)]
                        value = kb.shuffle(value, after, mask)
                    to = kb.add(kb.mul(kb.add(kb.mul(c, kvol), u), nr), v * lanes)
                    kb.vstore(value, self.bp, to)
            return []

        kb.loop(0, kb.ceil_div(kc, kvol), 1, [], channel)
