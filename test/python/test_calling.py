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
