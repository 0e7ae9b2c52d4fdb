"""`tlir-contraction-kernels`: add the kernel of every `tlir.matmul`,
`tlir.linear` and `tlir.conv` to the module (`@<function>__<op><n>`), as
`contraction_kernel` builds it, for inspection and FileCheck tests; the
functions themselves are left alone (the compile path calls the generator
itself). The target is given by options, not read from the host, so the
output is the same on every machine:

    tlir-opt m.mlir -p 'tlir-contraction-kernels{vector_bytes=32 registers=16
                        tile_rows=6 tile_vectors=2}'     (on one line)

`numerics=fma` builds the kernels of the opt-in `fma` numerics (each term one
`math.fma`, with that numerics' tiling: `tiling.fused_target`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class TlirContractionKernels(ModulePass):
    name = "tlir-contraction-kernels"

    vector_bytes: int = 32
    registers: int = 16
    tile_rows: int = 0
    """With tile_vectors: the register tile (0: chosen from `registers`)."""
    tile_vectors: int = 0
    l1_bytes: int = 32 * 1024
    l1_ways: int = 8
    l2_bytes: int = 512 * 1024
    stack_bytes: int = 64 * 1024
    numerics: str = "exact"
    """`exact` or `fma`."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tlir.diagnostics import TlirError
        from tlir.dialects import tlir as T
        from tlir.passes.contraction_kernels import TargetInfo, contraction_kernel
        from tlir.passes.tlir_specialize_batch import refuse_dynamic

        refuse_dynamic(op, self.name)
        if self.numerics not in ("exact", "fma"):
            raise TlirError(self.name, f"numerics must be exact or fma, got {self.numerics!r}")
        fused = self.numerics == "fma"

        tile = (self.tile_rows, self.tile_vectors) if self.tile_rows and self.tile_vectors else None
        target = TargetInfo(self.vector_bytes, self.registers, self.l1_bytes, self.l2_bytes,
                            self.stack_bytes, tile, self.l1_ways)  # fmt: skip
        kernels = []
        for function in op.ops:
            if not isinstance(function, func.FuncOp):
                continue
            count = 0
            for inner in function.walk():
                if isinstance(inner, T.MatmulOp | T.LinearOp | T.ConvOp):
                    kind = inner.name.removeprefix("tlir.")
                    name = f"{function.sym_name.data}__{kind}{count}"
                    kernels.append(
                        contraction_kernel(inner, name, target, fused_multiply_add=fused)
                    )
                    count += 1
        for kernel in kernels:
            op.body.block.add_op(kernel)
