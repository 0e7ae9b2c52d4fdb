"""`tlir.from_onnx` and `tlir-translate --import-onnx`: the models of
test_from_torch.py exported by PyTorch's ONNX exporter (opset 17) import,
compile and agree with PyTorch; parameters are named by their initializers;
refusals are one line (API and CLI)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import tlir
from tlir.diagnostics import TlirError

torch = pytest.importorskip("torch", reason="torch is not installed")
onnx = pytest.importorskip("onnx", reason="onnx is not installed")
torch_models = pytest.importorskip("torch_models")
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::torch.jit.TracerWarning"),
]

TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-10}
MODELS = {
    "mlp": (torch_models.MLP, (3, 6)),
    "cnn": (torch_models.CNN, (2, 4, 8, 8)),
    "transformer": (torch_models.TransformerBlock, (2, 5, 8)),
    "mix": (torch_models.Mix, (2, 4, 6)),
}


def export(model, x, path, **kwargs) -> str:
    torch.onnx.export(model, (x,), str(path), dynamo=False, opset_version=17, **kwargs)
    return str(path)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(MODELS))
def test_exported_model_matches_pytorch(name, dtype, tmp_path):
    torch.manual_seed(11)
    cls, shape = MODELS[name]
    model = cls().to(dtype).eval()
    x = torch.randn(*shape, dtype=dtype)
    path = export(model, x, tmp_path / "m.onnx")
    compiled = tlir.compile(tlir.from_onnx(path))
    expected = model(x)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for got, want in zip(compiled(x.numpy()), expected, strict=True):
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=0, atol=TOLERANCE[dtype])
    graph = onnx.load(path).graph
    float_initializers = {
        i.name for i in graph.initializer if i.data_type in (onnx.TensorProto.FLOAT, 11)
    }
    assert set(compiled.parameters()) <= float_initializers
    if name == "mlp":
        assert list(compiled.parameters()) == [n for n, _ in model.named_parameters()]


def test_gradients_through_an_imported_model(tmp_path):
    torch.manual_seed(3)
    model = torch_models.MLP().to(torch.float64)
    x = torch.randn(3, 6, dtype=torch.float64, requires_grad=True)
    compiled = tlir.compile(tlir.from_onnx(export(model, x.detach(), tmp_path / "mlp.onnx")))
    y = model(x)
    cot = torch.randn_like(y)
    grads = torch.autograd.grad(y, [x, *model.parameters()], cot)
    _, input_grads, param_grads = compiled.vjp([x.detach().numpy()], [cot.numpy()])
    np.testing.assert_allclose(input_grads[0], grads[0].numpy(), rtol=0, atol=1e-10)
    for (key, _), want in zip(model.named_parameters(), grads[1:], strict=True):
        np.testing.assert_allclose(param_grads[key], want.numpy(), rtol=0, atol=1e-10)


def test_cli_import_onnx(tmp_path):
    torch.manual_seed(5)
    model = torch_models.CNN().eval()
    x = torch.randn(2, 4, 8, 8)
    path = export(model, x, tmp_path / "cnn.onnx")
    out = tmp_path / "cnn.mlir"
    result = subprocess.run(
        [sys.executable, "-m", "tlir.tools.translate", "--import-onnx", path, "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    (got,) = tlir.compile(str(out))(x.numpy())
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=0, atol=1e-4)


class ExactGelu(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x)


def test_unsupported_op_is_one_line_in_api_and_cli(tmp_path):
    path = export(ExactGelu(), torch.randn(2, 3), tmp_path / "gelu.onnx")
    with pytest.raises(TlirError, match=r"gelu.onnx: error: Erf '/Erf': TorchLean has no"):
        tlir.from_onnx(path)
    result = subprocess.run(
        [sys.executable, "-m", "tlir.tools.translate", "--import-onnx", path],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"{path}: error: Erf '/Erf': TorchLean has no counterpart of this op"
    ]


def test_symbolic_batch_is_refused(tmp_path):
    model = torch_models.MLP()
    path = export(
        model,
        torch.randn(2, 6),
        tmp_path / "dyn.onnx",
        input_names=["x"],
        dynamic_axes={"x": {0: "batch"}},
    )
    with pytest.raises(TlirError, match="batch axis of the input is symbolic"):
        tlir.from_onnx(path)
    with pytest.raises(TlirError, match="compiled for the batch size"):
        tlir.from_onnx(path, dynamic_batch=True)


def test_not_an_onnx_file(tmp_path):
    path = tmp_path / "junk.onnx"
    path.write_bytes(b"\x00\x01junk")
    with pytest.raises(TlirError, match="not an ONNX model"):
        tlir.from_onnx(str(path))
