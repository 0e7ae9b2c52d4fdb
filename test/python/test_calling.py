"""Calling compiled code from NumPy (`tlir.compiler.calling`): outputs come back as separate,
aligned arrays carved from one buffer; read-only, non-contiguous and empty inputs
work; frames are reused but never shared by two calls running at once."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tlir
from tlir.compiler.calling import address
from tlir.compiler.model import CompiledModel
from tlir.diagnostics import TlirError

# Three results of different sizes and an empty one: the output buffer holds
# them at 64-byte aligned offsets.
SOURCE = """
func.func @main(%x: tensor<3x5xf64>, %y: tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<0xf64>) {
  %s = tlir.add %x, %y : (tensor<3x5xf64>, tensor<3x5xf64>) -> tensor<3x5xf64>
  %p = tlir.mul_elem %x, %y : (tensor<3x5xf64>, tensor<3x5xf64>) -> tensor<3x5xf64>
  %r = tlir.relu %s : (tensor<3x5xf64>) -> tensor<3x5xf64>
  %e = tlir.const {value = dense<> : tensor<0xf64>} : tensor<0xf64>
  func.return %s, %p, %r, %e : tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<0xf64>
}
"""


@pytest.fixture(scope="module")
def model() -> CompiledModel:
    return tlir.compile(SOURCE, cache=False)


def expected(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    s = x + y
    return [s, x * y, np.maximum(s, 0.0), np.zeros(0)]


def inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(3, 5)), rng.normal(size=(3, 5))


def test_outputs_are_separate_aligned_arrays(model: CompiledModel) -> None:
    x, y = inputs(0)
    outputs = model(x, y)
    for got, want in zip(outputs, expected(x, y), strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.shape == want.shape and got.flags.c_contiguous and got.flags.writeable
    assert all(address(a) % 64 == 0 for a in outputs[:3])
    outputs[0][...] = 7.0  # writing one output leaves the others alone
    np.testing.assert_array_equal(outputs[1], x * y)
    np.testing.assert_array_equal(outputs[2], np.maximum(x + y, 0.0))


def test_each_call_returns_fresh_outputs(model: CompiledModel) -> None:
    x, y = inputs(1)
    first = model(x, y)
    second = model(2 * x, y)
    np.testing.assert_array_equal(first[0], x + y)
    np.testing.assert_array_equal(second[0], 2 * x + y)


def test_read_only_and_strided_inputs(model: CompiledModel) -> None:
    x, y = inputs(2)
    frozen = x.copy()
    frozen.setflags(write=False)
    wide = np.zeros((3, 10))
    wide[:, ::2] = y  # a non-contiguous view: copied before the call
    outputs = model(frozen, wide[:, ::2])
    for got, want in zip(outputs, expected(x, y), strict=True):
        np.testing.assert_array_equal(got, want)


def test_wrong_input_is_a_located_error(model: CompiledModel) -> None:
    x, y = inputs(3)
    with pytest.raises(TlirError, match="input 1 has shape \\[5, 3\\]"):
        model(x, y.T.copy())
    with pytest.raises(TlirError, match="takes 2 inputs, got 1"):
        model(x)
    with pytest.raises(TlirError, match="input 0 .* dtype float32"):
        model(x.astype(np.float32), y)


def test_concurrent_calls_do_not_share_frames(model: CompiledModel) -> None:
    cases = [inputs(seed) for seed in range(8)]
    failures: list[int] = []

    def worker(index: int) -> None:
        x, y = cases[index]
        for _ in range(300):
            got = model(x, y)
            if not all(np.array_equal(a, b) for a, b in zip(got, expected(x, y), strict=True)):
                failures.append(index)
                return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(cases))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_the_workspace_is_passed_aligned(monkeypatch) -> None:
    """The plan aligns workspace slices to 64 bytes from the workspace's start,
    so the start must be aligned too, whatever the allocator gives (NumPy: 16)."""
    model = tlir.compile(SOURCE)
    call = model._call
    original, seen = call._entry, []

    def entry(inputs, outputs, constants, workspace, threads):
        seen.append(workspace)
        return original(inputs, outputs, constants, workspace, threads)

    allocate = call._allocate

    def misaligned(nbytes: int, what: str) -> np.ndarray:
        buffer = allocate(nbytes + 128, what)
        start = -address(buffer) % 64 + 16
        return buffer[start : start + nbytes]

    monkeypatch.setattr(call, "_entry", entry)
    monkeypatch.setattr(call, "_allocate", misaligned)
    call._frames.clear()
    x, y = inputs(4)
    for got, want in zip(model(x, y), expected(x, y), strict=True):
        np.testing.assert_array_equal(got, want)
    assert seen and all(workspace % 64 == 0 for workspace in seen)


def test_the_workspace_starts_on_a_cache_line() -> None:
    """A linear layer whose packed blocks of the weight are wider than the stack
    keeps them in the workspace, written and read in whole vectors: the
    workspace starts on a 64-byte boundary (a NumPy array this large starts 16
    bytes past a page, where every vector would straddle two cache lines)."""
    from tlir.reference import evaluate

    x, w, b, y = (f"tensor<{s}xf64>" for s in ("128x256", "256x256", "256", "128x256"))
    text = (
        f"func.func @main(%x: {x}, %w: {w}, %b: {b}) -> {y} {{\n"
        f"  %0 = tlir.linear %x, %w, %b : ({x}, {w}, {b}) -> {y}\n"
        f"  func.return %0 : {y}\n}}"
    )
    model = tlir.compile(text, cache=False, threads=1)
    assert model.plan.workspace_bytes > 256 * 1024
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=s) for s in ((128, 256), (256, 256), (256,))]
    (got,) = model(*arrays)
    (want,) = evaluate(tlir.parse_module(text), arrays)
    assert got.tobytes() == want.tobytes()
    frames = model._call._frames
    assert frames and all(frame.workspace_address % 64 == 0 for frame in frames)
