"""Warm compiles of model files: a compiled model from the compile cache without
building its module.

A model file that compiled once gets a *source* entry beside its model entry
(`tlir.compiler.cache_entry.SourceFacts`), keyed by the SHA-256 of the file's
bytes with everything else that decides what they import to and compile to:
the reader (the file's extension), the dtype asked for, the entry function,
the options that change code, the environment of every other key (tlir's code,
LLVM, the CPU, the back end and level), the tensor size limit, and the xDSL
and NumPy versions. It holds the key of the model entry, the function's
signature, its constants and their slots, and the parameters' names: all a
`CompiledModel` needs besides its plan and objects. A later compile of the same
bytes reads the file, hashes it, and links the cached model; the module is
built from those same bytes (kept with the model) only when something asks for
it (`model.module()`, derivatives, bounds, saving).

A file that did not load or compile never got an entry, so its errors are
those of the loading stage, always. An entry is checked like any other
(`read_source`) and, when the module is built, the module's structure must
give the model key the entry named.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import Float32Type, Float64Type, FunctionType, ModuleOp, TensorType

from tlir.compiler.cache_entry import SourceFacts, arrays_json
from tlir.compiler.model import CompiledModel
from tlir.diagnostics import TlirError

FILE_EXTENSIONS = (".json", ".tlz", ".mlir")
"""The model files a warm compile reads whole and imports itself (an ONNX
model is read by the `onnx` package)."""

SHARE_OF_CAP = 4
"""A source entry holds the model's constants, so one larger than a quarter of
the cache's cap is not written (it would push out the compiled code)."""


def source_key(path: str, data: bytes, dtype: str | None, options: dict) -> str | None:
    """The key of the source entry of `data` read from `path` in `dtype`
    compiled with `options` (`CompiledModel`'s), or None when there is none:
    no usable cache, options the compiler refuses, or a tensor size limit that
    is not a number (the loading stage and the compiler report those, in their
    order)."""
    from tlir.compiler.cache import digest, environment, open_cache
    from tlir.compiler.options import check_options, model_options
    from tlir.limits import max_tensor_bytes

    if open_cache(options["cache"]) is None:
        return None
    backend, opt_level, numerics = options["backend"], options["opt_level"], options["numerics"]
    try:
        check_options(backend, opt_level, numerics, path)
        limit = max_tensor_bytes()
    except TlirError:
        return None
    reader = next(e for e in FILE_EXTENSIONS if path.endswith(e))
    return digest(
        "source",
        hashlib.sha256(data).hexdigest(),
        f"reader {reader}; dtype {dtype}; function main",
        model_options(options["fuse"], numerics, options.get("parameters", "live")),
        environment(backend, opt_level),
        f"max tensor bytes {limit}; xdsl {xdsl_version()}; numpy {np.__version__}",
    )


@functools.cache
def xdsl_version() -> str:
    """xDSL's version, from the name of its distribution's metadata directory
    (`xdsl.__version__` imports `importlib.metadata`: 7 ms of a warm compile)."""
    import xdsl

    site = os.path.dirname(os.path.dirname(xdsl.__file__))
    with os.scandir(site) as entries:
        found = sorted(
            e.name for e in entries if e.name.startswith("xdsl-") and e.name.endswith(".dist-info")
        )
    return ";".join(found) if found else str(xdsl.__version__)


def cached_model(
    key: str, path: str, loader: Callable[[], ModuleOp], options: dict
) -> CompiledModel | None:
    """The compiled model of the source entry `key`, linked from the cache with
    its module built by `loader` on first use; None on a miss (no entry, an
    entry that does not check out — discarded — or a model entry gone)."""
    from tlir.compiler.build import load_cached
    from tlir.compiler.cache import environment, open_cache
    from tlir.compiler.cache_entry import ModelFacts

    start = time.perf_counter()
    store = open_cache(options["cache"])
    if store is None:
        return None
    found = store.read(key, lambda entry: _read_source(entry, key))
    if found is None:
        return None
    facts, signature = found
    read = time.perf_counter() - start
    model_facts = ModelFacts(facts.model, facts.inputs, facts.outputs, facts.plan_constants())
    environment_ = environment(options["backend"], options["opt_level"])
    loaded = load_cached(store, facts.model, lambda: model_facts, environment_)
    if loaded is None:
        return None
    plan, objects = loaded
    seconds = {"read": read, "load": time.perf_counter() - start - read}
    model = CompiledModel.from_cache(
        _checked_loader(loader, facts.model, path, options),
        facts.model,
        "main",
        signature,
        plan,
        objects,
        facts.shared,
        facts.slots,
        facts.parameters,
        path,
        **options,
    )
    model.stats.update(seconds, source="hit")
    return model


def _read_source(entry: bytes, key: str) -> tuple[SourceFacts, FunctionType]:
    """A source entry's facts and its function's signature (ValueError if either is malformed)."""
    from tlir.compiler.cache_entry import read_source

    facts = read_source(entry, key)
    return facts, _function_type(facts.inputs, facts.outputs)


def remember(key: str, model: CompiledModel) -> None:
    """Write the source entry of a model just compiled from a file (static
    batch; its shared arrays still the module's values)."""
    from tlir.compiler.cache import open_cache
    from tlir.compiler.cache_entry import source_entry

    store = open_cache(model._options["cache"])
    if store is None:
        return
    function_type = model.function_op.function_type
    inputs, outputs = (_arrays_json(t.data) for t in (function_type.inputs, function_type.outputs))
    if _function_type(inputs, outputs) != function_type:  # not tensors of f32/f64
        return
    model.parameters()  # computes the parameter slots
    extra = [c for c, s in zip(model.plan.constants, model._slots, strict=True) if s is None]
    facts = SourceFacts(
        model.model_key,
        inputs,
        outputs,
        model._shared,
        extra,
        model._slots,
        model._parameter_slots,
    )
    if sum(a.nbytes for a in [*facts.shared, *extra]) * SHARE_OF_CAP > store.max_bytes:
        return
    store.put(key, source_entry(key, facts))


def _checked_loader(
    loader: Callable[[], ModuleOp], model_key: str, where: str, options: dict
) -> Callable[[], ModuleOp]:
    """`loader`, whose module must have the structure the model was compiled from."""
    from tlir.compiler.build import Build

    def load() -> ModuleOp:
        module = loader()
        build = Build(
            module,
            "main",
            options["backend"],
            options["opt_level"],
            where,
            options["fuse"],
            False,
            options["numerics"],
            options.get("parameters", "live"),
        )
        if build.model_key != model_key:
            raise TlirError(
                where, "internal error: the file imports to another module than it compiled from"
            )
        return module

    return load


def _arrays_json(types) -> list[list]:
    from tlir.interface import numpy_dtype

    return arrays_json([(t.get_shape(), numpy_dtype(t)) for t in types])


def _function_type(inputs: list[list], outputs: list[list]) -> FunctionType:
    """The type of a function of these tensors (`arrays_json`'s form: shape and
    dtype, float32 or float64 only)."""
    elements = {"<f4": Float32Type(), "<f8": Float64Type()}

    def tensor(spec: list) -> TensorType:
        shape, dtype = spec
        if dtype not in elements or not all(type(n) is int and n >= 0 for n in shape):
            raise ValueError(f"{spec!r} is not a tensor type of a model's function")
        return TensorType(elements[dtype], shape)

    return FunctionType.from_lists([tensor(s) for s in inputs], [tensor(s) for s in outputs])


__all__ = ["FILE_EXTENSIONS", "cached_model", "remember", "source_key"]
