"""The layout of a frozen linear's weight packed once (`PackedPanels`), apart
from the kernels that read it (`prepacked.py`): a warm compile links a cached
plan's packed constants with this module alone, NumPy and no xDSL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tlir.passes.contraction_kernels.tiling import Tiling

PACKED_WEIGHT = "tlir.packed_weight"
"""Marks a `tlir.linear` whose weight is a constant of a frozen model: its
kernel takes the weight packed (`PackedPanels`) instead of the weight."""


@dataclass(frozen=True)
class PackedPanels:
    k: int
    n: int
    nr: int
    """The register tile's columns."""

    @property
    def padded(self) -> int:
        """N rounded up to whole tiles: the columns past N are +0."""
        return -(-self.n // self.nr) * self.nr

    @property
    def size(self) -> int:
        """Elements of the packed array."""
        return max(1, self.padded * self.k)

    def as_list(self) -> list[int]:
        return [self.k, self.n, self.nr]

    @classmethod
    def from_list(cls, values: list) -> PackedPanels:
        """The layout `as_list` wrote, checked (a cached plan's)."""
        if len(values) != 3 or not all(type(v) is int and v > 0 for v in values):
            raise ValueError("a packed weight layout is three positive integers")
        return cls(*values)

    @classmethod
    def for_tiling(cls, tiling: Tiling, k: int, n: int) -> PackedPanels:
        return cls(k, n, tiling.nr)

    def of(self, weight: np.ndarray) -> np.ndarray:
        """The packed copy of `weight` (N × K): flat, read-only, 64-byte aligned
        (as the kernel's own stack panel: whole vectors, no line splits)."""
        assert weight.shape == (self.n, self.k), (weight.shape, self.n, self.k)
        spare = 64 // weight.itemsize
        buffer = np.empty(self.size + spare, weight.dtype)
        start = (-buffer.ctypes.data % 64) // weight.itemsize
        packed = buffer[start : start + self.size]
        packed[...] = 0
        if self.n and self.k:
            columns = np.zeros((self.padded, self.k), weight.dtype)
            columns[: self.n] = weight
            tiles = columns.reshape(-1, self.nr, self.k).transpose(0, 2, 1)  # [tile][k][lane]
            packed[: tiles.size] = tiles.reshape(-1)
        packed.flags.writeable = False
        return packed
