"""Building a tlir module node by node, with TorchLean's tensor ids.

`GraphBuilder.emit` appends an op for the current raw node, verifies it at
once with the dialect's verifier (TorchLean's shape rules), and counts tensor
ids the way TorchLean's importer does: one per tensor node after import-time
expansion (payload constants are operands, not nodes, and take no id).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, OptionalDef, ParsePropInAttrDict, VariadicDef
from xdsl.utils.exceptions import DiagnosticException

from tlir.dense import element_type, numpy_to_dense, to_carrier
from tlir.diagnostics import file_location, node_location
from tlir.dialects import tlir as T
from tlir.parameters import NAME_ATTRIBUTE
from tlir.shapes import Shape
from tlir.torchlean.reader import RawNode


@functools.cache
def _single_operands(op_class: type[T.TlirOp]) -> bool:
    """Whether every operand of the op is a single value (no variadic or optional
    group, so no segment sizes): then `create` gives the op `build` gives."""
    op_def = op_class.get_irdl_definition()
    plain_options = all(isinstance(option, ParsePropInAttrDict) for option in op_def.options)
    groups = any(isinstance(d, VariadicDef | OptionalDef) for _, d in op_def.operands)
    return plain_options and not groups


@functools.cache
def _operand_groups(op_class: type[T.TlirOp]) -> tuple[tuple[str, ...], bool] | None:
    """For an op whose only options are properties in the attribute dictionary
    and operand segment sizes as a property: each operand's kind ('single',
    'optional', 'variadic'), so `create` can be given the segment sizes `build`
    would compute, and whether it has segment sizes. None for any other op
    (it is built by `build`)."""
    op_def = op_class.get_irdl_definition()
    segmented = False
    for option in op_def.options:
        segments = isinstance(option, AttrSizedOperandSegments) and option.as_property
        segmented |= segments
        if not (segments or isinstance(option, ParsePropInAttrDict)):
            return None
    if op_def.regions or op_def.successors or len(op_def.results) != 1:
        return None
    kinds = {OptionalDef: "optional", VariadicDef: "variadic"}
    groups = tuple(
        next((k for c, k in kinds.items() if isinstance(d, c)), "single")
        for _, d in op_def.operands
    )
    return groups, segmented


@functools.lru_cache(maxsize=256)
def _segment_sizes(sizes: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


def _flat_operands(
    groups: tuple[str, ...], operands: Sequence[SSAValue | Sequence[SSAValue]]
) -> tuple[list[SSAValue], tuple[int, ...]] | None:
    """The operands in order and each group's size, as `build` makes them, or
    None when they do not fit the groups plainly (then `build` says why)."""
    if len(operands) != len(groups):
        return None  # (checked here: `zip` below is strict)
    flat: list[SSAValue] = []
    sizes: list[int] = []
    for kind, value in zip(groups, operands, strict=True):
        if isinstance(value, SSAValue):
            if kind != "single":
                return None
            flat.append(value)
            sizes.append(1)
            continue
        if kind == "single" or not all(isinstance(v, SSAValue) for v in value):
            return None
        if kind == "optional" and len(value) > 1:
            return None
        flat.extend(value)
        sizes.append(len(value))
    return flat, tuple(sizes)


class GraphBuilder:
    def __init__(self, file: str, dtype: np.dtype, input_shape: Shape):
        self.file = file
        self.dtype = np.dtype(dtype)
        self._types: dict[Shape, TensorType] = {}
        self._location: tuple[int, Attribute | None] = (-1, None)
        self.block = Block(arg_types=[self.tensor_type(input_shape)])
        self.next_tensor_id = 0
        self.node: RawNode | None = None

    def tensor_type(self, shape: Shape) -> TensorType:
        shape = tuple(shape)
        if shape not in self._types:
            self._types[shape] = TensorType(element_type(self.dtype), list(shape))
        return self._types[shape]

    @property
    def input(self) -> SSAValue:
        return self.block.args[0]

    def take_tensor_id(self) -> int:
        """Claim the next tensor id (TorchLean's node index after expansion)."""
        tensor_id = self.next_tensor_id
        self.next_tensor_id += 1
        return tensor_id

    def constant(self, values: np.ndarray, field: str) -> SSAValue:
        """A payload tensor as a `tlir.const` operand (no tensor id of its own),
        named `node{ID}.{field}` (JSON node id, payload field) for the parameter
        API (`tlir.parameters`)."""
        carrier = to_carrier(values, self.dtype)
        dense = numpy_to_dense(carrier, self.tensor_type(carrier.shape))
        # Its type is its array's shape (static): TorchLean's shape rules for a
        # constant hold by construction, so they are not checked again.
        return self._constant(dense, field, checked=False)

    def splat(self, value: float, shape: Shape, field: str) -> SSAValue:
        """`constant` of a tensor whose entries are all `value`, stored once (a
        splat): its size in the IR does not grow with `shape` (the PyTorch and
        ONNX front ends' scalars)."""
        one = numpy_to_dense(to_carrier(np.array([value]), self.dtype))
        typ = self.tensor_type(shape)
        # Checked: `shape` is the caller's and may hold the batch `?`, which a
        # constant cannot.
        return self._constant(DenseIntOrFPElementsAttr(typ, one.data), field, checked=True)

    def _constant(self, dense: DenseIntOrFPElementsAttr, field: str, checked: bool) -> SSAValue:
        op = T.ConstOp.create(properties={"value": dense}, result_types=[dense.type])
        assert self.node is not None
        op.attributes[NAME_ATTRIBUTE] = StringAttr(f"node{self.node.id}.{field}")
        return self._append(op, checked)

    def emit(
        self,
        op_class: type[T.TlirOp],
        operands: Sequence[SSAValue | Sequence[SSAValue]],
        shape: Shape,
        properties: dict[str, Attribute] | None = None,
        counts_as_node: bool = True,
    ) -> SSAValue:
        """Append one tensor node's op, verified; returns its value."""
        props = {k: v for k, v in (properties or {}).items() if v is not None}
        result_types = [self.tensor_type(shape)]
        if _single_operands(op_class) and all(isinstance(v, SSAValue) for v in operands):
            # The op `build` would give, without its per-operand-group processing
            # (a third of the cost of importing a 1,000-node graph).
            op = op_class.create(operands=operands, result_types=result_types, properties=props)
        else:
            op = self._build_segmented(op_class, operands, result_types, props)
        if counts_as_node:
            self.take_tensor_id()
        return self._append(op)

    @staticmethod
    def _build_segmented(
        op_class: type[T.TlirOp],
        operands: Sequence[SSAValue | Sequence[SSAValue]],
        result_types: list[Attribute],
        props: dict[str, Attribute],
    ) -> Operation:
        """The op `build` gives (operand segment sizes last among its
        properties, as `build` puts them), through `create` where the operands
        fit its groups plainly: `build` is a tenth of a millisecond an op."""
        layout = _operand_groups(op_class)
        plan = _flat_operands(layout[0], operands) if layout is not None else None
        if plan is None:
            return op_class.build(
                operands=list(operands), result_types=result_types, properties=props
            )
        flat, sizes = plan
        if layout[1]:
            props = {**props, AttrSizedOperandSegments.attribute_name: _segment_sizes(sizes)}
        return op_class.create(operands=flat, result_types=result_types, properties=props)

    def _append(self, op: Operation, checked: bool = True) -> SSAValue:
        assert self.node is not None
        if self._location[0] != self.node.id:
            self._location = (self.node.id, node_location(self.file, self.node.id))
        op.location = self._location[1]
        if checked:
            self._check(op)
        self.block.add_op(op)
        return op.results[0]

    def _check(self, op: Operation) -> None:
        """The builder makes operand, result and property types right by
        construction; what a file can get wrong is TorchLean's shape rules."""
        assert self.node is not None
        try:
            op.check_shape_rules()
        except DiagnosticException as err:
            message = " ".join(str(err).split()).removeprefix(f"{op.name}: ")
            raise self.node.error(message) from None

    def finish(self, outputs: Sequence[SSAValue], input_id: int, name: str = "main") -> ModuleOp:
        """Close `@main`; the argument, return and function point at the file."""
        self.input.name_hint = "input"
        self.block.args[0].location = node_location(self.file, input_id)
        ret = func.ReturnOp(*outputs)
        function_type = ([self.input.type], [v.type for v in outputs])
        main = func.FuncOp(name, function_type, Region(self.block))
        module = ModuleOp([main])
        for op in (ret, main, module):
            op.location = file_location(self.file)
        self.block.add_op(ret)
        return module
