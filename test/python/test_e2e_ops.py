"""End to end, every op: compiled code against the reference evaluator, for
every op case (zero-size shapes included), in both precisions, through both
back ends (tlir's own xDSL route, and upstream MLIR).

Numerics contract (docs/numerics.md): bit-identical without transcendental functions;
with them, relative 1e-12 (f64) / 1e-5 (f32). Random numbers bit-identical.
"""

from __future__ import annotations

import numpy as np
import pytest
from op_cases import CASES

import tlir
from tlir.compiler.backend import mlir
from tlir.reference import evaluate

HAVE_MLIR = mlir.find_tool("mlir-opt") is not None and mlir.find_tool("mlir-translate") is not None
BACKENDS = [
    "xdsl",
    pytest.param("mlir", marks=pytest.mark.skipif(not HAVE_MLIR, reason="mlir-opt not installed")),
]


def assert_matches(got: np.ndarray, ref: np.ndarray, transcendental: bool) -> None:
    assert got.shape == ref.shape and got.dtype == ref.dtype
    if not transcendental:
        assert got.tobytes() == ref.tobytes(), (got, ref)
        return
    rtol = 1e-5 if got.dtype == np.float32 else 1e-12
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    finite = ~np.isnan(ref)
    assert np.allclose(got[finite], ref[finite], rtol=rtol, atol=0), (got, ref)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_op_compiled_matches_reference(case, dtype, backend):
    text = case.text(dtype)
    inputs = case.inputs(dtype, seed=3)
    compiled = tlir.compile(text, backend=backend)
    ref = evaluate(tlir.parse_module(text), inputs)
    outputs = compiled(*inputs)
    assert len(outputs) == len(ref)
    for got, want in zip(outputs, ref, strict=True):
        assert_matches(got, want, case.transcendental)


def test_every_op_is_covered():
    from tlir.dialects.tlir import TLIR_OPS

    covered = {f"tlir.{c.op}" for c in CASES} | {"tlir.custom"}
    assert {op.name for op in TLIR_OPS} <= covered
