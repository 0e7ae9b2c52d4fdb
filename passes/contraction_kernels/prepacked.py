"""A linear layer's constant weight packed once (`parameters="frozen"`).

The GEMM of `tlir.linear` packs B(k, j) = W[j, k] per unit and k block into a
kc × ldp panel (`gemm.StridedPacker`, a transpose), which its register tiles
read nr columns (one tile) and one k at a time. A weight that never changes
can be packed once, ahead of the calls, into what the tiles read, in the order
they read it: `PackedPanels` is the layout, column tile by column tile

    packed[((j // nr)·K + k)·nr + j mod nr] = W[j, k]  for j < N
                                            = +0       for N ≤ j < N rounded up to nr

so that the tile at column jr (a multiple of nr) reads summed index k at
`(jr / nr · K + k)·nr`: one sequential stream per tile (the hardware
prefetchers follow it from memory; rows of a wide panel ldp apart did not: the
bench MLP's first layer ran 3-20 % slower with its weight read where the
panels would be, cold). The packer copies nothing (`PrepackedPacker`); each
output sees the same terms in the same order, so the results are the bits of
the kernel that packs per call.
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


@dataclass
class PrepackedPacker:
    """The tiles' columns of B already in `buffer` (`PackedPanels`): nothing to
    pack; the tiles read it (`GemmEmitter.micro`, `vectors`)."""

    buffer: SSAValue
    layout: PackedPanels

    def pack(self, kb: KernelBuilder, bases: Bases, dst: SSAValue, tiling: Tiling, k0: Index,
             kc: Index, c0: Index, c1: Index, at_end) -> None:  # fmt: skip
        assert dst is self.buffer and tiling.nr == self.layout.nr

    def vectors(self, kb: KernelBuilder, jr: Index, k0: Index, vt) -> object:
        """`b_vectors` of the tile at column jr in the k block at k0."""
        layout, lanes = self.layout, vt.get_shape()[0]
        base = kb.mul(kb.add(kb.mul(kb.div(jr, layout.nr), layout.k), k0), layout.nr)

        def vectors(k: Index, u: int, nv: int) -> list[SSAValue]:
            at = kb.add(base, kb.mul(kb.add(k, u), layout.nr))
            return [kb.vload(self.buffer, kb.add(at, v * lanes), vt) for v in range(nv)]

        return vectors
