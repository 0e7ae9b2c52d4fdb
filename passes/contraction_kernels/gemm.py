"""The blocked, register-tiled GEMM every contraction kernel is made of.

    C[b](i, j) = fold over k = 0..K-1 of A[b](i, k) · B[b](k, j), from +0

with A read in place (`a + i·a_si + k·a_sk`), B packed into a panel by a
`Packer` (`packing.py`: a strided matrix; conv's im2col), C at `c + i·c_si + j`. The panel
is a stack buffer, or, for matmul and linear where a wider one pays
(`tiling._wide_columns`), the unit's part of the scratch buffer.

Work units (the kernel's parallel dimension) are (batch, row block of `mc`
rows, column block of `nc` columns), numbered row-major; `[lo, hi)` runs units
lo … hi-1, each writing only its own block of C. Inside a unit:

    for each block of kc summed indices, in ascending order:        (cache blocking along k)
        pack B[k-block, unit columns] into Bp (kc × ldp, zero past column N)
        for each mr-row tile, for each nr-column tile:               (register blocking)
            acc = first block ? +0 : P tile        (the partial sums, stored exactly)
            for k in block: acc[r][v] = acc[r][v] + broadcast(A[r, k]) · Bp[k, v]
            last block: bias, fused epilogue; store C tile; else store P tile

With `merge_units` (the `fma` numerics' tiling, `tiling.fused_target`), a call
takes the consecutive units of one row block that [lo, hi) holds as one: their
columns packed together (Bp's rows ldp ≥ N apart, in the first unit's slice of
the scratch buffer) and every row tile run over all of them, so that its rows of
A are read once per block rather than once per unit (one thread: a row block is
one pass over N). Each output's fold is the same.

P, the partial sums between blocks, is C itself unless a tile's rows of C
crowd one L1 set (more rows than the L1 has ways: rows 4 KiB apart, N = 512
in f64, put all 16 rows of a tile in one set; storing and reloading the tile
there at every block cost 5-12 % of a 384×640×512 f64 matmul). Then P is the
unit's own slice of a scratch buffer (mc × ldp per unit, rows ldp apart like
Bp's), and C is written once, by the last block. Where the rows fit, C is
cheaper: a second buffer's traffic cost 2-6 % at N = 640 and 768 (measured).

Each output is one accumulator lane that sees its terms in ascending k, one
`mulf` then one `addf` each (no FMA, nothing reassociated; the opt-in `fma`
numerics fuse the two, `KernelBuilder.multiply_add`); the lanes of a
vector are independent outputs. Rows past M are a smaller static tile, columns
past N a zero-padded panel whose tile goes through a stack copy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from xdsl.dialects import arith
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Attribute, SSAValue

from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.epilogue import BoundEpilogue
from tlir.passes.contraction_kernels.packing import Bases, Packer, StridedPacker
from tlir.passes.contraction_kernels.run_time import RunTime, run_time_blocks, tail_tiles
from tlir.passes.contraction_kernels.target import TargetInfo
from tlir.passes.contraction_kernels.tiling import Tiling


@dataclass
class GemmSpec:
    element: Attribute
    batch: int
    m: int
    n: int
    k: int
    a: SSAValue
    a_si: int
    a_sk: int
    packer: Packer
    c: SSAValue
    c_si: int
    bases: Callable[[KernelBuilder, Index], Bases]
    row_bias: SSAValue | None = None
    col_bias: SSAValue | None = None
    epilogue: BoundEpilogue | None = None
    scratch: SSAValue | None = None
    """The scratch buffer: per unit, the partial sums (when the tiling has
    `partials`), then the packed block of B (with `panel_in_scratch`)."""
    exact: Fallback | None = None
    """A GEMM that is exact only under a condition checked at run time: the
    check and the units computed another way when it fails."""
    run_time: RunTime | None = None
    """The extents known only at run time, in a batch-generic kernel."""
    packed_b: SSAValue | None = None
    """B's panels packed ahead of the call (`prepacked.py`: a frozen linear
    weight), read where they are; the packer then only points at them."""
    set_extent: Callable[[int | str, Index], None] | None = None
    """matmul, whose `bases` reads the extents it is given here: a run-time
    extent (a batch-generic kernel's) for the output's batch axis i, or for the
    rows ("m") or the summed index ("k") of every matrix."""

    def adjust_tiling(self, tiling: Tiling, target: TargetInfo) -> Tiling:
        """The tiling `choose_tiling` gave, as this kind of GEMM wants it."""
        return tiling

    def takes_partials(self) -> bool:
        """Whether the emitter keeps partial sums in P (with several k blocks)."""
        return True

    def may_read_a_in_place(self) -> bool:
        """Whether the tiles may read A's rows where they are (else `pack_a`).
        Not when their stride is known only at run time: a register tile's
        rows then need a register each for their address, and LLVM spilled
        the broadcasts of A (dW = gᵀ·x, f32 fma: 1.9 times the static time)."""
        return self.run_time is None or self.run_time.a_si is None

    def may_widen_panel(self) -> bool:
        """Whether the packed block of B may outgrow the stack (into the scratch
        buffer): its packer places it at `bases.panel`."""
        return isinstance(self.packer, StridedPacker)

    def emitter(self) -> type[GemmEmitter]:
        """The emitter of this kind of GEMM."""
        return GemmEmitter


class Fallback(Protocol):
    def check(self, kb: KernelBuilder, lanes: int) -> SSAValue:
        """A float that is +0 when the GEMM is exact (anything else: not)."""

    def unit(
        self,
        kb: KernelBuilder,
        bases: Bases,
        r0: Index,
        r1: Index,
        c0: Index,
        c1: Index,
        epilogue: BoundEpilogue | None,
    ):
        """Rows [r0, r1) and columns [c0, c1) of C, computed without the GEMM,
        each element through the fused `epilogue` (if any) as the GEMM's are."""


@dataclass
class GemmEmitter:
    kb: KernelBuilder
    spec: GemmSpec
    tiling: Tiling
    vt: VectorType = field(init=False)
    batch: Index = field(init=False)
    """The GEMMs (the spec's, or the run-time count); likewise m, k and a_si."""
    m: Index = field(init=False)
    k: Index = field(init=False)
    a_si: Index = field(init=False)

    def __post_init__(self) -> None:
        s = self.spec
        self.vt = VectorType(s.element, [self.tiling.lanes])
        run = s.run_time or RunTime()
        self.batch = s.batch if run.batch is None else run.batch
        self.m = s.m if run.m is None else run.m
        self.k = s.k if run.k is None else run.k
        self.a_si = s.a_si if run.a_si is None else run.a_si

    def emit(self, lo: SSAValue, hi: SSAValue) -> None:
        kb, s, t = self.kb, self.spec, self.tiling
        if s.batch == 0 or s.m == 0 or s.n == 0:
            return
        nr = t.nr
        assert (s.scratch is not None) == bool(t.unit_scratch)  # the generator's argument
        if s.packed_b is not None:  # the panels, packed ahead of the call
            assert not t.panel_in_scratch
            self.bp = s.packed_b
        elif t.panel_in_scratch:
            assert s.may_widen_panel()
            self.bp = s.scratch
        else:
            self.bp = self.panel_buffer()
        self.ap = kb.alloca(t.mr * t.kcp, s.element) if t.kcp else None
        self.tile = kb.alloca(t.mr * nr, s.element) if s.n % nr else None
        self.bias_tile = kb.alloca(nr, s.element) if s.n % nr and s.col_bias else None
        self.zero = kb.constant(0.0, self.vt)
        m_units, n_units = kb.ceil_div(self.m, t.mc), -(-s.n // t.nc)
        per_batch = kb.mul(m_units, n_units)

        def unit_bounds(u: Index):
            if isinstance(per_batch, int) or self.batch != 1:
                b, rest = kb.div(u, per_batch), kb.rem(u, per_batch)
            else:  # one GEMM of run-time rows: no division
                b, rest = 0, u
            mc, nc = kb.div(rest, n_units), kb.rem(rest, n_units)
            r0 = kb.mul(mc, t.mc)
            c0 = kb.mul(nc, t.nc)
            r1, c1 = kb.min(kb.add(r0, t.mc), self.m), kb.min(kb.add(c0, t.nc), s.n)
            bases = s.bases(kb, b)
            start = kb.mul(u, t.unit_scratch) if t.unit_scratch else 0  # this unit's slice
            if t.partials:  # P, with (r0, c0) at its start
                bases.partials = kb.sub(start, kb.add(kb.mul(r0, t.ldp), c0))
            if t.panel_in_scratch:  # then the block of B
                bases.panel = kb.add(start, t.panel_offset)
            return bases, r0, r1, c0, c1, kb.equal(nc, n_units - 1)

        def columns(bases, r0, r1, c0, c1, at_end) -> None:
            """Rows [r0, r1) and columns [c0, c1), block by block along k."""

            def block(k0: Index, kc: Index, first, last: bool) -> None:
                self.pack_block(bases, k0, kc, c0, c1, at_end)
                self.tiles(bases, r0, r1, c0, c1, k0, kc, first, last)

            self.blocks(block)

        def unit(u: Index, carried: list) -> list:
            columns(*unit_bounds(u))
            return []

        def row_block(rb: Index, carried: list) -> list:
            # the units of row block rb in [lo, hi): their columns in one pass
            first = kb.max(lo, kb.mul(rb, n_units))
            end = kb.min(hi, kb.mul(kb.add(rb, 1), n_units))

            def run() -> None:
                bases, r0, r1, c0, _, _ = unit_bounds(first)
                *_, c1, at_end = unit_bounds(kb.sub(end, 1))
                columns(bases, r0, r1, c0, c1, at_end)

            kb.when(kb.less(first, end), run)
            return []

        if s.exact is None and t.merge_units:
            kb.loop(kb.div(lo, n_units), kb.ceil_div(hi, n_units), 1, [], row_block)
            return
        if s.exact is None:
            kb.loop(lo, hi, 1, [], unit)
            return
        exact = s.exact

        def other_unit(u: Index, carried: list) -> list:
            bases, r0, r1, c0, c1, _ = unit_bounds(u)
            exact.unit(kb, bases, r0, r1, c0, c1, s.epilogue)
            return []

        check = exact.check(kb, t.lanes)
        zero = kb.constant(0.0, s.element)
        holds = kb.emit(arith.CmpfOp(check, zero, "oeq"))
        fails = kb.emit(arith.CmpfOp(check, zero, "une"))
        kb.when(holds, lambda: kb.loop(lo, hi, 1, [], unit))
        kb.when(fails, lambda: kb.loop(lo, hi, 1, [], other_unit))

    def panel_buffer(self) -> SSAValue:
        """The stack buffer of the packed kc × ldp block of B."""
        t = self.tiling
        return self.kb.alloca(max(t.kc * t.ldp, 1), self.spec.element)

    def pack_block(self, bases, k0, kc, c0, c1, at_end) -> None:
        """B's block at k0 for the columns [c0, c1), before its tiles."""
        self.spec.packer.pack(self.kb, bases, self.bp, self.tiling, k0, kc, c0, c1, at_end)

    def blocks(self, block: Callable) -> None:
        """`block(k0, kc, first, last)` for each block along k, in ascending
        order: the first starts its sums from +0, the others from the partial
        sums (in C, or in P)."""
        kb, s, t = self.kb, self.spec, self.tiling
        if not isinstance(self.k, int):
            run_time_blocks(kb, t.kc, self.k, block)
            return
        blocks = max(1, -(-s.k // t.kc))
        if blocks > 1:
            block(0, t.kc, True, False)

            def middle(p: Index, carried: list) -> list:
                block(kb.mul(p, t.kc), t.kc, False, False)
                return []

            kb.loop(1, blocks - 1, 1, [], middle)
        k0 = (blocks - 1) * t.kc
        block(k0, s.k - k0, blocks == 1, True)

    def tiles(self, bases, r0, r1, c0, c1, k0, kc, first, last) -> None:
        """All register tiles of the unit for one block along k. Several rows per
        tile: row tiles outside (the tile's rows of A packed once, used for every
        column tile); one row per tile: column tiles outside (the packed panel of
        B stays in L1 for every row)."""
        kb, s, t = self.kb, self.spec, self.tiling
        nr = t.nr
        n_full = s.n - s.n % nr
        tail = None
        if isinstance(self.m, int):
            m_full = s.m - s.m % t.mr
            # No loop over whole tiles where there is none (8 rows with tiles of 16):
            # its micro-kernel would be code that never runs, for LLVM to compile.
            row_ranges = [(r0, kb.min(r1, m_full), t.mr)] if m_full else []
            if s.m % t.mr:
                row_ranges.append((kb.max(r0, m_full), r1, s.m % t.mr))
        else:
            m_full = kb.round_down(self.m, t.mr)
            row_ranges = [(r0, kb.min(r1, m_full), t.mr)]
            tail = (kb.max(r0, m_full), r1)
        col_ranges = [(c0, kb.min(c1, n_full), None)] if n_full else []
        if s.n % nr:
            col_ranges.append((kb.max(c0, n_full), c1, s.n % nr))

        def tile(ir, rows, jr, width) -> None:
            self.micro(bases, ir, rows, jr, c0, width, k0, kc, first, last)

        if t.mr == 1:
            for c_lo, c_hi, width in col_ranges:

                def columns(jr: Index, carried: list, width=width) -> list:
                    def row(ir: Index, carried: list) -> list:
                        tile(ir, 1, jr, width)
                        return []

                    kb.loop(r0, r1, 1, [], row)
                    return []

                kb.loop(c_lo, c_hi, nr, [], columns)
            return

        def row_tile(ir: Index, carried: list, rows: int) -> list:
            self.pack_a(bases, ir, rows, k0, kc)
            for c_lo, c_hi, width in col_ranges:

                def column(jr: Index, carried: list, width=width) -> list:
                    tile(ir, rows, jr, width)
                    return []

                kb.loop(c_lo, c_hi, nr, [], column)
            return []

        for r_lo, r_hi, rows in row_ranges:
            kb.loop(r_lo, r_hi, t.mr, [], functools.partial(row_tile, rows=rows))
        if tail is not None:
            tail_tiles(kb, t.mr, *tail, row_tile)

    def pack_a(self, bases, ir, rows, k0, kc) -> None:
        """Ap[r·kcp + k] = A(ir + r, k0 + k): the tile's rows of A, copied so that
        the broadcasts read short rows a little more than kc apart (rows of A a
        multiple of 4 KiB apart would compete for the same L1 sets). Nothing
        when `kcp` is 0 (the tiles read A in place)."""
        kb, s, t, vt = self.kb, self.spec, self.tiling, self.vt
        if self.ap is None:
            return
        for r in range(rows):
            src = kb.add(kb.add(bases.a, kb.mul(kb.add(ir, r), self.a_si)), kb.mul(k0, s.a_sk))
            if s.a_sk == 1:
                main = kb.round_down(kc, t.lanes)

                def vcopy(k: Index, carried: list, src=src, r=r) -> list:
                    value = kb.vload(s.a, kb.add(src, k), vt)
                    kb.vstore(value, self.ap, kb.add(r * t.kcp, k))
                    return []

                kb.loop(0, main, t.lanes, [], vcopy)
                if isinstance(kc, int):
                    for k in range(main, kc):
                        kb.store(kb.load(s.a, kb.add(src, k)), self.ap, r * t.kcp + k)
                else:

                    def copy_one(k: Index, carried: list, src=src, r=r) -> list:
                        value = kb.load(s.a, kb.add(src, k))
                        kb.store(value, self.ap, kb.add(r * t.kcp, k))
                        return []

                    kb.loop(main, kc, 1, [], copy_one)
            else:

                def copy(k: Index, carried: list, src=src, r=r) -> list:
                    value = kb.load(s.a, kb.add(src, kb.mul(k, s.a_sk)))
                    kb.store(value, self.ap, kb.add(r * t.kcp, k))
                    return []

                kb.loop(0, kc, 1, [], copy)

    def micro(self, bases, ir, rows, jr, c0, width, k0, kc, first, last, b_vectors=None,
              unroll: int | None = None) -> None:  # fmt: skip
        """One register tile: `rows` rows at ir, columns jr … jr + nr; `width` is
        the number of valid columns of a partial tile (None: all nr).
        `b_vectors(k, u, nv)`: the tile's vectors of B at summed index k + u, if
        not read from the panel; `unroll`: the k loop's (else the tiling's)."""
        kb, s, t, vt = self.kb, self.spec, self.tiling, self.vt
        lanes, nr = t.lanes, t.nr
        nv = t.nv if width is None else -(-width // lanes)
        c_row = [kb.add(kb.add(bases.c, kb.mul(kb.add(ir, r), s.c_si)), jr) for r in range(rows)]
        p_row = None
        if t.partials:
            p_at = kb.add(bases.partials, kb.add(kb.mul(ir, t.ldp), jr))
            p_row = [kb.add(p_at, r * t.ldp) for r in range(rows)]
        p_slots = [(r, v * lanes) for r in range(rows) for v in range(nv)]

        # The partial sums so far: +0 for the first block, else the P (or C) tile.
        if first is True:
            acc = [self.zero] * (rows * nv)
        elif p_row is not None:  # whole vectors: P's rows are whole tiles wide
            acc = [kb.vload(s.scratch, kb.add(p_row[r], at), vt) for r, at in p_slots]
        else:
            if width is None:
                loaded = [
                    kb.vload(s.c, kb.add(c_row[r], v * lanes), vt)
                    for r in range(rows)
                    for v in range(nv)
                ]
            else:
                for r in range(rows):
                    for j in range(width):
                        kb.store(kb.load(s.c, kb.add(c_row[r], j)), self.tile, r * nr + j)
                loaded = [
                    kb.vload(self.tile, r * nr + v * lanes, vt)
                    for r in range(rows)
                    for v in range(nv)
                ]
            acc = loaded

        if self.ap is not None:
            a_buffer, a_sk = self.ap, 1
            a_row = [r * t.kcp for r in range(rows)]
        else:
            a_buffer, a_sk = s.a, s.a_sk
            a_row = [
                kb.add(kb.add(bases.a, kb.mul(kb.add(ir, r), self.a_si)), kb.mul(k0, s.a_sk))
                for r in range(rows)
            ]
        panel = kb.add(kb.sub(jr, c0), bases.panel)
        if b_vectors is None and s.packed_b is not None:  # B packed ahead, tile by tile
            b_vectors = s.packer.vectors(kb, jr, k0, vt)

        def k_step(k: Index, u: int, acc: list[SSAValue]) -> list[SSAValue]:
            """Summed index k + u (k: the start of an unrolled group)."""
            if b_vectors is not None:
                b = b_vectors(k, u, nv)
            else:
                b_at = kb.add(kb.mul(k, t.ldp), panel)
                b = [kb.vload(self.bp, kb.add(b_at, u * t.ldp + v * lanes), vt) for v in range(nv)]
            acc = list(acc)
            k_offset = kb.mul(kb.add(k, u), a_sk)
            for r in range(rows):
                a = kb.broadcast(kb.load(a_buffer, kb.add(a_row[r], k_offset)), vt)
                for v in range(nv):
                    acc[r * nv + v] = kb.multiply_add(acc[r * nv + v], a, b[v])
            return acc

        unroll = unroll or t.unroll
        main = kb.round_down(kc, unroll)

        def unrolled(k: Index, acc: list[SSAValue]) -> list[SSAValue]:
            for u in range(unroll):
                acc = k_step(k, u, acc)
            return acc

        acc = kb.loop(0, main, unroll, acc, unrolled)
        acc = kb.loop(main, kc, 1, acc, lambda k, acc: k_step(k, 0, acc))

        if p_row is not None and not last:
            for (r, at), value in zip(p_slots, acc, strict=True):
                kb.vstore(value, s.scratch, kb.add(p_row[r], at))
            return
        epilogue = s.epilogue if last else None
        if last:
            acc = self.add_bias(bases, acc, ir, rows, nv, jr, width)
            if epilogue is not None and width is None:
                acc = [
                    epilogue.apply_vector(kb, acc[r * nv + v], kb.add(c_row[r], v * lanes))
                    for r in range(rows)
                    for v in range(nv)
                ]

        if width is None:
            for r in range(rows):
                for v in range(nv):
                    kb.vstore(acc[r * nv + v], s.c, kb.add(c_row[r], v * lanes))
        else:
            for r in range(rows):
                for v in range(nv):
                    kb.vstore(acc[r * nv + v], self.tile, r * nr + v * lanes)
                for j in range(width):
                    kb.store(kb.load(self.tile, r * nr + j), s.c, kb.add(c_row[r], j))

        if epilogue is not None:
            first_step = epilogue.plan.vector_steps if width is None else 0
            if first_step < len(epilogue.plan.steps):
                for r in range(rows):

                    def element(j: Index, carried: list, r=r) -> list:
                        at = kb.add(c_row[r], j)
                        value = epilogue.apply_scalar(kb, kb.load(s.c, at), at, first_step)
                        kb.store(value, s.c, at)
                        return []

                    kb.loop(0, nr if width is None else width, 1, [], element)

    def add_bias(self, bases, acc, ir, rows, nv, jr, width) -> list[SSAValue]:
        """The op's own bias, added after the fold: per row (conv) or per column (linear)."""
        kb, s, t, vt = self.kb, self.spec, self.tiling, self.vt
        lanes = t.lanes
        acc = list(acc)
        if s.row_bias is not None:
            for r in range(rows):
                at = kb.add(bases.row_bias, kb.add(ir, r))
                bias = kb.broadcast(kb.load(s.row_bias, at), vt)
                for v in range(nv):
                    acc[r * nv + v] = kb.binary(arith.AddfOp, acc[r * nv + v], bias)
        if s.col_bias is not None:
            if width is None:
                vectors = [kb.vload(s.col_bias, kb.add(jr, v * lanes), vt) for v in range(nv)]
            else:
                zero = kb.constant(0.0, s.element)
                for j in range(nv * lanes):
                    value = kb.load(s.col_bias, kb.add(jr, j)) if j < width else zero
                    kb.store(value, self.bias_tile, j)
                vectors = [kb.vload(self.bias_tile, v * lanes, vt) for v in range(nv)]
            for r in range(rows):
                for v in range(nv):
                    acc[r * nv + v] = kb.binary(arith.AddfOp, acc[r * nv + v], vectors[v])
        return acc
