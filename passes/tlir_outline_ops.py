"""`tlir-outline-ops`: every tlir op (but constants, identities and calls) moves
into a private function of its own, called from where it was.

The MLIR back end runs this before `convert-tlir-to-linalg` so that upstream
MLIR and LLVM see many small functions (marked `noinline` through LLVM
`passthrough`), not one function whose size makes LLVM's optimizer
super-linear. (tlir's own route outlines after bufferization instead, with
`tlir-outline-kernels`.)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, FunctionType, ModuleOp, StringAttr
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass

from tlir.dialects import tlir as T

STAY = (T.ConstOp, T.DetachOp, T.CustomOp)


@dataclass(frozen=True)
class TlirOutlineOps(ModulePass):
    """Move each tlir op into a `noinline` private function of its own."""

    name = "tlir-outline-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks]
        outlined: list[func.FuncOp] = []
        for function in functions:
            prefix = function.sym_name.data
            ops = [
                o
                for o in function.body.block.ops
                if isinstance(o, T.TlirOp) and not isinstance(o, STAY)
            ]
            for index, inner in enumerate(ops):
                name = f"{prefix}__op{index}"
                block = Block(arg_types=[v.type for v in inner.operands])
                clone = inner.clone(value_mapper=dict(zip(inner.operands, block.args, strict=True)))
                block.add_ops([clone, func.ReturnOp(*clone.results)])
                typ = FunctionType.from_lists(block.arg_types, [r.type for r in inner.results])
                callee = func.FuncOp(name, typ, Region(block), visibility="private")
                callee.attributes["passthrough"] = ArrayAttr([StringAttr("noinline")])
                callee.location = inner.location
                call = func.CallOp(name, list(inner.operands), [r.type for r in inner.results])
                call.location = inner.location
                function.body.block.insert_op_before(call, inner)
                inner.results[0].replace_all_uses_with(call.results[0])
                inner.detach()
                inner.erase()
                outlined.append(callee)
        for callee in outlined:
            op.body.block.add_op(callee)
