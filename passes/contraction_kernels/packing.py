"""B's panels and the offsets the GEMM's buffers are read at, for `gemm.py`.

A unit of a contraction kernel multiplies rows of A by a block of B packed
into a panel: kc rows of it, `ldp` apart, one per summed index, the unit's
columns side by side and +0 past column N up to a whole register tile
(`_zero_pad`). A `Packer` writes that panel from wherever B lives:
`StridedPacker` from a strided matrix (rows copied as vectors, or a transposed
weight's squares transposed in registers, `transpose`), conv's packers
(`conv.py`) from an image. `Bases` are the offsets of one batch entry in the
flat buffers the packers and the GEMM read. Packing only moves values (and
writes +0 past N): how a panel is packed never changes a bit of the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from xdsl.dialects.builtin import VectorType
from xdsl.ir import SSAValue

from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.tiling import Tiling


@dataclass
class Bases:
    """Offsets of one batch entry in the flat buffers."""

    a: Index = 0
    b: Index = 0
    c: Index = 0
    row_bias: Index = 0
    partials: Index = 0
    """P(i, j), the partial sum of C(i, j) in this unit, is at
    `partials + i·ldp + j` in the scratch buffer."""
    panel: Index = 0
    """Where the unit's packed block of B starts in its buffer (the scratch
    buffer holds one per unit when the block is too large for the stack)."""


class Packer(Protocol):
    def pack(
        self,
        kb: KernelBuilder,
        bases: Bases,
        dst: SSAValue,
        tiling: Tiling,
        k0: Index,
        kc: int,
        c0: Index,
        c1: Index,
        at_end: bool | SSAValue,
    ) -> None:
        """Bp[k·ldp + j - c0] = B(k0 + k, j) for k < kc, c0 ≤ j < c1; and +0 for
        N ≤ j < N rounded up to the tile width nr when `at_end` (the unit holds
        column N-1)."""


def _zero_pad(kb, dst, ldp, kc, origin, n, nr, at_end, element) -> None:
    """Bp[k·ldp + j - origin] = +0 for N ≤ j < N rounded up to nr, when `at_end`."""
    padded = -(-n // nr) * nr
    if padded == n:
        return

    def pad() -> None:
        zero = kb.constant(0.0, element)

        def row(k: Index, carried: list) -> list:
            start = kb.sub(kb.mul(k, ldp), origin)
            for j in range(n, padded):
                kb.store(zero, dst, kb.add(start, j))
            return []

        kb.loop(0, kc, 1, [], row)

    kb.when(at_end, pad)


@dataclass
class StridedPacker:
    """B(k, j) = buffer[base + k·sk + j·sj]: vector copies of rows when sj = 1;
    when sk = 1 (a transposed weight: each column of B is a row in memory),
    squares of lanes × lanes (fewer lanes when n is narrower than a vector)
    transposed in registers; otherwise, and for the edges, element by element
    along k."""

    buffer: SSAValue
    sk: int
    sj: int
    n: int

    # The transposes are straight-line code (w·log2(w) shuffles of w lanes),
    # which every later pass and LLVM pay for (about 10 ms of a kernel's
    # compile); packing element by element moves B one scalar at a time, a
    # microsecond per thousand elements or so, much of a small layer's call.
    # From 2,048 elements of B (n·sj ≥ n·k) on, the transposes made every
    # linear and matrix-vector product measured at batch 1-64 faster
    # (1.03-3.2x, bench/small_linears.py); below, a few percent at batch 1-8.
    TRANSPOSE_MIN_ELEMENTS = 2048
    # Squares narrower than the vectors when n is (10 outputs of f32: 8-lane
    # squares, then 2 columns element by element; 3 outputs: 2 × 2 squares,
    # still 1.04-1.11x faster than element by element).
    MIN_SQUARE = 2

    def pack(self, kb, bases, dst, tiling, k0, kc, c0, c1, at_end) -> None:
        element = self.buffer.type.element_type
        origin = kb.sub(c0, bases.panel)  # column `origin` at the buffer's start
        width = self._square(tiling.lanes)
        if self.sj == 1:
            self._pack_rows(kb, bases, dst, tiling, k0, kc, c0, c1, origin)
        elif width:
            self._pack_transposed(kb, bases, dst, tiling.ldp, width, k0, kc, c0, c1, origin)
        else:
            self._pack_columns(kb, bases, dst, tiling.ldp, k0, kc, origin, c0, c1)
        _zero_pad(kb, dst, tiling.ldp, kc, origin, self.n, tiling.nr, at_end, element)

    def _square(self, lanes: int) -> int:
        """The width of the squares transposed in registers (the vectors', or
        the largest power of two up to n), 0 for none."""
        width = lanes
        while width > self.n:
            width //= 2
        big = self.n * self.sj >= self.TRANSPOSE_MIN_ELEMENTS
        return width if self.sk == 1 and width >= self.MIN_SQUARE and big else 0

    def _pack_rows(self, kb, bases, dst, tiling, k0, kc, c0, c1, origin) -> None:
        ldp, lanes = tiling.ldp, tiling.lanes
        vt = VectorType(self.buffer.type.element_type, [lanes])
        n_vec = self.n - self.n % lanes

        def row(k: Index, carried: list) -> list:
            src = kb.add(bases.b, kb.mul(kb.add(k0, k), self.sk))
            out = kb.sub(kb.mul(k, ldp), origin)

            def vcopy(j: Index, carried: list) -> list:
                kb.vstore(kb.vload(self.buffer, kb.add(src, j), vt), dst, kb.add(out, j))
                return []

            def copy(j: Index, carried: list) -> list:
                kb.store(kb.load(self.buffer, kb.add(src, j)), dst, kb.add(out, j))
                return []

            kb.loop(c0, kb.min(c1, n_vec), lanes, [], vcopy)
            if self.n % lanes:
                kb.loop(kb.max(c0, n_vec), c1, 1, [], copy)
            return []

        kb.loop(0, kc, 1, [], row)

    def _pack_columns(self, kb, bases, dst, ldp, k0, kc, origin, first, c1) -> None:
        """Columns first..c1, column j at `j - origin` in each packed row."""

        def column(j: Index, carried: list) -> list:
            src = kb.add(kb.add(bases.b, kb.mul(j, self.sj)), kb.mul(k0, self.sk))
            out = kb.sub(j, origin)

            def copy(k: Index, carried: list) -> list:
                value = kb.load(self.buffer, kb.add(src, kb.mul(k, self.sk)))
                kb.store(value, dst, kb.add(kb.mul(k, ldp), out))
                return []

            kb.loop(0, kc, 1, [], copy)
            return []

        kb.loop(first, c1, 1, [], column)

    def _pack_transposed(self, kb, bases, dst, ldp, lanes, k0, kc, c0, c1, origin) -> None:
        """Columns in groups of `lanes` (the square's width, which divides the
        vectors' lanes: c0 and the unit's width are multiples of it): each
        lanes × lanes square of the group is `lanes` vector loads along
        k, a transpose in registers, `lanes` vector stores along j; the last
        kc mod lanes rows of a group and the columns past the last full group go
        element by element."""
        vt = VectorType(self.buffer.type.element_type, [lanes])
        n_vec = self.n - self.n % lanes
        kc_vec = kc - kc % lanes

        def group(j0: Index, carried: list) -> list:
            src = kb.add(kb.add(bases.b, kb.mul(j0, self.sj)), k0)
            out = kb.sub(j0, origin)

            def square(k: Index, carried: list) -> list:
                at = kb.add(src, k)
                rows = [kb.vload(self.buffer, kb.add(at, t * self.sj), vt) for t in range(lanes)]
                for u, column in enumerate(transpose(kb, rows)):
                    kb.vstore(column, dst, kb.add(kb.mul(kb.add(k, u), ldp), out))
                return []

            def rest(k: Index, carried: list) -> list:
                at, to = kb.add(src, k), kb.add(kb.mul(k, ldp), out)
                for t in range(lanes):
                    kb.store(kb.load(self.buffer, kb.add(at, t * self.sj)), dst, kb.add(to, t))
                return []

            kb.loop(0, kc_vec, lanes, [], square)
            if kc % lanes:
                kb.loop(kc_vec, kc, 1, [], rest)
            return []

        kb.loop(c0, kb.min(c1, n_vec), lanes, [], group)
        if self.n % lanes:
            self._pack_columns(kb, bases, dst, ldp, k0, kc, origin, kb.max(c0, n_vec), c1)


def transpose(kb: KernelBuilder, rows: list[SSAValue]) -> list[SSAValue]:
    """The columns of the square whose rows are `rows` (a power of two of them,
    each that many lanes wide): log2(n) rounds of two-input shuffles, each round
    swapping the off-diagonal blocks of width h = n/2, n/4, …, 1."""
    n, h = len(rows), len(rows) // 2
    while h >= 1:
        swapped = list(rows)
        for t in range(n):
            if t & h:
                continue
            a, b = rows[t], rows[t + h]
            swapped[t] = kb.shuffle(a, b, [i if not i & h else n + i - h for i in range(n)])
            swapped[t + h] = kb.shuffle(a, b, [i + h if not i & h else n + i for i in range(n)])
        rows, h = swapped, h // 2
    return rows


__all__ = ["Bases", "Packer", "StridedPacker", "transpose"]
