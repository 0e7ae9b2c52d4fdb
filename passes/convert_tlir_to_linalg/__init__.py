"""`convert-tlir-to-linalg`: every tlir op rewritten into linalg / tensor / arith /
math / random / func on tensors, one small lowering function per op.

`LOWERINGS` is the dispatch table, filled by each family module with
`@lowers(T.SomeOp)`; `LowerTlirOp` only dispatches: it gives the op's lowering
an `Emitter`, then replaces the op with the emitted ops. After the pass no
tlir op is left. The semantics are docs/ops.md's, exactly: see the
modules of this package for each family.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import is_side_effect_free

from tlir.diagnostics import TlirError, describe_location
from tlir.dialects import tlir as T
from tlir.passes.convert_tlir_to_linalg import (  # noqa: F401 - they fill LOWERINGS
    ad_ops,
    data_movement,
    elementwise,
    normalization,
    reductions,
    windows,
)
from tlir.passes.convert_tlir_to_linalg.emit import Emitter
from tlir.passes.convert_tlir_to_linalg.registry import LOWERINGS
from tlir.passes.loop_bodies import pure_body


class LowerTlirOp(RewritePattern):
    """Dispatches a tlir or tlir_ad op to its lowering and replaces it with what
    it emits (a value, or a list of values for a multi-result `tlir_ad` op)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        lowering = LOWERINGS.lookup(op)
        if lowering is None:
            if isinstance(op, T.TlirOp):
                where = describe_location(op.location, "module")
                raise TlirError(where, f"{op.name}: no lowering")
            return
        emitter = Emitter(op.results[0].type.element_type)
        shapes = [r.type.get_shape() for r in op.results]
        if all(0 in shape for shape in shapes) and not isinstance(op, T.DetachOp):
            # A result without elements needs no computation (and a window
            # that does not fit, docs/ops.md#max_pool, must not be indexed).
            results = [emitter.empty(shape) for shape in shapes]
        else:
            lowered = lowering(op, emitter)
            results = list(lowered) if isinstance(lowered, list) else [lowered]
        for new_op in emitter.ops:
            new_op.location = op.location
        rewriter.replace(op, emitter.ops, results)


@dataclass(frozen=True)
class ConvertTlirToLinalg(ModulePass):
    """Rewrite every tlir and tlir_ad op into linalg / tensor / arith / math /
    random / func."""

    name = "convert-tlir-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tlir.passes.tlir_specialize_batch import refuse_dynamic

        refuse_dynamic(op, self.name)
        walker = PatternRewriteWalker(LowerTlirOp(), apply_recursively=False)
        walker.rewrite_module(op)
        for function in op.walk():
            if isinstance(function, func.FuncOp):
                erase_unread(function)
        declare_steps(op)


def erase_unread(function: func.FuncOp) -> None:
    """Erase the tensor computations nothing reads: the starts of folds whose
    region does not read them (`ad_ops.lower_fold`), with the empty tensors
    they wrote into. (xDSL's dead-code elimination keeps a `linalg.generic`:
    it has no memory-effect trait.)"""
    for block in function.body.blocks:
        for op in reversed(list(block.ops)):
            if any(r.uses for r in op.results) or not _pure_tensor_op(op):
                continue
            op.detach()
            op.erase()


def _pure_tensor_op(op: Operation) -> bool:
    if is_side_effect_free(op):  # a constant, an empty tensor
        return True
    if not isinstance(op, GenericOp | FillOp) or not op.results:
        return False  # an op on buffers (no results) writes its outputs: kept
    return pure_body(op)


def declare_steps(module: ModuleOp) -> None:
    """A private declaration of each directed-step function the lowering calls
    (`tlir.passes.directed_steps`), once."""
    from tlir.passes.directed_steps import NAMES

    declared = {f.sym_name.data for f in module.ops if isinstance(f, func.FuncOp)}
    wanted: dict[str, Attribute] = {}
    for inner in module.walk():
        if isinstance(inner, func.CallOp) and inner.callee.root_reference.data in NAMES:
            wanted.setdefault(inner.callee.root_reference.data, inner.res[0].type)
    for name, typ in sorted(wanted.items()):
        if name not in declared:
            module.body.block.add_op(func.FuncOp.external(name, [typ], [typ]))
