"""A linear layer's constant weight packed once (`parameters="frozen"`).

The GEMM of `tlir.linear` packs B(k, j) = W[j, k] per unit and k block into a
kc × ldp panel (`gemm.StridedPacker`, a transpose). A weight that never
changes can be packed once, ahead of the calls, into exactly what those
panels hold: `PackedPanels` is that layout, column block by column block

    packed[(b·K + k)·ldp + j - b·width] = W[j, k]  for b·width ≤ j < (b+1)·width, j < N
                                        = +0       for N ≤ j < N rounded up to the tile width

(`width` the unit's columns, nc; with merged units, one block of all N), so
that the panel of the unit at column c0 for the k block at k0 is the packed
array at `(c0 // width)·K·ldp + c0 mod width + k0·ldp`, rows ldp apart, as the
kernel's own panel would be. `PrepackedPacker` points the register tiles at
it and copies nothing; each output sees the same terms in the same order, so
the results are the bits of the kernel that packs per call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.gemm import Bases
from tlir.passes.contraction_kernels.tiling import Tiling

PACKED_WEIGHT = "tlir.packed_weight"
"""Marks a `tlir.linear` whose weight is a constant of a frozen model: its
kernel takes the weight packed (`PackedPanels`) instead of the weight."""


@dataclass(frozen=True)
class PackedPanels:
    k: int
    n: int
    width: int
    """Columns per block (the unit's nc; all N, rounded up, with merged units)."""
    ldp: int
    """Row stride of a block (the tiling's ldp)."""
    padded: int
    """N rounded up to the register tile's width: the columns past N are +0."""

    @property
    def blocks(self) -> int:
        return -(-self.padded // self.width)

    @property
    def size(self) -> int:
        """Elements of the packed array."""
        return max(1, self.blocks * self.k * self.ldp)

    def as_list(self) -> list[int]:
        return [self.k, self.n, self.width, self.ldp, self.padded]

    @classmethod
    def from_list(cls, values: list) -> PackedPanels:
        """The layout `as_list` wrote, checked for consistency (a cached plan's)."""
        if len(values) != 5 or not all(type(v) is int and v > 0 for v in values):
            raise ValueError("a packed weight layout is five positive integers")
        layout = cls(*values)
        if not (layout.n <= layout.padded and layout.width <= layout.ldp):
            raise ValueError("an inconsistent packed weight layout")
        return layout

    @classmethod
    def for_tiling(cls, tiling: Tiling, k: int, n: int) -> PackedPanels:
        padded = -(-n // tiling.nr) * tiling.nr
        width = padded if tiling.merge_units else tiling.nc
        return cls(k, n, width, tiling.ldp, padded)

    def of(self, weight: np.ndarray) -> np.ndarray:
        """The packed copy of `weight` (N × K), flat and read-only."""
        assert weight.shape == (self.n, self.k), (weight.shape, self.n, self.k)
        packed = np.zeros((self.blocks, self.k, self.ldp), weight.dtype)
        for b in range(self.blocks):
            first, last = b * self.width, min((b + 1) * self.width, self.n)
            if first < last:
                packed[b, :, : last - first] = weight[first:last].T
        flat = packed.reshape(-1)[: self.size] if packed.size else np.zeros(1, weight.dtype)
        # 64-byte aligned, as the kernel's own stack panel: whole vectors, no line splits
        spare = 64 // weight.itemsize
        buffer = np.empty(self.size + spare, weight.dtype)
        start = (-buffer.ctypes.data % 64) // weight.itemsize
        aligned = buffer[start : start + self.size]
        aligned[...] = flat
        aligned.flags.writeable = False
        return aligned


@dataclass
class PrepackedPacker:
    """The panels of B already in `buffer` (`PackedPanels`): packing a block is
    pointing the tiles at it."""

    buffer: SSAValue
    layout: PackedPanels

    def pack(self, kb: KernelBuilder, bases: Bases, dst: SSAValue, tiling: Tiling, k0: Index,
             kc: Index, c0: Index, c1: Index, at_end) -> None:  # fmt: skip
        assert dst is self.buffer and tiling.ldp == self.layout.ldp
        layout = self.layout
        block = kb.mul(kb.div(c0, layout.width), layout.k * layout.ldp)
        bases.panel = kb.add(kb.add(block, kb.rem(c0, layout.width)), kb.mul(k0, layout.ldp))
