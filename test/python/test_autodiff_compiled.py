"""Compiled derivatives against the reference, for every op case of
`op_cases.py`, in both precisions and through both back ends: the JVP
(`tlir-jvp`) and the VJP (`tlir-vjp`, inputs and parameters) of each case, bit
for bit where no transcendental enters, within the numerics contract where one
does.

Compilation dominates the time, so the derivative functions of a slice of the
cases are merged into one @main and compiled once (a mismatch names its case),
and each slice runs twice: f64 through one back end and f32 through the other,
the pairing alternating from slice to slice. Every case thus runs in both
precisions and through both back ends; `TLIR_FULL_AD_MATRIX=1` runs all four
combinations of every slice.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from autodiff_util import close, derivative, merged, normal, output_shapes, same_bits
from op_cases import CASES

import tlir
from tlir.compiler.backend import mlir
from tlir.reference import jvp, vjp

HAVE_MLIR = mlir.find_tool("mlir-opt") is not None and mlir.find_tool("mlir-translate") is not None
SLICES = 12
"""Small enough for the MLIR back end's calling convention (a memref argument
is several C arguments; ctypes takes at most 1024)."""


def _runs() -> list:
    full = os.environ.get("TLIR_FULL_AD_MATRIX") == "1"
    runs = []
    for part in range(SLICES):
        pairs = (
            [("f64", "xdsl"), ("f32", "mlir")] if part % 2 else [("f32", "xdsl"), ("f64", "mlir")]
        )
        if full:
            pairs = [(d, b) for d in ("f64", "f32") for b in ("xdsl", "mlir")]
        for dtype, backend in pairs:
            marks = ()
            if backend == "mlir" and not HAVE_MLIR:
                marks = pytest.mark.skip(reason="mlir-opt not installed")
            runs.append(
                pytest.param(part, dtype, backend, marks=marks, id=f"{part}-{dtype}-{backend}")
            )
    return runs


def _case_pieces(case, dtype: str):
    """(derivative modules, their arguments, the expected results, labels)."""
    text = case.text(dtype)
    module = tlir.parse_module(text)
    xs = case.inputs(dtype, seed=3)
    dxs = [normal(x.shape, dtype, seed=11 + i) for i, x in enumerate(xs)]
    dys = [normal(s, dtype, seed=23 + i) for i, s in enumerate(output_shapes(module))]
    expected_jvp = jvp(module, xs, dxs)
    expected_vjp = vjp(module, xs, dys, wrt="all")
    modules = [derivative(text, "jvp"), derivative(text, "vjp", wrt="all")]
    labels = [f"{case.name} jvp result {i}" for i in range(len(expected_jvp))]
    labels += [f"{case.name} vjp result {i}" for i in range(len(expected_vjp))]
    return modules, [*xs, *dxs, *xs, *dys], [*expected_jvp, *expected_vjp], labels


@pytest.mark.parametrize("part, dtype, backend", _runs())
def test_derivatives_compiled_match_reference(part, dtype, backend):
    modules, args, expected, labels, exact = [], [], [], [], []
    for case in CASES[part::SLICES]:
        pieces, case_args, case_expected, case_labels = _case_pieces(case, dtype)
        modules += pieces
        args += case_args
        expected += case_expected
        labels += case_labels
        exact += [not case.transcendental] * len(case_expected)
    outputs = tlir.compile(merged(modules), backend=backend)(*args)
    assert len(outputs) == len(expected)
    wrong = [
        label
        for label, got, want, bitwise in zip(labels, outputs, expected, exact)
        if not (same_bits(got, want) if bitwise else close(got, want))
    ]
    assert wrong == []


def test_every_case_runs_in_both_precisions_and_through_both_back_ends():
    seen: dict[str, set] = {}
    for run in _runs():
        part, dtype, backend = run.values
        for case in CASES[part::SLICES]:
            seen.setdefault(case.name, set()).update({dtype, backend})
    assert set(seen) == {case.name for case in CASES}
    assert all(kinds == {"f64", "f32", "xdsl", "mlir"} for kinds in seen.values())


def test_transcendental_cases_are_bit_identical_too():
    """Both sides call the C library, so in practice the contract's tolerance is
    not needed: one transcendental-heavy slice, compared bit for bit."""
    cases = [c for c in CASES if c.op in ("softmax", "sigmoid", "softplus", "layernorm")][:6]
    modules, args, expected = [], [], []
    for case in cases:
        pieces, case_args, case_expected, _ = _case_pieces(case, "f64")
        modules += pieces
        args += case_args
        expected += case_expected
    outputs = tlir.compile(merged(modules))(*args)
    assert all(same_bits(g, w) for g, w in zip(outputs, expected))
    assert any(np.any(w != 0) for w in expected)
