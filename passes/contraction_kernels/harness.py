"""Compile one kernel by itself and call it on NumPy buffers, through either back
end; disassemble it. For the tests and `bench/kernels.py` (the compile path of
`tlir.compile` is separate)."""

from __future__ import annotations

import ctypes
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

MLIR_PIPELINE = (
    "--convert-scf-to-cf",
    "--convert-vector-to-llvm",
    "--expand-strided-metadata",
    "--finalize-memref-to-llvm",
    "--convert-math-to-libm",
    "--convert-math-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-index-to-llvm",
    "--convert-func-to-llvm=use-bare-ptr-memref-call-conv=1",
    "--convert-cf-to-llvm",
    "--reconcile-unrealized-casts",
)
"""Upstream MLIR's route for a kernel: loops to branches, vector and memref ops to
LLVM, bare pointers for memrefs (the ABI of tlir's route)."""


def kernel_module(function: func.FuncOp) -> ModuleOp:
    return ModuleOp([function.clone()])


def llvm_ir_xdsl(function: func.FuncOp) -> str:
    """tlir's own route: xDSL's convert-scf-to-cf, tlir-lower-to-llvm, xDSL's translator."""
    from xdsl.backend.llvm.convert import convert_module
    from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf

    from tlir.dialects.tlir_llvm import install
    from tlir.passes.tlir_lower_to_llvm import TlirLowerToLLVM
    from tlir.universe import context

    module = kernel_module(function)
    ctx = context()
    ConvertScfToCf().apply(ctx, module)
    TlirLowerToLLVM().apply(ctx, module)
    install()
    return str(convert_module(module, fallback_target_triple=None))


def llvm_ir_mlir(function: func.FuncOp) -> str:
    """Upstream MLIR: `mlir-opt` (MLIR_PIPELINE) then `mlir-translate --mlir-to-llvmir`."""
    from tlir.backend.mlir import _run

    text = str(kernel_module(function))
    lowered = _run("mlir-opt", list(MLIR_PIPELINE), text, "kernel")
    return _run("mlir-translate", ["--mlir-to-llvmir"], lowered, "kernel")


class CompiledKernel:
    """A kernel compiled for the host CPU; `kernel(inputs…, output, lo, hi)`."""

    def __init__(self, function: func.FuncOp, backend: str = "xdsl", opt_level: int = 2):
        from tlir.jit import CompiledModule

        self.name = function.sym_name.data
        self.extent = function.attributes["tlir.parallel_extent"].value.data
        self.count = len(function.function_type.inputs.data) - 2
        ir = llvm_ir_xdsl(function) if backend == "xdsl" else llvm_ir_mlir(function)
        self.llvm_ir = ir
        self.opt_level = opt_level
        self.module = CompiledModule(ir, opt_level=opt_level)
        types = [ctypes.c_void_p] * self.count + [ctypes.c_int64] * 2
        self.function = self.module.function(self.name, types)

    def __call__(
        self, buffers: Sequence[np.ndarray], ranges: Sequence[tuple[int, int]] | None = None
    ) -> None:
        """Run on C-contiguous buffers (the output last), over `ranges` of work
        units (all of them by default), one call per range."""
        assert len(buffers) == self.count
        keep = [b if b.size else np.empty(1, b.dtype) for b in buffers]
        for b in buffers:
            assert b.flags.c_contiguous
        pointers = [b.ctypes.data for b in keep]
        for lo, hi in ranges if ranges is not None else [(0, self.extent)]:
            self.function(*pointers, lo, hi)

    def assembly(self) -> str:
        """The kernel's machine code as assembly (host CPU, same optimisation)."""
        return assembly(self.llvm_ir, self.name, self.opt_level)


def assembly(llvm_ir: str, name: str, opt_level: int = 2) -> str:
    import llvmlite.binding as llvm

    from tlir.jit import _optimize, _target_machine

    machine = _target_machine(opt_level)
    module = llvm.parse_assembly(llvm_ir)
    _optimize(module, machine, opt_level)
    text = machine.emit_assembly(module)
    start = re.search(rf"^{re.escape(name)}:", text, re.M)
    if start is None:
        return text
    end = text.find(".Lfunc_end", start.end())
    return text[start.start() : end if end >= 0 else len(text)]


def instruction_counts(asm: str) -> Counter:
    """Mnemonic + register width of the arithmetic that matters here:
    `vmulpd ymm`, `vaddps zmm`, any `vfmadd…`."""
    counts: Counter = Counter()
    for line in asm.splitlines():
        parts = line.split()
        if not parts or parts[0].startswith((".", "#")) or parts[0].endswith(":"):
            continue
        mnemonic = parts[0]
        if mnemonic.startswith(("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")):
            counts["fma"] += 1
        if mnemonic in ("vmulpd", "vaddpd", "vmulps", "vaddps", "mulpd", "addpd", "mulps",
                        "addps", "vmulsd", "vaddsd", "vmulss", "vaddss"):  # fmt: skip
            width = "zmm" if "zmm" in line else "ymm" if "ymm" in line else "xmm"
            counts[f"{mnemonic} {width}"] += 1
    return counts
