"""tlir's own back end: `tlir-lower-to-llvm`'s walk writing a kernel's LLVM IR
text from its loops (structured control flow included), or, after
`tlir-scf-to-cf`, building the LLVM dialect for xDSL's LLVM IR translator
(`tlir-translate --mlir-to-llvmir`). No external tool is needed."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import TlirError


def lower_to_llvm_dialect(module: ModuleOp) -> ModuleOp:
    """A copy of `module` taken through the whole `tlir-to-llvm` route."""
    from tlir.passes.tlir_to_llvm import TlirToLLVM
    from tlir.universe import context

    lowered = module.clone()
    TlirToLLVM().apply(context(), lowered)
    return lowered


def kernel_llvm_ir(loops: ModuleOp, where: str = "module") -> str:
    """LLVM IR of a kernel module already lowered to loops on buffers:
    `tlir-lower-to-llvm`'s walk writing the text itself, its loops and ifs
    into the blocks `tlir-scf-to-cf` would have made (no LLVM dialect op is
    built; `tlir-to-llvm` and `llvm_dialect_to_ir` give the same program)."""
    from tlir.passes.llvm_text import TextEmitter
    from tlir.passes.tlir_lower_to_llvm import ModuleLowering

    return ModuleLowering(loops, TextEmitter()).run()


def llvm_dialect_to_ir(module: ModuleOp, where: str = "module") -> str:
    """LLVM IR text of a module of `llvm.func`s and `llvm.mlir.global`s."""
    from xdsl.backend.llvm.convert import convert_module
    from xdsl.dialects import llvm

    from tlir.dialects.tlir_llvm import install

    install()  # tlir-lower-to-llvm's vector compare/select (tlir_llvm dialect)
    try:
        llvm_module = convert_module(module, fallback_target_triple=None)
    except NotImplementedError as err:
        raise TlirError(where, f"cannot translate to LLVM IR: {err}") from None
    # xDSL's translator drops `no_inline`; carry it over from the IR.
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and op.no_inline is not None and op.body.blocks:
            llvm_module.get_global(op.sym_name.data).attributes.add("noinline")
    return str(llvm_module)
