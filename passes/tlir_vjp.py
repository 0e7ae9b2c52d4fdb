"""`tlir-vjp`: reverse mode (docs/autodiff.md#reverse-mode; D3–D10 of
docs/autodiff.md#choices-beyond-torchlean).

For `@main(x…) -> (y…)` it adds `@main_vjp(x…, dy…) -> (y…, dx…, dparams…)`:
the forward ops (their values are kept for the backward sweep: stored, not
recomputed), then one sweep over the ops in descending order. A value's first
arriving cotangent is stored as is, later ones are added as existing + new
(D7); an op runs its rule only if its result received a cotangent, and its
contributions arrive in operand order; values no cotangent reaches get +0.
`wrt=inputs|params|all` selects dx, dparams or both (parameters: the
`tlir.const` ops of `tlir.parameters`, in order). Nothing is computed for
values no selected leaf depends on. `tlir.custom` is one node whose VJP is
its callee's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.interface import VJP_WRT
from tlir.parameters import parameters
from tlir.passes.autodiff import (  # noqa: F401 - fill VJP_RULES
    vjp_elementwise,
    vjp_normalization,
    vjp_structured,
)
from tlir.passes.autodiff.builder import Builder
from tlir.passes.autodiff.driver import add_function, callee_of, check_differentiable, find
from tlir.passes.autodiff.fusion import fuse_maps_into_gathers
from tlir.passes.autodiff.tables import VJP_RULES, vjp_rule
from tlir.passes.tlir_specialize_batch import refuse_dynamic

NAME = "tlir-vjp"
WRT = VJP_WRT


@dataclass
class Forward:
    """A function body's forward copy: the value mapping, (op, clone) pairs and
    the values the sweep needs a gradient for."""

    mapping: dict[SSAValue, SSAValue]
    pairs: list[tuple[Operation, Operation]]
    needed: set[SSAValue]


class Vjp:
    """Emits a forward pass and its reverse sweep into `block`."""

    def __init__(self, module: ModuleOp, block: Block):
        self.module = module
        self.block = block
        self.b = Builder(block, None)
        self.saved: dict[Operation, object] = {}
        """What a rule's `forward` kept for its `apply`, by the op's clone."""
        self.replaced: list[Operation] = []
        """Clones whose result a rule's `forward` computed: erased at the end."""

    def forward(
        self, body: Block, primals: Sequence[SSAValue], leaves: Iterable[SSAValue]
    ) -> Forward:
        """`body`'s ops cloned onto `primals`, and the values whose gradient the
        sweep toward `leaves` needs. An op with a `forward` rule whose operands
        need a gradient gets its value from that rule (the clone stays for the
        sweep to read)."""
        ops = [op for op in body.ops if not isinstance(op, func.ReturnOp)]
        needed = _needs_gradient(ops, set(leaves))
        mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, primals, strict=True))
        pairs = []
        for op in body.ops:
            if isinstance(op, func.ReturnOp):
                break
            clone = op.clone(value_mapper=mapping)
            clone.location = op.location
            self.block.add_op(clone)
            mapping.update(zip(op.results, clone.results, strict=True))
            pairs.append((op, clone))
            rule = VJP_RULES[type(op)]
            empty = 0 in op.results[0].type.get_shape()  # the sweep skips it (below)
            if rule.forward is not None and not empty and any(v in needed for v in op.operands):
                self.b = Builder(self.block, op.location)
                mapping[op.results[0]], self.saved[clone] = rule.forward(self, clone)
                self.replaced.append(clone)
        return Forward(mapping, pairs, needed)

    def erase_replaced(self) -> None:
        for clone in self.replaced:
            assert not clone.results[0].uses, "a replaced forward op is not read"
            clone.detach()
            clone.erase()

    def backward(
        self, forward: Forward, seeds: Sequence[tuple[SSAValue, SSAValue, Operation]]
    ) -> dict[SSAValue, SSAValue]:
        """The sweep over `forward`'s ops: `seeds` are (value, cotangent, op whose
        location to use)."""
        pairs, needed = forward.pairs, forward.needed
        cotangent: dict[SSAValue, SSAValue] = {}
        for value, seed, where in seeds:
            if value in needed:
                self._accumulate(cotangent, value, seed, where)
        for op, clone in reversed(pairs):
            g = cotangent.get(op.results[0])
            if g is None or 0 in op.results[0].type.get_shape():
                # unreached, or no element depends on the operands: its rule does
                # not run (nor does it build a padded input a huge padding empties)
                continue
            rule = VJP_RULES[type(op)]
            wants = [v in needed and rule.flows(i) for i, v in enumerate(op.operands)]
            if not any(wants):
                continue
            self.b = Builder(self.block, op.location)
            contributions = rule.apply(self, clone, g, wants)
            for operand, wanted, contribution in zip(
                op.operands, wants, contributions, strict=True
            ):
                if wanted and contribution is not None:
                    self._accumulate(cotangent, operand, contribution, op)
        return cotangent

    def _accumulate(self, cotangent: dict, value: SSAValue, new: SSAValue, where: Operation):
        """D7: the first arrival is stored as is; later ones: existing + new."""
        existing = cotangent.get(value)
        if existing is None:
            cotangent[value] = new
        else:
            cotangent[value] = Builder(self.block, where.location).add_values(existing, new)

    def gradient(self, cotangent: dict, value: SSAValue, like: SSAValue, where: Operation):
        """The cotangent reaching `value`, or +0 where none does."""
        found = cotangent.get(value)
        return found if found is not None else Builder(self.block, where.location).zeros_like(like)


def _needs_gradient(ops: list[Operation], leaves: set[SSAValue]) -> set[SSAValue]:
    """The values a leaf reaches through edges gradients flow along."""
    needed = set(leaves)
    for op in ops:
        rule = VJP_RULES[type(op)]
        if any(v in needed and rule.flows(i) for i, v in enumerate(op.operands)):
            needed.update(op.results)
    return needed


def custom_forward(v: Vjp, op: T.CustomOp) -> tuple[SSAValue, Forward]:
    """The callee's forward ops in place of the call (their values are the
    sweep's stored values): the call's result, and the callee's `Forward`."""
    body = callee_of(v.module, op).body.block
    forward = v.forward(body, list(op.args), body.args)
    returned = body.last_op
    assert isinstance(returned, func.ReturnOp)
    return forward.mapping[returned.arguments[0]], forward


@vjp_rule(T.CustomOp, forward=custom_forward)
def custom(v: Vjp, op: T.CustomOp, g: SSAValue, wants: list[bool]) -> list:
    """The callee's VJP with respect to its arguments (+0 for an argument its
    result does not reach): the sweep of the callee's forward ops, which ran in
    place of the call."""
    body = callee_of(v.module, op).body.block
    returned = body.last_op
    assert isinstance(returned, func.ReturnOp)
    # the rule runs only where an argument needs a gradient: custom_forward ran
    cotangent = v.backward(v.saved[op], [(returned.arguments[0], g, op)])
    return [
        v.gradient(cotangent, arg, value, op) if wanted else None
        for arg, value, wanted in zip(body.args, op.args, wants, strict=True)
    ]


@dataclass(frozen=True)
class TlirVjp(ModulePass):
    """Add `@main_vjp(x…, dy…) -> (y…, dx…, dparams…)` (reverse mode)."""

    name = NAME

    wrt: str = "all"
    """`inputs` (dx…), `params` (dparams…) or `all` (both)."""

    function: str = "main"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.wrt not in WRT:
            raise TlirError(NAME, f"wrt must be one of {', '.join(WRT)}, got '{self.wrt}'")
        refuse_dynamic(op, NAME)
        source = find(op, self.function, NAME)
        check_differentiable(op, source, VJP_RULES, NAME)
        inputs = list(source.function_type.inputs.data)
        outputs = list(source.function_type.outputs.data)
        block = Block(arg_types=[*inputs, *outputs])
        primals, seeds = block.args[: len(inputs)], block.args[len(inputs) :]
        for arg, source_arg in zip(primals, source.body.block.args, strict=True):
            arg.name_hint = source_arg.name_hint
        for index, seed in enumerate(seeds):
            seed.name_hint = f"dy{index}"
        vjp = Vjp(op, block)
        body = source.body.block
        consts = parameters(source) if self.wrt != "inputs" else []
        args = list(body.args) if self.wrt != "params" else []
        leaves = [*args, *(c.result for c in consts)]
        forward = vjp.forward(body, primals, leaves)
        returned = body.last_op
        assert isinstance(returned, func.ReturnOp)
        seed_list = [
            (value, seed, returned) for value, seed in zip(returned.arguments, seeds, strict=True)
        ]
        cotangent = vjp.backward(forward, seed_list)
        mapping = forward.mapping
        results = [mapping[v] for v in returned.arguments]
        grads = [vjp.gradient(cotangent, leaf, mapping[leaf], returned) for leaf in leaves]
        vjp.erase_replaced()
        function = add_function(op, source, f"{self.function}_vjp", block, [*results, *grads])
        fuse_maps_into_gathers(function)
