"""ONNX models in (opsets 13–20): one lowering per ONNX op type.

Values are either tensors of the model (tlir SSA values) or static arrays:
initializers, `Constant`s and whatever is computed from them alone (the shape
arithmetic exporters emit: Shape, Slice, Concat, Cast, …), folded with NumPy at
import. A static array becomes a tlir constant when a tensor op reads it: a
float initializer as a parameter named by the initializer, anything else as a
fixed constant. docs/pytorch.md lists the supported op types.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects.builtin import Float64Type, FloatAttr, ModuleOp
from xdsl.ir import SSAValue

from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.dialects.tlir import i64_array, i64_attr
from tlir.frontend.batch import BATCHES, generalize
from tlir.frontend.emitter import (
    BATCH_AXIS,
    UNREADABLE,
    Emitter,
    Site,
    check_dynamic_batch,
    shape_of,
)

MIN_OPSET, MAX_OPSET = 13, 20


@dataclass
class Static:
    """An array known at import time; `name` if it is an initializer."""

    array: np.ndarray
    name: str | None = None


Value = SSAValue | Static | None
Lowering = Callable[["Converter", onnx.NodeProto, list[Value]], object]
LOWERINGS: dict[str, Lowering] = {}
"""ONNX op type → its lowering."""

FOLDS: dict[str, Callable] = {}
"""ONNX op type → its NumPy evaluation, for nodes whose inputs are all static
(shape arithmetic)."""


def lowers(*op_types: str) -> Callable[[Lowering], Lowering]:
    def register(fn: Lowering) -> Lowering:
        for op_type in op_types:
            LOWERINGS[op_type] = fn
        return fn

    return register


def _attrs(node: onnx.NodeProto) -> dict:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


class Converter:
    def __init__(self, model: onnx.ModelProto, where: str, batch: int | None = None):
        self.where = where
        self.graph = model.graph
        self.initializers = {i.name: i for i in self.graph.initializer}
        inputs = [i for i in self.graph.input if i.name not in self.initializers]
        if len(inputs) != 1:
            raise TlirError(
                where, f"a TorchLean graph takes one input, the model has {len(inputs)}"
            )
        typ = inputs[0].type.tensor_type
        dtypes = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.DOUBLE: np.float64}
        if typ.elem_type not in dtypes:
            raise TlirError(where, "the input must be float or double")
        shape = []
        for axis, dim in enumerate(typ.shape.dim):
            if axis == BATCH_AXIS and batch is not None and not dim.HasField("dim_value"):
                shape.append(batch)  # traced at this batch (tlir.frontend.batch)
                continue
            if not dim.HasField("dim_value"):
                what = "the batch axis" if axis == BATCH_AXIS else f"axis {axis}"
                hint = (
                    "import it with dynamic_batch=True"
                    if axis == BATCH_AXIS
                    else "export it without dynamic axes"
                )
                raise TlirError(
                    where,
                    f"{what} of the input is symbolic ('{dim.dim_param}'): a model is compiled "
                    f"for fixed extents ({hint})",
                )
            shape.append(dim.dim_value)
        self.dtype = np.dtype(dtypes[typ.elem_type])
        self.e = Emitter(where, self.dtype, tuple(shape))
        self.values: dict[str, Value] = {"": None, inputs[0].name: self.e.input}
        self.materialized: dict[int, SSAValue] = {}
        for name, init in self.initializers.items():
            self.values[name] = Static(numpy_helper.to_array(init), name)

    def tensor(self, value: Value) -> SSAValue:
        """A value as a tlir tensor (static arrays become constants, once)."""
        if isinstance(value, SSAValue):
            return value
        if value is None:
            raise self.e.error("a required input is missing")
        key = id(value)
        if key not in self.materialized:
            array = value.array
            if not np.issubdtype(array.dtype, np.floating):
                raise self.e.error("an integer tensor is used as data (TorchLean's are float)")
            if value.name is not None:
                made = self.e.parameter(array.astype(np.float64), value.name)
            else:
                made = self.e.fixed(array.astype(np.float64), "constant")
            self.materialized[key] = made
        return self.materialized[key]

    def operand(self, value: Value) -> SSAValue | float:
        """A tensor, or a number for an unnamed static scalar (a splat)."""
        if isinstance(value, Static) and value.name is None and value.array.ndim == 0:
            return float(value.array)
        return self.tensor(value)

    def run(self) -> ModuleOp:
        for index, node in enumerate(self.graph.node):
            label = f"{node.op_type} '{node.name}'" if node.name else node.op_type
            self.e.at(Site(self.where, label, index))
            args = [self.values.get(name) for name in node.input]
            for name in node.input:
                if name and name not in self.values:
                    raise self.e.error(f"input '{name}' is not defined before its use")
            results = self.convert(node, args)
            outs = results if isinstance(results, tuple) else (results,)
            for name, out in zip(node.output, outs, strict=False):
                self.values[name] = out
        outputs = []
        for out in self.graph.output:
            if out.name not in self.values:
                raise TlirError(self.where, f"graph output '{out.name}' is not defined")
            outputs.append(self.tensor(self.values[out.name]))
        if not outputs:
            raise TlirError(self.where, "the graph has no outputs")
        return self.e.finish(outputs)

    def convert(self, node: onnx.NodeProto, args: list[Value]) -> object:
        fold = FOLDS.get(node.op_type)
        static = all(isinstance(a, Static) or a is None for a in args)
        if fold is not None and static and not any(_is_parameter(a) for a in args):
            try:
                return Static(np.asarray(fold(_attrs(node), *[_array(a) for a in args])))
            except UNREADABLE as err:
                raise self.e.unreadable(err) from None
        lowering = LOWERINGS.get(node.op_type)
        if lowering is None:
            raise self.e.error("TorchLean has no counterpart of this op")
        try:
            return lowering(self, node, args)
        except UNREADABLE as err:
            raise self.e.unreadable(err) from None


def _is_parameter(value: Value) -> bool:
    return (
        isinstance(value, Static)
        and value.name is not None
        and np.issubdtype(value.array.dtype, np.floating)
    )


def _array(value: Value):
    return None if value is None else value.array


def static_ints(c: Converter, value: Value, what: str) -> list[int]:
    if not isinstance(value, Static):
        raise c.e.error(f"{what} must be a constant")
    return [int(v) for v in np.asarray(value.array).reshape(-1)]


# --- folding (shape arithmetic) ---------------------------------------------------

_ONNX_DTYPES = {
    onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.INT64: np.int64, onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.BOOL: np.bool_,
}  # fmt: skip


def _constant(attrs: dict) -> np.ndarray:
    if "value" in attrs:
        return numpy_helper.to_array(attrs["value"])
    for key, dtype in (("value_float", np.float32), ("value_floats", np.float32),
                       ("value_int", np.int64), ("value_ints", np.int64)):  # fmt: skip
        if key in attrs:
            return np.asarray(attrs[key], dtype=dtype)
    raise ValueError("unsupported Constant attribute")


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ONNX's Div: integer division truncates toward zero (NumPy's // floors)."""
    if a.dtype.kind in "iu":
        quotient = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -quotient, quotient).astype(a.dtype)
    return a / b


def _slice_fold(attrs, x, starts, ends, axes=None, steps=None):
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    index = [slice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, steps, strict=True):
        index[int(a)] = slice(int(s), int(e), int(st))
    return x[tuple(index)]


FOLDS.update({
    "Constant": lambda attrs: _constant(attrs),
    "Identity": lambda attrs, x: x,
    "Shape": lambda attrs, x: np.array(x.shape, dtype=np.int64),
    "Cast": lambda attrs, x: x.astype(_ONNX_DTYPES[attrs["to"]]),
    "Add": lambda attrs, a, b: a + b, "Sub": lambda attrs, a, b: a - b,
    "Mul": lambda attrs, a, b: a * b,
    "Div": lambda attrs, a, b: _divide(a, b),
    "Mod": lambda attrs, a, b: np.fmod(a, b) if attrs.get("fmod") else np.mod(a, b),
    "Sqrt": lambda attrs, x: np.sqrt(x), "Neg": lambda attrs, x: -x,
    "Concat": lambda attrs, *xs: np.concatenate(xs, axis=attrs["axis"]),
    "Reshape": lambda attrs, x, s: x.reshape([d if d else x.shape[i] for i, d in enumerate(s)]),
    "Unsqueeze": lambda attrs, x, axes=None: np.expand_dims(x, tuple(attrs.get("axes", axes))),
    "Squeeze": lambda attrs, x, axes=None: np.squeeze(x, tuple(axes) if axes is not None else None),
    "Gather": lambda attrs, x, i: np.take(x, i, axis=attrs.get("axis", 0)),
    "Slice": _slice_fold,
    "Transpose": lambda attrs, x: np.transpose(x, attrs.get("perm")),
})  # fmt: skip


# --- elementwise --------------------------------------------------------------------

_UNARY = {
    "Relu": T.ReluOp, "Tanh": T.TanhOp, "Sigmoid": T.SigmoidOp, "Exp": T.ExpOp, "Log": T.LogOp,
    "Sin": T.SinOp, "Cos": T.CosOp, "Abs": T.AbsOp, "Sqrt": T.SqrtOp, "Softplus": T.SoftplusOp,
    "Reciprocal": T.InvOp,
}  # fmt: skip
_BINARY = {"Add": T.AddOp, "Sub": T.SubOp, "Mul": T.MulElemOp, "Max": T.MaxElemOp,
           "Min": T.MinElemOp}  # fmt: skip


@lowers(*_UNARY)
def _unary(c: Converter, node, args) -> SSAValue:
    return c.e.unary(_UNARY[node.op_type], c.tensor(args[0]))


@lowers(*_BINARY)
def _binary(c: Converter, node, args) -> SSAValue:
    if len(args) != 2:
        raise c.e.error(f"only two inputs are supported, got {len(args)}")
    return c.e.binary(_BINARY[node.op_type], c.operand(args[0]), c.operand(args[1]))


@lowers("Div")
def _div(c: Converter, node, args) -> SSAValue:
    return c.e.divide(c.operand(args[0]), c.operand(args[1]))


@lowers("Neg")
def _neg(c: Converter, node, args) -> SSAValue:
    return c.e.binary(T.MulElemOp, c.tensor(args[0]), -1.0)


@lowers("Pow")
def _pow(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    if not isinstance(args[1], Static) or args[1].array.size != 1:
        raise c.e.error("the exponent must be a constant number")
    n = args[1].array.reshape(-1)[0]
    if n not in (1, 2, 3, 4):
        raise c.e.error(f"only the exponents 1, 2, 3 and 4 are supported, got {n}")
    y = x
    for _ in range(int(n) - 1):
        y = c.e.binary(T.MulElemOp, y, x)
    return y


@lowers("Shape")
def _shape(c: Converter, node, args) -> Static:
    """Extents are static: a model is compiled for its input's shape."""
    attrs = _attrs(node)
    dims = shape_of(c.tensor(args[0]))[attrs.get("start", 0) : attrs.get("end")]
    return Static(np.array(dims, dtype=np.int64))


@lowers("Identity", "Dropout")
def _identity(c: Converter, node, args):
    training = args[2] if node.op_type == "Dropout" and len(args) > 2 else None
    if training is not None and (not isinstance(training, Static) or bool(training.array)):
        raise c.e.error("training-mode Dropout is not supported")
    return args[0] if isinstance(args[0], SSAValue) else c.tensor(args[0])


@lowers("Clip")
def _clip(c: Converter, node, args) -> SSAValue:
    bounds = []
    for index in (1, 2):
        value = args[index] if len(args) > index else None
        if value is not None and not isinstance(value, Static):
            raise c.e.error("only constant bounds are supported")
        bounds.append(None if value is None else float(value.array))
    return c.e.clamp(c.tensor(args[0]), *bounds)


@lowers("LeakyRelu")
def _leaky_relu(c: Converter, node, args) -> SSAValue:
    return c.e.leaky_relu(c.tensor(args[0]), float(_attrs(node).get("alpha", 0.01)))


@lowers("Gelu")
def _gelu(c: Converter, node, args) -> SSAValue:
    if _attrs(node).get("approximate", b"none") not in (b"tanh", "tanh"):
        raise c.e.error("exact GELU needs erf, which TorchLean lacks (use approximate='tanh')")
    return c.e.gelu_tanh(c.tensor(args[0]))


# --- structure ------------------------------------------------------------------------


@lowers("Reshape")
def _reshape(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    target = static_ints(c, args[1], "the shape")
    if _attrs(node).get("allowzero") and 0 in target:
        raise c.e.error("allowzero with a zero extent is not supported")
    target = [shape_of(x)[i] if d == 0 else d for i, d in enumerate(target)]
    if -1 in target:
        known = int(np.prod([d for d in target if d != -1]))
        target[target.index(-1)] = int(np.prod(shape_of(x))) // max(known, 1)
    return c.e.reshape(x, target)


@lowers("Flatten")
def _flatten(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    axis = _attrs(node).get("axis", 1) % (len(shape_of(x)) or 1)
    shape = shape_of(x)
    return c.e.reshape(x, (int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))))


@lowers("Unsqueeze", "Squeeze")
def _squeeze(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    dummy = np.empty(shape_of(x), dtype=np.bool_)
    axes = static_ints(c, args[1], "axes") if len(args) > 1 and args[1] is not None else None
    axes = _attrs(node).get("axes", axes)
    fold = FOLDS[node.op_type]
    return c.e.reshape(x, fold({}, dummy, axes).shape)


@lowers("Transpose")
def _transpose(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    perm = _attrs(node).get("perm", list(reversed(range(len(shape_of(x))))))
    return c.e.permute(x, perm)


@lowers("Concat")
def _concat(c: Converter, node, args) -> SSAValue:
    values = [c.tensor(a) for a in args]
    return c.e.concat(values, _attrs(node)["axis"] % len(shape_of(values[0])))


@lowers("Expand")
def _expand(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    target = tuple(np.broadcast_shapes(shape_of(x), tuple(static_ints(c, args[1], "the shape"))))
    return c.e.to_shape(x, target)


@lowers("Gather")
def _gather(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    axis = _attrs(node).get("axis", 0) % len(shape_of(x))
    if not isinstance(args[1], Static):
        raise c.e.error("the indices must be a constant (TorchLean has no indexing op)")
    indices = np.asarray(args[1].array)
    if indices.ndim > 1:
        raise c.e.error("only a scalar or 1-D list of indices is supported")
    picked = [int(i) % shape_of(x)[axis] for i in indices.reshape(-1)]
    return c.e.take(x, axis, picked, keep_axis=indices.ndim == 1)


@lowers("Slice")
def _slice(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    starts, ends = static_ints(c, args[1], "starts"), static_ints(c, args[2], "ends")
    rank = len(shape_of(x))
    axes = static_ints(c, args[3], "axes") if len(args) > 3 and args[3] else range(len(starts))
    steps = static_ints(c, args[4], "steps") if len(args) > 4 and args[4] else [1] * len(starts)
    for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
        n = shape_of(x)[axis % rank]
        start, end = max(min(start, n), -n - 1), max(min(end, n), -n - 1)
        x = c.e.take(x, axis % rank, list(range(n)[slice(start, end, step)]), keep_axis=True)
    return x


# --- reductions and normalisations ---------------------------------------------------


@lowers("ReduceSum", "ReduceMean")
def _reduce(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    attrs = _attrs(node)
    axes = attrs.get("axes")
    if axes is None and len(args) > 1 and args[1] is not None:
        axes = static_ints(c, args[1], "axes")
    keepdim = bool(attrs.get("keepdims", 1))
    rank = len(shape_of(x))
    if not axes:
        if attrs.get("noop_with_empty_axes"):
            return x
        axes = list(range(rank))
    op_class = T.ReduceSumOp if node.op_type == "ReduceSum" else T.ReduceMeanOp
    if node.op_type == "ReduceSum" and len(axes) == rank and not keepdim:
        return c.e.emit(T.SumOp, [x], ())  # TorchLean's sum: one row-major fold
    return c.e.reduce(op_class, x, axes, keepdim)


@lowers("Softmax")
def _softmax(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    axis = _attrs(node).get("axis", -1) % len(shape_of(x))
    return c.e.emit(T.SoftmaxOp, [x], shape_of(x), {"axis": i64_attr(axis)})


@lowers("LogSoftmax")
def _log_softmax(c: Converter, node, args) -> SSAValue:
    return c.e.log_softmax(c.tensor(args[0]), _attrs(node).get("axis", -1))


@lowers("LayerNormalization")
def _layer_norm(c: Converter, node, args) -> SSAValue:
    x = c.tensor(args[0])
    attrs = _attrs(node)
    axis = attrs.get("axis", -1) % len(shape_of(x))
    normalized = shape_of(x)[axis:]
    props = {"axis": i64_attr(axis), "eps": FloatAttr(attrs.get("epsilon", 1e-5), Float64Type())}
    gamma = c.e.to_shape(c.tensor(args[1]), normalized)
    beta = (
        c.e.to_shape(c.tensor(args[2]), normalized)
        if len(args) > 2 and args[2] is not None
        else c.e.fixed(np.zeros(normalized), "beta")
    )
    return c.e.emit(T.LayerNormOp, [x, [gamma], [beta]], shape_of(x), props)


@lowers("BatchNormalization")
def _batch_norm(c: Converter, node, args) -> SSAValue:
    if _attrs(node).get("training_mode", 0):
        raise c.e.error("training-mode BatchNormalization is not supported")
    x = c.tensor(args[0])
    gamma, beta, mean, var = (c.tensor(a) for a in args[1:5])
    props = {
        "channel_axis": i64_attr(1),
        "channels": i64_attr(shape_of(x)[1]),
        "eps": FloatAttr(_attrs(node).get("epsilon", 1e-5), Float64Type()),
    }
    return c.e.emit(T.BatchNormEvalOp, [x, gamma, beta, mean, var], shape_of(x), props)


# --- contractions and windows ------------------------------------------------------------


@lowers("MatMul")
def _matmul(c: Converter, node, args) -> SSAValue:
    return c.e.matmul(c.tensor(args[0]), c.tensor(args[1]))


@lowers("Gemm")
def _gemm(c: Converter, node, args) -> SSAValue:
    """A·Bᵀ + C with B a parameter and C a vector: TorchLean's linear; otherwise
    transposes, a matmul, scalings and an add."""
    attrs = _attrs(node)
    a, b = c.tensor(args[0]), c.tensor(args[1])
    bias = args[2] if len(args) > 2 else None
    alpha, beta = attrs.get("alpha", 1.0), attrs.get("beta", 1.0)
    if attrs.get("transA"):
        a = c.e.permute(a, [1, 0])
    plain = alpha == 1.0 and beta == 1.0 and not attrs.get("transA")
    weight_and_bias = _is_parameter(args[1]) and _is_parameter(bias) and bias.array.ndim == 1
    if plain and attrs.get("transB") and weight_and_bias:
        out = (shape_of(a)[0], shape_of(b)[0])
        return c.e.emit(T.LinearOp, [a, b, c.tensor(bias)], out)
    if attrs.get("transB"):
        b = c.e.permute(b, [1, 0])
    y = c.e.matmul(a, b)
    if alpha != 1.0:
        y = c.e.binary(T.MulElemOp, y, alpha)
    if bias is None:
        return y
    term = c.tensor(bias)
    if beta != 1.0:
        term = c.e.binary(T.MulElemOp, term, beta)
    return c.e.binary(T.AddOp, y, term)


def _window(c: Converter, attrs: dict, rank: int) -> tuple[list[int], list[int]]:
    if attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise c.e.error("auto_pad is not supported (export with explicit pads)")
    pads = list(attrs.get("pads", [0] * 2 * rank))
    return pads[:rank], pads[rank:]


@lowers("Conv")
def _conv(c: Converter, node, args) -> SSAValue:
    attrs = _attrs(node)
    x, packed = c.tensor(args[0]), c.tensor(args[1])
    kernel = shape_of(packed)[2:]
    rank, out_c = len(kernel), shape_of(packed)[0]
    groups = attrs.get("group", 1)
    before, after = _window(c, attrs, rank)
    bias = (
        c.tensor(args[2])
        if len(args) > 2 and args[2] is not None
        else c.e.fixed(np.zeros(out_c), "bias")
    )
    props = {
        "kernel": i64_array(kernel),
        "stride": i64_array(attrs.get("strides", [1] * rank)),
        "padding": i64_array(before),
        "padding_after": i64_array(after),
        "dilation": i64_array(attrs.get("dilations", [1] * rank)),
        "groups": i64_attr(groups),
        "channel_axis": i64_attr(1),
        "in_channels": i64_attr(shape_of(x)[1]),
        "out_channels": i64_attr(out_c),
    }
    from tlir import shapes

    cfg = shapes.ConvConfig(
        tuple(kernel), tuple(attrs.get("strides", [1] * rank)), tuple(before), tuple(after),
        tuple(attrs.get("dilations", [1] * rank)), groups, 1, shape_of(x)[1], out_c,
    )  # fmt: skip
    try:
        out = shapes.conv(shape_of(x), cfg)
    except shapes.ShapeError as err:
        raise c.e.error(str(err)) from None
    return c.e.emit(T.ConvOp, [x, c.e.dense_group_weight(packed, groups), bias], out, props)


@lowers("MaxPool", "AveragePool")
def _pool(c: Converter, node, args) -> SSAValue:
    from tlir import shapes

    attrs = _attrs(node)
    x = c.tensor(args[0])
    kernel = list(attrs["kernel_shape"])
    rank = len(kernel)
    before, after = _window(c, attrs, rank)
    if before != after:
        raise c.e.error("asymmetric pads are not supported (TorchLean pads pools symmetrically)")
    if attrs.get("ceil_mode", 0) or set(attrs.get("dilations", [1])) != {1}:
        raise c.e.error("pooling with ceil_mode or dilations is not supported")
    if node.op_type == "AveragePool" and any(before) and not attrs.get("count_include_pad", 0):
        raise c.e.error("padded average pooling needs count_include_pad=1")
    if node.op_type == "MaxPool" and len(node.output) > 1 and node.output[1]:
        raise c.e.error("MaxPool's indices output is not supported")
    stride = list(attrs.get("strides", [1] * rank))
    out = shapes.pool(shape_of(x), kernel, stride, before)
    props = {"kernel": i64_array(kernel), "stride": i64_array(stride),
             "padding": i64_array(before)}  # fmt: skip
    op_class = T.MaxPoolOp if node.op_type == "MaxPool" else T.AvgPoolOp
    return c.e.emit(op_class, [x], out, props)


# --- entry -----------------------------------------------------------------------------------


def supported_ops() -> list[str]:
    """The ONNX op types `from_onnx` reads (docs/pytorch.md has the table)."""
    return sorted(set(LOWERINGS) | set(FOLDS))


def from_onnx(model, *, dynamic_batch: bool = True) -> ModuleOp:
    where = model if isinstance(model, str | os.PathLike) else "tlir.from_onnx"
    where = str(where)
    check_dynamic_batch(dynamic_batch, where)
    if isinstance(model, str | os.PathLike):
        try:
            model = onnx.load(str(model))
        except FileNotFoundError:
            raise TlirError(where, "no such file") from None
        except Exception as err:  # noqa: BLE001 - onnx's parser failures, in one line
            raise TlirError(where, f"not an ONNX model ({type(err).__name__})") from None
    if not isinstance(model, onnx.ModelProto):
        raise TlirError(where, f"expected a path or an onnx.ModelProto, got {type(model).__name__}")
    opsets = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if opsets and not MIN_OPSET <= opsets[0] <= MAX_OPSET:
        raise TlirError(where, f"opset {opsets[0]} is not supported ({MIN_OPSET}–{MAX_OPSET})")
    if dynamic_batch and _symbolic_batch(model):
        first, second = (Converter(model, where, b).run() for b in BATCHES)
        return generalize(first, second, BATCHES, where)
    return Converter(model, where).run()


def _symbolic_batch(model: onnx.ModelProto) -> bool:
    """Whether the model's input has a symbolic leading extent (its batch)."""
    initializers = {i.name for i in model.graph.initializer}
    for value in model.graph.input:
        if value.name not in initializers:
            dims = value.type.tensor_type.shape.dim
            return len(dims) > BATCH_AXIS and not dims[BATCH_AXIS].HasField("dim_value")
    return False
