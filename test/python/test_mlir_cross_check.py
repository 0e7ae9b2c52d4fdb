"""Upstream MLIR accepts what tlir emits: the lowered form of every lit input
and of every JSON test graph parses and verifies in `mlir-opt`; the JSON graphs
also compile through both back ends and match the reference evaluator bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from graphs import write
from test_importer import attention_graph, every_op_graph

import tlir
from tlir.backend import mlir
from tlir.compiler import lower_to_linalg, to_text
from tlir.diagnostics import verify_module
from tlir.reference import evaluate
from tlir.torchlean import import_file

pytestmark = pytest.mark.skipif(
    mlir.find_tool("mlir-opt") is None, reason="mlir-opt not installed (.ci/run installs it)"
)

ROOT = Path(__file__).resolve().parents[2]
LIT_INPUTS = [
    ROOT / "test/Dialect/Tlir/ops.mlir",
    *sorted((ROOT / "test/Conversion/TlirToLinalg").glob("*.mlir")),
]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def chunks(path: Path) -> list[str]:
    return [c for c in path.read_text().split("// -----") if "func.func" in c]


@pytest.mark.parametrize("path", LIT_INPUTS, ids=[p.name for p in LIT_INPUTS])
def test_lowered_lit_input_verifies_in_mlir(path):
    for index, chunk in enumerate(chunks(path)):
        module = tlir.parse_module(chunk, f"{path.name}#{index}")
        verify_module(module, path.name)
        lowered = to_text(lower_to_linalg(module))
        assert "tlir." not in lowered and "random." not in lowered
        mlir.verify(lowered, f"{path.name} chunk {index}")


def graph_files(tmp_path: Path) -> list[str]:
    g, outputs = every_op_graph()
    a, out = attention_graph()
    return [str(p) for p in EXAMPLES] + [
        write(tmp_path, g.current(outputs), "every_op.json"),
        write(tmp_path, a.current([out]), "attention.json"),
    ]


@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_json_graphs_lower_verify_and_run(tmp_path, dtype, backend):
    for path in graph_files(tmp_path):
        module = import_file(path, dtype)
        lowered = to_text(lower_to_linalg(module))
        assert "tlir." not in lowered and "random." not in lowered
        mlir.verify(lowered, path)
        shape = [int(d) for d in next(iter(module.ops)).function_type.inputs.data[0].get_shape()]
        rng = np.random.default_rng(5)
        np_dtype = np.float32 if dtype == "f32" else np.float64
        x = (np.abs(rng.normal(size=shape)) + 0.5).astype(np_dtype)
        got = tlir.compile(module, backend=backend)(x)
        ref = evaluate(module, [x])
        for g, r in zip(got, ref, strict=True):
            assert g.dtype == r.dtype and g.shape == r.shape
            assert g.tobytes() == r.tobytes(), (path, g, r)


def test_a_failing_tool_is_a_one_line_error(monkeypatch):
    """mlir-opt and mlir-translate run piped into each other: a failure of
    either is reported as that tool's first error line, never as the other's."""
    from tlir.diagnostics import TlirError

    with pytest.raises(TlirError) as err:
        mlir.loops_text_to_llvm_ir('"no.such_op"() : () -> ()', "kernel.mlir")
    message = str(err.value)
    assert message.startswith("kernel.mlir: error: mlir-opt failed: ") and "\n" not in message
    assert "unregistered dialect" in message, message
    real = mlir.find_tool

    def translate_is_false(name: str):
        return "/bin/false" if name == "mlir-translate" else real(name)

    monkeypatch.setattr(mlir, "find_tool", translate_is_false)
    with pytest.raises(TlirError, match=r"^kernel.mlir: error: mlir-translate failed"):
        mlir.loops_text_to_llvm_ir("module {}", "kernel.mlir")
