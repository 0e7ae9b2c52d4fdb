"""Randomized graphs (hypothesis): chains of ops drawn at random, compiled
through tlir's route, against the reference evaluator, bit for bit."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import fuzz_graphs
import numpy as np
from fuzz_graphs import budget
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

import tlir
import tlir.compiler.model
from tlir.compiler.backend.mlir import find_tool
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


# --- DAGs over every op kind with a JSON encoding -------------------------------

HAVE_MLIR = find_tool("mlir-opt") is not None


def assert_same_bits(got: list[np.ndarray], want: list[np.ndarray], context: str) -> None:
    """Bit for bit, signed zeros and NaN positions included (`same_bits`)."""
    assert len(got) == len(want), context
    for index, (g, w) in enumerate(zip(got, want)):
        assert fuzz_graphs.same_bits(g, w), (index, g, w, context)


def with_special_constants(draw, module, dtype: np.dtype) -> None:
    """Replace the values of some constants (graph consts and payloads) by
    arrays full of NaN, infinities, signed zeros and subnormals (which JSON
    cannot carry)."""
    from tlir.dense import numpy_to_dense
    from tlir.dialects import tlir as T

    for op in module.walk():
        if isinstance(op, T.ConstOp) and draw(st.integers(0, 2)) == 0:
            shape = tuple(op.results[0].type.get_shape())
            op.value = numpy_to_dense(fuzz_graphs.input_array(draw, shape, dtype))


@dataclass
class DrawnModel:
    """A random DAG's module, its carrier and back end, and an input."""

    nodes: int
    dtype: str
    backend: str
    module: ModuleOp
    np_dtype: np.dtype
    x: np.ndarray

    @cached_property
    def text(self) -> str:
        return tlir.compiler.model.to_text(self.module)

    def context(self, what: str) -> str:
        return f"{what} {self.backend} {self.dtype}\n{self.text}"


def draw_model(data, tmp_path_factory) -> DrawnModel:
    """A DAG over every op kind, imported from its JSON in a drawn carrier, some
    constants made special values, a drawn back end and an input (special
    values included)."""
    from tlir.torchlean import import_file

    document = data.draw(fuzz_graphs.graphs(), label="graph")
    dtype = data.draw(st.sampled_from(["f32", "f64"]), label="dtype")
    backend = data.draw(st.sampled_from(["xdsl", "mlir"] if HAVE_MLIR else ["xdsl"]), "backend")
    path = tmp_path_factory.mktemp("dag") / "model.json"
    path.write_text(fuzz_graphs.dumps(document))
    module = import_file(str(path), dtype)
    np_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    with_special_constants(data.draw, module, np_dtype)
    shape = tuple(document["nodes"][0]["shape"])
    x = fuzz_graphs.input_array(data.draw, shape, np_dtype)
    return DrawnModel(len(document["nodes"]), dtype, backend, module, np_dtype, x)


def skipped_for_log_domain(err: Exception) -> None:
    """The reference's one domain check (log of a non-positive): the case is skipped."""
    assert "log of a tensor" in str(err), err
    event("skipped: log of a non-positive value")


@budget(ci=300, long=10_000)
@given(data=st.data())
def test_random_dag_over_all_kinds_compiled_matches_reference(tmp_path_factory, data):
    from tlir.diagnostics import TlirError

    case = draw_model(data, tmp_path_factory)
    try:
        want = evaluate(case.module, [case.x])
    except TlirError as err:
        skipped_for_log_domain(err)
        return
    event(f"compiled: {case.nodes} nodes")
    got = tlir.compile(case.module, backend=case.backend)(case.x)
    assert_same_bits(got, want, case.context("forward"))
