"""tlir: TorchLean's neural-network IR in MLIR, on xDSL.

The dialects live in `tlir.dialects`, the passes in `tlir.passes`, the
command-line tools in `tlir.tools`. `tlir.context()` gives an xDSL context that
knows every dialect tlir reads and writes; `tlir.compile(model)` compiles a model
(JSON or MLIR) into a callable on NumPy arrays, with `jvp`, `vjp` and
`parameters`; `tlir.save(model, path)` writes it back as JSON.

The package root imports nothing heavy: `import tlir.dialects.tlir` loads the
dialect alone, and the names below load their modules on first use.
"""

from __future__ import annotations

import importlib

from tlir import xdsl_fixes

xdsl_fixes.apply()

_EXPORTS = {
    "compile": "tlir.compiler",
    "context": "tlir.universe",
    "load_model": "tlir.api",
    "parse_module": "tlir.api",
    "save": "tlir.api",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tlir' has no attribute '{name}'")
    return getattr(importlib.import_module(module), name)
