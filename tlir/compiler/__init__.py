"""The compile machinery: a checked tlir module to machine code called on NumPy
arrays (`model.py`: the compiled model; `options.py`: its options;
`build.py`: one compile, kernel by
kernel or from the cache; `plan.py`: the entry function; `cache.py`,
`cache_entry.py`, `elf.py`: the compile cache; `jit.py`, `pool.py`,
`threads.py`, `calling.py`: linking, threads and calls; `backend/`: the two
back ends). Importing the package loads none of them; the names below load
`model.py` on first use."""

from __future__ import annotations

import importlib

_EXPORTS = ("CompiledModel", "compile_kernel", "lower_kernel", "lower_to_linalg")

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tlir.compiler' has no attribute '{name}'")
    return getattr(importlib.import_module("tlir.compiler.model"), name)
