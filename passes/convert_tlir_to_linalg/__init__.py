"""`convert-tlir-to-linalg`: every tlir op rewritten into linalg / tensor / arith /
math / random / func on tensors, one small lowering function per op.

`LOWERINGS` is the dispatch table; `LowerTlirOp` only dispatches: it gives the
op's lowering an `Emitter`, then replaces the op with the emitted ops. After the
pass no tlir op is left. The semantics are the spec's, exactly: see the
modules of this package for each family.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from tlir.diagnostics import TlirError, describe_location
from tlir.dialects import tlir as T
from tlir.passes.convert_tlir_to_linalg import (
    data_movement,
    elementwise,
    normalization,
    reductions,
    windows,
)
from tlir.passes.convert_tlir_to_linalg.emit import Emitter

Lowering = Callable[[Operation, Emitter], SSAValue]

LOWERINGS: dict[str, Lowering] = {
    **{name: elementwise.lower_elementwise for name in elementwise.SCALAR_BODIES},
    "tlir.const": data_movement.lower_const,
    "tlir.custom": data_movement.lower_custom,
    "tlir.detach": data_movement.lower_detach,
    "tlir.rand_uniform": elementwise.lower_rand_uniform,
    "tlir.bernoulli_mask": elementwise.lower_bernoulli_mask,
    "tlir.permute": data_movement.lower_permute,
    "tlir.transpose": data_movement.lower_transpose,
    "tlir.broadcast_to": data_movement.lower_broadcast_to,
    "tlir.reshape": data_movement.lower_reshape,
    "tlir.flatten": data_movement.lower_reshape,
    "tlir.concat": data_movement.lower_concat,
    "tlir.reduce_sum": reductions.lower_reduce_sum,
    "tlir.reduce_mean": reductions.lower_reduce_mean,
    "tlir.sum": reductions.lower_sum,
    "tlir.mse_loss": reductions.lower_mse_loss,
    "tlir.matmul": reductions.lower_matmul,
    "tlir.linear": reductions.lower_linear,
    "tlir.max_pool": windows.lower_max_pool,
    "tlir.avg_pool": windows.lower_avg_pool,
    "tlir.conv": windows.lower_conv,
    "tlir.batch_norm_eval": normalization.lower_batch_norm_eval,
    "tlir.softmax": normalization.lower_softmax,
    "tlir.hard_masked_softmax": normalization.lower_hard_masked_softmax,
    "tlir.layernorm": normalization.lower_layernorm,
}
"""One lowering per tlir op (41: TorchLean's kinds less `input`)."""


class LowerTlirOp(RewritePattern):
    """Dispatches a tlir op to its lowering and replaces it with what it emits."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, T.TlirOp):
            return
        lowering = LOWERINGS.get(op.name)
        if lowering is None:
            raise TlirError(describe_location(op.location, "module"), f"{op.name}: no lowering")
        emitter = Emitter(op.results[0].type.element_type)
        shape = op.results[0].type.get_shape()
        if 0 in shape and not isinstance(op, T.DetachOp):
            # A result without elements needs no computation (and a window
            # that does not fit, spec §3.17, must not be indexed).
            result = emitter.empty(shape)
        else:
            result = lowering(op, emitter)
        for new_op in emitter.ops:
            new_op.location = op.location
        rewriter.replace(op, emitter.ops, [result])


@dataclass(frozen=True)
class ConvertTlirToLinalg(ModulePass):
    """Rewrite every tlir op into linalg / tensor / arith / math / random / func."""

    name = "convert-tlir-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(LowerTlirOp(), apply_recursively=False)
        walker.rewrite_module(op)
