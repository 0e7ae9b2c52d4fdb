"""tlir: TorchLean's neural-network IR in MLIR, on xDSL.

The dialects live in `tlir.dialects`, the passes in `tlir.passes`, the
command-line tools in `tlir.tools`. `tlir.context()` gives an xDSL context that
knows every dialect tlir reads and writes; `tlir.compile(model)` compiles a model
(JSON, .tlz or MLIR) into a callable on NumPy arrays, with `jvp`, `vjp` and
`parameters`; `tlir.save(model, path)` writes it back as JSON or a binary
`.tlz`.

The package root imports nothing heavy: `import tlir.dialects.tlir` loads the
dialect alone, and the names below load their modules on first use.
"""

from __future__ import annotations

import importlib
import os


def _same_checkout_subpackages() -> None:
    """In a source checkout (`tlir/` beside `dialects/` and `passes/`, mapped to
    `tlir.dialects` and `tlir.passes` by pyproject.toml), those subpackages come
    from the checkout this package comes from — also when this checkout is put
    first on `PYTHONPATH` while an editable install maps them to another one."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    marks = ["pyproject.toml", "dialects/__init__.py", "passes/__init__.py"]
    if all(os.path.isfile(os.path.join(root, mark)) for mark in marks):
        __path__.append(root)


_same_checkout_subpackages()

from tlir import xdsl_fixes  # noqa: E402 - after the subpackage paths are known

xdsl_fixes.apply()

_EXPORTS = {
    "compile": "tlir.api",
    "context": "tlir.universe",
    "from_onnx": "tlir.frontend",
    "from_torch": "tlir.frontend",
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
