"""Building tlir from another framework's graph: the pieces both front ends share.

`Emitter` wraps the JSON importer's `GraphBuilder` (each op verified against
TorchLean's shape rules as it is appended) with what a foreign graph needs:
named parameters, fixed constants (not parameters), NumPy broadcasting made
explicit with `broadcast_to`, and the decompositions of ops TorchLean lacks
(docs/pytorch.md says which and how).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import SSAValue

from tlir import shapes
from tlir.diagnostics import TlirError, verify_module
from tlir.dialects import tlir as T
from tlir.dialects.tlir import i64_array, i64_attr
from tlir.parameters import FIXED_ATTRIBUTE, NAME_ATTRIBUTE
from tlir.shapes import Shape, ShapeError
from tlir.torchlean.graph_builder import GraphBuilder

BATCH_AXIS = 0
"""The batch is the leading axis of the input: `?` in a dynamic-batch module
(`dynamic_batch=True`), else the example's extent, fixed in every shape."""

Operand = SSAValue | float


def check_dynamic_batch(dynamic_batch: object, where: str) -> None:
    if not isinstance(dynamic_batch, bool):
        raise TlirError(
            where, f"dynamic_batch must be True or False, got {type(dynamic_batch).__name__}"
        )


def check_dtype(dtype: object, where: str) -> np.dtype:
    if dtype not in (np.float32, np.float64):
        raise TlirError(where, f"the input must be float32 or float64, not {dtype}")
    return np.dtype(dtype)


@dataclass
class Site:
    """The source node an op comes from: the builder's `node` (its id places the
    ops, its `error` names it)."""

    where: str
    what: str
    id: int

    def error(self, message: str) -> TlirError:
        return TlirError(self.where, f"{self.what}: {message}")


UNREADABLE = (KeyError, IndexError, ValueError, TypeError, AttributeError, ZeroDivisionError)
"""What a lowering raises on a node whose arguments or attributes are not what
the op's definition promises (a malformed file): reported at the node."""


def shape_of(value: SSAValue) -> Shape:
    return tuple(value.type.get_shape())


class Emitter:
    def __init__(self, where: str, dtype: np.dtype, input_shape: Shape):
        self.where = where
        self.dtype = dtype
        self.b = GraphBuilder(where, dtype, input_shape)
        self.site = Site(where, "input", 0)
        self.b.node = self.site

    @property
    def input(self) -> SSAValue:
        return self.b.input

    def at(self, site: Site) -> None:
        self.site = site
        self.b.node = site

    def error(self, message: str) -> TlirError:
        return self.site.error(message)

    def unreadable(self, err: Exception) -> TlirError:
        detail = " ".join(str(err).split())
        return self.error(f"cannot read this node ({type(err).__name__}: {detail})")

    # --- constants --------------------------------------------------------------

    def parameter(self, values: np.ndarray, name: str) -> SSAValue:
        """A trainable tensor of the source model, under its source name."""
        value = self.b.constant(np.asarray(values, dtype=np.float64), "value")
        value.owner.attributes[NAME_ATTRIBUTE] = StringAttr(name)
        return value

    def fixed(self, values: np.ndarray, name: str) -> SSAValue:
        """A constant that is not a parameter (`tlir.parameters`)."""
        value = self.parameter(values, name)
        value.owner.attributes[FIXED_ATTRIBUTE] = UnitAttr()
        return value

    def splat(self, number: float, shape: Shape) -> SSAValue:
        value = self.b.splat(float(number), tuple(shape), "scalar")
        value.owner.attributes[FIXED_ATTRIBUTE] = UnitAttr()
        return value

    # --- ops ----------------------------------------------------------------------

    def emit(self, op_class, operands, shape: Shape, props: dict | None = None) -> SSAValue:
        return self.b.emit(op_class, operands, tuple(shape), props)

    def unary(self, op_class, x: SSAValue) -> SSAValue:
        return self.emit(op_class, [x], shape_of(x))

    def to_shape(self, x: Operand, shape: Shape) -> SSAValue:
        """`x` broadcast to `shape` (NumPy's rules); a number becomes a splat."""
        shape = tuple(shape)
        if not isinstance(x, SSAValue):
            return self.splat(x, shape)
        if shape_of(x) == shape:
            return x
        try:
            shapes.broadcast_to(shape_of(x), shape)
        except ShapeError as err:
            raise self.error(str(err)) from None
        return self.emit(T.BroadcastToOp, [x], shape)

    def binary(self, op_class, a: Operand, b: Operand) -> SSAValue:
        """An elementwise op with NumPy broadcasting (TorchLean's need equal shapes)."""
        sa = shape_of(a) if isinstance(a, SSAValue) else ()
        sb = shape_of(b) if isinstance(b, SSAValue) else ()
        try:
            out = tuple(np.broadcast_shapes(sa, sb))
        except ValueError:
            raise self.error(f"shapes {list(sa)} and {list(sb)} do not broadcast") from None
        return self.emit(op_class, [self.to_shape(a, out), self.to_shape(b, out)], out)

    def divide(self, a: Operand, b: Operand) -> SSAValue:
        """a · inv(b): TorchLean has no division (one rounding more than a / b).
        A number `b` is a constant in the model's precision, inverted by `inv`
        like a tensor (so b = 0 gives ±inf, as a / 0 does)."""
        divisor = b if isinstance(b, SSAValue) else self.splat(b, ())
        return self.binary(T.MulElemOp, a, self.unary(T.InvOp, divisor))

    def reshape(self, x: SSAValue, shape: Shape) -> SSAValue:
        shape = tuple(shape)
        if shape_of(x) == shape:
            return x
        if shapes.size(shape) != shapes.size(shape_of(x)):
            raise self.error(f"cannot reshape {list(shape_of(x))} to {list(shape)}")
        return self.emit(T.ReshapeOp, [x], shape)

    def permute(self, x: SSAValue, perm: Sequence[int]) -> SSAValue:
        perm = [int(p) % max(len(perm), 1) for p in perm]
        if perm == sorted(perm):
            return x
        try:
            out = shapes.permute(shape_of(x), perm)
        except ShapeError as err:
            raise self.error(str(err)) from None
        return self.emit(T.PermuteOp, [x], out, {"perm": i64_array(perm)})

    def matmul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        try:
            out = shapes.matmul(shape_of(a), shape_of(b))
        except ShapeError as err:
            raise self.error(str(err)) from None
        return self.emit(T.MatmulOp, [a, b], out)

    def reduce(self, op_class, x: SSAValue, axes: Sequence[int], keepdim: bool) -> SSAValue:
        """One single-axis reduction per axis, from the last (TorchLean's
        expansion of a multi-axis reduction)."""
        rank = len(shape_of(x))
        for axis in sorted({a % rank for a in axes}, reverse=True):
            try:
                out = shapes.reduce_axis(shape_of(x), axis)
            except ShapeError as err:
                raise self.error(str(err)) from None
            x = self.emit(op_class, [x], out, {"axis": i64_attr(axis)})
            if keepdim:
                x = self.reshape(x, out[:axis] + (1,) + out[axis:])
        return x

    def concat(self, values: Sequence[SSAValue], axis: int) -> SSAValue:
        if len(values) == 1:
            return values[0]
        try:
            out = shapes.concat([shape_of(v) for v in values], axis)
        except ShapeError as err:
            raise self.error(str(err)) from None
        return self.emit(T.ConcatOp, [list(values)], out, {"axis": i64_attr(axis)})

    def take(self, x: SSAValue, axis: int, indices: Sequence[int], keep_axis: bool) -> SSAValue:
        """Entries `indices` of `axis` (a select or a slice; TorchLean has no
        slice op): `axis` moved last and multiplied by a 0/1 selection matrix.
        Each result is a sum from +0 of the entry and zeros (entry·1 + others·0):
        exact for finite values, except that -0 comes out +0, and an inf or NaN
        elsewhere along the axis gives NaN (docs/pytorch.md#slices)."""
        shape = shape_of(x)
        rank = len(shape)
        axis %= rank
        if list(indices) == list(range(shape[axis])):
            return x
        last = [a for a in range(rank) if a != axis] + [axis]
        moved = self.permute(x, last)
        selection = np.zeros((shape[axis], len(indices)))
        selection[list(indices), range(len(indices))] = 1.0
        picked = self.matmul(moved, self.fixed(selection, f"node{self.site.id}.selection"))
        back = list(range(rank - 1))
        back.insert(axis, rank - 1)
        picked = self.permute(picked, back)
        if keep_axis:
            return picked
        out = shape[:axis] + shape[axis + 1 :]
        return self.reshape(picked, out)

    def dense_group_weight(self, packed: SSAValue, groups: int) -> SSAValue:
        """PyTorch's packed grouped conv weight `[outC, inC/groups, k…]` as
        TorchLean's dense `[outC, inC, k…]`: the packed weight concatenated
        `groups` times along axis 1, times a 0/1 block-diagonal mask. Conv reads
        only the diagonal blocks, where the entries are exactly the packed
        weight's (w·1); the parameter stays one tensor in PyTorch's layout."""
        if groups == 1:
            return packed
        shape = shape_of(packed)
        out_c, in_per = shape[0], shape[1]
        dense = self.concat([packed] * groups, 1)
        mask = np.zeros((out_c, in_per * groups) + shape[2:])
        out_per = out_c // groups
        for g in range(groups):
            mask[g * out_per : (g + 1) * out_per, g * in_per : (g + 1) * in_per] = 1.0
        return self.emit(T.MulElemOp, [dense, self.fixed(mask, f"node{self.site.id}.groups")],
                         shape_of(dense))  # fmt: skip

    def gelu_tanh(self, x: SSAValue) -> SSAValue:
        """GELU, tanh approximation, as PyTorch computes it:
        0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))."""
        cube = self.binary(T.MulElemOp, self.binary(T.MulElemOp, x, x), x)
        inner = self.binary(T.AddOp, x, self.binary(T.MulElemOp, cube, 0.044715))
        t = self.unary(T.TanhOp, self.binary(T.MulElemOp, inner, math.sqrt(2.0 / math.pi)))
        half = self.binary(T.MulElemOp, x, 0.5)
        return self.binary(T.MulElemOp, half, self.binary(T.AddOp, t, 1.0))

    def clamp(self, x: SSAValue, low: float | None, high: float | None) -> SSAValue:
        """min_elem(high, max_elem(x, low)): with Lean's max and min in these
        operand orders a NaN stays NaN, as in PyTorch's clamp."""
        if low is not None:
            x = self.binary(T.MaxElemOp, x, low)
        if high is not None:
            x = self.binary(T.MinElemOp, high, x)
        return x

    def leaky_relu(self, x: SSAValue, slope: float) -> SSAValue:
        """max_elem(x, slope·x): for 0 < slope ≤ 1 exactly x > 0 ? x : slope·x
        (signed zeros, infinities and NaN included)."""
        if not 0.0 < slope <= 1.0:
            raise self.error(f"only a negative slope in (0, 1] is supported, got {slope}")
        return self.binary(T.MaxElemOp, x, self.binary(T.MulElemOp, x, slope))

    def row_max(self, x: SSAValue, axis: int) -> SSAValue:
        """The maximum along `axis`, kept as an extent-1 axis: a max_pool whose
        window is the whole axis (TorchLean has no max reduction)."""
        shape = shape_of(x)
        rank = len(shape)
        axis %= rank
        last = [a for a in range(rank) if a != axis] + [axis]
        moved = self.permute(x, last)
        n = shape[axis]
        pooled_shape = shape_of(moved)[:-1] + (1,)
        props = {"kernel": i64_array([n]), "stride": i64_array([n]), "padding": i64_array([0])}
        pooled = self.emit(T.MaxPoolOp, [moved], pooled_shape, props)
        back = list(range(rank - 1))
        back.insert(axis, rank - 1)
        return self.permute(pooled, back)

    def log_softmax(self, x: SSAValue, axis: int) -> SSAValue:
        """(x − m) − log Σ exp(x − m), m the row maximum (detached: its
        derivative is zero in exact arithmetic)."""
        m = self.unary(T.DetachOp, self.row_max(x, axis))
        shifted = self.binary(T.SubOp, x, m)
        total = self.reduce(T.ReduceSumOp, self.unary(T.ExpOp, shifted), [axis], keepdim=True)
        return self.binary(T.SubOp, shifted, self.unary(T.LogOp, total))

    def finish(self, outputs: Sequence[SSAValue]) -> ModuleOp:
        module = self.b.finish(list(outputs), 0)
        drop_dead_ops(module)
        verify_module(module, self.where)
        return module


def drop_dead_ops(module: ModuleOp) -> None:
    """Erase ops whose results nobody reads (the parts of a source graph a
    pattern absorbed), last first so chains go at once."""
    from xdsl.dialects import func

    for function in module.ops:
        if not isinstance(function, func.FuncOp):
            continue
        for op in reversed(list(function.body.block.ops)):
            if op.results and all(not r.uses for r in op.results):
                function.body.block.erase_op(op)
