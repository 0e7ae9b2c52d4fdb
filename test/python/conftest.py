"""Shared helpers: evaluate one MLIR snippet with the reference evaluator."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

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


def _run_directory(config: pytest.Config) -> Path | None:
    """The directory the pytest-xdist workers of this run share (the parent of
    each worker's base temporary directory, which xdist passes as
    `--basetemp`), or None in a run of one process."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return Path(config.option.basetemp).parent


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Under pytest-xdist, a test marked `alone` holds the run's lock file
    exclusively and every other test holds it shared: the pool's timing tests
    need the machine's other cores free of this suite's work. (The whole
    protocol, so that the module fixtures a test sets up compile under the lock.)
    A gate taken before the lock lets a waiting `alone` test in: the other
    workers' next tests wait at the gate, not slip in beside the shared lock."""
    directory = _run_directory(item.config)
    if directory is None:
        return (yield)
    alone = item.get_closest_marker("alone") is not None
    with open(directory / "alone.gate", "a") as gate, open(directory / "alone.lock", "a") as lock:
        fcntl.flock(gate, fcntl.LOCK_EX)
        fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        return (yield)


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache(tmp_path_factory, request):
    """Tests share one compile cache of their own, never the user's. The
    pytest-xdist workers of a run share one, as the processes of one user do, so
    that a model one worker compiled is a hit for the others."""
    directory = _run_directory(request.config)
    if directory is None:
        directory = tmp_path_factory.mktemp("tlir-cache")
    else:
        directory = directory / "tlir-cache"
        directory.mkdir(mode=0o700, exist_ok=True)
    previous = os.environ.get("TLIR_CACHE_DIR")
    os.environ["TLIR_CACHE_DIR"] = str(directory)
    yield
    if previous is None:
        os.environ.pop("TLIR_CACHE_DIR", None)
    else:
        os.environ["TLIR_CACHE_DIR"] = previous
