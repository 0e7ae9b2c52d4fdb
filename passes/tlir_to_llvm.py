"""`tlir-to-llvm`: the whole xDSL route, tlir to the LLVM dialect, as one pass.

  tlir-inline-custom, tlir-form-kernels,             one function per (fused) kernel,
  tlir-dedup-kernels                                 each distinct kernel once
  convert-tlir-to-linalg, convert-random-to-arith,   per-op rewrites, RNG in arith
  tlir-fuse-elementwise                              one loop nest per elementwise chain
  tlir-bufferize, tlir-linalg-to-loops               buffers, loops over [lo, hi)
  tlir-scf-to-cf, tlir-lower-to-llvm                 branches, then the LLVM dialect

`tlir-opt -p` with a prefix of this list prints any stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

KERNEL_FORMATION = ("tlir-inline-custom", "tlir-form-kernels", "tlir-dedup-kernels")
"""tlir level: one function per distinct kernel, called from the graph's function."""

KERNEL_LOWERING = (
    "convert-tlir-to-linalg",
    "convert-random-to-arith",
    "tlir-fuse-elementwise",
    "tlir-bufferize",
    "tlir-linalg-to-loops",
)
"""Each kernel to loops on buffers (the part both back ends share)."""

TO_LLVM = ("tlir-scf-to-cf", "tlir-lower-to-llvm")
"""tlir's own route from loops to the LLVM dialect."""

STAGES = (*KERNEL_FORMATION, *KERNEL_LOWERING, *TO_LLVM)


def stage_passes(names: tuple[str, ...] = STAGES) -> list[ModulePass]:
    from xdsl.transforms import get_all_passes

    from tlir.universe import tlir_passes

    available = {**get_all_passes(), **tlir_passes()}
    return [available[name]()() for name in names]


@dataclass(frozen=True)
class TlirToLLVM(ModulePass):
    """Run the whole xDSL route from tlir to the LLVM dialect."""

    name = "tlir-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tlir.passes.tlir_specialize_batch import refuse_dynamic

        refuse_dynamic(op, self.name)
        for stage in stage_passes():
            stage.apply(ctx, op)
