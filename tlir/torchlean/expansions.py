"""Import-time expansions: multi-axis reductions and attention
(docs/json-format.md#import-time-expansions).

Both create several tensor nodes from one raw node, and so shift the tensor
ids of every later node (which key the random ops).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from xdsl.ir import SSAValue

from tlir import shapes
from tlir.dialects import tlir as T
from tlir.dialects.tlir import i64_attr
from tlir.shapes import ShapeError, fmt
from tlir.torchlean.graph_builder import GraphBuilder
from tlir.torchlean.reader import RawNode


def _shape(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())


def reduce_handler(op_class: type[T.AxisReduceOp]) -> Callable:
    """`reduce_*` with `axes` and `keepdim`: one single-axis reduce per axis, in
    descending axis order, each followed by a reshape re-inserting the axis when
    `keepdim`; no axes means the parent itself."""

    def handle(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
        if not node.has("axes") and node.has("axis"):
            raise node.error(
                "the current format needs 'axes' and 'keepdim' (a single 'axis' is legacy)"
            )
        return expand_reduce(b, node, args[0], op_class, node.nats("axes"), node.boolean("keepdim"))

    return handle


def expand_reduce(
    b: GraphBuilder,
    node: RawNode,
    value: SSAValue,
    op_class: type[T.AxisReduceOp],
    axes: tuple[int, ...],
    keepdim: bool,
) -> SSAValue:
    rank = len(_shape(value))
    for axis in axes:
        if axis >= rank:
            raise node.error(f"axis {axis} is out of range for rank {rank}")
    if len(set(axes)) != len(axes):
        raise node.error(f"axes {list(axes)} has a duplicate")
    for axis in sorted(axes, reverse=True):
        try:
            reduced = shapes.reduce_axis(_shape(value), axis)
        except ShapeError as err:
            raise node.error(str(err)) from None
        value = b.emit(op_class, [value], reduced, {"axis": i64_attr(axis)})
        if keepdim:
            kept = reduced[:axis] + (1,) + reduced[axis:]
            value = b.emit(T.ReshapeOp, [value], kept)
    if _shape(value) != node.shape:
        raise node.error(
            f"declared shape {fmt(node.shape)} does not match the reduced shape "
            f"{fmt(_shape(value))}"
        )
    return value


def multihead_attention(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> tuple:
    """Single-head, batch-first self-attention as ten tensor nodes: q/k/v linears,
    k transposed, q·kᵀ, a constant of `scale` (`_scale`), the scaling, softmax
    over keys, the weighted sum of values, and the output linear."""
    if len({id(a) for a in args}) != 1:
        raise node.error(
            "only self-attention is supported (query, key and value must be one value)"
        )
    embed = node.nat("embed_dim")
    if node.nat("num_heads") != 1:
        raise node.error(f"only num_heads = 1 is supported, got {node.nat('num_heads')}")
    if not node.boolean("batch_first", default=False):
        raise node.error("only batch_first attention is supported")
    if not node.boolean("dropout_zero", default=False):
        raise node.error("only attention without dropout is supported")
    x = args[0]
    xs = _shape(x)
    if len(xs) != 3 or xs[2] != embed:
        raise node.error(f"input shape {fmt(xs)} is not [B, N, {embed}]")
    batch, seq = xs[0], xs[1]
    has_bias = node.boolean("bias", default=True)

    def projection(prefix: str, value: SSAValue) -> SSAValue:
        weight = b.constant(node.tensor(f"{prefix}_weight", (embed, embed)), f"{prefix}_weight")
        bias_values = node.tensor(f"{prefix}_bias", (embed,)) if has_bias else np.zeros(embed)
        bias = b.constant(bias_values, f"{prefix}_bias")
        return b.emit(T.LinearOp, [value, weight, bias], xs)

    q, k, v = projection("q", x), projection("k", x), projection("v", x)
    kt = b.emit(T.TransposeOp, [k], (batch, embed, seq),
                {"axis1": i64_attr(1), "axis2": i64_attr(2)})  # fmt: skip
    scores = b.emit(T.MatmulOp, [q, kt], (batch, seq, seq))
    scaled = b.emit(T.MulElemOp, [scores, _scale(b, node, embed, batch, seq)], (batch, seq, seq))
    weights = b.emit(T.SoftmaxOp, [scaled], (batch, seq, seq), {"axis": i64_attr(2)})
    mixed = b.emit(T.MatmulOp, [weights, v], xs)
    return ("attention", projection("out", mixed))


def _scale(b: GraphBuilder, node: RawNode, embed: int, batch: int, seq: int) -> SSAValue:
    """The expansion's `[B, N, N]` constant of `scale` (one tensor node). The
    parameter is the scalar the model file gives, `node{M}.scale` of shape [],
    broadcast inside the function: to one axis of B·N·N, whose gradient is one
    fold of the copy's adjoint from +0 in row-major order (TorchLean's gradient
    of a broadcast parameter), then reshaped. O(1) in the IR whatever B and N."""
    scale = node.number("scale") if node.has("scale") else float(embed) ** -0.5
    if not math.isfinite(scale):
        raise node.error("field 'scale' must be finite")
    parameter = b.constant(np.array(scale), "scale")
    flat = b.emit(T.BroadcastToOp, [parameter], (batch * seq * seq,), counts_as_node=False)
    return b.emit(T.ReshapeOp, [flat], (batch, seq, seq))


def tuple_getitem(b: GraphBuilder, node: RawNode, args: list) -> SSAValue:
    """Only `tuple_getitem(multihead_attention, 0)` exists in tensor IR; it is a
    projection, not a node of its own."""
    source = args[0]
    if not isinstance(source, tuple):
        raise node.error("tuple_getitem needs a tuple-valued parent")
    if node.nat("index") != 0:
        raise node.error(
            f"only index 0 of multihead_attention can be read, got {node.nat('index')}"
        )
    value = source[1]
    if _shape(value) != node.shape:
        raise node.error(f"declared shape {fmt(node.shape)} does not match {fmt(_shape(value))}")
    return value
