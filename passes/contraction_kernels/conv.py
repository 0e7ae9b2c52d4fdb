"""`tlir.conv` (docs/ops.md#conv) as an implicit GEMM, one per (sample, group):

    C(i, j) = fold over k of W[g·cout + i, g·cin·kvol + k] · X(k, j)     (+ bias[g·cout + i])

rows i: the group's output channels; columns j: output positions (row-major
over the spatial axes, contiguous in the output); k = l·kvol + w: the group's
input channel l outermost, then the kernel offsets w in row-major order, so
each output folds its terms in the spec's order. The weight rows are read in
place (the dense, block-diagonal layout: the group's block of a row is
contiguous); the im2col matrix X(k, j) = input[…, g·cin + l, o(j)·stride +
w·dilation - padding] is packed block by block, +0 where the coordinate falls
in the padding (the spec's zero padding: the term is still added, as 0·w).
Any channel axis (leading axes are independent samples), spatial rank 1–3,
strides, dilations, asymmetric padding, groups.

Two packers: `BandPacker` when the stride along the last axis is 1 (each
packed row is copied in vectors out of the unit's input rows, held in zero
margins on the stack), else `Im2colPacker` (per output row: zeros, the
input's cells, zeros). The register tiles read the weight in place where its
rows allow (`generator.kernel_tiling`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import VectorType
from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.gemm import GemmSpec
from tlir.passes.contraction_kernels.packing import Bases, _zero_pad
from tlir.passes.contraction_kernels.target import TargetInfo
from tlir.passes.contraction_kernels.tiling import Tiling


def unravel(kb: KernelBuilder, flat: Index, extents: Sequence[int]) -> list[Index]:
    """Row-major coordinates of `flat` in `extents`."""
    coords: list[Index] = []
    for position in reversed(range(len(extents))):
        if position == 0:
            coords.append(flat)
        else:
            coords.append(kb.rem(flat, extents[position]))
            flat = kb.div(flat, extents[position])
    return coords[::-1]


@dataclass
class Im2colPacker:
    """Bp[k·ldp + j - c0] = X(k0 + k, j) for the positions c0 ≤ j < c1: for each
    k and each output row (fixed outer coordinates) in the block, zeros, then
    the input row's contiguous (stride 1: vector copies) or strided cells, then
    zeros."""

    buffer: SSAValue
    in_spatial: tuple[int, ...]
    out_spatial: tuple[int, ...]
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    padding: tuple[int, ...]
    n: int

    def pack(self, kb, bases, dst, tiling, k0, kc, c0, c1, at_end) -> None:
        element = self.buffer.type.element_type
        lanes, ldp = tiling.lanes, tiling.ldp
        d = len(self.kernel)
        kvol = math.prod(self.kernel)
        in_size = math.prod(self.in_spatial)
        in_strides = [math.prod(self.in_spatial[a + 1 :]) for a in range(d)]
        width, in_width = self.out_spatial[-1], self.in_spatial[-1]
        s, dl, p = self.stride[-1], self.dilation[-1], self.padding[-1]
        zero = kb.constant(0.0, element)

        def k_row(kk: Index, carried: list) -> list:
            k = kb.add(k0, kk)
            channel, offset = kb.div(k, kvol), kb.rem(k, kvol)
            w = unravel(kb, offset, self.kernel)
            channel_base = kb.add(bases.b, kb.mul(channel, in_size))
            row_out = kb.sub(kb.mul(kk, ldp), c0)
            # Output columns whose input column is inside: lo_w ≤ o < hi_w, from
            # p ≤ o·s + w·dl < p + in_width.
            before = kb.sub(p, kb.mul(w[-1], dl))  # first inside: o·s ≥ before
            positive = kb.less(0, before)
            lo_w = kb.select(positive, kb.div(kb.max(kb.add(before, s - 1), 0), s), 0)
            last = kb.add(before, in_width - 1)  # last inside: o·s ≤ last
            hi_w = kb.select(kb.less(last, 0), 0, kb.add(kb.div(kb.max(last, 0), s), 1))
            hi_w = kb.min(hi_w, width)
            first_row = kb.div(c0, width)
            last_row = kb.div(kb.add(c1, width - 1), width)

            def segment(r: Index, carried: list) -> list:
                outer = unravel(kb, r, self.out_spatial[:-1]) if d > 1 else []
                valid = True
                src = channel_base
                for a in range(d - 1):
                    q = kb.sub(
                        kb.add(kb.mul(outer[a], self.stride[a]), kb.mul(w[a], self.dilation[a])),
                        self.padding[a],
                    )
                    inside = kb.both(kb.at_least(q, 0), kb.less(q, self.in_spatial[a]))
                    valid = kb.both(valid, inside)
                    src = kb.add(src, kb.mul(q, in_strides[a]))
                row_start = kb.mul(r, width)
                a_ = kb.sub(kb.max(c0, row_start), row_start)
                b_ = kb.sub(kb.min(c1, kb.add(row_start, width)), row_start)
                lo = kb.min(kb.max(lo_w, a_), b_)
                hi = kb.max(kb.min(hi_w, b_), lo)
                hi = kb.select(valid, hi, lo)
                out = kb.add(row_out, row_start)
                # input column of output column o: o·s + w·dl - p = o·s - before
                src_col = kb.sub(src, before)

                def fill(o: Index, carried: list) -> list:
                    kb.store(zero, dst, kb.add(out, o))
                    return []

                kb.loop(a_, lo, 1, [], fill)
                if s == 1:  # a 28-wide row in f32: 16 + 8 + 4 lanes
                    kb.copy_range(self.buffer, src_col, dst, out, lo, hi, lanes)
                else:

                    def copy(o: Index, carried: list) -> list:
                        value = kb.load(self.buffer, kb.add(src_col, kb.mul(o, s)))
                        kb.store(value, dst, kb.add(out, o))
                        return []

                    kb.loop(lo, hi, 1, [], copy)
                kb.loop(hi, b_, 1, [], fill)
                return []

            kb.loop(first_row, last_row, 1, [], segment)
            return []

        kb.loop(0, kc, 1, [], k_row)
        _zero_pad(kb, dst, ldp, kc, c0, self.n, tiling.nr, at_end, element)


BAND_BYTES = 64 * 1024
"""Largest band of zero-margined input rows (`BandPacker`) kept on the stack (or
pair of bands, when the next channel's is filled ahead)."""
TAPS = 9
"""Most kernel offsets per channel that `BandPacker` unrolls (blocks of whole channels)."""
ASSEMBLED = 32
"""Most vectors per packed row that `BandPacker` assembles from the band (more: row copies)."""
UNROLLED = 8
"""Longest run of vectors `copy_run` writes out one by one (longer: a loop)."""


def _static_run(kb: KernelBuilder, length: int, lanes: int, move) -> None:
    """`move(o, width)` for runs of `width` elements that cover [0, length): vectors
    of `lanes` (or, shorter, of the largest power of two that fits), the last one
    ending at `length` and overlapping the one before (its elements are moved
    again, to the same values), so no element goes on its own unless length < 2."""
    if length <= 0:
        return
    width = lanes if length >= lanes else 1 << (length.bit_length() - 1)
    full = length - length % width
    if full // width > UNROLLED:

        def body(o: Index, carried: list) -> list:
            move(o, width)
            return []

        kb.loop(0, full, width, [], body)
    else:
        for o in range(0, full, width):
            move(o, width)
    if length % width:
        move(length - width, width)


def copy_run(kb: KernelBuilder, src_buffer, src: Index, dst_buffer, dst: Index, length: Index,
             lanes: int) -> None:  # fmt: skip
    """dst[dst + o] = src[src + o] for 0 ≤ o < length: `_static_run`'s vectors
    when the length is known now; else vectors, then elements."""
    element = dst_buffer.type.element_type

    def move(o: Index, width: int) -> None:
        if width == 1:
            value = kb.load(src_buffer, kb.add(src, o))
            kb.store(value, dst_buffer, kb.add(dst, o))
        else:
            value = kb.vload(src_buffer, kb.add(src, o), VectorType(element, [width]))
            kb.vstore(value, dst_buffer, kb.add(dst, o))

    if isinstance(length, int):
        _static_run(kb, length, lanes, move)
        return
    vector_end = kb.mul(kb.div(length, lanes), lanes) if lanes > 1 else 0

    def vcopy(o: Index, carried: list) -> list:
        move(o, lanes)
        return []

    def copy(o: Index, carried: list) -> list:
        move(o, 1)
        return []

    kb.loop(0, vector_end, lanes, [], vcopy)
    kb.loop(vector_end, length, 1, [], copy)


def zero_run(kb: KernelBuilder, dst_buffer, dst: Index, length: int, lanes: int) -> None:
    """dst[dst + o] = +0 for 0 ≤ o < length (known now), in `_static_run`'s vectors."""
    element = dst_buffer.type.element_type

    def move(o: Index, width: int) -> None:
        zero = kb.constant(0.0, element if width == 1 else VectorType(element, [width]))
        if width == 1:
            kb.store(zero, dst_buffer, kb.add(dst, o))
        else:
            kb.vstore(zero, dst_buffer, kb.add(dst, o))

    _static_run(kb, length, lanes, move)


@dataclass
class BandPacker(Im2colPacker):
    """X(k, j) for a stride of 1 along the last spatial axis, from a band of
    input rows with zero margins on the stack.

    Think of one input channel padded on every side (the "plane"): plane
    coordinate q = input coordinate + padding, so output o and kernel offset w
    read plane cell o·stride + w·dilation, and the padding is the plane's zero
    margin. A unit of output positions reads only a range of plane rows (rows:
    all spatial axes but the last): its band, zeroed when the unit starts.
    When the packed rows reach a new channel, that channel's input rows are
    copied into the band at column padding[-1] (the margins stay +0); with
    `channels` known and two bands within `BAND_BYTES`, the next channel's,
    into the other band (channel parity), so that a packed row's loads read
    input rows stored a channel earlier rather than just stored (a load that
    spans two recent stores waits for them). Then each packed row of X is,
    per output row, one contiguous copy out of the band at the kernel
    offset's shift, with no bounds arithmetic. Where the k blocks hold whole
    channels (`ConvSpec.adjust_tiling`) and a channel has at most `TAPS`
    kernel offsets, each channel's rows are unrolled: every shift is known
    when the kernel is generated, no division per packed row. (The bench
    conv, same-process A/B: the band ahead 1.01-1.03x in f64, 1.01x in f32;
    the unrolled offsets 1.00-1.03x in both.) With units
    of whole output rows (`columns_multiple`) that copy has a length known
    when the kernel is generated: full vectors, the last one overlapping
    (`copy_run`); where the unit's rows fill whole vectors, each vector of a
    packed row is assembled from band loads and stored aligned. A band over
    `BAND_BYTES` falls back to the im2col packer it extends."""

    channels: int = 0
    """Input channels per group (the summed index's outer part); 0: unknown,
    one band, each channel filled where it starts."""

    def __post_init__(self) -> None:
        d = len(self.kernel)
        self.extents = tuple(
            max(self.padding[a] + self.in_spatial[a],
                (self.out_spatial[a] - 1) * self.stride[a]
                + (self.kernel[a] - 1) * self.dilation[a] + 1)
            for a in range(d)
        )  # fmt: skip
        # plane-row strides (rows: every axis but the last)
        self.row_strides = [math.prod(self.extents[a + 1 : -1]) for a in range(d - 1)]

    @property
    def columns_multiple(self) -> int:
        return self.out_spatial[-1]

    def _plane_row(self, r: int, cell: Sequence[int]) -> int:
        """Plane row of output row r (flat over the outer axes) and kernel cell `cell`."""
        outer = [
            r // math.prod(self.out_spatial[a + 1 : -1]) % self.out_spatial[a]
            for a in range(len(self.kernel) - 1)
        ]
        return sum(
            (outer[a] * self.stride[a] + cell[a] * self.dilation[a]) * self.row_strides[a]
            for a in range(len(self.kernel) - 1)
        )

    def _band_rows(self, nc: int) -> int:
        """Most plane rows one unit of `nc` positions reads."""
        width = self.out_spatial[-1]
        last_cell = [k - 1 for k in self.kernel]
        zeros = [0] * len(self.kernel)
        most = 1
        for c0 in range(0, self.n, nc):
            first, last = c0 // width, (min(c0 + nc, self.n) - 1) // width
            rows = self._plane_row(last, last_cell) - self._plane_row(first, zeros) + 1
            most = max(most, rows)
        return most

    def pack(self, kb, bases, dst, tiling, k0, kc, c0, c1, at_end) -> None:
        element = self.buffer.type.element_type
        band_rows = self._band_rows(tiling.nc)
        pw = self.extents[-1]
        lanes, ldp = tiling.lanes, tiling.ldp
        # `lanes` spare cells before and after: whole-vector loads around a row
        size = band_rows * pw + 2 * lanes
        if band_rows * pw * element.bitwidth // 8 > BAND_BYTES:
            super().pack(kb, bases, dst, tiling, k0, kc, c0, c1, at_end)
            return
        ahead = self.channels > 1 and 2 * size * element.bitwidth // 8 <= BAND_BYTES
        bands = 2 if ahead else 1
        band = kb.entry_alloca(id(self), bands * size, element)
        d, kvol = len(self.kernel), math.prod(self.kernel)
        width, in_width = self.out_spatial[-1], self.in_spatial[-1]
        in_size = math.prod(self.in_spatial)
        # units of whole output rows (or one unit for all): c0 and c1 start rows
        whole_rows = tiling.nc % width == 0 or tiling.nc >= self.n
        unit_rows = min(tiling.nc, self.n) // width  # of every unit but maybe the last
        vectors = unit_rows * width // lanes if lanes > 1 else 0
        assembled = whole_rows and vectors * lanes == unit_rows * width and vectors <= ASSEMBLED
        first_row = kb.div(c0, width)
        last_row = kb.div(kb.add(c1, width - 1), width)

        def plane_row(r: Index, cell: Sequence[Index]) -> Index:
            outer = unravel(kb, r, self.out_spatial[:-1]) if d > 1 else []
            at: Index = 0
            for a in range(d - 1):
                coordinate = kb.add(kb.mul(outer[a], self.stride[a]),
                                    kb.mul(cell[a], self.dilation[a]))  # fmt: skip
                at = kb.add(at, kb.mul(coordinate, self.row_strides[a]))
            return at

        # The unit's first block: the whole band +0. A unit's band rows hold the
        # same plane rows for every channel, so the fills write only the input's
        # cells, and the margins (rows and columns) stay +0.
        kb.when(kb.equal(k0, 0), lambda: zero_run(kb, band, 0, bands * size, lanes))
        lo_p = plane_row(first_row, [0] * d)
        hi_p = kb.add(plane_row(kb.sub(last_row, 1), [k - 1 for k in self.kernel]), 1)

        def band_of(channel: Index) -> Index:
            """Where the band of input channel `channel` starts."""
            return kb.mul(kb.rem(channel, 2), size) if ahead else 0

        def fill(channel: Index) -> None:
            """The unit's band for input channel `channel`."""
            channel_base = kb.add(bases.b, kb.mul(channel, in_size))
            start = kb.add(band_of(channel), lanes + self.padding[-1])

            def row(q: Index, carried: list) -> list:
                """Plane row q: the input row, if q is not a margin row."""
                coords = unravel(kb, q, self.extents[:-1]) if d > 1 else []
                inside: bool | SSAValue = True
                src = channel_base
                for a, coordinate in enumerate(coords):
                    y = kb.sub(coordinate, self.padding[a])
                    inside = kb.both(inside, kb.both(kb.at_least(y, 0),
                                                     kb.less(y, self.in_spatial[a])))  # fmt: skip
                    in_stride = math.prod(self.in_spatial[a + 1 :])
                    src = kb.add(src, kb.mul(y, in_stride))
                target = kb.add(kb.mul(kb.sub(q, lo_p), pw), start)
                kb.when(inside, lambda: copy_run(kb, self.buffer, src, band, target, in_width,
                                                 lanes))  # fmt: skip
                return []

            kb.loop(lo_p, hi_p, 1, [], row)

        def k_row(kk: Index, k: Index, channel: Index, offset: Index) -> None:
            """Packed row kk: summed index k, input channel `channel` (of the
            group), kernel offset `offset` (flat)."""
            # A new channel: its band, or the next channel's when filled ahead.
            # (A block that starts inside a channel goes on with the band the
            # unit's block before left for that channel.)
            starts = kb.equal(offset, 0)
            if ahead and starts is not False:
                kb.when(kb.both(starts, kb.equal(k, 0)), lambda: fill(0))
                next_band = kb.both(starts, kb.less(channel, self.channels - 1))
                kb.when(next_band, lambda: fill(kb.add(channel, 1)))
            elif not ahead:
                kb.when(starts, lambda: fill(channel))
            cell = unravel(kb, offset, self.kernel)
            # band cell of output row 0's first column for this kernel offset
            shift = kb.add(kb.mul(kb.sub(plane_row(0, cell), lo_p), pw),
                           kb.add(kb.mul(cell[-1], self.dilation[-1]), lanes))  # fmt: skip
            shift = kb.add(shift, band_of(channel))
            row_out = kb.sub(kb.mul(kk, ldp), c0)

            def source(r: Index) -> Index:
                """Band cell of output row r's first column."""
                return kb.add(shift, kb.mul(plane_row(r, [0] * d), pw))

            def whole_vectors() -> None:
                """The unit's packed row as `vectors` aligned vectors, each put
                together from loads at the output rows it holds a part of."""
                vt = VectorType(element, [lanes])
                rows = [source(kb.add(first_row, i)) for i in range(unit_rows)]
                for v in range(vectors):
                    value, lane = None, 0
                    while lane < lanes:
                        i, column = divmod(v * lanes + lane, width)
                        count = min(lanes - lane, width - column)
                        part = kb.vload(band, kb.add(rows[i], column - lane), vt)
                        if value is None:
                            value = part
                        else:  # lanes [lane, lane + count) from `part`
                            taken = range(lane, lane + count)
                            mask = [t + lanes if t in taken else t for t in range(lanes)]
                            value = kb.shuffle(value, part, mask)
                        lane += count
                    kb.vstore(value, dst, kb.add(kb.mul(kk, ldp), v * lanes))

            def segment(r: Index, carried: list) -> list:
                src = source(r)
                row_start = kb.mul(r, width)
                out = kb.add(row_out, row_start)
                if whole_rows:
                    copy_run(kb, band, src, dst, out, width, lanes)
                    return []
                lo = kb.sub(kb.max(c0, row_start), row_start)
                hi = kb.sub(kb.min(c1, kb.add(row_start, width)), row_start)
                copy_run(kb, band, kb.add(src, lo), dst, kb.add(out, lo), kb.sub(hi, lo), lanes)
                return []

            if not assembled:
                kb.loop(first_row, last_row, 1, [], segment)
            elif self.n % (unit_rows * width) == 0:  # every unit has unit_rows rows
                whole_vectors()
            else:
                count = kb.sub(last_row, first_row)  # unit_rows, or fewer in the last unit
                kb.when(kb.equal(count, unit_rows), whole_vectors)
                kb.when(kb.less(count, unit_rows),
                        lambda: kb.loop(first_row, last_row, 1, [], segment))  # fmt: skip

        if isinstance(kc, int) and kc % kvol == 0 and tiling.kc % kvol == 0 and kvol <= TAPS:
            # Blocks of whole channels: per channel, its kernel offsets unrolled,
            # each with its shift in the band known now (no division per row).
            first_channel = kb.div(k0, kvol)

            def channel_rows(c: Index, carried: list) -> list:
                channel = kb.add(first_channel, c)
                for offset in range(kvol):
                    kk = kb.add(kb.mul(c, kvol), offset)
                    k_row(kk, kb.add(k0, kk), channel, offset)
                return []

            kb.loop(0, kc // kvol, 1, [], channel_rows)
        else:

            def any_row(kk: Index, carried: list) -> list:
                k = kb.add(k0, kk)
                k_row(kk, k, kb.div(k, kvol), kb.rem(k, kvol))
                return []

            kb.loop(0, kc, 1, [], any_row)
        _zero_pad(kb, dst, ldp, kc, c0, self.n, tiling.nr, at_end, element)


@dataclass
class ConvSpec(GemmSpec):
    """The GEMM of a conv: the summed index is input channel, then kernel offset."""

    kvol: int = 1
    """Kernel offsets per input channel."""

    def adjust_tiling(self, tiling: Tiling, target: TargetInfo) -> Tiling:
        """k blocks of whole input channels for the band packer, which then
        unrolls their kernel offsets (`TAPS`): as many blocks as before, each
        a little longer, where the longer packed block still fits the stack
        budget. The bench conv in f32: kc 96 -> 99 (3 blocks)."""
        kvol = self.kvol
        if not isinstance(self.packer, BandPacker) or kvol > TAPS or tiling.kc % kvol == 0:
            return tiling
        if tiling.panel_in_scratch:
            return tiling
        channels = self.k // kvol
        blocks = -(-self.k // tiling.kc)
        kc = -(-channels // blocks) * kvol
        element = self.element.bitwidth // 8
        kcp = tiling.kcp - tiling.kc + kc if tiling.kcp else 0
        tiles = (tiling.mr * kcp + 2 * tiling.mr * tiling.nr + tiling.nr) * element
        if kc * tiling.ldp * element > target.stack_bytes - tiles - 1024:
            return tiling
        return dataclasses.replace(tiling, kc=kc, kcp=kcp)


def conv_spec(op: T.ConvOp, kb: KernelBuilder, buffers: Sequence[SSAValue]) -> GemmSpec:
    cfg = op.config
    x_shape = tuple(op.input.type.get_shape())
    out_shape = tuple(op.result.type.get_shape())
    lead, d, groups = cfg.channel_axis, len(cfg.kernel), cfg.groups
    cin, cout = cfg.in_channels // groups, cfg.out_channels // groups
    in_spatial, out_spatial = x_shape[lead + 1 :], out_shape[lead + 1 :]
    kvol = math.prod(cfg.kernel)
    samples = math.prod(x_shape[:lead])
    positions = math.prod(out_spatial)
    in_size = math.prod(in_spatial)
    x, w, bias, y = buffers
    assert len(in_spatial) == d

    def bases(kb: KernelBuilder, u: Index) -> Bases:
        n, g = kb.div(u, groups), kb.rem(u, groups)
        return Bases(
            a=kb.mul(g, cout * cfg.in_channels * kvol + cin * kvol),
            b=kb.add(kb.mul(n, cfg.in_channels * in_size), kb.mul(g, cin * in_size)),
            c=kb.add(kb.mul(n, cfg.out_channels * positions), kb.mul(g, cout * positions)),
            row_bias=kb.mul(g, cout),
        )

    geometry = (x, in_spatial, out_spatial, cfg.kernel, cfg.stride, cfg.dilation, cfg.padding)
    if cfg.stride[-1] == 1:
        packer = BandPacker(*geometry, positions, channels=cin)
    else:
        packer = Im2colPacker(*geometry, positions)
    return ConvSpec(
        element=op.result.type.element_type,
        batch=samples * groups,
        m=cout,
        n=positions,
        k=cin * kvol,
        a=w,
        a_si=cfg.in_channels * kvol,
        a_sk=1,
        packer=packer,
        c=y,
        c_si=positions,
        bases=bases,
        row_bias=bias,
        kvol=kvol,
    )
