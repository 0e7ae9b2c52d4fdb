"""The reference derivatives are derivatives: central finite differences in
float64 at smooth points for every differentiable op case, and adjointness
⟨dy, J·dx⟩ = ⟨Jᵀ·dy, dx⟩ (parameter directions included) for every op case.
Both run on the reference evaluator alone (NumPy), so they are cheap."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_util import output_shapes
from op_cases import CASES

import tlir
from tlir.dense import dense_to_numpy, numpy_to_dense
from tlir.interface import find_function
from tlir.parameters import parameters
from tlir.reference import evaluate, jvp, vjp

NOT_DIFFERENTIABLE = {"rand_uniform", "bernoulli_mask", "detach", "const"}
"""Zero derivatives by definition (docs/autodiff.md#d9-zero-derivatives); their kink tests are in test_autodiff_kinks."""

SMOOTH = [
    c
    for c in CASES
    if c.op not in NOT_DIFFERENTIABLE and not c.special and not any(0 in s for s in c.arg_shapes)
]


def _direction(shapes, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s) for s in shapes]


@pytest.mark.parametrize("case", SMOOTH, ids=[c.name for c in SMOOTH])
def test_jvp_matches_central_differences(case):
    module = tlir.parse_module(case.text("f64"))
    xs = case.inputs("f64", seed=3)
    dxs = _direction([x.shape for x in xs], seed=4)
    h = 1e-6
    plus = evaluate(module, [x + h * d for x, d in zip(xs, dxs)])
    minus = evaluate(module, [x - h * d for x, d in zip(xs, dxs)])
    tangents = jvp(module, xs, dxs)[len(plus) :]
    for p, m, t in zip(plus, minus, tangents):
        estimate = (p - m) / (2 * h)
        assert np.allclose(t, estimate, rtol=1e-5, atol=1e-6 * (1 + np.abs(t).max(initial=0)))


def _inner(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[float, float]:
    """⟨a, b⟩ and the sum of |terms| (the scale of its rounding error)."""
    terms = [np.asarray(x, np.float64) * np.asarray(y, np.float64) for x, y in zip(a, b)]
    return sum(float(t.sum()) for t in terms), sum(float(np.abs(t).sum()) for t in terms)


ADJOINT = [c for c in CASES if not c.special or c.op == "safe_log"]


@pytest.mark.parametrize("case", ADJOINT, ids=[c.name for c in ADJOINT])
def test_vjp_is_the_adjoint_of_the_jvp(case):
    """Inputs and parameters perturbed together: ⟨dy, J·(dx, dp)⟩ = ⟨(gx, gp), (dx, dp)⟩.
    safe_log's eps is held still: its tangent flows in forward mode, but the VJP
    gives it no gradient (docs/autodiff.md#d8-safe_log-epsilon)."""
    module = tlir.parse_module(case.text("f64"))
    xs = case.inputs("f64", seed=3)
    params = parameters(find_function(module))
    dxs = _direction([x.shape for x in xs], seed=5)
    if case.op == "safe_log":
        dxs[1] = np.zeros_like(dxs[1])
    dps = _direction([tuple(p.result.type.get_shape()) for p in params], seed=6)
    dys = _direction(output_shapes(module), seed=7)
    count = len(dys)
    forward = jvp(module, xs, dxs, dps)[count:]
    backward = vjp(module, xs, dys, wrt="all")[count:]
    lhs, scale_l = _inner(dys, forward)
    rhs, scale_r = _inner(backward, [*dxs, *dps])
    assert abs(lhs - rhs) <= 1e-10 * max(1.0, scale_l, scale_r)


def _with_constants(module, values: list[np.ndarray]):
    """A copy of `module` whose parameters hold `values`."""
    copy = module.clone()
    for const, value in zip(parameters(find_function(copy)), values):
        const.properties["value"] = numpy_to_dense(value)
    return copy


@pytest.mark.parametrize("name", ["linear", "conv_groups", "layernorm_affine", "batch_norm"])
def test_parameter_jvp_matches_central_differences(name):
    """Payload operands made constants, then perturbed: the parameter JVP."""
    case = next(c for c in CASES if c.name == name)
    text = case.text("f64")
    xs = case.inputs("f64", seed=3)
    module = tlir.parse_module(_constants_for_operands(text, xs[1:]))
    params = parameters(find_function(module))
    values = [dense_to_numpy(p.value) for p in params]
    dps = _direction([v.shape for v in values], seed=8)
    h = 1e-6
    plus = evaluate(_with_constants(module, [v + h * d for v, d in zip(values, dps)]), xs[:1])[0]
    minus = evaluate(_with_constants(module, [v - h * d for v, d in zip(values, dps)]), xs[:1])[0]
    tangent = jvp(module, xs[:1], [np.zeros_like(xs[0])], dps)[1]
    assert np.allclose(tangent, (plus - minus) / (2 * h), rtol=1e-5, atol=1e-7)


def _constants_for_operands(text: str, values: list[np.ndarray]) -> str:
    """The case's @main with operands 1… replaced by `tlir.const`s of `values`."""
    header, rest = text.split("\n", 1)
    name = header.split("(")[0]
    args = header[header.index("(") + 1 : header.index(") ->")].split(", ")
    consts = []
    for index, value in enumerate(values, start=1):
        typ = args[index].split(": ")[1]
        dense = numpy_to_dense(value)
        consts.append(f"  %a{index} = tlir.const {{value = {dense}}} : {typ}\n")
    new_header = f"{name}({args[0]}) -> {header.split(') -> ')[1]}"
    return new_header + "\n" + "".join(consts) + rest
