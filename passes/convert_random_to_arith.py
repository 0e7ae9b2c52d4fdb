"""`convert-random-to-arith`: TorchLean's SplitMix64 stream (docs/random.md) in `i64` arith.

The key of a node is folded at compile time; a draw is `mix(key + index)` in
wrapping `i64` arithmetic, truncated to its low 32 bits; the uniform is the
draw as an unsigned integer in the carrier (exact in f64, round-to-nearest-even
in f32) divided by 2^32. The unsigned-to-float step is `extui` + `sitofp`, which
gives the same value as `uitofp` and lowers with xDSL's LLVM dialect.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tlir import rng
from tlir.dialects import random

I64 = IntegerType(64)


def _i64(value: int) -> arith.ConstantOp:
    """An i64 constant holding the 64-bit pattern of `value`."""
    value %= 1 << 64
    signed = value - (1 << 64) if value >= 1 << 63 else value
    return arith.ConstantOp(IntegerAttr(signed, I64))


class LowerKey(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: random.KeyOp, rewriter: PatternRewriter) -> None:
        key = rng.key_of(op.seed.value.data, op.node_id.value.data)
        rewriter.replace(op, _i64(key))


def mix_ops(x: SSAValue) -> tuple[list[Operation], SSAValue]:
    """SplitMix64's output function on an i64 value."""
    ops: list[Operation] = []

    def emit(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    def xorshift(z: SSAValue, amount: int) -> SSAValue:
        shifted = emit(arith.ShRUIOp(z, emit(_i64(amount))))
        return emit(arith.XOrIOp(z, shifted))

    z = emit(arith.AddiOp(x, emit(_i64(rng.GOLDEN_GAMMA))))
    z = emit(arith.MuliOp(xorshift(z, 30), emit(_i64(rng.MIX_MULTIPLIER_1))))
    z = emit(arith.MuliOp(xorshift(z, 27), emit(_i64(rng.MIX_MULTIPLIER_2))))
    return ops, xorshift(z, 31)


class LowerDraw(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: random.DrawOp, rewriter: PatternRewriter) -> None:
        index = arith.IndexCastOp(op.index, I64)
        counter = arith.AddiOp(op.key, index)
        ops, mixed = mix_ops(counter.result)
        low = arith.TruncIOp(mixed, IntegerType(32))
        rewriter.replace(op, [index, counter, *ops, low], [low.result])


class LowerUniform(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: random.UniformOp, rewriter: PatternRewriter) -> None:
        wide = arith.ExtUIOp(op.draw, I64)
        value = arith.SIToFPOp(wide, op.result.type)
        scale = arith.ConstantOp(FloatAttr(rng.TWO_POW_32, op.result.type))
        quotient = arith.DivfOp(value, scale)
        rewriter.replace(op, [wide, value, scale, quotient], [quotient.result])


class LowerBernoulli(RewritePattern):
    """keep = p > 0 and (not p < 1 or p > u), as 1.0 or 0.0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: random.BernoulliOp, rewriter: PatternRewriter) -> None:
        typ = op.result.type
        zero = arith.ConstantOp(FloatAttr(0.0, typ))
        one = arith.ConstantOp(FloatAttr(1.0, typ))
        true = arith.ConstantOp(IntegerAttr(1, IntegerType(1)))
        positive = arith.CmpfOp(op.probability, zero, "ogt")
        below_one = arith.CmpfOp(op.probability, one, "olt")
        not_below_one = arith.XOrIOp(below_one, true)
        beats_draw = arith.CmpfOp(op.probability, op.uniform, "ogt")
        keeps = arith.OrIOp(not_below_one, beats_draw)
        keep = arith.AndIOp(positive, keeps)
        bit = arith.SelectOp(keep, one, zero)
        new_ops = [
            zero,
            one,
            true,
            positive,
            below_one,
            not_below_one,
            beats_draw,
            keeps,
            keep,
            bit,
        ]
        rewriter.replace(op, new_ops, [bit.result])


RANDOM_OPS = (random.KeyOp, random.DrawOp, random.UniformOp, random.BernoulliOp)
"""The ops this pass lowers (all of the `random` dialect's)."""


@dataclass(frozen=True)
class ConvertRandomToArith(ModulePass):
    """Expand the `random` dialect into SplitMix64 on i64 arith."""

    name = "convert-random-to-arith"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Most kernels draw nothing, and the rewrite walker would still visit
        # every op of their loop bodies (twice: once more to see nothing changed).
        if not any(isinstance(inner, RANDOM_OPS) for inner in op.walk()):
            return
        patterns = [LowerKey(), LowerDraw(), LowerUniform(), LowerBernoulli()]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
