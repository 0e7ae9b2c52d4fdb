"""`tlir-ibp`: interval bound propagation, TorchLean's rules bit for bit
(docs/verification.md).

For `@main(x…) -> (y…)` it adds `@main_ibp(lo…, hi…) -> (lo…, hi…, status…)`:
one box per input (its lower and upper ends), one per output, and one rank-0
status per output: +inf where the output has a box, else the index (in
`@main`'s body) of the first op on its path whose rule gave none. Each op's
rule (`passes/ibp/`) emits its interval program from tlir ops and `tlir_ad`
maps and folds of directed operations, so the function compiles like any
model. A rule that fails on some values sets a failure flag the status
combines; an op with no rule on the carrier (`exp`, `tlir.custom`), or whose
rule fails for every value, is unresolved at compile time, and so are the ops
that read it (their boxes are NaN). `rules=tight` emits the tight rules
(`tlir.tight`, `passes/ibp/tight.py`) instead of TorchLean's. `fast=true`
(TorchLean's rules) emits the contractions' fast path and its checks, after
the statuses (docs/verification.md#performance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context as XdslContext
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tlir.passes.autodiff.builder import Builder, Scalar, element_of, shape_of
from tlir.passes.autodiff.driver import add_function, find
from tlir.passes.ibp import conv, elementwise, normalization, pooling, structured  # noqa: F401 - fill IBP_RULES
from tlir.passes.ibp.table import (
    IBP_RULES,
    Bound,
    Context,
    NoBox,
    NoRule,
    SumCheck,
    Twin,
    drop_bypassed,
)
from tlir.passes.ibp.tight import TIGHT_RULES
from tlir.passes.tlir_specialize_batch import refuse_dynamic
from tlir.tight import check_rules, rules_mode, tight

NAME = "tlir-ibp"
RESOLVED = math.inf


class Ibp:
    """Emits the interval program of a function's ops into `block`."""

    def __init__(self, block: Block, fast: bool = False):
        self.block = block
        self.fast = fast
        self.diverged: list[SSAValue] = []
        self.bypassed: list[Operation] = []
        self.twins: dict[SSAValue, Twin] = {}
        self.sum_checks: dict[SSAValue, SumCheck] = {}

    def run(self, body: Block, boxes: list[Bound]) -> list[Bound]:
        bounds: dict[SSAValue, Bound] = dict(zip(body.args, boxes, strict=True))
        for index, op in enumerate(body.ops):
            if isinstance(op, func.ReturnOp):
                return [bounds[v] for v in op.arguments]
            bound = self.step(op, index, bounds)
            bounds[op.results[0]] = bound
            for value in op.results[1:]:  # an op without a rule may have several results
                nan = Builder(self.block, op.location).filled(
                    math.nan, shape_of(value), element_of(value)
                )
                bounds[value] = Bound(nan, nan, bound.status)
        raise AssertionError("a function body ends in func.return")

    def step(self, op: Operation, index: int, bounds: dict[SSAValue, Bound]) -> Bound:
        b = Builder(self.block, op.location)
        result = op.results[0]
        shape, element = shape_of(result), element_of(result)
        ctx = Context(
            b, element, self.fast, self.diverged, self.twins, self.bypassed, self.sum_checks
        )
        if 0 in shape:
            empty = b.array(np.zeros(shape, ctx.dtype), element)
            return Bound(empty, empty)
        rule = (TIGHT_RULES.lookup(op) if tight() else None) or IBP_RULES.lookup(op)
        reads = rule is None or rule.reads_operands
        parents = [bounds[v] for v in op.operands] if reads else []
        static = [p.status for p in parents if not isinstance(p.status, SSAValue)]
        dynamic = [p.status for p in parents if isinstance(p.status, SSAValue)]
        first = min(static, default=RESOLVED)
        if rule is None:
            status = self.combine(ctx, [], dynamic, min(first, index), index)
            return self.unresolved(ctx, op, status)
        if first != RESOLVED:
            # a parent has no box: neither has this op (its own index is later)
            return self.unresolved(ctx, op, self.combine(ctx, [], dynamic, first, index))
        try:
            out = rule.emit(ctx, op, parents)
        except (NoRule, NoBox):
            return self.unresolved(ctx, op, self.combine(ctx, [], dynamic, float(index), index))
        status = self.combine(ctx, out.flags, dynamic, RESOLVED, index)
        return Bound(out.lo, out.hi, status)

    def unresolved(self, ctx: Context, op: Operation, status) -> Bound:
        nan = ctx.b.filled(math.nan, ctx.shape(op), ctx.element)
        return Bound(nan, nan, status)

    @staticmethod
    def combine(ctx: Context, flags, dynamic, static: float, index: int) -> float | SSAValue:
        """The op's status: the least of its parents' statuses, `static`, and its
        own index where one of its failure flags is set."""
        if not flags and not dynamic:
            return static
        if not flags and len(dynamic) == 1 and static == RESOLVED:
            return dynamic[0]

        def body(s: Scalar, args):
            own, rest = args[: len(flags)], args[len(flags) :]
            status = s.const(static)
            if own:
                failed = s.nonzero(own[0])
                for flag in own[1:]:
                    failed = s.either(failed, s.nonzero(flag))
                status = s.select(failed, s.const(float(index)), status)
            for other in rest:
                status = s.select(s.cmp("olt", other, status), other, status)
            return [status]

        return ctx.b.map([*flags, *dynamic], body)[0]


def status_value(ctx: Context, status: float | SSAValue) -> SSAValue:
    if isinstance(status, SSAValue):
        return status
    return ctx.b.const(status, [], ctx.element)


@dataclass(frozen=True)
class TlirIbp(ModulePass):
    """Add `@main_ibp(lo…, hi…) -> (lo…, hi…, status…)` (interval bound propagation)."""

    name = NAME

    function: str = "main"
    rules: str = "torchlean"
    fast: bool = False
    """The contractions' fast path (TorchLean's rules only): `@main_ibp` returns
    after the statuses one rank-0 check per contraction, nonzero where its
    result may differ from the exact rule's (`structured.fast_contraction_check`)."""

    def apply(self, ctx: XdslContext, op: ModuleOp) -> None:
        refuse_dynamic(op, NAME)
        with rules_mode(check_rules(self.rules, NAME)):
            self._apply(op)

    def _apply(self, op: ModuleOp) -> None:
        source = find(op, self.function, NAME)
        inputs = list(source.function_type.inputs.data)
        block = Block(arg_types=[*inputs, *inputs])
        names = [a.name_hint for a in source.body.block.args]
        for arg, name in zip(block.args, [*names, *names], strict=True):
            arg.name_hint = name
        for arg in block.args[: len(inputs)]:
            arg.name_hint = f"{arg.name_hint}_lo" if arg.name_hint else None
        for arg in block.args[len(inputs) :]:
            arg.name_hint = f"{arg.name_hint}_hi" if arg.name_hint else None
        count = len(inputs)
        boxes = [
            Bound(lo, hi) for lo, hi in zip(block.args[:count], block.args[count:], strict=True)
        ]
        ibp = Ibp(block, fast=self.fast and not tight())
        outputs = ibp.run(source.body.block, boxes)
        statuses = []
        for value, bound in zip(source.body.block.last_op.operands, outputs, strict=True):
            builder = Builder(block, source.location)
            statuses.append(status_value(Context(builder, element_of(value)), bound.status))
        results = [*(o.lo for o in outputs), *(o.hi for o in outputs), *statuses, *ibp.diverged]
        add_function(op, source, f"{self.function}_ibp", block, results)
        drop_bypassed(ibp.bypassed)  # once the results are returned (read)
