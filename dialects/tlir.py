"""The `tlir` dialect: one op for every TorchLean `NN.IR.OpKind` (current-42).

`input` is not an op: it is the argument of the function that holds a graph.
Op names are TorchLean's wire tags, properties use the JSON field names, and
payloads (weights, statistics, constants) are operands. Every verifier applies
TorchLean's shape rules from `tlir.shapes` and checks the declared result type
against the inferred one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AttrConstraint,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.constraints import VerificationContext
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tlir import shapes
from tlir.shapes import ConvConfig, Shape, ShapeError

I64Array = DenseArrayBase.constr(I64)


@dataclass(frozen=True)
class FloatElement(AttrConstraint):
    """f32 or f64, with a message that says so."""

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not isinstance(attr, Float32Type | Float64Type):
            raise VerifyException(f"element type must be f32 or f64, got {attr}")

    def get_bases(self) -> set[type[Attribute]]:
        return {Float32Type, Float64Type}

    def mapping_type_vars(self, type_var_mapping) -> FloatElement:
        return self


ELEMENT_TYPE = VarConstraint("element type", FloatElement())
"""f32 or f64, one per op: all operands and results share it."""

FloatTensor = TensorType.constr(ELEMENT_TYPE)

_UNARY_FORMAT = "$input attr-dict `:` functional-type(operands, results)"
_BINARY_FORMAT = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"
_AXIS_FORMAT = "$input `axis` `=` $axis attr-dict `:` functional-type(operands, results)"


def _shape(value: SSAValue | Attribute) -> Shape:
    """The extents of a tensor type, `?` (dynamic) as `shapes.BATCH`."""
    typ = value.type if isinstance(value, SSAValue) else value
    assert isinstance(typ, TensorType)
    return tuple(shapes.BATCH if d < 0 else d for d in typ.get_shape())


def _ints(attr: DenseArrayBase) -> tuple[int, ...]:
    return tuple(int(v) for v in attr.get_values())


def wire_tag(op_class: type[IRDLOperation]) -> str:
    """TorchLean's JSON `kind` of an op class: its name without `tlir.`."""
    return op_class.name.removeprefix("tlir.")


@functools.lru_cache(maxsize=4096)
def i64_attr(value: int) -> IntegerAttr:
    """An `i64` attribute (axes, channels, ids: the value must fit in an i64).
    Cached: attributes are immutable values, and a graph repeats a few (an
    importer builds one per node and field, 12 µs each)."""
    return IntegerAttr(value, IntegerType(64))


def seed_attr(seed: int) -> IntegerAttr:
    """A random op's seed: TorchLean takes it modulo 2^64; stored as its 64-bit pattern."""
    return IntegerAttr(seed, IntegerType(64), truncate_bits=True)


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(IntegerType(64), list(values))


class TlirOp(IRDLOperation):
    """Shared verifier: float tensors of one element type (the `FloatTensor`
    constraint of every operand and result), static extents or the batch `?`,
    inferred result shape."""

    E: ClassVar = ELEMENT_TYPE

    def infer_shape(self) -> Shape:
        """The result shape TorchLean's rules give for these operands."""
        return _shape(self.results[0])

    def check_static_shapes(self) -> None:
        """Every extent static, or `?` (a multiple of the batch) where the op's
        rule allows it (`STATIC_ONLY` ops allow none)."""
        if not self.STATIC_ONLY:
            return
        for value in (*self.operands, *self.results):
            if any(d < 0 for d in value.type.get_shape()):
                raise VerifyException(
                    f"{self.name}: tensor shapes must be static, got {value.type}"
                )

    STATIC_ONLY: ClassVar[bool] = False
    """Ops whose operands and results cannot have a batch-sized extent."""

    def check_shape_rules(self) -> None:
        """TorchLean's shape rules: static shapes (or `?`), and the declared result
        shape is the inferred one (the part of verification a model file can fail)."""
        self.check_static_shapes()
        try:
            inferred = self.infer_shape()
        except ShapeError as err:
            raise VerifyException(f"{self.name}: {err}") from err
        declared = _shape(self.results[0])
        if inferred != declared:
            raise VerifyException(
                f"{self.name}: declared result shape {shapes.fmt(declared)} does not "
                f"match the inferred shape {shapes.fmt(inferred)}"
            )

    def verify_(self) -> None:
        self.check_shape_rules()


class UnaryOp(TlirOp):
    """Elementwise ops of one operand: the result has the operand's shape."""

    input = operand_def(FloatTensor)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        return _shape(self.input)


class BinaryOp(TlirOp):
    """Elementwise ops of two operands of identical shape."""

    lhs = operand_def(FloatTensor)
    rhs = operand_def(FloatTensor)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = _BINARY_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.same_shape(_shape(self.lhs), _shape(self.rhs))


# --- basic ops: const, custom, detach, random ops (docs/ops.md) ---------------


@irdl_op_definition
class ConstOp(TlirOp):
    """docs/ops.md#const: a constant tensor; `value` is a dense attribute of the result type."""

    name = "tlir.const"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"
    STATIC_ONLY: ClassVar[bool] = True

    def verify_(self) -> None:
        super().verify_()
        if self.value.type != self.result.type:
            raise VerifyException(
                f"{self.name}: value type {self.value.type} does not match the result "
                f"type {self.result.type}"
            )


@irdl_op_definition
class CustomOp(TlirOp):
    """docs/ops.md#custom: a call of a function the module provides; `name` is TorchLean's."""

    name = "tlir.custom"
    callee = prop_def(SymbolRefAttr)
    display_name = prop_def(StringAttr, prop_name="name")
    args = var_operand_def(FloatTensor)
    result = result_def(FloatTensor)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, results)"
    STATIC_ONLY: ClassVar[bool] = True  # a callee's `?` could be any multiple of the batch

    def verify_(self) -> None:
        super().verify_()
        from xdsl.dialects.func import FuncOp
        from xdsl.traits import SymbolTable

        callee = SymbolTable.lookup_symbol(self, self.callee)
        if callee is None:
            if self.get_toplevel_object() is self:
                return
            raise VerifyException(f"{self.name}: callee {self.callee} is not defined")
        if not isinstance(callee, FuncOp):
            raise VerifyException(f"{self.name}: callee {self.callee} is not a func.func")
        if len(callee.body.blocks) != 1:
            what = "is only declared" if not callee.body.blocks else "has more than one block"
            raise VerifyException(
                f"{self.name}: callee {self.callee} {what} (a custom callee is one block)"
            )
        want = callee.function_type
        got_inputs = tuple(a.type for a in self.args)
        if tuple(want.inputs.data) != got_inputs or tuple(want.outputs.data) != (self.result.type,):
            raise VerifyException(
                f"{self.name}: operand and result types do not match the type "
                f"{want} of callee {self.callee}"
            )
        caller = self.parent_op()
        while caller is not None and not isinstance(caller, FuncOp):
            caller = caller.parent_op()
        if caller is not None and _calls_reach(callee, caller):
            raise VerifyException(
                f"{self.name}: callee {self.callee} calls back into "
                f"@{caller.sym_name.data} (custom callees may not recurse)"
            )


def _calls_reach(start: Operation, target: Operation) -> bool:
    """Whether `start`'s body reaches `target` through `tlir.custom` calls."""
    from xdsl.traits import SymbolTable

    seen = {id(start)}
    work = [start]
    while work:
        function = work.pop()
        if function is target:
            return True
        for op in function.walk():
            if isinstance(op, CustomOp):
                callee = SymbolTable.lookup_symbol(op, op.callee)
                if callee is not None and id(callee) not in seen:
                    seen.add(id(callee))
                    work.append(callee)
    return False


@irdl_op_definition
class DetachOp(UnaryOp):
    """docs/ops.md#detach: forward identity."""

    name = "tlir.detach"


@irdl_op_definition
class RandUniformOp(TlirOp):
    """docs/ops.md#rand_uniform: U[0,1) keyed by (seed, node_id); any declared shape."""

    name = "tlir.rand_uniform"
    seed = prop_def(IntegerAttr[I64])
    node_id = prop_def(IntegerAttr[I64])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"


@irdl_op_definition
class BernoulliMaskOp(TlirOp):
    """docs/ops.md#bernoulli_mask: {0,1} mask keyed by (seed, node_id), keep probability a
    scalar."""

    name = "tlir.bernoulli_mask"
    input = operand_def(FloatTensor)
    seed = prop_def(IntegerAttr[I64])
    node_id = prop_def(IntegerAttr[I64])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        shapes.scalar_operand(_shape(self.input), "keep probability")
        return _shape(self.result)


# --- elementwise (docs/ops.md#elementwise-ops) ---------------------------------


@irdl_op_definition
class AddOp(BinaryOp):
    name = "tlir.add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "tlir.sub"


@irdl_op_definition
class MulElemOp(BinaryOp):
    name = "tlir.mul_elem"


@irdl_op_definition
class MaxElemOp(BinaryOp):
    name = "tlir.max_elem"


@irdl_op_definition
class MinElemOp(BinaryOp):
    name = "tlir.min_elem"


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "tlir.abs"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "tlir.sqrt"


@irdl_op_definition
class InvOp(UnaryOp):
    name = "tlir.inv"


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "tlir.relu"


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "tlir.tanh"


@irdl_op_definition
class SigmoidOp(UnaryOp):
    name = "tlir.sigmoid"


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "tlir.exp"


@irdl_op_definition
class LogOp(UnaryOp):
    name = "tlir.log"


@irdl_op_definition
class SinOp(UnaryOp):
    name = "tlir.sin"


@irdl_op_definition
class CosOp(UnaryOp):
    name = "tlir.cos"


@irdl_op_definition
class SoftplusOp(UnaryOp):
    name = "tlir.softplus"


@irdl_op_definition
class SafeLogOp(TlirOp):
    """docs/ops.md#safe_log: log(softplus(x) + eps) with a scalar eps operand."""

    name = "tlir.safe_log"
    input = operand_def(FloatTensor)
    eps = operand_def(FloatTensor)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $eps attr-dict `:` functional-type(operands, results)"

    def infer_shape(self) -> Shape:
        shapes.scalar_operand(_shape(self.eps), "epsilon")
        return _shape(self.input)


# --- data movement: permute, transpose, broadcast_to, reshape, flatten, concat (docs/ops.md)


@irdl_op_definition
class PermuteOp(TlirOp):
    name = "tlir.permute"
    input = operand_def(FloatTensor)
    perm = prop_def(I64Array)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.permute(_shape(self.input), _ints(self.perm))


@irdl_op_definition
class TransposeOp(TlirOp):
    name = "tlir.transpose"
    input = operand_def(FloatTensor)
    axis1 = prop_def(IntegerAttr[I64])
    axis2 = prop_def(IntegerAttr[I64])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.transpose(_shape(self.input), self.axis1.value.data, self.axis2.value.data)


@irdl_op_definition
class BroadcastToOp(TlirOp):
    """docs/ops.md#broadcast_to: the source and target shapes are the operand and result types."""

    name = "tlir.broadcast_to"
    input = operand_def(FloatTensor)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.broadcast_to(_shape(self.input), _shape(self.result))


@irdl_op_definition
class ReshapeOp(TlirOp):
    name = "tlir.reshape"
    input = operand_def(FloatTensor)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.reshape(_shape(self.input), _shape(self.result))


@irdl_op_definition
class FlattenOp(TlirOp):
    name = "tlir.flatten"
    input = operand_def(FloatTensor)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.flatten(_shape(self.input))


@irdl_op_definition
class ConcatOp(TlirOp):
    name = "tlir.concat"
    inputs = var_operand_def(FloatTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = "$inputs `axis` `=` $axis attr-dict `:` functional-type(operands, results)"

    def infer_shape(self) -> Shape:
        return shapes.concat([_shape(v) for v in self.inputs], self.axis.value.data)


# --- reductions: reduce_sum, reduce_mean, sum, mse_loss (docs/ops.md) ---------


class AxisReduceOp(TlirOp):
    input = operand_def(FloatTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = _AXIS_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.reduce_axis(_shape(self.input), self.axis.value.data)


@irdl_op_definition
class ReduceSumOp(AxisReduceOp):
    name = "tlir.reduce_sum"


@irdl_op_definition
class ReduceMeanOp(AxisReduceOp):
    name = "tlir.reduce_mean"


@irdl_op_definition
class SumOp(TlirOp):
    name = "tlir.sum"
    input = operand_def(FloatTensor)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        return ()


@irdl_op_definition
class MseLossOp(BinaryOp):
    name = "tlir.mse_loss"

    def infer_shape(self) -> Shape:
        return shapes.mse_loss(_shape(self.lhs), _shape(self.rhs))


# --- linear algebra: matmul, linear, conv (docs/ops.md) ------------------------


@irdl_op_definition
class MatmulOp(BinaryOp):
    name = "tlir.matmul"

    def infer_shape(self) -> Shape:
        return shapes.matmul(_shape(self.lhs), _shape(self.rhs))


@irdl_op_definition
class LinearOp(TlirOp):
    """docs/ops.md#linear: y = x W^T + b with W `[out_dim, in_dim]`, b `[out_dim]`."""

    name = "tlir.linear"
    input = operand_def(FloatTensor)
    weight = operand_def(FloatTensor)
    bias = operand_def(FloatTensor)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight `,` $bias attr-dict `:` functional-type(operands, results)"
    )

    def infer_shape(self) -> Shape:
        return shapes.linear(_shape(self.input), _shape(self.weight), _shape(self.bias))


class WindowOp(TlirOp):
    input = operand_def(FloatTensor)
    kernel = prop_def(I64Array)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.pool(
            _shape(self.input), _ints(self.kernel), _ints(self.stride), _ints(self.padding)
        )


@irdl_op_definition
class MaxPoolOp(WindowOp):
    name = "tlir.max_pool"


@irdl_op_definition
class AvgPoolOp(WindowOp):
    name = "tlir.avg_pool"


@irdl_op_definition
class ConvOp(TlirOp):
    """docs/ops.md#conv: grouped, dilated convolution with dense block-diagonal weights."""

    name = "tlir.conv"
    input = operand_def(FloatTensor)
    weight = operand_def(FloatTensor)
    bias = operand_def(FloatTensor)
    kernel = prop_def(I64Array)
    stride = prop_def(I64Array)
    padding = prop_def(I64Array)
    padding_after = prop_def(I64Array)
    dilation = prop_def(I64Array)
    groups = prop_def(IntegerAttr[I64])
    channel_axis = prop_def(IntegerAttr[I64])
    in_channels = prop_def(IntegerAttr[I64])
    out_channels = prop_def(IntegerAttr[I64])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$input `,` $weight `,` $bias attr-dict `:` functional-type(operands, results)"
    )

    @property
    def config(self) -> ConvConfig:
        return ConvConfig(
            kernel=_ints(self.kernel),
            stride=_ints(self.stride),
            padding=_ints(self.padding),
            padding_after=_ints(self.padding_after),
            dilation=_ints(self.dilation),
            groups=self.groups.value.data,
            channel_axis=self.channel_axis.value.data,
            in_channels=self.in_channels.value.data,
            out_channels=self.out_channels.value.data,
        )

    def infer_shape(self) -> Shape:
        cfg = self.config
        out = shapes.conv(_shape(self.input), cfg)
        shapes.conv_params(cfg, _shape(self.weight), _shape(self.bias))
        return out


# --- normalization and softmax: batch_norm_eval, softmax, hard_masked_softmax, layernorm


@irdl_op_definition
class BatchNormEvalOp(TlirOp):
    """docs/ops.md#batch_norm_eval: eval-mode batch norm with per-channel gamma, beta, mean, var."""

    name = "tlir.batch_norm_eval"
    input = operand_def(FloatTensor)
    gamma = operand_def(FloatTensor)
    beta = operand_def(FloatTensor)
    mean = operand_def(FloatTensor)
    var = operand_def(FloatTensor)
    channel_axis = prop_def(IntegerAttr[I64])
    channels = prop_def(IntegerAttr[I64])
    eps = prop_def(FloatAttr[Float64Type])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$input `,` $gamma `,` $beta `,` $mean `,` $var attr-dict `:` "
        "functional-type(operands, results)"
    )

    def infer_shape(self) -> Shape:
        channels = self.channels.value.data
        out = shapes.batch_norm(_shape(self.input), self.channel_axis.value.data, channels)
        for name in ("gamma", "beta", "mean", "var"):
            shapes.per_channel_param(name, _shape(getattr(self, name)), channels)
        return out


@irdl_op_definition
class SoftmaxOp(TlirOp):
    name = "tlir.softmax"
    input = operand_def(FloatTensor)
    axis = prop_def(IntegerAttr[I64])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    assembly_format = _AXIS_FORMAT

    def infer_shape(self) -> Shape:
        return shapes.softmax(_shape(self.input), self.axis.value.data)


@irdl_op_definition
class HardMaskedSoftmaxOp(TlirOp):
    """docs/ops.md#hard_masked_softmax: softmax over the last axis restricted to `mask`
    (true = allowed)."""

    name = "tlir.hard_masked_softmax"
    input = operand_def(FloatTensor)
    mask = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = _UNARY_FORMAT

    def infer_shape(self) -> Shape:
        mask_type = self.mask.type
        if mask_type.element_type != IntegerType(1):
            raise ShapeError(f"mask must be a dense i1 attribute, got {mask_type}")
        return shapes.hard_mask(_shape(self.input), tuple(mask_type.get_shape()))


@irdl_op_definition
class LayerNormOp(TlirOp):
    """docs/ops.md#layernorm: normalizes over the axes from `axis` on; gamma/beta optional
    together."""

    name = "tlir.layernorm"
    input = operand_def(FloatTensor)
    gamma = opt_operand_def(FloatTensor)
    beta = opt_operand_def(FloatTensor)
    axis = prop_def(IntegerAttr[I64])
    eps = prop_def(FloatAttr[Float64Type])
    result = result_def(FloatTensor)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$input (`affine` `(` $gamma^ `,` $beta `)`)? attr-dict `:` "
        "`(` type($input) (`,` type($gamma)^ `,` type($beta))? `)` `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        shape = _shape(self.input)
        axis = self.axis.value.data
        out = shapes.layernorm(shape, axis)
        if (self.gamma is None) != (self.beta is None):
            raise ShapeError("gamma and beta must be given together")
        if self.gamma is not None and self.beta is not None:
            shapes.layernorm_param("gamma", _shape(self.gamma), shape, axis)
            shapes.layernorm_param("beta", _shape(self.beta), shape, axis)
        return out


TLIR_OPS: tuple[type[TlirOp], ...] = (
    ConstOp, CustomOp, PermuteOp, TransposeOp, DetachOp, RandUniformOp,
    BernoulliMaskOp, AddOp, SubOp, MulElemOp, AbsOp, SqrtOp, InvOp, MaxElemOp,
    MinElemOp, MaxPoolOp, AvgPoolOp, BroadcastToOp, ReduceSumOp, ReduceMeanOp,
    SumOp, MatmulOp, LinearOp, ConvOp, BatchNormEvalOp, ReluOp, TanhOp,
    SigmoidOp, ExpOp, LogOp, SinOp, CosOp, SoftplusOp, SafeLogOp, SoftmaxOp,
    HardMaskedSoftmaxOp, LayerNormOp, ReshapeOp, FlattenOp, ConcatOp, MseLossOp,
)  # fmt: skip
"""The 41 op kinds that are ops (TorchLean's 42 less `input`), in the order of docs/ops.md."""

Tlir = Dialect("tlir", list(TLIR_OPS), [])
