"""tlir's own back end: the xDSL route (`tlir-to-llvm`) and xDSL's LLVM IR
translator. No external tool is needed."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import TlirError


def lower_to_llvm_dialect(module: ModuleOp) -> ModuleOp:
    """A copy of `module` in the LLVM dialect."""
    from tlir.passes.tlir_to_llvm import TlirToLLVM
    from tlir.universe import context

    lowered = module.clone()
    TlirToLLVM().apply(context(), lowered)
    return lowered


def detach_constants(module: ModuleOp, prefix: str) -> dict[str, np.ndarray]:
    """Turn every constant global into an external declaration named
    `prefix + name`, and return the arrays that must back those symbols.

    The JIT binds each symbol to its NumPy array, so weights never pass through
    LLVM IR text or LLVM's optimizer (which would otherwise spend most of its
    time on them)."""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import StringAttr, SymbolRefAttr

    arrays: dict[str, np.ndarray] = {}
    renamed: dict[str, str] = {}
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp) and op.value is not None:
            name = prefix + op.sym_name.data
            renamed[op.sym_name.data] = name
            arrays[name] = _global_array(op)
            op.properties["sym_name"] = StringAttr(name)
            op.properties["linkage"] = llvm.LinkageAttr("external")
            del op.properties["value"]
    for op in module.walk():
        if isinstance(op, llvm.AddressOfOp) and op.global_name.root_reference.data in renamed:
            new_name = renamed[op.global_name.root_reference.data]
            op.properties["global_name"] = SymbolRefAttr(new_name)
    return arrays


def _global_array(op) -> np.ndarray:
    from xdsl.dialects.builtin import Float32Type, Float64Type

    element = op.global_type.type
    dtype = {Float64Type: "<f8", Float32Type: "<f4"}.get(type(element), "<u1")
    if dtype == "<u1":  # i1 masks: one byte per element, as LLVM lays out [N x i1]
        return np.array([v != 0 for v in op.value.get_values()], dtype=np.uint8)
    return np.frombuffer(op.value.data.data, dtype=dtype).copy()


def llvm_dialect_to_ir(module: ModuleOp, where: str = "module") -> str:
    """LLVM IR text of a module of `llvm.func`s and `llvm.mlir.global`s."""
    from xdsl.backend.llvm.convert import convert_module

    from tlir.dialects.tlir_llvm import install

    install()  # tlir-lower-to-llvm's vector compare/select (tlir_llvm dialect)
    try:
        llvm_module = convert_module(module, fallback_target_triple=None)
    except NotImplementedError as err:
        raise TlirError(where, f"cannot translate to LLVM IR: {err}") from None
    for function in llvm_module.functions:
        if "__kernel" in function.name and not function.is_declaration:
            # Inlining hundreds of small loop nests into @main makes LLVM's
            # optimizer super-linear; a call per kernel costs nothing.
            function.attributes.add("noinline")
    return str(llvm_module)


def to_llvm_ir(module: ModuleOp, where: str = "module") -> str:
    """Self-contained LLVM IR (constants included), as `tlir-translate` prints it."""
    return llvm_dialect_to_ir(lower_to_llvm_dialect(module), where)


def to_llvm_ir_with_external_constants(
    module: ModuleOp, prefix: str, where: str = "module"
) -> tuple[str, dict[str, np.ndarray]]:
    """LLVM IR whose constants are external symbols, and the arrays to bind them to."""
    lowered = lower_to_llvm_dialect(module)
    arrays = detach_constants(lowered, prefix)
    return llvm_dialect_to_ir(lowered, where), arrays
