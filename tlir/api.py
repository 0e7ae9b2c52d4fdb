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
def load_model(path: str, dtype: str | None = None, ctx: Context | None = None) -> ModuleOp:
    """A model file as a verified module: TorchLean JSON (imported in `dtype`,
    float64 by default), a `.tlz` container (imported in `dtype`, by default the
    one it was written in) or MLIR text (whose element type must match `dtype`)."""
    from tlir.diagnostics import TlirError, read_text_file, verify_module
    from tlir.torchlean import import_file

    if dtype not in (None, "f32", "f64"):
        raise TlirError(path, f"dtype must be 'f32' or 'f64', got {dtype!r}")
    if path.endswith((".json", ".tlz")):
        return import_file(path, dtype)
    if not path.endswith(".mlir"):
        raise TlirError(path, "a model is a .json (torchlean.ir.v1), .tlz or .mlir file")
    module = parse_module_checked(read_text_file(path), path, ctx)
    if dtype is not None:
        _check_module_dtype(module, dtype, path)
    verify_module(module, path)
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


def _check_module_dtype(module: ModuleOp, dtype: str, path: str) -> None:
    from xdsl.dialects import func

    from tlir.diagnostics import TlirError

    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            for typ in op.function_type.inputs.data:
                if str(typ.element_type) != dtype:
                    raise TlirError(path, f"@main takes {typ}, not {dtype} (--dtype {dtype})")


def save(model, path: str) -> None:
    """Write a compiled model holding its current parameter values (what
    `model.parameters()` reads now): a `.tlz` container for a `.tlz` path, else
    `torchlean.ir.v1` JSON for a `.json` one. The model's function must be
    exportable: one input, tlir ops only (no `tlir.custom`)."""
    from tlir.compiler import CompiledModel
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
