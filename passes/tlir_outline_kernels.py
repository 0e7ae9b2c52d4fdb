"""`tlir-outline-kernels`: every linalg op on buffers becomes a call of its own
small function.

xDSL's `convert-scf-to-cf` and verifier grow super-linearly with the number of
blocks in one region; with one function per loop nest, the cost of the rest of
the route grows linearly with the number of ops, and the entry function is a
straight line of allocations, views and calls. (MLIR needs no such step; it
stands in for the function-size discipline MLIR's own passes do not require.)
Constants a kernel body captures are cloned into it; other captured values are
passed as extra arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass


def _captured(op: Operation) -> list[SSAValue]:
    """Values used inside `op` (operands included) but defined outside it."""
    inside = {id(o) for o in op.walk()}
    seen: dict[int, SSAValue] = {}
    for nested in op.walk():
        for operand in nested.operands:
            owner = operand.owner
            defined_inside = isinstance(owner, Operation) and id(owner) in inside
            if isinstance(owner, Block):
                parent = owner.parent_op()
                defined_inside = parent is not None and id(parent) in inside
            if not defined_inside:
                seen.setdefault(id(operand), operand)
    return list(seen.values())


def outline(op: Operation, name: str) -> tuple[func.FuncOp, func.CallOp]:
    captured = _captured(op)
    constants = [v for v in captured if isinstance(v.owner, arith.ConstantOp)]
    arguments = [v for v in captured if not isinstance(v.owner, arith.ConstantOp)]
    block = Block(arg_types=[v.type for v in arguments])
    mapping: dict[SSAValue, SSAValue] = dict(zip(arguments, block.args, strict=True))
    for value in constants:
        clone = value.owner.clone()
        block.add_op(clone)
        mapping[value] = clone.results[0]
    body = op.clone(value_mapper=mapping)
    block.add_op(body)
    block.add_op(func.ReturnOp())
    kernel = func.FuncOp(
        name, FunctionType.from_lists(block.arg_types, []), Region(block), visibility="private"
    )
    kernel.location = op.location
    call = func.CallOp(name, arguments, [])
    call.location = op.location
    return kernel, call


@dataclass(frozen=True)
class TlirOutlineKernels(ModulePass):
    """Outline every top-level linalg op of every function into its own function."""

    name = "tlir-outline-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels: list[func.FuncOp] = []
        functions = [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks]
        for function in functions:
            prefix = function.sym_name.data
            for index, inner in enumerate(
                [o for o in function.body.block.ops if isinstance(o, GenericOp | FillOp)]
            ):
                kernel, call = outline(inner, f"{prefix}__kernel{index}")
                function.body.block.insert_op_before(call, inner)
                inner.detach()
                inner.erase()
                kernels.append(kernel)
        for kernel in kernels:
            op.body.block.add_op(kernel)
        # constants left without uses in the callers
        for function in functions:
            for inner in list(function.body.block.ops):
                if isinstance(inner, arith.ConstantOp) and not inner.results[0].uses.get_length():
                    inner.detach()
                    inner.erase()
