"""A model's parameters: the `tlir.const` ops derivatives are taken with respect to.

Payloads are operands produced by `tlir.const`, so a parameter is a constant:
linear and conv weights and biases, layernorm and batch_norm_eval gamma/beta,
and plain constants. A constant used only as batch_norm_eval's running mean or
variance is a statistic, not a parameter; so is a constant marked `tlir.fixed`
(a front end's own masks, selection matrices and scalars, and PyTorch buffers:
what the source model does not train). Parameters are numbered in the order
their constants appear in the function.

Names: the JSON importer stores `node{ID}.{field}` (the JSON node id and the
payload field, e.g. `node3.weight`) in a `tlir.name` attribute; a constant
without one is `const{K}`, K its position among the function's constants.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr

from tlir.dialects import tlir as T

NAME_ATTRIBUTE = "tlir.name"
FIXED_ATTRIBUTE = "tlir.fixed"

_STATISTIC_OPERANDS = {3, 4}
"""batch_norm_eval's operands (input, gamma, beta, mean, var): mean and var."""


def is_parameter(const: T.ConstOp) -> bool:
    if FIXED_ATTRIBUTE in const.attributes:
        return False
    uses = list(const.result.uses)
    return not uses or not all(
        isinstance(use.operation, T.BatchNormEvalOp) and use.index in _STATISTIC_OPERANDS
        for use in uses
    )


def constants(function: func.FuncOp) -> list[T.ConstOp]:
    return [op for op in function.body.block.ops if isinstance(op, T.ConstOp)]


def parameters(function: func.FuncOp) -> list[T.ConstOp]:
    """The function's parameters, in order."""
    return [op for op in constants(function) if is_parameter(op)]


def parameter_names(function: func.FuncOp) -> list[str]:
    """The name of each parameter, in the order of `parameters`."""
    names = []
    for position, const in enumerate(constants(function)):
        if is_parameter(const):
            name = const.attributes.get(NAME_ATTRIBUTE)
            names.append(name.data if isinstance(name, StringAttr) else f"const{position}")
    return names
