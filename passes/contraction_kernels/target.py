"""What the kernels are tuned for: vector width, register count, cache sizes."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TargetInfo:
    """The host properties the generator uses (override any field in tests)."""

    vector_bytes: int = 32
    """Width of one SIMD register: 64 (AVX-512), 32 (AVX/AVX2), 16 (SSE2)."""
    registers: int = 16
    """Number of SIMD registers: 32 with AVX-512, 16 otherwise."""
    l1_bytes: int = 32 * 1024
    l2_bytes: int = 512 * 1024
    stack_bytes: int = 64 * 1024
    """Bound on the stack temporaries (`memref.alloca`) of one kernel call."""
    tile: tuple[int, int] | None = None
    """(rows, vectors) of the register tile; None: chosen from `registers`."""
    l1_ways: int = 8
    """Associativity of the L1 data cache: with `l1_bytes`, its number of sets,
    and how many rows a multiple of a set's span apart it holds at once
    (`generator._rows_per_set`)."""
    load_broadcasts: bool = False
    """Whether a vector broadcast from memory runs on the load ports alone (Intel
    with AVX-512) rather than also on a vector pipe (AMD Zen 4): then the exact
    kernels' tile is two vectors wide (`tiling.register_tile`)."""
    k_block_l1: tuple[int, int] = (1, 2)
    """The share of L1 (numerator, denominator) that a k block's panel of B and
    the tile's packed rows of A fill, with several rows per tile: the bound on
    kc (`tiling.choose_tiling`; `tiling.fused_target` raises it)."""

    merge_units: bool = False
    """Whether a call runs the consecutive units of one row block that it
    takes as one wider unit (`Tiling.merge_units`)."""

    def lanes(self, element_bytes: int) -> int:
        return self.vector_bytes // element_bytes


CACHE_ROOT = Path("/sys/devices/system/cpu/cpu0/cache")
"""Where Linux describes the caches of the first CPU (one `index*` directory each)."""


def _cache_file(level: int, name: str, root: Path) -> str | None:
    """The text of file `name` (`size`, `ways_of_associativity`) of the data or
    unified cache of `level` under `root`, or None."""
    try:
        for index in sorted(root.glob("index*")):
            kind = (index / "type").read_text().strip()
            if int((index / "level").read_text()) == level and kind in ("Data", "Unified"):
                return (index / name).read_text().strip()
    except (OSError, ValueError):
        pass
    return None


def _cache_size(level: int, default: int, root: Path = CACHE_ROOT) -> int:
    """The size of the data/unified cache of `level` (sysfs: "48K"), or `default`."""
    text = _cache_file(level, "size", root) or ""
    scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
    try:
        return int(text.rstrip("KM")) * scale
    except ValueError:
        return default


def _cache_ways(level: int, default: int, root: Path = CACHE_ROOT) -> int:
    """The associativity of the data/unified cache of `level` (sysfs), or `default`."""
    try:
        ways = int(_cache_file(level, "ways_of_associativity", root) or "")
    except ValueError:
        return default
    return ways if ways > 0 else default


def describe_target(cpu: str, features: Mapping[str, bool], cache_root: Path = CACHE_ROOT
                    ) -> TargetInfo:  # fmt: skip
    """The target of a CPU by LLVM's name and features (as llvmlite reports
    them), with the cache sizes and the L1's associativity under `cache_root`
    (Linux's sysfs layout; the defaults where absent): 512-bit vectors and 32
    registers with avx512f, 256-bit and 16 with avx, 128-bit otherwise."""
    if features.get("avx512f"):
        width, registers = 64, 32
    elif features.get("avx"):
        width, registers = 32, 16
    else:
        width, registers = 16, 16
    # Zen 1 splits 256-bit ops in two and its separate loads and broadcasts
    # compete with the arithmetic: a one-row tile whose multiplies take B from
    # memory runs fastest there (see `tiling.register_tile`).
    tile = (1, 12) if cpu == "znver1" and width == 32 else None
    # AMD's broadcasts from memory take a vector pipe (znver4, znver5); Intel's
    # AVX-512 CPUs do them in the load units (`TargetInfo.load_broadcasts`).
    intel = not cpu.startswith("znver") and cpu not in ("generic", "")
    return TargetInfo(
        vector_bytes=width,
        registers=registers,
        tile=tile,
        load_broadcasts=width == 64 and intel,
        l1_bytes=_cache_size(1, 32 * 1024, cache_root),
        l2_bytes=_cache_size(2, 512 * 1024, cache_root),
        l1_ways=_cache_ways(1, 8, cache_root),
    )


@functools.cache
def host_target() -> TargetInfo:
    """`describe_target` of this machine: llvmlite's host CPU name and
    features, this machine's sysfs. The compile cache's key holds it (and the
    CPU name and features), so a cached kernel meets only the target it was
    tuned for."""
    import llvmlite.binding as llvm

    return describe_target(llvm.get_host_cpu_name(), llvm.get_host_cpu_features())
