"""`tlir-jvp`: forward mode as TorchLean's dual-valued execution (docs/autodiff.md#d2-forward-mode).

For `@main(x…) -> (y…)` it adds `@main_jvp(x…, dx…) -> (y…, dy…)`: the forward
ops, each followed by its tangent program from `JVP_RULES` (the op's forward
spec on (primal, tangent) pairs, branching on primals). With `params=true` the
function also takes one tangent per parameter (`tlir.parameters`), in order:
`@main_jvp(x…, dx…, dparams…)`; otherwise constants have +0 tangents.
`tlir.custom` is differentiated through its callee.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tlir.dialects import tlir as T
from tlir.parameters import parameters
from tlir.passes.autodiff import jvp_elementwise, jvp_structured  # noqa: F401 - fill JVP_RULES
from tlir.passes.autodiff.builder import Builder
from tlir.passes.autodiff.driver import add_function, callee_of, check_differentiable, find
from tlir.passes.autodiff.tables import JVP_RULES, jvp_rule
from tlir.passes.tlir_specialize_batch import refuse_dynamic

NAME = "tlir-jvp"


class Jvp:
    """Emits primal ops and their tangents into `block`."""

    def __init__(self, module: ModuleOp, block: Block):
        self.module = module
        self.block = block
        self.b = Builder(block, None)

    def run(
        self,
        body: Block,
        primals: Sequence[SSAValue],
        tangents: Sequence[SSAValue],
        seeds: dict[Operation, SSAValue],
    ) -> tuple[list[SSAValue], list[SSAValue]]:
        """`body` on (primals, tangents): the returned values and their tangents."""
        mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, primals, strict=True))
        tangent: dict[SSAValue, SSAValue] = dict(zip(body.args, tangents, strict=True))
        for op in body.ops:
            if isinstance(op, func.ReturnOp):
                values = op.arguments
                return [mapping[v] for v in values], [tangent[v] for v in values]
            clone = op.clone(value_mapper=mapping)
            clone.location = op.location
            self.block.add_op(clone)
            mapping.update(zip(op.results, clone.results, strict=True))
            self.b = Builder(self.block, op.location)
            result = self.tangent(op, clone, [tangent[v] for v in op.operands], seeds)
            if isinstance(result, tuple):
                # The rule's fold computed the primal too: the forward op goes.
                primal, result = result
                mapping[op.results[0]] = primal
                clone.detach()
                clone.erase()
            tangent[op.results[0]] = result
        raise AssertionError("a function body ends in func.return")

    def tangent(
        self, op: Operation, clone: Operation, dots: list[SSAValue], seeds: dict
    ) -> SSAValue | tuple[SSAValue, SSAValue]:
        """The op's tangent, or (primal, tangent) where the rule computes both."""
        if op in seeds:
            return seeds[op]
        if 0 in clone.results[0].type.get_shape():
            return self.b.zeros_like(clone.results[0])  # no elements, no tangent to compute
        return JVP_RULES[type(op)](self, clone, dots)


@jvp_rule(T.CustomOp)
def custom(j: Jvp, op: T.CustomOp, dots: list[SSAValue]) -> tuple[SSAValue, SSAValue]:
    """The callee's own dual execution on the call's (primal, tangent)
    operands; its primal result is the call's, so the call itself goes."""
    callee = callee_of(j.module, op)
    values, tangents = j.run(callee.body.block, list(op.args), dots, {})
    return values[0], tangents[0]


@dataclass(frozen=True)
class TlirJvp(ModulePass):
    """Add `@main_jvp(x…, dx…[, dparams…]) -> (y…, dy…)` (dual-valued execution)."""

    name = NAME

    params: bool = False
    """Take parameter tangents too (one argument per parameter, in order)."""

    function: str = "main"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_dynamic(op, NAME)
        source = find(op, self.function, NAME)
        check_differentiable(op, source, JVP_RULES, NAME)
        inputs = list(source.function_type.inputs.data)
        seeded = parameters(source) if self.params else []
        block = Block(arg_types=[*inputs, *inputs, *(c.result.type for c in seeded)])
        count = len(inputs)
        primals, tangents = block.args[:count], block.args[count : 2 * count]
        seeds = dict(zip(seeded, block.args[2 * count :], strict=True))
        names = [a.name_hint for a in source.body.block.args]
        names += [f"d{n}" if n else None for n in names]
        names += [f"d{c.result.name_hint}" if c.result.name_hint else None for c in seeded]
        for arg, name in zip(block.args, names, strict=True):
            arg.name_hint = name
        results, dots = Jvp(op, block).run(source.body.block, primals, tangents, seeds)
        add_function(op, source, f"{self.function}_jvp", block, [*results, *dots])
