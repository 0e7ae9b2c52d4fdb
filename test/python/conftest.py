"""Shared helpers: evaluate one MLIR snippet with the reference evaluator."""

from __future__ import annotations

import numpy as np
import pytest

import tlir
from tlir.diagnostics import verify_module
from tlir.reference import evaluate


def run_mlir(text: str, *inputs: np.ndarray) -> list[np.ndarray]:
    module = tlir.parse_module(text, "test.mlir")
    verify_module(module, "test.mlir")
    return evaluate(module, list(inputs))


def unary_module(op: str, shape: str, dtype: str = "f64", attrs: str = "") -> str:
    typ = f"tensor<{shape}{dtype}>"
    return (
        f"func.func @main(%x: {typ}) -> {typ} {{\n"
        f"  %y = tlir.{op} %x {attrs} : ({typ}) -> {typ}\n"
        f"  func.return %y : {typ}\n}}"
    )


@pytest.fixture
def run():
    return run_mlir


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache(tmp_path_factory):
    """Tests share one compile cache of their own, never the user's. Under
    pytest-xdist every worker is a session of its own: they share the run's
    directory (the parent of each worker's base temporary directory), as the
    processes of one user share the cache, so that a model one worker compiled
    is a hit for the others."""
    import os

    if not os.environ.get("PYTEST_XDIST_WORKER"):  # one process (or no xdist)
        directory = tmp_path_factory.mktemp("tlir-cache")
    else:
        directory = tmp_path_factory.getbasetemp().parent / "tlir-cache"
        directory.mkdir(exist_ok=True)
    previous = os.environ.get("TLIR_CACHE_DIR")
    os.environ["TLIR_CACHE_DIR"] = str(directory)
    yield
    if previous is None:
        os.environ.pop("TLIR_CACHE_DIR", None)
    else:
        os.environ["TLIR_CACHE_DIR"] = previous
