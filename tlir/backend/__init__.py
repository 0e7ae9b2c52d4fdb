"""Back ends: one distinct kernel at a time, from tlir to LLVM IR.

Both back ends share the way down to loops on buffers (`kernel_to_loops`:
convert-tlir-to-linalg, convert-random-to-arith, tlir-fuse-elementwise,
tlir-bufferize, tlir-linalg-to-loops); from there `tlir.backend.xdsl` takes
the kernel to LLVM IR with tlir's own passes and xDSL's LLVM translator, and
`tlir.backend.mlir` with upstream `mlir-opt` and `mlir-translate`. Every
kernel gets an `@name.entry(args, lo, hi)` wrapper that reads its buffer
pointers from an array, the form the threading runtime calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tlir.interface import numpy_dtype
from tlir.plan import kernel_entry_ir

BACKENDS = ("xdsl", "mlir")
"""`xdsl`: tlir's own route (no external tool); `mlir`: upstream mlir-opt/mlir-translate."""


@dataclass(frozen=True)
class KernelABI:
    """A lowered kernel's signature: `(inputs…, outputs…, scratch…, lo, hi)`."""

    num_inputs: int
    num_outputs: int
    scratch_bytes: tuple[int, ...]
    parallel_extent: int

    @property
    def arity(self) -> int:
        """Number of buffer arguments."""
        return self.num_inputs + self.num_outputs + len(self.scratch_bytes)


def kernel_to_loops(kernel: func.FuncOp) -> ModuleOp:
    """A module holding the kernel, lowered to loops on buffers (public: it is
    linked across objects)."""
    from tlir.passes.tlir_to_llvm import KERNEL_LOWERING, stage_passes
    from tlir.universe import context

    clone = kernel.clone()
    clone.sym_visibility = None
    module = ModuleOp([clone])
    ctx = context()
    for stage in stage_passes(KERNEL_LOWERING):
        stage.apply(ctx, module)
    return module


def kernel_abi(module: ModuleOp, name: str) -> KernelABI:
    function = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name
    )
    attrs = function.attributes
    num_inputs = attrs["tlir.num_inputs"].value.data
    num_outputs = attrs["tlir.num_outputs"].value.data
    buffers = function.function_type.inputs.data[:-2]
    scratch = tuple(
        math.prod(t.get_shape()) * numpy_dtype(t).itemsize
        for t in buffers[num_inputs + num_outputs :]
    )
    extent = attrs["tlir.parallel_extent"].value.data
    return KernelABI(num_inputs, num_outputs, scratch, extent)


def with_entry(llvm_ir: str, name: str, abi: KernelABI) -> str:
    return llvm_ir + "\n" + kernel_entry_ir(name, abi.arity)
