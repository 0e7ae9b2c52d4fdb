"""tlir's own back end: the xDSL route (`tlir-to-llvm`) and xDSL's LLVM IR
translator. No external tool is needed."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import TlirError


def lower_to_llvm_dialect(module: ModuleOp) -> ModuleOp:
    """A copy of `module` in the LLVM dialect."""
    from tlir.api import context
    from tlir.passes.tlir_to_llvm import TlirToLLVM

    lowered = module.clone()
    TlirToLLVM().apply(context(), lowered)
    return lowered


def llvm_dialect_to_ir(module: ModuleOp, where: str = "module") -> str:
    """LLVM IR text of a module of `llvm.func`s and `llvm.mlir.global`s."""
    from xdsl.backend.llvm.convert import convert_module

    try:
        return str(convert_module(module, fallback_target_triple=None))
    except NotImplementedError as err:
        raise TlirError(where, f"cannot translate to LLVM IR: {err}") from None


def to_llvm_ir(module: ModuleOp, where: str = "module") -> str:
    return llvm_dialect_to_ir(lower_to_llvm_dialect(module), where)
