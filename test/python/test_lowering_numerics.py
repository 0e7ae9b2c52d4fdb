"""convert-tlir-to-linalg computes the spec's numbers: every op case, compiled
through the MLIR back end, against the reference evaluator, in both precisions.

Numerics contract (DESIGN.md): bit-identical without transcendental functions;
with them, relative 1e-12 (f64) / 1e-5 (f32). Random numbers bit-identical.
"""

from __future__ import annotations

import numpy as np
import pytest
from op_cases import CASES

import tlir
from tlir.backend import mlir
from tlir.reference import evaluate

pytestmark = pytest.mark.skipif(
    mlir.find_tool("mlir-opt") is None or mlir.find_tool("mlir-translate") is None,
    reason="mlir-opt/mlir-translate not installed (.ci/run installs them)",
)


def assert_matches(got: np.ndarray, ref: np.ndarray, transcendental: bool) -> None:
    assert got.shape == ref.shape and got.dtype == ref.dtype
    if not transcendental:
        assert got.tobytes() == ref.tobytes(), (got, ref)
        return
    rtol = 1e-5 if got.dtype == np.float32 else 1e-12
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    finite = ~np.isnan(ref)
    assert np.allclose(got[finite], ref[finite], rtol=rtol, atol=0), (got, ref)


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_op_compiled_matches_reference(case, dtype):
    text = case.text(dtype)
    inputs = case.inputs(dtype, seed=3)
    compiled = tlir.compile(text, backend="mlir")
    ref = evaluate(tlir.parse_module(text), inputs)
    for got, want in zip(compiled(*inputs), ref, strict=True):
        assert_matches(got, want, case.transcendental)
