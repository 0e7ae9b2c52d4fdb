"""A tlir module back to current-dialect `torchlean.ir.v1` JSON (docs/json-format.md#root-fields).

`@main` must take one argument (the input node). Each tlir op becomes one node,
numbered in op order; `tlir.const` operands that only feed parameters
(linear/conv weights, batch-norm statistics, layernorm gamma/beta) become the
node's inline payload instead of nodes. Import → export → import gives the same
module; random ops keep their keys because their `node_id` must equal the id
they receive here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from tlir.dense import dense_to_numpy
from tlir.diagnostics import TlirError, describe_location
from tlir.dialects import tlir as T
from tlir.interface import find_function
from tlir.optable import OpTable
from tlir.torchlean.json_text import dumps
from tlir.torchlean.payload_folding import fold_payloads
from tlir.torchlean.reader import FORMAT

Fields = Callable[["Exporter", Any], dict[str, Any]]


@dataclass(frozen=True)
class Writer:
    """How one op is written: its node's fields, and which operands are payload
    (written inline in the node, not as parents)."""

    fields: Fields
    payload: tuple[str, ...] = ()


WRITERS: OpTable[Writer] = OpTable("JSON writer")
"""One writer per tlir op, keyed by op class."""


def writes(*op_classes: type[T.TlirOp], payload: tuple[str, ...] = ()):
    def decorate(fields: Fields) -> Fields:
        for op_class in op_classes:
            WRITERS.add(op_class, Writer(fields, payload))
        return fields

    return decorate


def payload_names(op: Operation) -> tuple[str, ...]:
    writer = WRITERS.lookup(op)
    return writer.payload if writer is not None else ()


def _shape(value: SSAValue) -> list[int]:
    return list(value.type.get_shape())


def _ints(attr) -> list[int]:
    return list(T._ints(attr))


def _int(attr) -> int:
    return attr.value.data


class Exporter:
    """Writes `@main` as a graph document. With `binary`, each payload becomes a
    reference to an array in `self.arrays` (the members of a `.tlz`, which keep
    every bit, NaN and infinities included) instead of nested JSON lists."""

    def __init__(self, module: ModuleOp, where: str, binary: bool = False):
        from tlir.passes.tlir_specialize_batch import is_dynamic

        self.where = where
        if is_dynamic(module):  # TorchLean's graphs have fixed extents
            raise TlirError(
                where,
                "the module's batch is '?' and a TorchLean graph has fixed extents: export it "
                "at a batch (tlir-opt -p 'tlir-specialize-batch{batch=N}', or tlir.save's "
                "batch=N), or as a .tlz, which keeps the '?'",
            )
        module = fold_payloads(module, payload_names, where)
        self.main = find_function(module)
        self.ids: dict[SSAValue, int] = {}
        self.nodes: list[dict[str, Any]] = []
        self.binary = binary
        self.arrays: dict[str, np.ndarray] = {}
        self._members: dict[tuple[Operation, tuple[int, ...]], str] = {}

    def error(self, op: Operation, message: str) -> TlirError:
        return TlirError(describe_location(op.location, self.where), f"{op.name}: {message}")

    def payload(self, op: Operation, name: str) -> np.ndarray:
        value = getattr(op, name)
        producer = value.owner if isinstance(value, SSAValue) else None
        if not isinstance(producer, T.ConstOp):
            raise self.error(
                op,
                f"operand '{name}' is written as payload, so it must be computed from constants "
                "only, not from the input or a random op",
            )
        array = dense_to_numpy(producer.value)
        if not self.binary and not np.all(np.isfinite(array)):
            raise self.error(op, f"operand '{name}' holds NaN or infinity, which JSON cannot carry")
        return array

    def payload_field(self, op: Operation, name: str) -> Any:
        """Operand `name` as the value of its node field: nested lists in JSON,
        a reference to an array member in a `.tlz` (one member per constant,
        however many nodes read it)."""
        array = self.payload(op, name)
        if not self.binary:
            return array.tolist()
        return self.array_field(getattr(op, name).owner, f"node{len(self.nodes)}.{name}", array)

    def array_field(self, const: Operation, stem: str, array: np.ndarray) -> dict[str, str]:
        """A reference to the member holding `array`, the values of `const` in
        the shape of the field: one member per constant and shape (a constant
        written as a node, flat, and read as a payload, nested, needs two)."""
        from tlir.torchlean.container import reference

        key = (const, array.shape)
        if key not in self._members:
            self._members[key] = f"arrays/{stem}.npy"
            self.arrays[self._members[key]] = array
        return reference(self._members[key])

    def payload_only(self, op: Operation) -> bool:
        """A constant all of whose uses are payload operands is no node of its own."""
        if not isinstance(op, T.ConstOp):
            return False
        for use in op.result.uses:
            names = payload_names(use.operation)
            if not any(getattr(use.operation, n) is op.result for n in names):
                return False
        return op.result.uses.get_length() > 0

    def run(self) -> dict[str, Any]:
        args = self.main.body.block.args
        if len(args) != 1:
            raise TlirError(self.where, f"@main must take exactly one input, it takes {len(args)}")
        self.add(args[0], {"kind": "input", "parents": []})
        outputs: list[int] = []
        for op in self.main.body.block.ops:
            if isinstance(op, func.ReturnOp):
                outputs = [self.ids[v] for v in op.arguments]
                break
            if self.payload_only(op):
                continue
            self.add(op.results[0], self.node_of(op))
        if not outputs:
            raise TlirError(self.where, "@main returns nothing; a graph needs an output")
        head: dict[str, Any] = {"format": FORMAT}
        if self.binary:
            from tlir.torchlean.container import CONTAINER

            head |= {"container": CONTAINER, "dtype": str(args[0].type.element_type)}
        return {**head, "input_id": 0, "output_ids": outputs, "nodes": self.nodes}

    def add(self, value: SSAValue, fields: dict[str, Any]) -> None:
        node_id = len(self.nodes)
        self.ids[value] = node_id
        kind, parents = fields.pop("kind"), fields.pop("parents")
        node = {"id": node_id, "kind": kind, "parents": parents, "shape": _shape(value)}
        self.nodes.append({**node, **fields})

    def node_of(self, op: Operation) -> dict[str, Any]:
        writer = WRITERS.lookup(op)
        if writer is None:
            raise self.error(op, "only tlir ops can be written to torchlean.ir.v1")
        parents = [
            self.ids[v] for v in op.operands if not any(getattr(op, n) is v for n in writer.payload)
        ]
        return {"kind": T.wire_tag(type(op)), "parents": parents, **writer.fields(self, op)}


@writes(T.CustomOp)
def _custom(exporter: Exporter, op: T.CustomOp) -> dict[str, Any]:
    raise exporter.error(op, "custom computations cannot be written to torchlean.ir.v1")


@writes(
    T.DetachOp, T.AddOp, T.SubOp, T.MulElemOp, T.AbsOp, T.SqrtOp, T.InvOp, T.MaxElemOp,
    T.MinElemOp, T.SumOp, T.MatmulOp, T.ReluOp, T.TanhOp, T.SigmoidOp, T.ExpOp, T.LogOp,
    T.SinOp, T.CosOp, T.SoftplusOp, T.SafeLogOp, T.MseLossOp,
)  # fmt: skip
def _no_fields(exporter: Exporter, op: Operation) -> dict[str, Any]:
    return {}


@writes(T.ConstOp)
def _const(exporter: Exporter, op: T.ConstOp) -> dict[str, Any]:
    values = dense_to_numpy(op.value).reshape(-1)
    if exporter.binary:
        field = exporter.array_field(op, f"node{len(exporter.nodes)}.values", values)
        return {"value_shape": _shape(op.result), "values": field}
    if not np.all(np.isfinite(values)):
        raise exporter.error(op, "the constant holds NaN or infinity, which JSON cannot carry")
    return {"value_shape": _shape(op.result), "values": values.tolist()}


@writes(T.RandUniformOp, T.BernoulliMaskOp)
def _random(exporter: Exporter, op: T.RandUniformOp | T.BernoulliMaskOp) -> dict[str, Any]:
    node_id = len(exporter.nodes)
    if _int(op.node_id) != node_id:
        raise exporter.error(
            op,
            f"node_id {_int(op.node_id)} would become node {node_id} in the exported graph, "
            "which changes its random numbers",
        )
    return {"seed": _int(op.seed) % (1 << 64)}


@writes(T.MaxPoolOp, T.AvgPoolOp)
def _window(exporter: Exporter, op: T.WindowOp) -> dict[str, Any]:
    kernel = _ints(op.kernel)
    return {"spatial_rank": len(kernel), "kernel": kernel, "stride": _ints(op.stride),
            "padding": _ints(op.padding)}  # fmt: skip


@writes(T.LinearOp, payload=("weight", "bias"))
def _linear(exporter: Exporter, op: T.LinearOp) -> dict[str, Any]:
    out_dim, in_dim = _shape(op.weight)
    return {"out_dim": out_dim, "in_dim": in_dim, "weight": exporter.payload_field(op, "weight"),
            "bias": exporter.payload_field(op, "bias")}  # fmt: skip


@writes(T.ConvOp, payload=("weight", "bias"))
def _conv(exporter: Exporter, op: T.ConvOp) -> dict[str, Any]:
    cfg = op.config
    return {
        "spatial_rank": cfg.spatial_rank, "kernel": list(cfg.kernel), "stride": list(cfg.stride),
        "padding": list(cfg.padding), "padding_after": list(cfg.padding_after),
        "dilation": list(cfg.dilation), "groups": cfg.groups, "channel_axis": cfg.channel_axis,
        "in_channels": cfg.in_channels, "out_channels": cfg.out_channels,
        "input_spatial": _shape(op.input)[cfg.channel_axis + 1 :],
        "weight": exporter.payload_field(op, "weight"),
        "bias": exporter.payload_field(op, "bias"),
    }  # fmt: skip


@writes(T.BatchNormEvalOp, payload=("gamma", "beta", "mean", "var"))
def _batch_norm(exporter: Exporter, op: T.BatchNormEvalOp) -> dict[str, Any]:
    fields: dict[str, Any] = {"channel_axis": _int(op.channel_axis), "channels": _int(op.channels),
                              "eps": op.eps.value.data}  # fmt: skip
    for name in ("gamma", "beta", "mean", "var"):
        fields[name] = exporter.payload_field(op, name)
    return fields


@writes(T.LayerNormOp, payload=("gamma", "beta"))
def _layernorm(exporter: Exporter, op: T.LayerNormOp) -> dict[str, Any]:
    fields: dict[str, Any] = {"axis": _int(op.axis)}
    if op.gamma is not None:
        fields["gamma"] = exporter.payload_field(op, "gamma")
        fields["beta"] = exporter.payload_field(op, "beta")
        fields["eps"] = op.eps.value.data
    elif op.eps.value.data != 1e-5:
        raise exporter.error(op, "a layernorm without gamma/beta must use eps = 1e-5 in JSON")
    return fields


@writes(T.HardMaskedSoftmaxOp)
def _mask(exporter: Exporter, op: T.HardMaskedSoftmaxOp) -> dict[str, Any]:
    return {"allowed": [bool(v) for v in op.mask.get_values()]}


for _op_class, _fields in {
    T.PermuteOp: lambda e, op: {"perm": _ints(op.perm)},
    T.TransposeOp: lambda e, op: {"axis1": _int(op.axis1), "axis2": _int(op.axis2)},
    T.BroadcastToOp: lambda e, op: {"from_shape": _shape(op.input), "to_shape": _shape(op.result)},
    T.ReduceSumOp: lambda e, op: {"axes": [_int(op.axis)], "keepdim": False},
    T.ReduceMeanOp: lambda e, op: {"axes": [_int(op.axis)], "keepdim": False},
    T.SoftmaxOp: lambda e, op: {"axis": _int(op.axis)},
    T.ReshapeOp: lambda e, op: {"in_shape": _shape(op.input), "out_shape": _shape(op.result)},
    T.FlattenOp: lambda e, op: {"value_shape": _shape(op.input)},
    T.ConcatOp: lambda e, op: {"axis": _int(op.axis)},
}.items():
    WRITERS.add(_op_class, Writer(_fields))


def export_module(module: ModuleOp, where: str = "module") -> dict[str, Any]:
    return Exporter(module, where).run()


def export_bytes(module: ModuleOp, path: str, where: str = "module") -> bytes:
    """The model file `path` names by its extension: a `.tlz` container, else
    `torchlean.ir.v1` JSON text."""
    from tlir.passes.tlir_specialize_batch import is_dynamic
    from tlir.torchlean.container import container_bytes, is_container

    if not is_container(path):
        return dumps(export_module(module, where)).encode()
    if is_dynamic(module):
        return _dynamic_container_bytes(module, where)
    exporter = Exporter(module, where, binary=True)
    return container_bytes(exporter.run(), exporter.arrays)


def _dynamic_container_bytes(module: ModuleOp, where: str) -> bytes:
    """A `tlz.v3`: the `?` module written at the two batches the front ends
    trace at, the second's nodes under the root field `batch`. The two graphs
    have the same nodes and the same constants (a `?` module's constants have
    no batch), hence the same array members, stored once."""
    from tlir.frontend.batch import BATCHES
    from tlir.passes.tlir_specialize_batch import specialize
    from tlir.torchlean.container import BATCH_FIELD, DYNAMIC_CONTAINER, container_bytes

    exporters = [Exporter(specialize(module, b, where), where, binary=True) for b in BATCHES]
    first, second = (exporter.run() for exporter in exporters)
    shapes = [{k: a.shape for k, a in e.arrays.items()} for e in exporters]
    if shapes[0] != shapes[1]:  # cannot happen for a module `tlir-specialize-batch` accepts
        raise TlirError(where, "the model's constants depend on its batch")
    first["container"] = DYNAMIC_CONTAINER
    first[BATCH_FIELD] = {"batches": list(BATCHES), "nodes": second["nodes"]}
    return container_bytes(first, exporters[0].arrays)


__all__ = ["dumps", "export_bytes", "export_module"]
