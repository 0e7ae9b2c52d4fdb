"""Threads split independent outputs only: every result is bit-identical for
any thread count, and the large kernels really are split."""

from __future__ import annotations

import numpy as np
import pytest

import tlir
from tlir import jit

pytestmark = pytest.mark.skipif(not jit.host().openmp, reason="no OpenMP runtime (libgomp)")

N = 256
MODEL = f"""func.func @main(%x: tensor<{N}x{N}xf64>, %w: tensor<{N}x{N}xf64>) -> (tensor<{N}x{N}xf64>, tensor<{N}x{N}xf64>, tensor<{N}xf64>) {{
  %0 = tlir.matmul %x, %w : (tensor<{N}x{N}xf64>, tensor<{N}x{N}xf64>) -> tensor<{N}x{N}xf64>
  %1 = tlir.sigmoid %0 : (tensor<{N}x{N}xf64>) -> tensor<{N}x{N}xf64>
  %2 = tlir.mul_elem %x, %w : (tensor<{N}x{N}xf64>, tensor<{N}x{N}xf64>) -> tensor<{N}x{N}xf64>
  %3 = tlir.softmax %2 axis = 1 : (tensor<{N}x{N}xf64>) -> tensor<{N}x{N}xf64>
  %4 = tlir.reduce_sum %3 axis = 1 : (tensor<{N}x{N}xf64>) -> tensor<{N}xf64>
  func.return %1, %3, %4 : tensor<{N}x{N}xf64>, tensor<{N}x{N}xf64>, tensor<{N}xf64>
}}"""


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_any_thread_count_gives_the_same_bits(dtype):
    text = MODEL.replace("f64", dtype)
    numpy_type = np.float64 if dtype == "f64" else np.float32
    rng = np.random.default_rng(7)
    inputs = [rng.normal(size=(N, N)).astype(numpy_type) for _ in range(2)]
    inputs[0][3, 5] = np.nan
    inputs[1][7, 1] = -0.0
    results = {}
    for threads in (1, 2, 3, 5):
        model = tlir.compile(text, threads=threads)
        results[threads] = [o.tobytes() for o in model(*inputs)]
    assert results[1] == results[2] == results[3] == results[5]
    from tlir.reference import evaluate

    reference = evaluate(tlir.parse_module(text), inputs)
    assert results[1] == [r.tobytes() for r in reference]


def test_large_kernels_are_threaded():
    model = tlir.compile(MODEL, threads=2)
    threaded = [s for s in model.plan.steps if s.threaded]
    assert len(threaded) >= 2
    assert all(s.extent > 1 for s in threaded)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_threads_must_be_a_positive_integer(bad):
    with pytest.raises(tlir.compiler.TlirError, match="threads must be a positive integer"):
        tlir.compile(MODEL, threads=bad)
