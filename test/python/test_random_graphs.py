"""Randomized graphs (hypothesis): chains of ops drawn at random, compiled
through tlir's route, against the reference evaluator, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tlir
from tlir.reference import evaluate

UNARY = ["abs", "relu", "inv", "sqrt", "tanh", "sigmoid", "exp", "sin", "cos", "softplus"]
BINARY = ["add", "sub", "mul_elem", "max_elem", "min_elem"]
STEPS = st.sampled_from(
    [("unary", op) for op in UNARY]
    + [("binary", op) for op in BINARY]
    + [
        ("softmax", "softmax"),
        ("matmul", "matmul"),
        ("sum_axis", "reduce_sum"),
        ("layernorm", "layernorm"),
    ]
)


def build(steps, rows: int, cols: int, dtype: str) -> str:
    """A function of x: [rows, cols] applying `steps`; shapes stay [rows, cols]."""
    t = f"tensor<{rows}x{cols}x{dtype}>"
    square = f"tensor<{cols}x{cols}x{dtype}>"
    lines, value = [], "%x"
    for index, (kind, op) in enumerate(steps):
        name = f"%v{index}"
        if kind == "unary":
            lines.append(f"{name} = tlir.{op} {value} : ({t}) -> {t}")
        elif kind == "binary":
            lines.append(f"{name} = tlir.{op} {value}, %x : ({t}, {t}) -> {t}")
        elif kind == "softmax":
            lines.append(f"{name} = tlir.softmax {value} axis = 1 : ({t}) -> {t}")
        elif kind == "matmul":
            lines.append(f"{name} = tlir.matmul {value}, %w : ({t}, {square}) -> {t}")
        elif kind == "layernorm":
            lines.append(
                f"{name} = tlir.layernorm {value} {{axis = 1 : i64, eps = 1.0e-05 : f64}} : ({t}) -> {t}"
            )
        else:
            vec = f"tensor<{rows}x{dtype}>"
            lines.append(f"{name}r = tlir.reduce_sum {value} axis = 1 : ({t}) -> {vec}")
            lines.append(
                f"{name} = tlir.broadcast_to {name}r : ({vec}) -> tensor<{cols}x{rows}x{dtype}>"
            )
            lines.append(
                f"{name}t = tlir.transpose {name} {{axis1 = 0 : i64, axis2 = 1 : i64}} : (tensor<{cols}x{rows}x{dtype}>) -> {t}"
            )
            name = f"{name}t"
        value = name
    body = "\n  ".join(lines)
    return f"func.func @main(%x: {t}, %w: {square}) -> {t} {{\n  {body}\n  func.return {value} : {t}\n}}\n"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(STEPS, min_size=1, max_size=6),
    rows=st.integers(1, 4),
    cols=st.integers(1, 5),
    dtype=st.sampled_from(["f32", "f64"]),
    seed=st.integers(0, 2**16),
)
def test_random_chain_compiled_matches_reference(steps, rows, cols, dtype, seed):
    text = build(steps, rows, cols, dtype)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, cols)).astype(np_dtype)
    w = (rng.normal(size=(cols, cols)) / cols).astype(np_dtype)
    got = tlir.compile(text)(x, w)[0]
    ref = evaluate(tlir.parse_module(text), [x, w])[0]
    assert got.tobytes() == ref.tobytes(), (text, got, ref)
