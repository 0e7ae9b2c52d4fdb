"""How a GEMM is cut: the register tile, the cache blocks along k, and the
work units (blocks of rows and columns) that threads take whole. The choices
depend on the target's vector width, registers and cache sizes only, never on
the values; every tiling computes the same bits (`gemm.py`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tlir.passes.contraction_kernels.target import TargetInfo


@dataclass(frozen=True)
class Tiling:
    lanes: int
    nv: int
    """Vectors per tile row."""
    mr: int
    """Rows per register tile."""
    kc: int
    """Summed indices per cache block."""
    mc: int
    """Rows per work unit (a multiple of mr)."""
    nc: int
    """Columns per work unit (a multiple of nr)."""
    ldp: int
    """Row stride of the packed B block (nc, or one cache line more)."""
    kcp: int
    """Row stride of the packed rows of A (0: A is read in place, one row per tile)."""
    unroll: int = 4
    partials: bool = False
    """Whether the partial sums between k blocks go to a scratch buffer (P) rather
    than to C (`generator.kernel_tiling` decides)."""
    panel_in_scratch: bool = False
    merge_units: bool = False
    """Whether a call takes the consecutive units of one row block that it runs
    as one (their columns packed into one block of B, ldp wide enough for
    all N columns, in the first one's slice of the scratch buffer)."""
    """Whether the packed kc × ldp block of B is in the scratch buffer (one per
    unit) rather than on the stack: it is wider than the stack budget allows."""

    @property
    def nr(self) -> int:
        return self.nv * self.lanes

    def units(self, batch: int, m: int, n: int) -> int:
        return _units(batch, m, n, self.mc, self.nc)

    @property
    def panel_offset(self) -> int:
        """Where the packed block of B starts in a unit's slice of the scratch
        buffer: after P (mc × ldp), if the slice holds P."""
        return self.mc * self.ldp if self.partials else 0

    @property
    def unit_scratch(self) -> int:
        """Elements of one unit's slice of the scratch buffer: P, then the packed
        block of B (kc × ldp), each where the tiling puts it there."""
        return self.panel_offset + (self.kc * self.ldp if self.panel_in_scratch else 0)

    def scratch_elements(self, batch: int, m: int, n: int) -> int:
        """Elements of the scratch buffer (0: the kernel takes none)."""
        return self.units(batch, m, n) * self.unit_scratch


def _units(batch: int, m: int, n: int, mc: int, nc: int) -> int:
    """Work units: blocks of mc rows times blocks of nc columns, per batch element."""
    return batch * -(-m // mc) * _column_blocks(n, nc)


def register_tile(target: TargetInfo) -> tuple[int, int]:
    """(rows, vectors per row) of the accumulator tile.

    rows > 1 is the classic outer-product tile: per k, `rows` broadcasts of A and
    `vectors` loads of B feed rows·vectors multiply-adds; the accumulators, the B
    vectors, one broadcast and one product fill the register file (8×3 with 32
    registers, 6×2 with 16; used with 16 registers). rows = 1 is a row-times-panel tile: per k, one
    broadcast and `vectors` loads of B that the multiplies take as memory operands.
    It suits CPUs whose separate vector loads and broadcasts compete with the
    arithmetic for dispatch (AMD Zen 1, which splits 256-bit ops in two: measured
    there, 1×12 runs mul+add 25 % faster than 6×2). `TargetInfo.tile` overrides.

    With AVX-512 (32 registers) the tile is one vector wide and 16 rows deep:
    each broadcast of A then feeds a single multiply, so LLVM folds it into that
    multiply as an embedded-broadcast memory operand (`vmulpd (m){1to8}`), which
    the load units execute. A separate `vbroadcastsd zmm` takes a slot of the
    multiply pipes on AMD Zen 4 — `llvm-mca -mcpu=znver4` puts an 8×3 tile at
    1.30 cycles per multiply against 1.00 for 16×1 or 24×1 (measured 20 % faster);
    16 rows divide the usual batch and channel counts, so no short edge tile.

    Where broadcasts from memory are the load units' alone (Intel,
    `TargetInfo.load_broadcasts`), 8 rows of two vectors: each broadcast of A
    feeds two multiplies (a separate `vbroadcastsd`, no vector pipe), so a term
    reads memory half as often, and the tile's rows of A crowd the L1 half as
    much. Same-process A/B on a Xeon (Sapphire Rapids), exact kernels, 16x1 ->
    8x2, f64 / f32: the bench MLP's first layer 1.06-1.08x / 1.06-1.07x
    faster, its second 1.01x / 1.03x; the bench conv 1.03x / 1.03x; matmuls
    384x512x640 1.08-1.10x / 0.99-1.05x, 384x640x512 1.03-1.05x / 1.00-1.04x.
    """
    if target.tile is not None:
        return target.tile
    if target.registers >= 32:
        return (8, 2) if target.load_broadcasts else (16, 1)
    return 6, 2


def fused_target(target: TargetInfo, element_bytes: int = 8) -> TargetInfo:
    """The target for kernels in the opt-in `fma` numerics. With 32 registers
    and no tile given, an outer-product tile instead of 16×1: a fused term is
    one instruction, so 16×1's 17 loads (one of B, 16 broadcasts of A) per 16
    FMAs make the load units the bottleneck. f64: 8×3 (11 loads per 24 FMAs);
    f32: 12×2 (14 per 24), whose 32 columns divide the usual widths (256, 512,
    640) where 8×3's 48 leave a padded edge tile (N = 256: 288 computed).
    Measured on a Xeon with AVX-512 (one thread, FMA kernels, GFLOP/s 16×1 →
    8×3): matmul 384×640×512 f64 59 → 67, f32 125 → 137; the bench MLP's first
    layer f64 49 → 66, f32 102 → 136; the bench conv f64 50 → 58, f32 87 → 97.
    Then f32 8×3 → 12×2 (same-process A/B, times): the MLP's layers 1 and 2
    11-15 % faster, matmul 2-4 %, conv 3-6 %; in f64 12×2 ran the matmul
    4-6 % slower than 8×3 (the conv 5-8 % faster, the MLP within noise).

    In f64, k blocks up to three quarters of L1 rather than half: a fused term
    takes half the time of a multiply and an add, so what each block costs
    besides its terms (partial sums stored and loaded, rows of A copied) weighs
    twice as much. 8×3: kc 86 → 128 on K = 512, 92 → 128 on K = 640; the bench
    matmuls 2-6 % faster (same-process A/B), MLP and conv within noise; in f32
    (12×2, kc 128 → 160 on K = 640) the matmul ran 2 % slower.

    A call's consecutive units of one row block run as one (`merge_units`):
    with one thread, a whole row block is one pass over all of N, whose row
    tiles read their rows of A once instead of once per unit of columns.
    Same-process A/B (f64): matmul 384×640×512 7 % faster, 384×512×640 1-4 %,
    the bench MLP's layers 1-4 %; f32 0-3 %."""
    target = replace(target, merge_units=True)
    if element_bytes >= 8:
        target = replace(target, k_block_l1=(3, 4))
    if target.tile is None and target.registers >= 32:
        return replace(target, tile=(8, 3) if element_bytes >= 8 else (12, 2))
    return target


def choose_tiling(
    target: TargetInfo,
    element_bytes: int,
    m: int,
    n: int,
    k: int,
    batch: int = 1,
    columns_multiple: int = 1,
    wide_panel: bool = False,
) -> Tiling:
    """With `wide_panel`, the packed block of B may be wider than the stack
    budget allows (then it goes to the scratch buffer, `panel_in_scratch`)."""
    lanes = target.lanes(element_bytes)
    line = 64 // element_bytes
    mr, nv = register_tile(target)
    nr = nv * lanes
    if mr == 1:  # the kc × nr panel of B stays in L1 while the rows stream past it
        kc_max = max(16, target.l1_bytes * 3 // 4 // (nr * element_bytes))
    else:  # a panel of B and the tile's packed rows of A fill half of L1 (`k_block_l1`)
        share, parts = target.k_block_l1
        kc_max = max(16, target.l1_bytes * share // parts // ((nr + mr) * element_bytes))
    blocks = max(1, -(-k // kc_max))
    kc, nc = _k_block(target, element_bytes, k, blocks, mr, nr, line)
    if columns_multiple > 1 and mr > 1:
        # Units of whole output rows (conv) copy their packed rows in static
        # runs (`conv.BandPacker`); where the stack's block of B is narrower
        # than one whole-row step, shorter k blocks (at most 4 times as many)
        # make it wide enough. The bench conv on AVX-512 (f64: kc 96 → 72, nc
        # 48 → 56; f32: kc 144 → 96, nc 64 → 112): its packing took a quarter
        # of the kernel's time with rows cut at run-time lengths, 5-8 % after.
        # (One-row tiles are nr = 12 vectors wide: their whole-row steps would
        # make a few uneven units.)
        step = math.lcm(columns_multiple, nr)
        for more in range(blocks + 1, min(k, 4 * blocks) + 1):
            if nc >= min(step, n):
                break
            kc_more, nc_more = _k_block(target, element_bytes, k, more, mr, nr, line)
            if nc_more >= min(step, n):
                blocks, kc, nc = more, kc_more, nc_more
    kcp = kc + line if mr > 1 else 0
    stack_nc = nc
    if wide_panel and columns_multiple == 1 and mr > 1:
        nc = max(nc, _wide_columns(target, element_bytes, kc, n, nr, line))
    nc = max(nr, min(nc, -(-n // nr) * nr))
    if columns_multiple > 1:  # whole output rows per unit where that fits (conv)
        step = math.lcm(columns_multiple, nr)
        if nc >= step:
            nc = nc // step * step
    else:
        nc = _balanced_columns(n, nc, nr, _column_blocks(n, nc))
    # mc: with several rows per tile, all rows: each unit packs its block of B
    # once per k block and every row tile streams past it, so a unit of fewer
    # rows only packs the same B again (measured 7-15 % on a 128-row linear);
    # the tile's rows of A are packed per k block and need no cache budget.
    # With one row per tile the unit's rows of one k block stay in half of L2
    # (they stream past each panel, once per panel).
    if mr > 1:
        mc = -(-m // mr) * mr
    else:
        mc = max(mr, target.l2_bytes // 2 // (kc * element_bytes) // mr * mr)
    mc = max(mr, min(mc, -(-m // mr) * mr))
    # With several k blocks a unit's partial sums go back to memory after each
    # block (mc × ldp in the scratch buffer, or mc × nc in C): within half of L2.
    partials = blocks > 1
    if partials:
        row_bytes = _panel_stride(nc, line) * element_bytes
        mc = max(mr, min(mc, target.l2_bytes // 2 // row_bytes // mr * mr))
    # Enough units for a few threads: split rows further when there are few.
    while _units(batch, m, n, mc, nc) < 4 and mc > mr:
        mc = max(mr, (mc // 2) // mr * mr)
    if columns_multiple == 1:
        nc = _even_units(batch * -(-m // mc), n, nc, nr)
    # Merged units pack all N columns into each unit's slice: where that
    # block of B stays within half of L2 (a wider one would stream from L3
    # past every row tile, and each unit's slice would outgrow its share).
    wide = _panel_stride(-(-n // nr) * nr, line)
    merge = (target.merge_units and nc > stack_nc and columns_multiple == 1 and mr > 1
             and kc * wide * element_bytes <= target.l2_bytes // 2)  # fmt: skip
    ldp = wide if merge else _panel_stride(nc, line)
    return Tiling(lanes, nv, mr, kc, mc, nc, ldp, kcp, partials=partials,
                  panel_in_scratch=nc > stack_nc, merge_units=merge)  # fmt: skip


def unmerged(tiling: Tiling, element_bytes: int) -> Tiling:
    """The tiling with its units one by one (`merge_units` off, the rows of
    the packed block of B a unit wide)."""
    line = 64 // element_bytes
    return replace(tiling, merge_units=False, ldp=_panel_stride(tiling.nc, line))


def _k_block(target: TargetInfo, element_bytes: int, k: int, blocks: int, mr: int, nr: int,
             line: int) -> tuple[int, int]:  # fmt: skip
    """(kc, nc) for `blocks` blocks of equal size along k: the packed kc × nc
    block of B takes what the stack budget leaves after the tile's buffers."""
    kc = max(1, -(-k // blocks))
    kcp = kc + line if mr > 1 else 0
    tiles = (mr * kcp + 2 * mr * nr + nr) * element_bytes
    budget = target.stack_bytes - tiles - 1024
    return kc, max(nr, (budget // (kc * element_bytes) - line) // nr * nr)


def _wide_columns(target: TargetInfo, element_bytes: int, kc: int, n: int, nr: int,
                  line: int) -> int:  # fmt: skip
    """Columns per unit beyond the stack's budget: up to a quarter of N (so that
    the columns alone still make 4 units: fewer rows per unit would pack B
    again), in a block of B within a quarter of L2. Every unit streams all of
    its rows of A (and copies them once per k block where the tiles copy
    them), so wider units read A fewer times: same-process A/B in f64, 1024³
    matmul +8-14 %, 1024³ linear +12-22 %, 384×512×640 +2-5 %, 2048×512×512
    +4-5 %, the bench's shapes within noise."""
    quarter = -(-n // (4 * nr)) * nr  # a quarter of N, rounded up to whole tiles
    budget = (target.l2_bytes // 4 // (kc * element_bytes) - line) // nr * nr
    return min(quarter, budget)


def _panel_stride(nc: int, line: int) -> int:
    """The row stride of a packed panel nc wide: an odd number of cache lines."""
    return nc + line if (nc // line) % 2 == 0 else nc


def _column_blocks(n: int, nc: int) -> int:
    return -(-n // nc)


def _balanced_columns(n: int, nc: int, nr: int, blocks: int) -> int:
    """The narrowest width (a multiple of nr, at most `nc`) that covers n
    columns in `blocks` blocks: the widest block then holds as few register
    tiles as `blocks` blocks allow.

    Threads take whole units, so the longest thread's share sets the time:
    n = 256 in blocks of 72 (72, 72, 72, 40) leaves one of two threads with 144
    columns against the ideal 128, where blocks of 64 split evenly (a 2-thread
    MLP went from 1.5x to 1.8x the speed of one thread)."""
    tiles = -(-n // nr)
    return max(nr, min(nc, -(-tiles // blocks) * nr))


def _even_units(row_units: int, n: int, nc: int, nr: int) -> int:
    """The column-block width, narrowed so that an odd, small number of units
    (`row_units` per column block) becomes even: two or four threads then
    finish together (with many units the odd one out matters little)."""
    blocks = _column_blocks(n, nc)
    units = row_units * blocks
    if units % 2 == 0 or units >= 16 or blocks == -(-n // nr):
        return nc
    narrower = _balanced_columns(n, nc, nr, blocks + 1)
    return narrower if _column_blocks(n, narrower) == blocks + 1 else nc
