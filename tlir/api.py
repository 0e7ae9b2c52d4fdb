"""The Python API: contexts and parsing for embedding tlir in other toolchains."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import LocatingParser
from tlir.interpreter import collector_paused
from tlir.universe import context


def parse_module(text: str, filename: str = "<string>", ctx: Context | None = None) -> ModuleOp:
    """Parse MLIR text; every op gets a `file:line:col` location for diagnostics."""
    parser = LocatingParser(ctx or context(), text, filename)
    return parser.parse_module()


@collector_paused()
def load_model(path: str, dtype: object = None, ctx: Context | None = None) -> ModuleOp:
    """A model file as a verified module: TorchLean JSON (imported in `dtype`,
    float64 by default), a `.tlz` container (imported in `dtype`, by default the
    one it was written in) or MLIR text (whose element type must match `dtype`).
    `dtype`: 'f32', 'f64' or NumPy's float32/float64."""
    from tlir.diagnostics import TlirError, read_text_file
    from tlir.interface import element_type_name
    from tlir.torchlean import import_file

    dtype = element_type_name(dtype, path)
    if path.endswith((".json", ".tlz")):
        return import_file(path, dtype)
    if not path.endswith(".mlir"):
        raise TlirError(path, "a model is a .json (torchlean.ir.v1), .tlz or .mlir file")
    return _mlir_model(read_text_file(path), path, dtype, ctx)


@collector_paused()
def load_model_text(
    text: str, name: str, dtype: object = None, ctx: Context | None = None
) -> ModuleOp:
    """`load_model` for a model given as text named `name` (standard input). A
    torchlean.ir.v1 graph is a JSON object, so text that starts with `{` is
    JSON; MLIR's top level never does, but for a `{-# … #-}` resource section."""
    from tlir.interface import element_type_name
    from tlir.torchlean import import_file

    dtype = element_type_name(dtype, name)
    start = text.lstrip()
    if start.startswith("{") and not start.startswith("{-#"):
        return import_file(name, dtype, text.encode("utf-8"))
    return _mlir_model(text, name, dtype, ctx)


def _mlir_model(text: str, name: str, dtype: str | None, ctx: Context | None) -> ModuleOp:
    from tlir.diagnostics import verify_module

    module = parse_module_checked(text, name, ctx)
    if dtype is not None:
        check_module_dtype(module, dtype, name)
    verify_module(module, name)
    return module


def parse_module_checked(text: str, filename: str, ctx: Context | None = None) -> ModuleOp:
    """`parse_module`, with parse errors as one-line `TlirError`s."""
    from xdsl.utils.exceptions import ParseError

    from tlir.diagnostics import TlirError, parse_error

    try:
        return parse_module(text, filename, ctx)
    except ParseError as err:
        raise parse_error(err) from None
    except RecursionError:
        raise TlirError(filename, "the input is nested too deeply to parse") from None


def check_module_dtype(module: ModuleOp, dtype: str, path: str) -> None:
    """@main's arguments are of element type `dtype` ('f32' or 'f64')."""
    from xdsl.dialects import func

    from tlir.diagnostics import TlirError

    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            for typ in op.function_type.inputs.data:
                if str(getattr(typ, "element_type", typ)) != dtype:  # (a scalar: verified later)
                    raise TlirError(path, f"@main takes {typ}, not {dtype} (the dtype asked for)")


def save(model, path: str) -> None:
    """Write a compiled model holding its current parameter values (what
    `model.parameters()` reads now): a `.tlz` container for a `.tlz` path, else
    `torchlean.ir.v1` JSON for a `.json` one. The model's function must be
    exportable: one input, tlir ops only (no `tlir.custom`)."""
    from tlir.compiler.model import CompiledModel
    from tlir.diagnostics import TlirError
    from tlir.tools.common import write_output
    from tlir.torchlean.exporter import export_bytes

    if not isinstance(model, CompiledModel):
        raise TlirError("tlir.save", f"expected a compiled model, got {type(model).__name__}")
    if not str(path).endswith((".json", ".tlz")):
        raise TlirError(
            str(path), "tlir.save writes torchlean.ir.v1 JSON or a .tlz: use a .json or .tlz path"
        )
    module = model.module()
    if model.function != "main":
        from xdsl.dialects.builtin import StringAttr

        for op in module.ops:
            if getattr(op, "sym_name", None) == StringAttr("main"):
                op.detach()
        function = _find(module, model.function)
        function.sym_name = StringAttr("main")
    write_output(str(path), export_bytes(module, str(path), model.where))


def _find(module: ModuleOp, name: str):
    from tlir.interface import find_function

    return find_function(module, name)
