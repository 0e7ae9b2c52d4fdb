"""Building a tlir module node by node, with TorchLean's tensor ids.

`GraphBuilder.emit` appends an op for the current raw node, verifies it at
once with the dialect's verifier (TorchLean's shape rules), and counts tensor
ids the way TorchLean's importer does: one per tensor node after import-time
expansion (payload constants are operands, not nodes, and take no id).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from tlir.dense import element_type, numpy_to_dense, to_carrier
from tlir.diagnostics import file_location, node_location
from tlir.dialects import tlir as T
from tlir.parameters import NAME_ATTRIBUTE
from tlir.shapes import Shape
from tlir.torchlean.reader import RawNode


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
        return self._constant(numpy_to_dense(carrier, self.tensor_type(carrier.shape)), field)

    def splat(self, value: float, shape: Shape, field: str) -> SSAValue:
        """`constant` of a tensor whose entries are all `value`, stored once (a
        splat): its size in the IR does not grow with `shape`."""
        one = numpy_to_dense(to_carrier(np.array([value]), self.dtype))
        typ = self.tensor_type(shape)
        return self._constant(DenseIntOrFPElementsAttr(typ, one.data), field)

    def _constant(self, dense: DenseIntOrFPElementsAttr, field: str) -> SSAValue:
        op = T.ConstOp.build(properties={"value": dense}, result_types=[dense.type])
        assert self.node is not None
        op.attributes[NAME_ATTRIBUTE] = StringAttr(f"node{self.node.id}.{field}")
        return self._append(op)

    def emit(
        self,
        op_class: type[T.TlirOp],
        operands: Sequence[SSAValue | Sequence[SSAValue]],
        shape: Shape,
        properties: dict[str, Attribute] | None = None,
        counts_as_node: bool = True,
    ) -> SSAValue:
        """Append one tensor node's op, verified; returns its value."""
        op = op_class.build(
            operands=list(operands),
            result_types=[self.tensor_type(shape)],
            properties=properties or {},
        )
        if counts_as_node:
            self.take_tensor_id()
        return self._append(op)

    def _append(self, op: Operation) -> SSAValue:
        assert self.node is not None
        if self._location[0] != self.node.id:
            self._location = (self.node.id, node_location(self.file, self.node.id))
        op.location = self._location[1]
        try:
            # The builder makes operand, result and property types right by
            # construction; what a file can get wrong is TorchLean's shape rules.
            op.check_shape_rules()
        except DiagnosticException as err:
            message = " ".join(str(err).split()).removeprefix(f"{op.name}: ")
            raise self.node.error(message) from None
        self.block.add_op(op)
        return op.results[0]

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
