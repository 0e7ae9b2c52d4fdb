"""The derivative rule tables: one JVP rule and one VJP rule per tlir op.

A JVP rule gets the context (`Jvp`, with the builder), the op as cloned into the
derivative function and its operands' tangents, and returns the result's
tangent, or (primal, tangent) when its program computes the op's result as
well (the clone is then dropped). A VJP rule gets the context, the op and its
result's cotangent `g`, and returns one contribution per operand (None: no
contribution), in operand order; `stops` lists the operands no gradient flows to (D8, D9, D4 of
docs/autodiff.md#choices-beyond-torchlean).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from tlir.optable import OpTable

JvpRule = Callable[..., SSAValue | tuple[SSAValue, SSAValue]]
JVP_RULES: OpTable[JvpRule] = OpTable("JVP rule")
jvp_rule = JVP_RULES.register


@dataclass(frozen=True)
class VjpRule:
    apply: Callable[..., Sequence[SSAValue | None]]
    stops: frozenset[int] = frozenset()
    forward: Callable[..., tuple[SSAValue, object]] | None = None
    """Emits the op's forward value together with what `apply` needs of it
    (max_pool: the winning cells; custom: the callee's forward ops), returning
    (result, saved); the forward copy then uses that result instead of the
    op's, and `apply` finds the saved value in `Vjp.saved`."""

    def flows(self, operand: int) -> bool:
        return operand not in self.stops


VJP_RULES: OpTable[VjpRule] = OpTable("VJP rule")


def vjp_rule(
    *op_classes: type[Operation], stops: Sequence[int] = (), forward: Callable | None = None
) -> Callable:
    def decorate(function: Callable) -> Callable:
        for op_class in op_classes:
            VJP_RULES.add(op_class, VjpRule(function, frozenset(stops), forward))
        return function

    return decorate
