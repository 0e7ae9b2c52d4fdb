"""`torchlean.ir.v1` JSON to a tlir module (docs/json-format.md): current and legacy files.

Each TorchLean kind has its own small handler, registered by op class in
`READERS` (with the kind's parent count); `import_graph` only dispatches.
Handlers read the node's fields, turn payloads into `tlir.const` operands and
emit ops through `GraphBuilder`, whose verifier applies TorchLean's shape rules.
Legacy kinds are rewritten to current ones (docs/json-format.md#legacy-dialect)
in `tlir.torchlean.legacy`; the import-time expansions (`reduce_*` with `axes`,
single-head attention; docs/json-format.md#import-time-expansions) live in
`tlir.torchlean.expansions`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import SSAValue

from tlir import shapes
from tlir.dialects import tlir as T
from tlir.dialects.tlir import i64_array, i64_attr, seed_attr
from tlir.interface import element_type_name
from tlir.optable import OpTable
from tlir.shapes import Shape, ShapeError, fmt
from tlir.torchlean.graph_builder import GraphBuilder
from tlir.torchlean.reader import RawGraph, RawNode, read_graph

Handler = Callable[[GraphBuilder, RawNode, list[SSAValue]], SSAValue]

NORMALIZATION_EPSILON = 1e-5


def shape_of(value: SSAValue) -> Shape:
    return tuple(value.type.get_shape())


Arity = tuple[int, int | None]
"""The allowed parent count: (min, max); None = no maximum (docs/ops.md#arity)."""


@dataclass(frozen=True)
class Reader:
    """How one JSON kind is read: its handler and its parent count."""

    handle: Handler
    arity: Arity = (1, 1)


READERS: OpTable[Reader] = OpTable("JSON reader")
"""One reader per tlir op, keyed by op class; the JSON kind is the op's wire tag."""


def reads(*op_classes: type[T.TlirOp], arity: Arity = (1, 1)) -> Callable[[Handler], Handler]:
    def decorate(handler: Handler) -> Handler:
        for op_class in op_classes:
            READERS.add(op_class, Reader(handler, arity))
        return handler

    return decorate


def _plain(op_class: type[T.TlirOp]) -> Handler:
    """Ops whose JSON node has no fields beyond the common ones."""

    def handle(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
        return b.emit(op_class, args, node.shape)

    return handle


def _input(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    b.take_tensor_id()
    return b.input


@reads(T.ConstOp, arity=(0, 0))
def _const(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    value_shape = node.nats("value_shape", default=node.shape)
    if value_shape != node.shape:
        raise node.error(f"value_shape {fmt(value_shape)} does not match shape {fmt(node.shape)}")
    if not node.has("values"):
        raise node.error("missing field 'values' (the constant's payload)")
    values = node.flat("values", shapes.size(value_shape)).reshape(value_shape)
    b.take_tensor_id()
    return b.constant(values, "values")


@reads(T.CustomOp, arity=(0, None))
def _custom(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    raise node.error("custom computations need a checked Lean body; JSON cannot carry one")


@reads(T.PermuteOp)
def _permute(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    return b.emit(T.PermuteOp, args, node.shape, {"perm": i64_array(node.nats("perm"))})


@reads(T.TransposeOp)
def _transpose(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    props = {"axis1": i64_attr(node.nat("axis1")), "axis2": i64_attr(node.nat("axis2"))}
    return b.emit(T.TransposeOp, args, node.shape, props)


def _random_props(b: GraphBuilder, node: RawNode) -> dict:
    return {"seed": seed_attr(node.seed()), "node_id": i64_attr(b.next_tensor_id)}


@reads(T.RandUniformOp, arity=(0, 0))
def _rand_uniform(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    return b.emit(T.RandUniformOp, args, node.shape, _random_props(b, node))


@reads(T.BernoulliMaskOp)
def _bernoulli_mask(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    return b.emit(T.BernoulliMaskOp, args, node.shape, _random_props(b, node))


def window_props(kernel: Shape, stride: Shape, padding: Shape) -> dict:
    return {
        "kernel": i64_array(kernel),
        "stride": i64_array(stride),
        "padding": i64_array(padding),
    }


@reads(T.BroadcastToOp)
def _broadcast_to(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    source, target = node.nats("from_shape"), node.nats("to_shape")
    if source != shape_of(args[0]):
        raise node.error(
            f"from_shape {fmt(source)} does not match the parent shape {fmt(shape_of(args[0]))}"
        )
    try:
        shapes.broadcast_to(source, target)
    except ShapeError as err:
        raise node.error(str(err)) from None
    if target != node.shape:
        raise node.error(f"to_shape {fmt(target)} does not match shape {fmt(node.shape)}")
    return b.emit(T.BroadcastToOp, args, node.shape)


@reads(T.LinearOp)
def _linear(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    x = shape_of(args[0])
    try:
        shapes.linear_declared(x, node.shape)
    except ShapeError as err:
        raise node.error(str(err)) from None
    out_dim, in_dim = node.nat("out_dim"), node.nat("in_dim")
    if x[-1] != in_dim:
        raise node.error(
            f"payload in_dim = {in_dim} does not match the input's last extent {x[-1]}"
        )
    if node.shape[-1] != out_dim:
        raise node.error(
            f"payload out_dim = {out_dim} does not match the declared last extent {node.shape[-1]}"
        )
    weight = b.constant(node.tensor("weight", (out_dim, in_dim)), "weight")
    bias = b.constant(node.tensor("bias", (out_dim,)), "bias")
    return b.emit(T.LinearOp, [args[0], weight, bias], node.shape)


def conv_props(cfg: shapes.ConvConfig) -> dict:
    return {
        "kernel": i64_array(cfg.kernel),
        "stride": i64_array(cfg.stride),
        "padding": i64_array(cfg.padding),
        "padding_after": i64_array(cfg.padding_after),
        "dilation": i64_array(cfg.dilation),
        "groups": i64_attr(cfg.groups),
        "channel_axis": i64_attr(cfg.channel_axis),
        "in_channels": i64_attr(cfg.in_channels),
        "out_channels": i64_attr(cfg.out_channels),
    }


def emit_conv(b: GraphBuilder, node: RawNode, x: SSAValue, cfg: shapes.ConvConfig) -> SSAValue:
    """Check the geometry first (TorchLean's order), then read the payload."""
    try:
        shapes.conv(shape_of(x), cfg)
    except ShapeError as err:
        raise node.error(str(err)) from None
    spatial = shape_of(x)[cfg.channel_axis + 1 :]
    if node.has("input_spatial") and node.nats("input_spatial") != spatial:
        raise node.error(
            f"input_spatial {fmt(node.nats('input_spatial'))} does not match the "
            f"parent's spatial extents {fmt(spatial)}"
        )
    weight_shape = (cfg.out_channels, cfg.in_channels) + cfg.kernel
    weight = b.constant(node.tensor("weight", weight_shape), "weight")
    bias = b.constant(node.tensor("bias", (cfg.out_channels,)), "bias")
    return b.emit(T.ConvOp, [x, weight, bias], node.shape, conv_props(cfg))


@reads(T.ConvOp)
def _conv(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    rank = node.nat("spatial_rank")
    padding = node.nats("padding", rank)
    cfg = shapes.ConvConfig(
        kernel=node.nats("kernel", rank),
        stride=node.nats("stride", rank),
        padding=padding,
        padding_after=node.nats("padding_after", rank, default=padding),
        dilation=node.nats("dilation", rank, default=(1,) * rank),
        groups=node.nat("groups", default=1),
        channel_axis=node.nat("channel_axis"),
        in_channels=node.nat("in_channels"),
        out_channels=node.nat("out_channels"),
    )
    return emit_conv(b, node, args[0], cfg)


def emit_batch_norm(
    b: GraphBuilder, node: RawNode, x: SSAValue, channel_axis: int, channels: int
) -> SSAValue:
    try:
        shapes.batch_norm(shape_of(x), channel_axis, channels)
    except ShapeError as err:
        raise node.error(str(err)) from None
    names = ("gamma", "beta", "mean", "var")
    params = [b.constant(node.tensor(name, (channels,)), name) for name in names]
    props = {
        "channel_axis": i64_attr(channel_axis),
        "channels": i64_attr(channels),
        "eps": FloatAttr(node.number("eps"), Float64Type()),
    }
    return b.emit(T.BatchNormEvalOp, [x, *params], node.shape, props)


@reads(T.BatchNormEvalOp)
def _batch_norm_eval(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    return emit_batch_norm(b, node, args[0], node.nat("channel_axis"), node.nat("channels"))


def emit_layernorm(b: GraphBuilder, node: RawNode, x: SSAValue, affine: bool) -> SSAValue:
    axis = node.nat("axis")
    try:
        shapes.layernorm(shape_of(x), axis)
    except ShapeError as err:
        raise node.error(str(err)) from None
    eps = NORMALIZATION_EPSILON
    operands: list = [x, [], []]
    if affine:
        normalized = shape_of(x)[axis:]
        operands = [x, [b.constant(node.tensor("gamma", normalized), "gamma")],
                    [b.constant(node.tensor("beta", normalized), "beta")]]  # fmt: skip
        eps = node.number("eps")
    props = {"axis": i64_attr(axis), "eps": FloatAttr(eps, Float64Type())}
    return b.emit(T.LayerNormOp, operands, node.shape, props)


@reads(T.LayerNormOp)
def _layernorm(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    # TorchLean's parsePayload requires gamma, beta and eps on every layernorm;
    # tlir also reads a node with none of them (no affine part, eps = 1e-5, the
    # spec's payload-free semantics), which is how it writes such a layernorm.
    present = [name for name in ("gamma", "beta", "eps") if node.has(name)]
    if present and len(present) != 3:
        missing = sorted({"gamma", "beta", "eps"} - set(present))
        raise node.error(f"missing field '{missing[0]}' (gamma, beta and eps go together)")
    return emit_layernorm(b, node, args[0], affine=bool(present))


@reads(T.HardMaskedSoftmaxOp)
def _hard_masked_softmax(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    # TorchLean's JSON has no mask encoding; tlir reads its own extension field
    # "allowed" (a flat row-major list of booleans), which its exporter writes.
    if not node.has("allowed"):
        raise node.error(
            "TorchLean's JSON has no mask encoding; tlir expects the extension field 'allowed'"
        )
    allowed = node.fields["allowed"]
    count = shapes.size(node.shape)
    if (
        not isinstance(allowed, list)
        or len(allowed) != count
        or not all(isinstance(v, bool) for v in allowed)
    ):
        raise node.error(f"field 'allowed' must be a flat list of {count} booleans")
    mask_type = TensorType(IntegerType(1), list(node.shape))
    mask = DenseIntOrFPElementsAttr.from_list(mask_type, [int(v) for v in allowed])
    return b.emit(T.HardMaskedSoftmaxOp, args, node.shape, {"mask": mask})


@reads(T.ReshapeOp)
def _reshape(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    in_shape, out_shape = node.nats("in_shape"), node.nats("out_shape")
    if in_shape != shape_of(args[0]):
        raise node.error(
            f"in_shape {fmt(in_shape)} does not match the parent shape {fmt(shape_of(args[0]))}"
        )
    try:
        shapes.reshape(in_shape, out_shape)
    except ShapeError as err:
        raise node.error(str(err)) from None
    if out_shape != node.shape:
        raise node.error(f"out_shape {fmt(out_shape)} does not match shape {fmt(node.shape)}")
    return b.emit(T.ReshapeOp, args, node.shape)


@reads(T.FlattenOp)
def _flatten(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    value_shape = node.nats("value_shape")
    if value_shape != shape_of(args[0]):
        raise node.error(
            f"value_shape {fmt(value_shape)} does not match the parent shape "
            f"{fmt(shape_of(args[0]))}"
        )
    return b.emit(T.FlattenOp, args, node.shape)


@reads(T.ConcatOp, arity=(2, None))
def _concat(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
    return b.emit(T.ConcatOp, [args], node.shape, {"axis": i64_attr(node.nat("axis"))})


def _pool(op_class: type[T.WindowOp]) -> Handler:
    def handle(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
        rank = node.nat("spatial_rank")
        props = window_props(
            node.nats("kernel", rank), node.nats("stride", rank), node.nats("padding", rank)
        )
        return b.emit(op_class, args, node.shape, props)

    return handle


def _axis_op(op_class: type[T.TlirOp]) -> Handler:
    def handle(b: GraphBuilder, node: RawNode, args: list[SSAValue]) -> SSAValue:
        return b.emit(op_class, args, node.shape, {"axis": i64_attr(node.nat("axis"))})

    return handle


def _register_family_readers() -> None:
    from tlir.torchlean import expansions

    for op_class in (T.MaxPoolOp, T.AvgPoolOp):
        READERS.add(op_class, Reader(_pool(op_class)))
    for op_class in (T.ReduceSumOp, T.ReduceMeanOp):
        READERS.add(op_class, Reader(expansions.reduce_handler(op_class)))
    READERS.add(T.SoftmaxOp, Reader(_axis_op(T.SoftmaxOp)))
    binary = (T.AddOp, T.SubOp, T.MulElemOp, T.MaxElemOp, T.MinElemOp, T.MatmulOp,
              T.SafeLogOp, T.MseLossOp)  # fmt: skip
    unary = (T.DetachOp, T.AbsOp, T.SqrtOp, T.InvOp, T.SumOp, T.ReluOp, T.TanhOp, T.SigmoidOp,
             T.ExpOp, T.LogOp, T.SinOp, T.CosOp, T.SoftplusOp)  # fmt: skip
    for op_class in binary:
        READERS.add(op_class, Reader(_plain(op_class), (2, 2)))
    for op_class in unary:
        READERS.add(op_class, Reader(_plain(op_class)))


_register_family_readers()

KINDS: dict[str, type[T.TlirOp]] = {T.wire_tag(op_class): op_class for op_class in READERS}
"""JSON kind → op class."""


def _raw_kinds() -> dict[str, Reader]:
    """Kinds of the raw value graph that are not tlir ops
    (docs/json-format.md#import-time-expansions)."""
    from tlir.torchlean import expansions

    return {
        "input": Reader(_input, (0, 0)),
        "multihead_attention": Reader(expansions.multihead_attention, (1, 3)),
        "tuple_getitem": Reader(expansions.tuple_getitem),
    }


def reader_of(node: RawNode, legacy: bool = False) -> Reader:
    op_class = KINDS.get(node.kind)
    reader = READERS[op_class] if op_class is not None else _raw_kinds().get(node.kind)
    if reader is None:
        raise node.error(f"unknown op kind '{node.kind}' (known kinds: {known_kinds(legacy)})")
    return reader


def known_kinds(legacy: bool) -> str:
    """The kinds a file may use, sorted: the current dialect's, and in a legacy
    file its rewritten kinds too."""
    from tlir.torchlean.legacy import REWRITES

    kinds = {*KINDS, *_raw_kinds(), *(REWRITES if legacy else ())}
    return ", ".join(sorted(kinds))


def check_arity(node: RawNode, arity: Arity) -> None:
    low, high = arity
    count = len(node.parents)
    if count < low or (high is not None and count > high):
        want = (
            f"{low}" if low == high else f"at least {low}" if high is None else f"{low} to {high}"
        )
        raise node.error(f"expects {want} parent(s), got {count}")


def import_graph(graph: RawGraph, dtype: object = None) -> ModuleOp:
    """Lower a parsed graph to a module with `func.func @main`, in `dtype`:
    'f32', 'f64' or NumPy's float32/float64 (default: the dtype a `.tlz` was
    written in, float64 for JSON)."""
    from tlir.torchlean import legacy

    dtype = element_type_name(dtype, graph.file) or graph.dtype or "f64"
    numpy_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    input_node = graph.nodes[graph.input_id]
    b = GraphBuilder(graph.file, numpy_dtype, input_node.shape or ())
    values: dict[int, SSAValue | tuple] = {}
    for node in graph.nodes:
        b.node = node
        if graph.legacy:
            node = legacy.rewrite(node, values)
            b.node = node
        reader = reader_of(node, graph.legacy)
        check_arity(node, reader.arity)
        args = [_tensor_parent(node, values, p) for p in node.parents]
        if node.shape is None and node.kind != "multihead_attention":
            raise node.error("only multihead_attention may produce a tuple value")
        values[node.id] = reader.handle(b, node, args)
    outputs = []
    for output in graph.output_ids:
        value = values[output]
        if not isinstance(value, SSAValue):
            raise graph.nodes[output].error("an output must be a tensor, not a tuple")
        outputs.append(value)
    return b.finish(outputs, graph.input_id)


def _tensor_parent(node: RawNode, values: dict, parent: int):
    value = values[parent]
    if isinstance(value, tuple) and node.kind != "tuple_getitem":
        raise node.error(f"parent {parent} is a tuple; only tuple_getitem may read it")
    return value


def import_file(path: str, dtype: object = None, data: bytes | None = None) -> ModuleOp:
    """A `torchlean.ir.v1` JSON file or a `.tlz` (by its extension) as a module;
    `data` is the file's content when already read (standard input, named `path`).
    A `tlz.v3` (a `?` batch) is imported at its two batches and generalized."""
    graph = read_graph(path, data)
    module = import_graph(graph, dtype)
    if graph.at_second_batch is None:
        return module
    from tlir.frontend.batch import generalize
    from tlir.torchlean.container import BATCH_FIELD

    second = import_graph(graph.at_second_batch, dtype)
    hint = f"field '{BATCH_FIELD}' does not describe a '?' batch"
    return generalize(module, second, graph.batches, path, hint)


__all__ = ["import_file", "import_graph"]
