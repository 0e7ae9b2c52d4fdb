"""The Python API: `tlir.compile`, `tlir.load_model`, `tlir.save`, and parsing
for embedding tlir in other toolchains.

`tlir.compile(source)` is two stages: the front end's loading stage
(`tlir.frontend.load`: read, import or parse; dtype, verifier, size limits,
calls, entry function) and the compiler (`tlir.compiler`), which receives the
checked module."""

from __future__ import annotations

import os
import time

from xdsl.dialects.builtin import ModuleOp

from tlir.compiler.options import CompileOptions, takes_options
from tlir.frontend.load import check_module_dtype as check_module_dtype
from tlir.frontend.load import load, load_file
from tlir.frontend.load import read_model as load_model
from tlir.frontend.load import read_model_text as load_model_text
from tlir.frontend.mlir import parse_module as parse_module
from tlir.frontend.mlir import parse_module_checked as parse_module_checked
from tlir.interface import element_type_name
from tlir.interpreter import collector_paused


@takes_options
@collector_paused()
def compile(model, dtype: str | None = None, **options):
    """Compile a model: a .json/.tlz/.mlir/.onnx path, JSON or MLIR text, or a
    module. `dtype` ('f32', 'f64' or NumPy's float32/float64) is the element
    type a JSON graph is imported in, and the one any other source must have.
    `options`: `tlir.compiler.options.CompileOptions` (back end, LLVM level,
    threads, compile cache, progress bar, fusion, numerics)."""
    options = CompileOptions.of(options, "compile").as_dict()
    path = model_file_path(model)
    if path is not None and options["cache"]:
        return _compile_file(path, dtype, options)
    return _compile_loaded(load(model, dtype), options)


def model_file_path(source: object) -> str | None:
    """The path of a model file a warm compile can read (`tlir.compiler.warm`), or None."""
    from tlir.compiler.warm import FILE_EXTENSIONS

    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if isinstance(source, str) and source.endswith(FILE_EXTENSIONS) and "\n" not in source:
        return source
    return None


def _compile_file(path: str, dtype: object, options: dict):
    """A model file's compile: linked from the compile cache when it holds a
    model compiled from these exact bytes (the module built only when asked
    for), else loaded from the bytes read here, compiled, and remembered."""
    source = ModelFile(path, dtype, options)
    model = source.cached()
    if model is not None:
        return model
    loaded = source.load()
    model = _compile_loaded(loaded, options)
    source.remember(model, loaded)
    return model


class ModelFile:
    """A model file read once (its bytes hashed into its source key,
    `tlir.compiler.warm`) for a compile that may come from the compile cache:
    `cached()` links the model compiled from these bytes, if any, parsing
    nothing; else `load()` imports these same bytes, and `remember` records the
    model compiled from them for the next time."""

    def __init__(self, path: str, dtype: object, options: dict):
        from tlir.compiler import warm
        from tlir.limits import read_limited

        self.path, self.options = path, options
        self.dtype = element_type_name(dtype, "tlir.compile")
        self._start = time.perf_counter()
        self.data = read_limited(path)
        self.key = warm.source_key(path, self.data, self.dtype, options)
        self._read = time.perf_counter() - self._start

    def cached(self):
        """The compiled model from the compile cache (its module loaded from
        these bytes when asked for), or None."""
        from tlir.compiler import warm

        if self.key is None:
            return None
        model = warm.cached_model(self.key, self.path, lambda: self.load().module, self.options)
        if model is not None:
            model.stats["read"] += self._read
        return model

    def load(self):
        """The front end's checked model of these bytes (`tlir.frontend.load`)."""
        loaded = load_file(self.path, self.data, self.dtype)
        self._read = time.perf_counter() - self._start  # read and loaded
        return loaded

    def remember(self, model, loaded) -> None:
        """After a miss: `model`, compiled from `loaded` (`load()`), becomes the
        source entry's (a static model only: a dynamic one compiles per batch)."""
        from tlir.compiler import warm

        model.stats["read"] = self._read
        if self.key is not None:
            model.stats["source"] = "miss"
            if not loaded.dynamic:
                warm.remember(self.key, model)


def _compile_loaded(loaded, options: dict):
    """The compiler's half of `compile`: a checked model to machine code."""
    if loaded.dynamic:  # a `?` batch: compiled at each batch it is called with
        from tlir.compiler.dynamic import DynamicBatchModel

        return DynamicBatchModel(loaded.module, loaded.where, function=loaded.function, **options)
    from tlir.compiler.model import CompiledModel

    return CompiledModel(loaded.module, where=loaded.where, function=loaded.function, **options)


def save(model, path: str, batch: int | None = None) -> None:
    """Write a compiled model holding its current parameter values (what
    `model.parameters()` reads now): a `.tlz` container for a `.tlz` path, else
    `torchlean.ir.v1` JSON for a `.json` one. The model's function must be
    exportable: one input, tlir ops only (no `tlir.custom`). A model whose batch
    is `?` is written at `batch` if given, else (a `.tlz` only: TorchLean's JSON
    has fixed extents) with its `?` (docs/json-format.md); a static model's
    batch, if given, must be its own."""
    from tlir.compiler.dynamic import DynamicBatchModel
    from tlir.compiler.model import CompiledModel
    from tlir.diagnostics import TlirError
    from tlir.files import write_output
    from tlir.passes.tlir_specialize_batch import specialize
    from tlir.torchlean.exporter import export_bytes

    if not isinstance(model, CompiledModel | DynamicBatchModel):
        raise TlirError("tlir.save", f"expected a compiled model, got {type(model).__name__}")
    if not str(path).endswith((".json", ".tlz")):
        raise TlirError(
            str(path), "tlir.save writes torchlean.ir.v1 JSON or a .tlz: use a .json or .tlz path"
        )
    module = model.module()
    if isinstance(model, DynamicBatchModel):
        if batch is None and not str(path).endswith(".tlz"):
            raise TlirError(
                str(path),
                "the model's batch is '?' and a TorchLean graph has fixed extents: "
                "give tlir.save the batch to write (batch=N), or write a .tlz, which keeps the '?'",
            )
        if batch is not None:
            module = specialize(module, batch, str(path))
    elif batch is not None:
        shape = model.function_op.function_type.inputs.data[0].get_shape()
        if not shape or shape[0] != batch:
            raise TlirError(
                str(path), f"the model is compiled for input shape {list(shape)}, not batch {batch}"
            )
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


__all__ = [
    "check_module_dtype",
    "compile",
    "load_model",
    "load_model_text",
    "parse_module",
    "parse_module_checked",
    "save",
]
