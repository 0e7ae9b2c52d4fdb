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

TOLERANCE = torch_models.TOLERANCE
MODELS = torch_models.MODELS


def export(model, x, path, **kwargs) -> str:
    torch.onnx.export(model, (x,), str(path), dynamo=False, opset_version=17, **kwargs)
    return str(path)


# Each model once in each dtype over the two exports (static batch here, symbolic
# below), alternating: every pair of model, dtype and export is met, each
# compile once (the models import at either dtype by the same rules).
DTYPES = (torch.float32, torch.float64)
STATIC_CASES = [(name, DTYPES[index % 2]) for index, name in enumerate(MODELS)]
SYMBOLIC_CASES = [(name, DTYPES[(index + 1) % 2]) for index, name in enumerate(MODELS)]


def case_ids(cases) -> list[str]:
    return [f"{name}-{'f32' if dtype == torch.float32 else 'f64'}" for name, dtype in cases]


@pytest.mark.parametrize(("name", "dtype"), STATIC_CASES, ids=case_ids(STATIC_CASES))
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


@pytest.mark.parametrize(("name", "dtype"), SYMBOLIC_CASES, ids=case_ids(SYMBOLIC_CASES))
def test_symbolic_batch_model_matches_pytorch_at_any_batch(name, dtype, tmp_path):
    """Exported with a symbolic batch: one compiled model at the example's batch
    and at 1, 2 and 7; outputs and input gradients against PyTorch."""
    torch.manual_seed(11)
    cls, shape = MODELS[name]
    model = cls().to(dtype).eval()
    x = torch.randn(*shape, dtype=dtype)
    path = export(
        model, x, tmp_path / "m.onnx", input_names=["x"], dynamic_axes={"x": {0: "batch"}}
    )
    compiled = tlir.compile(tlir.from_onnx(path))
    tol = TOLERANCE[dtype]
    for batch in (shape[0], 1, 2, 7):
        xb = torch.randn(batch, *shape[1:], dtype=dtype, requires_grad=True)
        expected = model(xb)
        expected = expected if isinstance(expected, tuple) else (expected,)
        cotangents = [torch.randn_like(e) for e in expected]
        (want_grad,) = torch.autograd.grad(expected, [xb], cotangents)
        arrays = [c.numpy() for c in cotangents]
        outputs, input_grads, _ = compiled.vjp([xb.detach().numpy()], arrays)
        for got, want in zip(outputs, expected, strict=True):
            np.testing.assert_allclose(got, want.detach().numpy(), rtol=0, atol=tol)
        np.testing.assert_allclose(input_grads[0], want_grad.numpy(), rtol=0, atol=tol)


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
    compiled = tlir.compile(str(out))
    (got,) = compiled(x.numpy())
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=0, atol=1e-4)
    # names and tlir.fixed marks survive the MLIR text: the parameters are the initializers
    assert set(compiled.parameters()) == {i.name for i in onnx.load(path).graph.initializer}


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


def test_symbolic_batch_is_the_batch_or_refused_when_static(tmp_path):
    """A symbolic leading extent is the module's `?` (the default), refused with
    dynamic_batch=False; a model exported at a fixed batch stays static."""
    model = torch_models.MLP()
    path = export(
        model,
        torch.randn(2, 6),
        tmp_path / "dyn.onnx",
        input_names=["x"],
        dynamic_axes={"x": {0: "batch"}},
    )
    assert str(tlir.from_onnx(path).ops.first.function_type) == (
        "(tensor<?x6xf32>) -> tensor<?x3xf32>"
    )
    with pytest.raises(TlirError, match="batch axis of the input is symbolic"):
        tlir.from_onnx(path, dynamic_batch=False)
    static = export(model, torch.randn(2, 6), tmp_path / "static.onnx")
    assert "?" not in str(tlir.from_onnx(static))


def test_not_an_onnx_file(tmp_path):
    path = tmp_path / "junk.onnx"
    path.write_bytes(b"\x00\x01junk")
    with pytest.raises(TlirError, match="not an ONNX model"):
        tlir.from_onnx(str(path))


def _hand_built_model(opset: int = 17):
    """Shape arithmetic, Gemm with alpha and beta, Slice, Gather, ReduceMean,
    Pow, Div by a constant, Max: the folded and the lowered ops."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weight, bias = rng.standard_normal((12, 5)), rng.standard_normal(5)

    def const(name, values):
        return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(values))

    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        const("zero", np.array(0, dtype=np.int64)),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        const("axes0", np.array([0], dtype=np.int64)),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"]),
        const("minus1", np.array([-1], dtype=np.int64)),
        helper.make_node("Concat", ["batch1", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["flat"]),
        helper.make_node("Gemm", ["flat", "w", "b"], ["gemm"], alpha=0.5, beta=2.0),
        const("starts", np.array([1], dtype=np.int64)),
        const("ends", np.array([4], dtype=np.int64)),
        const("axes1", np.array([1], dtype=np.int64)),
        helper.make_node("Slice", ["gemm", "starts", "ends", "axes1"], ["sliced"]),
        const("picks", np.array([2, 0], dtype=np.int64)),
        helper.make_node("Gather", ["x", "picks"], ["gathered"], axis=2),
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[1, 2], keepdims=0),
        const("two", np.array(2, dtype=np.int64)),
        helper.make_node("Pow", ["sliced", "two"], ["squared"]),
        const("four", np.array(4.0)),
        helper.make_node("Div", ["squared", "four"], ["quarter"]),
        helper.make_node("Max", ["quarter", "sliced"], ["biggest"]),
    ]
    graph = helper.make_graph(
        nodes,
        "hand",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [2, 3, 4])],
        [
            helper.make_tensor_value_info(name, TensorProto.DOUBLE, None)
            for name in ("biggest", "gathered", "mean")
        ],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return model, weight, bias


def test_hand_built_model_with_folded_shape_arithmetic():
    model, weight, bias = _hand_built_model()
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    compiled = tlir.compile(tlir.from_onnx(model))
    assert list(compiled.parameters()) == ["w", "b"]
    biggest, gathered, mean = compiled(x)
    sliced = (0.5 * (x.reshape(2, 12) @ weight) + 2.0 * bias)[:, 1:4]
    np.testing.assert_allclose(biggest, np.maximum(sliced**2 / 4.0, sliced), rtol=1e-12)
    np.testing.assert_array_equal(gathered, x[:, :, [2, 0]])
    np.testing.assert_allclose(mean, x.mean(axis=(1, 2)), rtol=1e-12)


def test_opset_outside_13_to_20_is_refused():
    model, _, _ = _hand_built_model(opset=11)
    with pytest.raises(TlirError, match="opset 11 is not supported"):
        tlir.from_onnx(model)


def _tiny(nodes, outputs=("y",), inputs=(("x", [2, 3]),)):
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info(n, TensorProto.DOUBLE, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.DOUBLE, None) for n in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    "nodes, outputs, inputs, message",
    [
        ([("Concat", ["x", "x"], ["y"], {})], ("y",), None, r"Concat: cannot read this node"),
        ([("Relu", ["z"], ["y"], {})], ("y",), None, "input 'z' is not defined"),
        ([("Relu", ["x"], ["y"], {})], ("w",), None, "graph output 'w' is not defined"),
        ([("Relu", ["x"], ["y"], {})], (), None, "no outputs"),
        ([("Relu", ["x"], ["y"], {})], ("y",), [("x", [2]), ("u", [2])], "one input"),
        ([("Add", ["x", "x"], ["y"], {})], ("y",), [("x", [2, "n"])], "axis 1 of the input is sym"),
        ([("Where", ["x", "x", "x"], ["y"], {})], ("y",), None, "Where: TorchLean has no"),
        (
            [("Constant", [], ["e"], {"value_float": 2.5}), ("Pow", ["x", "e"], ["y"], {})],
            ("y",),
            None,
            "exponents 1, 2, 3 and 4 are supported, got 2.5",
        ),
    ],
)
def test_malformed_or_unsupported_graphs_are_one_line(nodes, outputs, inputs, message):
    from onnx import helper

    made = [helper.make_node(op, i, o, **attrs) for op, i, o, attrs in nodes]
    model = _tiny(made, outputs, inputs or (("x", [2, 3]),))
    with pytest.raises(TlirError, match=message) as err:
        tlir.from_onnx(model)
    assert "\n" not in str(err.value)


def test_clip_and_leaky_relu_are_exact(tmp_path):
    values = [-3.0, -1.5, -0.5, -0.0, 0.0, 0.3, 1.0, 2.0, 6.5, np.inf, -np.inf, np.nan]
    x = torch.tensor([values])
    compiled = tlir.compile(
        tlir.from_onnx(export(torch_models.Clamps(), x, tmp_path / "clamps.onnx"))
    )
    for got, want in zip(compiled(x.numpy()), torch_models.Clamps()(x), strict=True):
        np.testing.assert_array_equal(got, want.numpy())
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want.numpy()))


@pytest.mark.parametrize("opset", [14, 20])
def test_other_opsets(opset, tmp_path):
    """Opset 14: layer norm as ReduceMean, Pow, Sqrt, Div; opset 20: Gelu."""
    torch.manual_seed(2)
    model = torch_models.TransformerBlock().eval()
    x = torch.randn(2, 5, 8)
    path = str(tmp_path / "t.onnx")
    torch.onnx.export(model, (x,), path, dynamo=False, opset_version=opset)
    ops = {node.op_type for node in onnx.load(path).graph.node}
    assert ("Gelu" in ops) == (opset == 20) and ("LayerNormalization" in ops) == (opset >= 17)
    (got,) = tlir.compile(tlir.from_onnx(path))(x.numpy())
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=0, atol=1e-4)


def test_folded_integer_division_truncates_toward_zero():
    """ONNX's Div on integers (shape arithmetic) truncates: -7 / 2 = -3."""
    from tlir.frontend.onnx import FOLDS

    a = np.array([-7, 7, -7, 6], dtype=np.int64)
    b = np.array([2, 2, -2, 3], dtype=np.int64)
    np.testing.assert_array_equal(FOLDS["Div"]({}, a, b), [-3, 3, 3, 2])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_parameters_are_the_initializers_with_and_without_bias(bias, dtype, tmp_path):
    """Layers exported without biases add no parameter: the parameters are the
    model's float initializers exactly, and so are the gradients' keys."""
    torch.manual_seed(12)
    model = torch_models.Biasless(bias).to(dtype).eval()
    x = torch.randn(2, 4, 8, dtype=dtype)
    path = export(model, x, tmp_path / "m.onnx")
    compiled = tlir.compile(tlir.from_onnx(path))
    floats = (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE)
    graph = onnx.load(path).graph
    initializers = {i.name for i in graph.initializer if i.data_type in floats}
    assert set(compiled.parameters()) == initializers
    (y,) = compiled(x.numpy())
    np.testing.assert_allclose(y, model(x).detach().numpy(), rtol=0, atol=TOLERANCE[dtype] * 10)
    _, _, grads = compiled.vjp([x.numpy()], [np.ones_like(y)])
    assert list(grads) == list(compiled.parameters())


def translate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tlir.tools.translate", *args], capture_output=True, text=True
    )


def symbolic_and_fixed(tmp_path) -> tuple[str, str]:
    torch.manual_seed(5)
    model = torch_models.MLP().eval()
    x = torch.randn(2, 6)
    dynamic = export(
        model, x, tmp_path / "dyn.onnx", input_names=["x"], dynamic_axes={"x": {0: "batch"}}
    )
    return dynamic, export(model, x, tmp_path / "static.onnx")


def test_cli_import_onnx_keeps_the_symbolic_batch_and_batch_fixes_it(tmp_path):
    """`--import-onnx` prints the `?` module `tlir.from_onnx` gives; `--batch N`
    the static module at N; both compile to the API's results, bit for bit."""
    dynamic, static = symbolic_and_fixed(tmp_path)
    result = translate("--import-onnx", dynamic, "-o", str(tmp_path / "dyn.mlir"))
    assert result.returncode == 0, result.stderr
    printed = tlir.compile(str(tmp_path / "dyn.mlir"))
    assert "tensor<?x6xf32>" in str(printed.function_op.function_type)
    api = tlir.compile(tlir.from_onnx(dynamic))
    for batch in (1, 5):
        x = np.random.default_rng(batch).standard_normal((batch, 6)).astype(np.float32)
        assert printed(x)[0].tobytes() == api(x)[0].tobytes()
    result = translate("--import-onnx", dynamic, "--batch", "4", "-o", str(tmp_path / "b4.mlir"))
    assert result.returncode == 0, result.stderr
    at_four = tlir.load_model(str(tmp_path / "b4.mlir"))
    assert str(at_four.ops.first.function_type) == "(tensor<4x6xf32>) -> tensor<4x3xf32>"
    x = np.random.default_rng(4).standard_normal((4, 6)).astype(np.float32)
    assert tlir.compile(at_four)(x)[0].tobytes() == api(x)[0].tobytes()
    result = translate("--import-onnx", static, "--batch", "2")
    assert result.returncode == 0, result.stderr
    assert "tensor<2x6xf32>" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--batch", "3"],
            "{static}: error: the model's input shape is fixed at [2, 6], not batch 3",
        ),
        (
            ["--batch", "0"],
            "tlir-translate: error: argument --batch: expected a positive integer, got '0'",
        ),
        (
            ["--batch", "two"],
            "tlir-translate: error: argument --batch: expected a positive integer, got 'two'",
        ),
        (  # a digit to str.isdigit, not to int
            ["--batch", "\u00b2"],
            "tlir-translate: error: argument --batch: expected a positive integer, got '\u00b2'",
        ),
    ],
)
def test_cli_import_onnx_bad_batch_is_one_line(tmp_path, args, message):
    _, static = symbolic_and_fixed(tmp_path)
    result = translate("--import-onnx", static, *args)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [message.format(static=static)]


def test_cli_batch_is_for_imports_only(tmp_path):
    result = translate("--export-torchlean", "--batch", "3", str(tmp_path / "m.mlir"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "tlir-translate: error: --batch applies to --import-torchlean and --import-onnx"
    ]


def test_tlir_run_runs_an_onnx_file_at_any_batch(tmp_path):
    dynamic, _ = symbolic_and_fixed(tmp_path)
    torch.manual_seed(5)
    model = torch_models.MLP().eval()  # the exported weights (same seed)
    for batch in (1, 5):
        x = torch.randn(batch, 6)
        np.save(tmp_path / "x.npy", x.numpy())
        result = subprocess.run(
            [sys.executable, "-m", "tlir.tools.run", dynamic, "--input", str(tmp_path / "x.npy")]
            + ["--compare", "-q", "--no-cache", "--output", str(tmp_path / "y.npz")],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        assert "bit-identical to the reference" in result.stdout
        with np.load(tmp_path / "y.npz") as out:
            np.testing.assert_allclose(
                out["output0"], model(x).detach().numpy(), rtol=0, atol=TOLERANCE[torch.float32]
            )


def test_tlir_run_on_a_broken_onnx_file_is_one_line(tmp_path):
    path = tmp_path / "junk.onnx"
    path.write_bytes(b"\x00\x01junk")
    np.save(tmp_path / "x.npy", np.zeros((1, 6), np.float32))
    result = subprocess.run(
        [sys.executable, "-m", "tlir.tools.run", str(path), "--input", str(tmp_path / "x.npy")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [f"{path}: error: not an ONNX model (DecodeError)"]


@pytest.mark.parametrize("name", ["cnn", "transformer", "mix"])
def test_saved_onnx_model_computes_the_same_bits(name, tmp_path):
    """An ONNX model's grouped conv weights, computed from its initializers
    inside the function, are saved as their values: the JSON and the .tlz,
    reloaded, give the compiled model's bits."""
    torch.manual_seed(11)
    cls, shape = MODELS[name]
    model = cls().to(torch.float32).eval()
    x = torch.randn(*shape)
    compiled = tlir.compile(tlir.from_onnx(export(model, x, tmp_path / "m.onnx")))
    inputs = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    expected = compiled(inputs)
    for file in ("m.json", "m.tlz"):  # at the batch the file fixes
        tlir.save(compiled, str(tmp_path / file), batch=shape[0])
        reloaded = tlir.compile(str(tmp_path / file), dtype="f32")
        for got, want in zip(reloaded(inputs), expected, strict=True):
            assert got.tobytes() == want.tobytes(), file
