"""What `tlir-jvp` and `tlir-vjp` share: finding functions and callees, the
check that a function can be differentiated, and adding the derivative
function to the module."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.traits import SymbolTable

from tlir.diagnostics import TlirError, describe_location
from tlir.dialects import tlir as T
from tlir.optable import OpTable


def error_at(op: Operation, message: str) -> TlirError:
    return TlirError(describe_location(op.location, "module"), message)


def find(module: ModuleOp, name: str, pass_name: str) -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name and op.body.blocks:
            return op
    raise TlirError("module", f"{pass_name}: no function @{name} to differentiate")


def callee_of(module: ModuleOp, op: T.CustomOp) -> func.FuncOp:
    callee = SymbolTable.lookup_symbol(module, op.callee)
    assert isinstance(callee, func.FuncOp), "the verifier checks custom callees"
    return callee


def first_without_rule(module: ModuleOp, function: func.FuncOp, rules: OpTable) -> Operation | None:
    """The first op of `function` (or of a callee it reaches) with no rule."""
    for op in function.body.block.ops:
        if isinstance(op, func.ReturnOp):
            continue
        if rules.lookup(op) is None:
            return op
        if isinstance(op, T.CustomOp):
            inner = first_without_rule(module, callee_of(module, op), rules)
            if inner is not None:
                return inner
    return None


def check_differentiable(
    module: ModuleOp, function: func.FuncOp, rules: OpTable, pass_name: str
) -> None:
    """A located one-line error for an op without a derivative rule: at the op
    itself in `function`, at the `tlir.custom` for one inside a callee."""
    for op in function.body.block.ops:
        if isinstance(op, func.ReturnOp):
            continue
        if rules.lookup(op) is None:
            raise error_at(op, f"{pass_name}: '{op.name}' has no derivative rule")
        if isinstance(op, T.CustomOp):
            callee = callee_of(module, op)
            inner = first_without_rule(module, callee, rules)
            if inner is not None:
                raise error_at(
                    op,
                    f"{pass_name}: cannot differentiate 'tlir.custom' {op.callee}: its callee "
                    f"uses '{inner.name}', which has no derivative rule",
                )


def add_function(
    module: ModuleOp,
    after: func.FuncOp,
    name: str,
    block: Block,
    results: Sequence,
) -> func.FuncOp:
    """`@name` with `block` as body, returning `results`, placed after `after`."""
    ret = func.ReturnOp(*results)
    ret.location = after.location
    block.add_op(ret)
    existing = SymbolTable.lookup_symbol(module, name)
    if existing is not None:
        raise TlirError("module", f"the module already has a function @{name}")
    types: tuple[list[Attribute], list[Attribute]] = (
        list(block.arg_types),
        [v.type for v in results],
    )
    function = func.FuncOp(name, FunctionType.from_lists(*types), Region(block))
    function.location = after.location
    module.body.block.insert_op_after(function, after)
    return function
