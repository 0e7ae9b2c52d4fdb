"""A linear layer's constant weight packed once (`parameters="frozen"`).

The GEMM of `tlir.linear` packs B(k, j) = W[j, k] per unit and k block into a
kc × ldp panel (`packing.StridedPacker`, a transpose), which its register tiles
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
the kernel that packs per call. The layout itself is `packed_weight.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import SSAValue

from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.contraction_kernels.packed_weight import PACKED_WEIGHT, PackedPanels
from tlir.passes.contraction_kernels.packing import Bases
from tlir.passes.contraction_kernels.tiling import Tiling


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


__all__ = ["PACKED_WEIGHT", "PackedPanels", "PrepackedPacker"]
