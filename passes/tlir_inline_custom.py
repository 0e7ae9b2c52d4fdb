"""`tlir-inline-custom`: every `tlir.custom` is replaced by its callee's body.

Stands in for MLIR's `inline` pass on the calls tlir has: a custom op calls a
function of the module whose body is tlir ops (the verifier rules out
recursion), so after inlining the caller is a flat list of tlir ops that
kernel formation can group. A callee holding anything else cannot be compiled
and is a located error naming the op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable

from tlir.diagnostics import TlirError, describe_location
from tlir.dialects import tlir as T


def _callee(op: T.CustomOp) -> func.FuncOp:
    callee = SymbolTable.lookup_symbol(op, op.callee)
    assert isinstance(callee, func.FuncOp)  # the verifier checked it
    where = describe_location(op.location, "module")
    if not callee.body.blocks:
        raise TlirError(where, f"{op.name}: callee {op.callee} has no body to compile")
    for inner in callee.body.block.ops:
        if not isinstance(inner, T.TlirOp | func.ReturnOp):
            raise TlirError(
                where,
                f"{op.name}: callee {op.callee} holds '{inner.name}'; "
                "only tlir ops can be compiled",
            )
    return callee


MAX_INLINED_OPS = 1_000_000
"""Custom calls can nest (a DAG of callees): refuse an exponential expansion."""


def inline(op: T.CustomOp) -> int:
    """Clone the callee's body in place of `op` (nested customs come along and
    are inlined in turn); returns the number of ops cloned."""
    callee = _callee(op)
    block = callee.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, op.args, strict=True))
    parent = op.parent_block()
    assert parent is not None
    for inner in block.ops:
        if isinstance(inner, func.ReturnOp):
            op.result.replace_all_uses_with(mapping[inner.arguments[0]])
            break
        clone = inner.clone(value_mapper=mapping)
        parent.insert_op_before(clone, op)
    op.detach()
    op.erase()
    return len(block.ops) - 1


@dataclass(frozen=True)
class TlirInlineCustom(ModulePass):
    """Inline every `tlir.custom` call (callees are tlir functions)."""

    name = "tlir-inline-custom"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cloned = 0
        while True:
            calls = [c for c in op.walk() if isinstance(c, T.CustomOp)]
            if not calls:
                return
            for call in calls:
                where = describe_location(call.location, "module")
                cloned += inline(call)
                if cloned > MAX_INLINED_OPS:
                    raise TlirError(
                        where,
                        f"tlir.custom: inlining the custom calls would create more than "
                        f"{MAX_INLINED_OPS} ops",
                    )
