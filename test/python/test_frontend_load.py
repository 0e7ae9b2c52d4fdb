"""The loading stage (`tlir.frontend.load`): every source of a model to one
checked module — parsed or imported, dtype checked, verified, within the size
limits, calling only its own functions, entry function found — or one
located `TlirError` line. Values are checked against the reference evaluator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tlir
from tlir.diagnostics import TlirError
from tlir.frontend.load import LoadedModel, load
from tlir.reference import evaluate

ROOT = Path(__file__).resolve().parents[2]
CNN = str(ROOT / "examples" / "cnn.json")

EXP = """func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = tlir.exp %x : (tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}
"""

CALLS_EXIT = """func.func private @exit(i32)
func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %c = arith.constant 42 : i32
  func.call @exit(%c) : (i32) -> ()
  func.return %x : tensor<2xf64>
}
"""

GRAPH = """{"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [1],
 "nodes": [{"id": 0, "kind": "input", "parents": [], "shape": [3]},
           {"id": 1, "kind": "exp", "parents": [0], "shape": [3]}]}"""


def test_a_path_loads_as_a_checked_model():
    loaded = load(CNN)
    assert isinstance(loaded, LoadedModel)
    assert (loaded.where, loaded.function) == (CNN, "main")
    x = np.load(ROOT / "examples" / "cnn_input.npy")
    assert [a.tobytes() for a in evaluate(loaded.module, [x])] == [
        a.tobytes() for a in evaluate(tlir.load_model(CNN), [x])
    ]


def test_json_text_is_a_graph_and_compiles():
    loaded = load(GRAPH, "f32")
    assert loaded.where == "<string>"
    x = np.array([0.0, 1.0, -2.5], np.float32)
    (want,) = evaluate(loaded.module, [x])
    (got,) = tlir.compile(GRAPH, "f32")(x)
    assert got.tobytes() == want.tobytes()


def test_mlir_text_of_another_dtype_is_refused():
    with pytest.raises(TlirError) as err:
        load(EXP, "f32")
    assert str(err.value) == (
        "<string>: error: @main takes tensor<2xf64>, not f32 (the dtype asked for)"
    )


def test_a_module_is_verified():
    """A parsed but unverified module: the verifier's error at its op."""
    text = EXP.replace(
        "tlir.exp %x : (tensor<2xf64>) -> tensor<2xf64>",
        "tlir.softmax %x axis = 3 : (tensor<2xf64>) -> tensor<2xf64>",
    )
    module = tlir.parse_module(text, "m.mlir")
    with pytest.raises(TlirError) as err:
        tlir.compile(module)
    assert str(err.value) == "m.mlir:2:3: error: tlir.softmax: axis 3 is out of range for rank 1"


def test_a_call_to_a_declared_function_is_refused_before_compiling():
    module = tlir.parse_module(CALLS_EXIT, "m.mlir")
    with pytest.raises(TlirError) as err:
        load(module)
    assert str(err.value) == (
        "m.mlir:4:3: error: 'func.call' op calls @exit, which the module does not define "
        "(a compiled model may call only its own functions)"
    )


def test_the_size_limit_applies_when_loading(monkeypatch):
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "100")
    with pytest.raises(TlirError, match=r"more than the limit of 100 bytes"):
        load(CNN)
    tlir.load_model(CNN)  # reading alone does not apply it


def test_the_entry_function_is_found():
    with pytest.raises(TlirError, match="no function @forward|@forward"):
        load(EXP, function="forward")
    assert load(EXP.replace("@main", "@forward"), function="forward").function == "forward"


def test_anything_else_is_refused_in_one_line():
    with pytest.raises(TlirError) as err:
        load(3.5)
    assert str(err.value) == (
        "tlir.compile: error: expected a model path, MLIR text or a module, got <class 'float'>"
    )


def test_an_onnx_model_and_a_pytorch_module_load():
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import io

    import onnx

    torch_models = pytest.importorskip("torch_models")
    torch.manual_seed(5)
    model = torch_models.MLP().to(torch.float64).eval()
    x = torch.randn(2, 6, dtype=torch.float64)
    traced = load(model, example_inputs=(x,))
    assert traced.where == "pytorch module"
    buffer = io.BytesIO()
    torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17)
    exported = load(onnx.load_from_string(buffer.getvalue()))
    assert exported.where == "onnx model"
    for loaded in (traced, exported):
        (got,) = evaluate(loaded.module, [x.numpy()])
        np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=0, atol=1e-12)
    with pytest.raises(TlirError, match="traced on example_inputs"):
        load(model)
