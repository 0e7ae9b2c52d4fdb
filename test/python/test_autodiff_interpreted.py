"""The derivative programs the passes emit, run by the reference evaluator
(whose `tlir_ad` evaluators interpret the scalar regions on NumPy), equal the
reference's own JVP and VJP bit for bit, for every op case in both precisions:
a check of the passes' output that needs no compilation, and of the `tlir_ad`
evaluators."""

from __future__ import annotations

import pytest
from autodiff_util import derivative, normal, output_shapes, same_bits
from op_cases import CASES

import tlir
from tlir.reference import evaluate, jvp, vjp


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_emitted_programs_evaluate_to_the_reference(dtype):
    wrong = []
    for case in CASES:
        text = case.text(dtype)
        module = tlir.parse_module(text)
        xs = case.inputs(dtype, seed=3)
        dxs = [normal(x.shape, dtype, seed=11 + i) for i, x in enumerate(xs)]
        dys = [normal(s, dtype, seed=23 + i) for i, s in enumerate(output_shapes(module))]
        runs = [
            (derivative(text, "jvp"), [*xs, *dxs], jvp(module, xs, dxs)),
            (derivative(text, "vjp"), [*xs, *dys], vjp(module, xs, dys)),
        ]
        for mode, (program, args, expected) in zip(("jvp", "vjp"), runs):
            got = evaluate(program, args)
            if not all(same_bits(g, w) for g, w in zip(got, expected, strict=True)):
                wrong.append(f"{case.name} {mode}")
    assert wrong == []
