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


def kernel_module(function: func.FuncOp) -> ModuleOp:
    return ModuleOp([function.clone()])


def llvm_ir(function: func.FuncOp, backend: str = "xdsl") -> str:
    """The kernel's LLVM IR through one of the compiler's two back ends."""
    from tlir.compiler.backend import mlir, xdsl

    module = kernel_module(function)
    if backend == "xdsl":
        return xdsl.kernel_llvm_ir(module, "kernel")
    return mlir.kernel_llvm_ir(module, "kernel")


class CompiledKernel:
    """A kernel compiled for the host CPU; `kernel(inputs…, output, lo, hi)` (the
    kernel's scratch buffers, if any, are the harness's own)."""

    def __init__(self, function: func.FuncOp, backend: str = "xdsl", opt_level: int = 2):
        from tlir.compiler import jit
        from tlir.compiler.backend import kernel_abi

        self.name = function.sym_name.data
        abi = kernel_abi(kernel_module(function), self.name)
        self.extent = abi.parallel_extent
        self.count = abi.num_inputs + abi.num_outputs
        self.scratch = [np.empty(nbytes, np.uint8) for nbytes in abi.scratch_bytes]
        self.llvm_ir = llvm_ir(function, backend)
        self.opt_level = opt_level
        self.engine = jit.Engine([jit.compile_object(self.llvm_ir, opt_level, "kernel")])
        types = [ctypes.c_void_p] * abi.arity + [ctypes.c_int64] * 2
        self.function = self.engine.function(self.name, None, types)

    def __call__(
        self, buffers: Sequence[np.ndarray], ranges: Sequence[tuple[int, int]] | None = None
    ) -> None:
        """Run on C-contiguous buffers (the output last), over `ranges` of work
        units (all of them by default), one call per range."""
        assert len(buffers) == self.count
        keep = [b if b.size else np.empty(1, b.dtype) for b in buffers]
        for b in buffers:
            assert b.flags.c_contiguous
        pointers = [b.ctypes.data for b in [*keep, *self.scratch]]
        for lo, hi in ranges if ranges is not None else [(0, self.extent)]:
            self.function(*pointers, lo, hi)

    def assembly(self) -> str:
        """The kernel's machine code as assembly (host CPU, same optimisation)."""
        return assembly(self.llvm_ir, self.name, self.opt_level)


def assembly(llvm_ir: str, name: str, opt_level: int = 2) -> str:
    """The assembly of function `name` in `llvm_ir` (optimised as the JIT does)."""
    from tlir.compiler import jit

    text = jit.assembly(llvm_ir, opt_level)
    start = re.search(rf"^{re.escape(name)}:", text, re.M)
    if start is None:
        return text
    end = text.find(".Lfunc_end", start.end())
    return text[start.start() : end if end >= 0 else len(text)]


def instruction_counts(asm: str) -> Counter:
    """Mnemonic + register width of the arithmetic that matters here:
    `vmulpd ymm`, `vaddps zmm`, any `vfmadd…`, how A is broadcast, and the
    lane shuffles of an in-register transpose (`shuffle zmm`)."""
    counts: Counter = Counter()
    for line in asm.splitlines():
        parts = line.split()
        if not parts or parts[0].startswith((".", "#")) or parts[0].endswith(":"):
            continue
        mnemonic = parts[0]
        if mnemonic.startswith(("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")):
            counts["fma"] += 1
        if mnemonic.startswith("vbroadcasts"):  # a shuffle-unit broadcast of A
            counts["broadcast " + ("zmm" if "zmm" in line else "ymm/xmm")] += 1
        if mnemonic.startswith(("vunpck", "vperm", "vshuf", "vinsert")):
            counts["shuffle " + ("zmm" if "zmm" in line else "ymm/xmm")] += 1
        if "{1to" in line:  # an embedded broadcast, done by the load unit
            counts["embedded broadcast"] += 1
        if mnemonic in ("vmulpd", "vaddpd", "vmulps", "vaddps", "mulpd", "addpd", "mulps",
                        "addps", "vmulsd", "vaddsd", "vmulss", "vaddss"):  # fmt: skip
            width = "zmm" if "zmm" in line else "ymm" if "ymm" in line else "xmm"
            counts[f"{mnemonic} {width}"] += 1
    return counts
