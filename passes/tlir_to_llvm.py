"""`tlir-to-llvm`: the whole xDSL route, tlir to the LLVM dialect, as one pass.

  convert-tlir-to-linalg, convert-random-to-arith,   per-op rewrites, RNG in arith
  tlir-bufferize, tlir-outline-kernels,              buffers, one function per kernel
  convert-linalg-to-loops, lower-affine,             loops (xDSL's passes)
  convert-scf-to-cf, tlir-lower-to-llvm              branches, then the LLVM dialect

`tlir-opt -p` with a prefix of this list prints any stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

STAGES = (
    "convert-tlir-to-linalg",
    "convert-random-to-arith",
    "tlir-bufferize",
    "tlir-outline-kernels",
    "convert-linalg-to-loops",
    "lower-affine",
    "convert-scf-to-cf",
    "tlir-lower-to-llvm",
)


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
        for stage in stage_passes():
            stage.apply(ctx, op)
