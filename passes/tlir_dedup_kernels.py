"""`tlir-dedup-kernels`: identical kernels become one function.

A kernel's identity is what determines its machine code: its body's ops,
properties, operand and result types, and the numerics mode (always strict
today) — never the weights, which reach kernels as arguments. Two kernels
with the same canonical text (printed without names or locations) are one
kernel, named `k_<hash>` after that text, and every call is retargeted to it.
Every later pass, and LLVM, then runs once per distinct kernel; the name is
also the kernel's key in the compile cache. (MLIR has no such pass: it
stands in for the deduplication MLIR-based compilers do at the kernel level.)
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from tlir.passes.fast_ops import symbol_ref
from tlir.passes.tlir_form_kernels import body_structure, is_kernel

NUMERICS_MODE = "strict"
"""Sums in TorchLean's order, no reassociation, no FMA: part of every kernel key."""


def kernel_text(kernel: func.FuncOp) -> str:
    """The kernel in canonical form: fixed name, no value names, no locations."""
    clone = kernel.clone()
    clone.sym_name = StringAttr("kernel")
    for op in clone.walk():
        for result in op.results:
            result.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.name_hint = None
    out = io.StringIO()
    out.write(f"// numerics: {NUMERICS_MODE}\n")
    Printer(stream=out, print_debuginfo=False).print_op(clone)
    return out.getvalue()


def kernel_hash(kernel: func.FuncOp) -> str:
    return hashlib.sha256(kernel_text(kernel).encode()).hexdigest()


def structure(kernel: func.FuncOp) -> tuple:
    """A hashable summary equal for two kernels exactly when their canonical texts
    are (cheap: no printing); the text is printed once per distinct kernel."""
    block = kernel.body.block
    return (kernel.function_type, *body_structure(block.args, block.ops))


def dedup_kernels(module: ModuleOp) -> dict[str, str]:
    """Merge identical kernels; returns old name → new name."""
    renamed: dict[str, str] = {}
    names: dict[tuple, str] = {}
    for kernel in [op for op in module.ops if isinstance(op, func.FuncOp) and is_kernel(op)]:
        if len(kernel.body.blocks) != 1:
            continue  # a declaration, or a kernel already lowered to branches: left alone
        old = kernel.sym_name.data
        key = structure(kernel)
        name = names.get(key)
        if name is not None:
            kernel.detach()
            kernel.erase()
        else:
            name = names[key] = "k_" + kernel_hash(kernel)[:20]
            kernel.sym_name = StringAttr(name)
        renamed[old] = name
    for op in module.walk():
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in renamed:
            op.callee = symbol_ref(renamed[op.callee.root_reference.data])
    return renamed


@dataclass(frozen=True)
class TlirDedupKernels(ModulePass):
    """Identical kernel functions (by canonical text) become one, named by its hash."""

    name = "tlir-dedup-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        dedup_kernels(op)
