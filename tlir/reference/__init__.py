"""The reference evaluator: TorchLean's semantics, bit for bit, on NumPy.

`evaluate(module, inputs)` runs `@main` (or a named function) op by op with the
evaluators of `tlir.reference.ops`, in the module's carrier: float64 is
TorchLean's `Float`, float32 its `Float32`. It is the oracle of every numerical
test. Like TorchLean's `denoteAll`, it evaluates every op, dead ones included.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from tlir.diagnostics import TlirError, describe_location
from tlir.reference.ops import EVALUATORS, EvaluationError

__all__ = ["EvaluationError", "evaluate", "find_function", "numpy_dtype"]


def numpy_dtype(typ: TensorType) -> np.dtype:
    return np.dtype(np.float32 if typ.element_type.bitwidth == 32 else np.float64)


def find_function(module: ModuleOp, name: str = "main") -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    raise TlirError("module", f"no function @{name} in the module")


def check_inputs(function: func.FuncOp, inputs: Sequence[np.ndarray], where: str) -> list:
    """Inputs must match the argument types exactly (shape and dtype)."""
    types = function.function_type.inputs.data
    if len(inputs) != len(types):
        raise TlirError(
            where, f"@{function.sym_name.data} takes {len(types)} inputs, got {len(inputs)}"
        )
    checked = []
    for index, (value, typ) in enumerate(zip(inputs, types, strict=True)):
        value = np.asarray(value)
        want_shape, want_dtype = tuple(typ.get_shape()), numpy_dtype(typ)
        if value.shape != want_shape or value.dtype != want_dtype:
            raise TlirError(
                where,
                f"input {index} has shape {list(value.shape)} and dtype {value.dtype}, "
                f"expected shape {list(want_shape)} and dtype {want_dtype}",
            )
        checked.append(value if value.flags.c_contiguous else value.copy(order="C"))
    return checked


def evaluate(
    module: ModuleOp, inputs: Sequence[np.ndarray], function: str = "main", where: str = "input"
) -> list[np.ndarray]:
    """Evaluate `@function` on `inputs`; returns its results in order."""
    target = find_function(module, function)
    return _run(module, target, check_inputs(target, inputs, where), where)


def _run(
    module: ModuleOp, target: func.FuncOp, inputs: Sequence[np.ndarray], where: str
) -> list[np.ndarray]:
    values: dict[SSAValue, np.ndarray] = dict(zip(target.body.block.args, inputs, strict=True))
    for op in target.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [values[v] for v in op.arguments]
        args = [values[v] for v in op.operands]
        values[op.results[0]] = _evaluate_op(module, op, args, where)
    raise TlirError(where, f"@{target.sym_name.data} has no func.return")


def _evaluate_op(module: ModuleOp, op: Operation, args: list[np.ndarray], where: str) -> np.ndarray:
    if op.name == "tlir.custom":
        callee = find_function(module, op.callee.root_reference.data)
        return _run(module, callee, args, where)[0]
    evaluator = EVALUATORS.get(op.name)
    if evaluator is None:
        raise TlirError(
            describe_location(op.location, where),
            f"the reference evaluator has no semantics for '{op.name}'",
        )
    try:
        with np.errstate(all="ignore"):
            result = evaluator(op, args)
    except EvaluationError as err:
        raise TlirError(describe_location(op.location, where), f"{op.name}: {err}") from None
    result = np.asarray(result)
    # A float64 value leaking into float32 mode would round twice: refuse it.
    assert result.dtype == numpy_dtype(op.results[0].type), (op.name, result.dtype)
    return result if result.flags.c_contiguous else result.copy(order="C")
