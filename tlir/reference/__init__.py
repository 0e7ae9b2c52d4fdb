"""The reference evaluator: TorchLean's semantics, bit for bit, on NumPy.

`evaluate(module, inputs)` runs `@main` (or a named function; a module whose
batch is `?` at the batch of `inputs`) op by op with the
evaluators of `tlir.reference.ops`, in the module's carrier: float64 is
TorchLean's `Float`, float32 its `Float32`. It is the oracle of every numerical
test. Like TorchLean's `denoteAll`, it evaluates every op, dead ones included.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.traits import SymbolTable

from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.interface import check_inputs, find_function
from tlir.reference import ad_ops  # noqa: F401 - fills EVALUATORS for the tlir_ad ops
from tlir.reference.ops import EvaluationError, evaluate_op, evaluates

__all__ = ["EvaluationError", "evaluate", "jvp", "run_function", "vjp"]


def evaluate(
    module: ModuleOp, inputs: Sequence[np.ndarray], function: str = "main", where: str = "input"
) -> list[np.ndarray]:
    """Evaluate `@function` on `inputs`; returns its results in order. Every
    tensor of the module must be within `tlir.limits.max_tensor_bytes()`."""
    from tlir.limits import check_tensor_sizes
    from tlir.passes.tlir_specialize_batch import at_batch_of

    module = at_batch_of(module, inputs, where)
    target = find_function(module, function)
    check_tensor_sizes(module, where)
    return run_function(target, check_inputs(target, inputs, where), where)


def run_function(
    target: func.FuncOp, inputs: Sequence[np.ndarray], where: str = "input"
) -> list[np.ndarray]:
    """Evaluate a function's ops in order on already checked inputs."""
    values: dict[SSAValue, np.ndarray] = dict(zip(target.body.block.args, inputs, strict=True))
    for op in target.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [values[v] for v in op.arguments]
        args = [values[v] for v in op.operands]
        values.update(zip(op.results, evaluate_op(op, args, where), strict=True))
    raise TlirError(where, f"@{target.sym_name.data} has no func.return")


@evaluates(T.CustomOp)
def _custom(op: T.CustomOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """The callee's body, evaluated on the operands (the verifier rules out recursion)."""
    callee = SymbolTable.lookup_symbol(op, op.callee)
    assert isinstance(callee, func.FuncOp)
    return run_function(callee, args)[0]


def jvp(module: ModuleOp, inputs, tangents, param_tangents=None, function: str = "main"):
    """Forward mode: `[y…, dy…]` (see `tlir.reference.dual_execution`)."""
    from tlir.passes.tlir_specialize_batch import at_batch_of
    from tlir.reference.dual_execution import jvp as forward_mode

    return forward_mode(at_batch_of(module, inputs), inputs, tangents, param_tangents, function)


def vjp(module: ModuleOp, inputs, cotangents, wrt: str = "all", function: str = "main"):
    """Reverse mode: `[y…, dx…, dparams…]` (see `tlir.reference.reverse`)."""
    from tlir.passes.tlir_specialize_batch import at_batch_of
    from tlir.reference.reverse import vjp as reverse_mode

    return reverse_mode(at_batch_of(module, inputs), inputs, cotangents, wrt, function)
