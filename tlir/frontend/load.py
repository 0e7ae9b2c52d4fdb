"""The loading stage: every source of a model to one checked tlir module.

A source is a TorchLean `torchlean.ir.v1` graph (a `.json` path, or JSON text),
a `.tlz` container, MLIR (a `.mlir` path, or text), an xDSL `ModuleOp`, an ONNX
model (a `.onnx` path or an `onnx.ModelProto`) or a PyTorch module (with its
example inputs). `read_model` and `read_model_text` give a verified module of
the element type asked for; `load` goes on to the checks the compiler relies on
— every tensor within `tlir.limits.max_tensor_bytes()`, every call to a
function the module defines, the entry function a model's — and returns a
`LoadedModel`. The compiler takes loaded models and checks none of this again.
Every failure is one `TlirError` line naming the file and the node or line.
"""

from __future__ import annotations

import dataclasses
import os

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import TlirError, describe_location, verify_module
from tlir.interface import element_type_name, find_function
from tlir.interpreter import collector_paused
from tlir.limits import check_tensor_sizes, decode_text, read_text_file

MODEL_EXTENSIONS = (".json", ".tlz", ".mlir", ".onnx")
"""What `load` reads as a path to a model file rather than as text."""


@dataclasses.dataclass(frozen=True)
class LoadedModel:
    """A checked module: parsed or imported, of one element type, verified,
    within the size limits, calling only its own functions, `function` a model's
    entry (float tensors of static shape in and out). `where` names it in
    messages."""

    module: ModuleOp
    where: str
    function: str = "main"
    dynamic: bool = False
    """Whether the batch is `?` (`tlir.passes.tlir_specialize_batch.is_dynamic`)."""


@collector_paused()
def read_model(
    path: str, dtype: object = None, ctx: Context | None = None, data: bytes | None = None
) -> ModuleOp:
    """A model file as a verified module: TorchLean JSON (imported in `dtype`,
    float64 by default), a `.tlz` container (imported in `dtype`, by default the
    one it was written in), an ONNX model or MLIR text (whose element type must
    match `dtype`). `dtype`: 'f32', 'f64' or NumPy's float32/float64. `data`:
    the file's bytes when already read (`tlir.limits.read_limited`; not for
    ONNX), so that what is imported is exactly what the caller read."""
    from tlir.torchlean import import_file

    dtype = element_type_name(dtype, path)
    if path.endswith((".json", ".tlz")):
        return import_file(path, dtype, data)
    if path.endswith(".onnx"):
        from tlir.frontend import from_onnx

        return _module_of_dtype(from_onnx(path), path, dtype)
    if not path.endswith(".mlir"):
        raise TlirError(path, "a model is a .json (torchlean.ir.v1), .tlz, .onnx or .mlir file")
    text = read_text_file(path) if data is None else decode_text(data, path)
    return read_mlir(text, path, dtype, ctx)


def load_file(path: str, data: bytes, dtype: object = None) -> LoadedModel:
    """`load` of a model file whose bytes `data` the caller has read."""
    return checked(read_model(path, dtype, data=data), path)


@collector_paused()
def read_model_text(
    text: str, name: str, dtype: object = None, ctx: Context | None = None
) -> ModuleOp:
    """`read_model` for a model given as text named `name` (standard input). A
    torchlean.ir.v1 graph is a JSON object, so text that starts with `{` is
    JSON; MLIR's top level never does, but for a `{-# … #-}` resource section."""
    from tlir.torchlean import import_file

    dtype = element_type_name(dtype, name)
    if is_json_text(text):
        return import_file(name, dtype, text.encode("utf-8"))
    return read_mlir(text, name, dtype, ctx)


def is_json_text(text: str) -> bool:
    start = text.lstrip()
    return start.startswith("{") and not start.startswith("{-#")


def read_mlir(
    text: str, name: str, dtype: str | None = None, ctx: Context | None = None
) -> ModuleOp:
    """MLIR text as a verified module, of element type `dtype` if given."""
    from tlir.frontend.mlir import parse_module_checked

    module = parse_module_checked(text, name, ctx)
    if dtype is not None:
        check_module_dtype(module, dtype, name)
    verify_module(module, name)
    return module


def check_module_dtype(module: ModuleOp, dtype: str, path: str) -> None:
    """@main's arguments are of element type `dtype` ('f32' or 'f64')."""
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            for typ in op.function_type.inputs.data:
                if str(getattr(typ, "element_type", typ)) != dtype:  # (a scalar: verified later)
                    raise TlirError(path, f"@main takes {typ}, not {dtype} (the dtype asked for)")


def check_compilable(module: ModuleOp, where: str) -> None:
    """What the compiler asks of a model before it allocates or compiles anything:
    every tensor within `tlir.limits.max_tensor_bytes()`, and every call to a
    function the module defines (compiled code may not reach the C library or
    the process through a declared external function such as `@exit`)."""
    from xdsl.traits import SymbolTable

    check_tensor_sizes(module, where)
    for op in module.walk():
        if isinstance(op, func.CallOp):
            callee = SymbolTable.lookup_symbol(op, op.callee)
            if not isinstance(callee, func.FuncOp) or not callee.body.blocks:
                raise TlirError(
                    describe_location(op.location, where),
                    f"'func.call' op calls {op.callee}, which the module does not define "
                    "(a compiled model may call only its own functions)",
                )


def checked(module: ModuleOp, where: str, function: str = "main") -> LoadedModel:
    """A verified `module` as a `LoadedModel`, once the compiler's checks pass."""
    from tlir.passes.tlir_specialize_batch import is_dynamic

    check_compilable(module, where)
    dynamic = is_dynamic(module)
    find_function(module, function, dynamic=dynamic)
    return LoadedModel(module, where, function, dynamic)


def load(
    source: object,
    dtype: object = None,
    *,
    function: str = "main",
    example_inputs: object = None,
    caller: str = "tlir.compile",
) -> LoadedModel:
    """Any source (see the module's docstring) as a checked model. `dtype` is
    the element type a JSON graph is imported in, and the one any other source
    must have; `example_inputs` trace a PyTorch module; `caller` names the API
    function in messages about the arguments themselves."""
    dtype = element_type_name(dtype, caller)
    for accepts, reader in SOURCES:
        if accepts(source):
            module, where = reader(source, dtype, example_inputs, caller)
            return checked(module, where, function)
    raise TlirError(caller, f"expected a model path, MLIR text or a module, got {type(source)}")


def _module_of_dtype(module: ModuleOp, where: str, dtype: str | None) -> ModuleOp:
    if dtype is not None:
        check_module_dtype(module, dtype, where)
    verify_module(module, where)
    return module


def _is_path(source: object) -> bool:
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    return isinstance(source, str) and source.endswith(MODEL_EXTENSIONS) and "\n" not in source


def _read_path(source, dtype, example_inputs, caller) -> tuple[ModuleOp, str]:
    path = os.fspath(source)
    return read_model(path, dtype), path


def _read_text(source: str, dtype, example_inputs, caller) -> tuple[ModuleOp, str]:
    return read_model_text(source, "<string>", dtype), "<string>"


def _read_module(source: ModuleOp, dtype, example_inputs, caller) -> tuple[ModuleOp, str]:
    return _module_of_dtype(source, "module", dtype), "module"


def _is_onnx_model(source: object) -> bool:
    return type(source).__name__ == "ModelProto" and type(source).__module__.startswith("onnx")


def _read_onnx(source, dtype, example_inputs, caller) -> tuple[ModuleOp, str]:
    from tlir.frontend import from_onnx

    return _module_of_dtype(from_onnx(source), "onnx model", dtype), "onnx model"


def _is_torch_module(source: object) -> bool:
    return any(
        cls.__name__ == "Module" and cls.__module__ == "torch.nn.modules.module"
        for cls in type(source).__mro__
    )


def _read_torch(source, dtype, example_inputs, caller) -> tuple[ModuleOp, str]:
    from tlir.frontend import from_torch

    if example_inputs is None:
        raise TlirError(caller, "a PyTorch module is traced on example_inputs: give them")
    module = from_torch(source, example_inputs)
    return _module_of_dtype(module, "pytorch module", dtype), "pytorch module"


SOURCES = (
    (lambda source: isinstance(source, ModuleOp), _read_module),
    (_is_path, _read_path),
    (lambda source: isinstance(source, str), _read_text),
    (_is_onnx_model, _read_onnx),
    (_is_torch_module, _read_torch),
)
"""Each kind of source: how to recognise it (the first that matches wins) and
how to read it into a verified module and the name messages give it."""


__all__ = [
    "MODEL_EXTENSIONS",
    "LoadedModel",
    "check_compilable",
    "check_module_dtype",
    "checked",
    "load",
    "load_file",
    "read_model",
    "read_model_text",
]
