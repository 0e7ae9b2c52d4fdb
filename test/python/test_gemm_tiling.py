"""How a GEMM's outputs are cut into work units: threads take whole units, so
units of equal work (and, when there are few, an even number of them) let two
or four threads finish together. The results do not depend on the tiling (the
kernel tests check every tiling against the reference); this checks the cut."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from tlir.passes.contraction_kernels.target import TargetInfo, describe_target
from tlir.passes.contraction_kernels.tiling import choose_tiling

AVX512 = TargetInfo(vector_bytes=64, registers=32, l1_bytes=32 * 1024, l2_bytes=1024 * 1024)
AVX2 = TargetInfo(vector_bytes=32, registers=16, l1_bytes=32 * 1024, l2_bytes=512 * 1024)
ZEN1 = TargetInfo(vector_bytes=32, registers=16, tile=(1, 12))
SHAPES = [  # (batch, m, n, k)
    (1, 128, 256, 1024),
    (1, 128, 256, 256),
    (1, 128, 10, 256),
    (1, 384, 512, 640),
    (1, 100, 300, 50),
    (3, 17, 33, 9),
    (2, 64, 1000, 300),
    (1, 1, 4096, 64),
    (5, 32, 96, 96),
]


def _column_blocks(n: int, nc: int) -> list[int]:
    """Widths, in columns, of the column blocks covering n."""
    return [min(nc, n - c0) for c0 in range(0, n, nc)]


# (wide: matmul's and linear's blocks of B may outgrow the stack)
CASES = list(itertools.product([AVX512, AVX2, ZEN1], [8, 4], SHAPES, [False, True]))


@pytest.mark.parametrize("target, element, shape, wide", CASES)
def test_column_blocks_are_as_even_as_register_tiles_allow(target, element, shape, wide):
    batch, m, n, k = shape
    tiling = choose_tiling(target, element, m, n, k, batch, wide_panel=wide)
    nr = tiling.nr
    widths = _column_blocks(n, tiling.nc)
    assert tiling.nc % nr == 0
    # No narrower width (a multiple of nr) covers n with as few blocks: the
    # widest block holds ⌈tiles / blocks⌉ register tiles, the least possible.
    tiles = -(-n // nr)
    assert tiling.nc // nr == -(-tiles // len(widths))


@pytest.mark.parametrize("target, element, shape, wide", CASES)
def test_a_small_number_of_units_is_even_where_columns_allow(target, element, shape, wide):
    batch, m, n, k = shape
    tiling = choose_tiling(target, element, m, n, k, batch, wide_panel=wide)
    units = tiling.units(batch, m, n)
    blocks = len(_column_blocks(n, tiling.nc))
    tiles = -(-n // tiling.nr)
    if units % 2 and units < 16:
        # odd only where one more column block is impossible (n has too few
        # register tiles) or where no uniform width gives exactly one more
        more = [
            w
            for w in range(tiling.nr, tiling.nc, tiling.nr)
            if len(_column_blocks(n, w)) == blocks + 1
        ]
        assert blocks == tiles or not more


def test_mlp_layer_of_256_columns_splits_into_four_equal_blocks():
    """f64 on AVX-512: one register tile is 8 columns and at most 72 columns fit
    the packed block; 256 columns then split as 4 × 64, not 72 + 72 + 72 + 40
    (which leaves one of two threads 144 columns against the ideal 128)."""
    tiling = choose_tiling(AVX512, 8, 128, 256, 1024)
    assert _column_blocks(256, tiling.nc) == [64, 64, 64, 64]


def test_three_column_blocks_of_one_row_block_become_four():
    """f32 on AVX-512 (16-column tiles): 240 columns fit one 80-column width in
    three blocks; with one row block that is 3 units, so the cut is 4 × 64 - 16."""
    tiling = choose_tiling(AVX512, 4, 16, 240, 512)
    assert tiling.units(1, 16, 240) == 4
    assert _column_blocks(240, tiling.nc) == [64, 64, 64, 48]


def test_wide_blocks_of_b_keep_four_column_units_and_a_quarter_of_l2():
    """f64 on AVX-512, 1024 x 1024 x 1024: the stack holds a block of B 72
    columns wide; a wide block is a quarter of N (256 columns, so the columns
    alone still make 4 units) and within a quarter of L2, in the scratch buffer."""
    narrow = choose_tiling(AVX512, 8, 1024, 1024, 1024)
    wide = choose_tiling(AVX512, 8, 1024, 1024, 1024, wide_panel=True)
    assert not narrow.panel_in_scratch and narrow.nc <= 72
    assert wide.panel_in_scratch and wide.nc == 256
    assert wide.kc * wide.ldp * 8 <= AVX512.l2_bytes // 4
    # 256 columns: a quarter is what the stack holds already (as 4 x 64)
    mlp = choose_tiling(AVX512, 8, 128, 256, 1024, wide_panel=True)
    assert not mlp.panel_in_scratch and mlp.nc == 64


@pytest.mark.parametrize("target", [AVX512, AVX2, dataclasses.replace(AVX512, l1_bytes=48 * 1024)])
@pytest.mark.parametrize("element", [8, 4])
@pytest.mark.parametrize("width", [28, 14, 56, 7])
def test_conv_units_hold_whole_output_rows(target, element, width):
    """A conv of 32 channels, 3×3 (k = 288), over square outputs `width` wide:
    with the k block that the L1 suggests, the stack's block of B is narrower
    than the whole output rows a unit must hold to be packed in static runs
    (f64 with AVX-512: 48 columns of rows 28 wide); shorter k blocks widen it.
    Still within the stack: the block of B, the tile's rows of A, the tiles."""
    n = width * width
    tiling = choose_tiling(target, element, 32, n, 288, 4, columns_multiple=width)
    assert tiling.nc % width == 0 or tiling.nc >= n
    tiles = (tiling.mr * tiling.kcp + 2 * tiling.mr * tiling.nr + tiling.nr) * element
    assert tiling.kc * tiling.ldp * element + tiles <= target.stack_bytes


def _sysfs(root, caches):
    """A fake /sys/devices/system/cpu/cpu0/cache: (level, type, size text, ways) each."""
    for number, (level, kind, size, ways) in enumerate(caches):
        index = root / f"index{number}"
        index.mkdir(parents=True)
        (index / "level").write_text(f"{level}\n")
        (index / "type").write_text(f"{kind}\n")
        (index / "size").write_text(f"{size}\n")
        (index / "ways_of_associativity").write_text(f"{ways}\n")
    return root


# (LLVM CPU name, features, caches, expected (vector bytes, registers, tile, L1, L1 ways, L2))
MACHINES = [
    ("rocketlake", {"avx": True, "avx2": True, "avx512f": True},
     [(1, "Data", "48K", 12), (1, "Instruction", "32K", 8), (2, "Unified", "512K", 8),
      (3, "Unified", "12M", 12)],
     (64, 32, None, 48 * 1024, 12, 512 * 1024)),
    ("znver4", {"avx": True, "avx512f": True},
     [(1, "Data", "32K", 8), (1, "Instruction", "32K", 8), (2, "Unified", "1024K", 8)],
     (64, 32, None, 32 * 1024, 8, 1024 * 1024)),
    ("znver1", {"avx": True, "avx2": True, "avx512f": False},
     [(1, "Instruction", "64K", 4), (1, "Data", "32K", 8), (2, "Unified", "512K", 8)],
     (32, 16, (1, 12), 32 * 1024, 8, 512 * 1024)),
    ("haswell", {"avx": True, "avx2": True},
     [(1, "Data", "32K", 8), (2, "Unified", "256K", 8)],
     (32, 16, None, 32 * 1024, 8, 256 * 1024)),
    ("x86-64", {}, [], (16, 16, None, 32 * 1024, 8, 512 * 1024)),  # no sysfs: the defaults
    ("skylake-avx512", {"avx": True, "avx512f": True},
     [(1, "Data", "??", "?"), (2, "Unified", "", 0)],
     (64, 32, None, 32 * 1024, 8, 512 * 1024)),  # unreadable sizes and ways: the defaults
]  # fmt: skip


@pytest.mark.parametrize("cpu, features, caches, expected", MACHINES)
def test_target_of_a_machine_description(tmp_path, cpu, features, caches, expected):
    """Vector width and registers from LLVM's features, the one-row tile on Zen 1
    only, the L1 data (not instruction) cache, its ways, and the L2 from sysfs."""
    target = describe_target(cpu, features, _sysfs(tmp_path / "cache", caches))
    got = (target.vector_bytes, target.registers, target.tile, target.l1_bytes, target.l1_ways,
           target.l2_bytes)  # fmt: skip
    assert got == expected


@pytest.mark.parametrize("cpu, features, expected", [
    ("sapphirerapids", {"avx": True, "avx512f": True}, ((8, 2), True)),
    ("skylake-avx512", {"avx": True, "avx512f": True}, ((8, 2), True)),
    ("znver4", {"avx": True, "avx512f": True}, ((16, 1), False)),
    ("generic", {"avx": True, "avx512f": True}, ((16, 1), False)),
    ("haswell", {"avx": True, "avx2": True}, ((6, 2), False)),
])  # fmt: skip
def test_exact_tile_of_a_machine(tmp_path, cpu, features, expected):
    """Intel's AVX-512 CPUs broadcast from memory in the load units: the exact
    kernels' tile is 8 rows of two vectors; AMD's take a vector pipe for it:
    16 rows of one vector, whose broadcasts fold into the multiplies."""
    from tlir.passes.contraction_kernels.tiling import register_tile

    target = describe_target(cpu, features, _sysfs(tmp_path / "cache", []))
    assert (register_tile(target), target.load_broadcasts) == expected


@pytest.mark.parametrize("cpu, features, caches, expected", MACHINES)
@pytest.mark.parametrize("element", [8, 4])
def test_tiling_follows_the_machine(tmp_path, cpu, features, caches, expected, element):
    """The cut of a 1024³ linear on each machine: the register tile's panel of
    B and its rows of A within half of that machine's L1 along k; a packed block
    of B wider than the stack within a quarter of its L2."""
    target = describe_target(cpu, features, _sysfs(tmp_path / "cache", caches))
    tiling = choose_tiling(target, element, 1024, 1024, 1024, wide_panel=True)
    assert tiling.nr == tiling.nv * target.vector_bytes // element
    if tiling.mr > 1:
        assert tiling.kc * (tiling.nr + tiling.mr) * element <= target.l1_bytes // 2
    else:
        assert tiling.kc * tiling.nr * element <= target.l1_bytes * 3 // 4
    if tiling.panel_in_scratch:
        assert tiling.kc * tiling.nc * element <= target.l2_bytes // 4
