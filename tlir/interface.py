"""A model's interface: its entry function and the NumPy arrays it takes and returns.

Shared by the reference evaluator, the compiler, the exporter and the tools;
depends only on xDSL's builtin and func dialects.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, Float64Type, ModuleOp, TensorType

from tlir.diagnostics import TlirError

VJP_WRT = ("inputs", "params", "all")
"""What a VJP differentiates with respect to (`tlir-vjp{wrt=…}`, `model.vjp(wrt=…)`)."""

NUMERICS = ("exact", "fma")
"""A compile's numerics (`tlir-form-kernels{numerics=…}`, `tlir.compile(numerics=…)`):
here, so that checking the option does not import the passes."""


ELEMENT_TYPES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
"""The NumPy dtype of each carrier and its element type's name."""


def element_type_name(dtype: object, where: str) -> str | None:
    """'f32' or 'f64' for a dtype given by tlir's name ('f32', 'f64') or by any
    of NumPy's ('float32', `np.float64`, `np.dtype("float32")`, …); None stays
    None (the model's own)."""
    if dtype is None or (isinstance(dtype, str) and dtype in ("f32", "f64")):
        return dtype
    try:
        name = ELEMENT_TYPES.get(np.dtype(dtype))  # type: ignore[call-overload]
    except (TypeError, ValueError):  # not a NumPy dtype at all
        name = None
    if name is None:
        message = f"dtype must be 'f32' or 'f64' (or NumPy's float32 or float64), got {dtype!r}"
        raise TlirError(where, message)
    return name


def numpy_dtype(typ: TensorType) -> np.dtype:
    """float32 for an f32 tensor, float64 for an f64 one."""
    return np.dtype(np.float32 if typ.element_type.bitwidth == 32 else np.float64)


def find_function(module: ModuleOp, name: str = "main", dynamic: bool = False) -> func.FuncOp:
    """`@name`, checked to be a model's entry: a body, and float tensors of static
    shape (the arrays it is called with) for every argument and result; with
    `dynamic`, extents may be the batch `?`."""
    from tlir.diagnostics import describe_location

    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            where = describe_location(op.location, "module")
            if not op.body.blocks:
                raise TlirError(where, f"@{name} is only declared: a model needs its body")
            signature = op.function_type
            for what, types in (("argument", signature.inputs), ("result", signature.outputs)):
                for index, typ in enumerate(types.data):
                    if not _is_float_tensor(typ, dynamic):
                        raise TlirError(
                            where,
                            f"@{name} {what} {index} is {typ}: a model takes and returns "
                            "tensors of f32 or f64 with static shapes",
                        )
            return op
    raise TlirError("module", f"no function @{name} in the module")


def _is_float_tensor(typ: object, dynamic: bool = False) -> bool:
    return (
        isinstance(typ, TensorType)
        and isinstance(typ.element_type, Float32Type | Float64Type)
        and (dynamic or all(d >= 0 for d in typ.get_shape()))
    )


def check_inputs(function: func.FuncOp, inputs: Sequence[np.ndarray], where: str) -> list:
    """Inputs must match the argument types exactly (shape and dtype)."""
    types = function.function_type.inputs.data
    if len(inputs) != len(types):
        raise TlirError(
            where, f"@{function.sym_name.data} takes {len(types)} inputs, got {len(inputs)}"
        )
    return check_arrays(types, inputs, "input", where)


def check_arrays(types: Sequence, arrays: Sequence, what: str, where: str) -> list[np.ndarray]:
    """Each array of the exact shape and dtype of its type (as many of each; the
    caller words the count error); C-contiguous copies where needed."""
    return [
        check_array(value, tuple(typ.get_shape()), numpy_dtype(typ), f"{what} {index}", where)
        for index, (value, typ) in enumerate(zip(arrays, types, strict=True))
    ]


def check_array(
    value: object, shape: tuple[int, ...], dtype: np.dtype, name: str, where: str
) -> np.ndarray:
    """`value` as a C-contiguous array of exactly `shape` and `dtype` (a copy if
    it is not contiguous); `name` ("input 0") words the error."""
    value = np.asarray(value)
    if value.shape != shape or value.dtype != dtype:
        raise TlirError(
            where,
            f"{name} has shape {list(value.shape)} and dtype {value.dtype}, "
            f"expected shape {list(shape)} and dtype {dtype}",
        )
    return value if value.flags.c_contiguous else value.copy(order="C")
