"""`tlir.from_torch`: PyTorch models in through torch.export, compiled and
compared with PyTorch (outputs, and input and parameter gradients against
torch.autograd), parameter names and layouts as in PyTorch, refusals as one
line naming the ATen op and the model's source line."""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest

import tlir
from tlir.diagnostics import TlirError
from tlir.reference import evaluate

torch = pytest.importorskip("torch", reason="torch is not installed")
torch_models = pytest.importorskip("torch_models")
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
]

TOLERANCE = torch_models.TOLERANCE
MODELS = torch_models.MODELS


def make(name: str, dtype):
    torch.manual_seed(7)
    cls, shape = MODELS[name]
    model = cls().to(dtype).eval()
    if name == "cnn":  # running statistics that are not the identity
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 1.5)
    return model, torch.randn(*shape, dtype=dtype)


@functools.cache
def imported(name: str, dtype) -> tuple:
    """`make(name, dtype)` and its import (one torch.export per model and dtype
    for the file's tests, each of which compiles its own model: a compile
    leaves the module as it is). Callers seed torch's generator again for
    their own random values."""
    model, x = make(name, dtype)
    return model, x, tlir.from_torch(model, (x,))


def as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(MODELS))
def test_model_matches_pytorch(name, dtype):
    model, x, module = imported(name, dtype)
    torch.manual_seed(8)
    compiled = tlir.compile(module)

    params = dict(model.named_parameters())
    assert list(compiled.parameters()) == list(params)
    for key, value in compiled.parameters().items():
        assert value.shape == tuple(params[key].shape)  # PyTorch's layout (packed groups too)
    check_against_pytorch(model, compiled, x, TOLERANCE[dtype])


def check_against_pytorch(model, compiled, x, tol):
    """Outputs, input gradients and parameter gradients (by name) of `compiled`
    at `x` against PyTorch's and autograd's."""
    params = dict(model.named_parameters())
    xg = x.clone().requires_grad_(True)
    expected = as_tuple(model(xg))
    cotangents = [torch.randn_like(e) for e in expected]
    grads = torch.autograd.grad(expected, [xg, *params.values()], cotangents)
    outputs, input_grads, param_grads = compiled.vjp([x.numpy()], [c.numpy() for c in cotangents])
    for got, want in zip(compiled(x.numpy()), expected, strict=True):
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=0, atol=tol)
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=0, atol=tol)
    np.testing.assert_allclose(input_grads[0], grads[0].numpy(), rtol=0, atol=tol)
    for key, want in zip(params, grads[1:], strict=True):
        if key in param_grads:
            np.testing.assert_allclose(
                param_grads[key], want.numpy(), rtol=0, atol=tol, err_msg=key
            )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(MODELS))
def test_dynamic_batch_model_matches_pytorch_at_other_batches(name, dtype):
    """One import (its batch `?`), one compiled model, called at batches 1, 2
    and 7 besides the example's."""
    model, x, module = imported(name, dtype)
    torch.manual_seed(9)
    assert "?" in str(module.ops.first.function_type.inputs.data[0])
    compiled = tlir.compile(module)
    for batch in (1, 2, 7):
        other = torch.randn(batch, *x.shape[1:], dtype=dtype)
        check_against_pytorch(model, compiled, other, TOLERANCE[dtype])


def test_static_import_keeps_the_example_batch():
    model, x = make("mlp", torch.float64)
    compiled = tlir.compile(tlir.from_torch(model, (x,), dynamic_batch=False))
    assert str(compiled.function_op.function_type) == "(tensor<3x6xf64>) -> tensor<3x3xf64>"
    with pytest.raises(TlirError, match=r"expected shape \[3, 6\]"):
        compiled(np.zeros((5, 6)))


def test_a_graph_that_fixes_the_batch_is_refused_with_dynamic_batch():
    class Fixed(torch.nn.Module):
        def forward(self, x):
            return x.reshape(2, 3, 2) * 2.0  # 12 elements: batch 2 only

    with pytest.raises(TlirError) as err:
        tlir.from_torch(Fixed(), (torch.randn(2, 6),))
    assert str(err.value).startswith("tlir.from_torch: error: the model does not import at batch 3")
    assert str(err.value).endswith(
        "import it with dynamic_batch=False to compile it for the example's batch"
    )
    tlir.from_torch(Fixed(), (torch.randn(2, 6),), dynamic_batch=False)

    class Scaled(torch.nn.Module):  # an extent B + 1: traced at 2 and 3, not a multiple
        def forward(self, x):
            return torch.cat([x, x[:1]]) * 2.0

    with pytest.raises(TlirError, match="the graph depends on the batch size"):
        tlir.from_torch(Scaled(), (torch.randn(2, 6),))


def test_compiled_equals_reference_evaluator():
    """The imported module is an ordinary tlir module: compiled bit-identical
    to the reference evaluator."""
    model, x, module = imported("transformer", torch.float64)
    expected = evaluate(module, [x.numpy()])
    got = tlir.compile(module)(x.numpy())
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


class Dropped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = torch.nn.Dropout(0.25)

    def forward(self, x):
        return self.drop(x)


def test_dropout_in_training_mode_is_a_bernoulli_mask():
    x = torch.rand(4, 64, dtype=torch.float64) + 1.0
    module = tlir.from_torch(Dropped().train(), (x,), seed=3)
    assert "tlir.bernoulli_mask" in str(module)
    (y,) = tlir.compile(module)(x.numpy())
    kept = y != 0
    np.testing.assert_array_equal(y[kept], x.numpy()[kept] * (1.0 / 0.75))
    assert 0.5 < kept.mean() < 0.95
    (other,) = tlir.compile(tlir.from_torch(Dropped().train(), (x,), seed=4))(x.numpy())
    assert not np.array_equal(other != 0, kept)


def test_dropout_in_eval_mode_is_the_identity():
    x = torch.randn(3, 5)
    (y,) = tlir.compile(tlir.from_torch(Dropped().eval(), (x,)))(x.numpy())
    np.testing.assert_array_equal(y, x.numpy())


class ExactGelu(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x)  # the line the error names


class Cumsum(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x, 1)


@pytest.mark.parametrize(
    "cls, op", [(ExactGelu, "aten.gelu.default"), (Cumsum, "aten.cumsum.default")]
)
def test_unsupported_op_is_one_line_naming_op_and_source(cls, op):
    with pytest.raises(TlirError) as err:
        tlir.from_torch(cls(), (torch.randn(2, 3),))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"tlir.from_torch: error: {op} (")
    assert "test_from_torch.py:" in message


def test_batch_norm_in_training_mode_is_refused():
    model = torch.nn.Sequential(torch.nn.BatchNorm1d(3)).train()
    with pytest.raises(TlirError, match="training mode"):
        tlir.from_torch(model, (torch.randn(4, 3),))


@pytest.mark.parametrize(
    "kwargs, inputs, message",
    [
        ({"dynamic_batch": 1}, (torch.randn(2, 6),), "dynamic_batch must be True or False"),
        ({}, (torch.randn(0, 6),), "the example input's batch is 0"),
        ({}, (torch.randn(2, 6), torch.randn(2, 6)), "exactly one input"),
        ({}, (torch.randn(2, 6, dtype=torch.float64),), "convert the model"),
        ({}, (torch.zeros(2, 6, dtype=torch.int64),), "float32 or float64"),
        ({}, (torch.zeros(2, 6, dtype=torch.bfloat16),), "float32 or float64"),
    ],
)
def test_bad_arguments_are_one_line_errors(kwargs, inputs, message):
    torch.manual_seed(0)
    with pytest.raises(TlirError, match=message):
        tlir.from_torch(torch_models.MLP(), inputs, **kwargs)


def test_export_failure_is_one_line():
    with pytest.raises(TlirError, match="torch.export failed") as err:
        tlir.from_torch(torch_models.MLP(), (torch.randn(2, 5),))  # 5 ≠ in_features
    assert "\n" not in str(err.value)


def test_export_failure_prints_nothing_else():
    """torch.export logs its own traceback of a shape error while tracing."""
    code = (
        "import torch, tlir\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x + x.t()\n"
        "try:\n"
        "    tlir.from_torch(M(), (torch.randn(2, 3),))\n"
        "except tlir.diagnostics.TlirError as err:\n"
        "    print(err)\n"
    )
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=600
    )
    assert result.stdout.startswith("tlir.from_torch: error: torch.export failed")
    assert "Traceback" not in result.stderr, result.stderr


class Divisions(torch.nn.Module):
    def forward(self, x):
        return x / 0.0, x / 3.0, 1.5 / x, x / (x + 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_division_is_a_product_by_the_inverse(dtype):
    """x / b as x · inv(b): ±inf and NaN where PyTorch has them, finite values
    within one rounding."""
    x = torch.tensor([[-2.0, -0.0, 0.0, 0.5, 3.0, np.inf]], dtype=dtype)
    got = tlir.compile(tlir.from_torch(Divisions(), (x,)))(x.numpy())
    for g, want in zip(got, Divisions()(x), strict=True):
        np.testing.assert_allclose(g, want.numpy(), rtol=np.finfo(g.dtype).eps, atol=0)


def test_coverage_table():
    """The ATen ops `from_torch` reads (docs/pytorch.md#aten-coverage)."""
    from tlir.frontend.pytorch import supported_ops

    expected = """aten._log_softmax.default aten._native_batch_norm_legit.default
        aten._native_batch_norm_legit_functional.default
        aten._native_batch_norm_legit_no_training.default aten._softmax.default
        aten._to_copy.default aten._unsafe_view.default aten.abs.default aten.add.Scalar
        aten.add.Tensor aten.addmm.default aten.alias.default aten.any.dim
        aten.avg_pool2d.default aten.bmm.default aten.cat.default aten.clamp.default
        aten.clone.default aten.hardtanh.default aten.leaky_relu.default
        aten.convolution.default aten.cos.default aten.detach.default aten.div.Scalar
        aten.div.Tensor
        aten.eq.Scalar aten.exp.default aten.expand.default aten.full_like.default
        aten.gelu.default aten.gt.Scalar aten.lift_fresh_copy.default aten.log.default
        aten.log1p.default aten.logical_not.default aten.max_pool2d_with_indices.default
        aten.maximum.default aten.mean.default aten.mean.dim aten.minimum.default
        aten.mm.default aten.mul.Scalar aten.mul.Tensor aten.native_dropout.default
        aten.native_layer_norm.default aten.neg.default aten.permute.default
        aten.pow.Tensor_Scalar aten.reciprocal.default aten.relu.default aten.reshape.default
        aten.rsub.Scalar aten.select.int aten.sigmoid.default aten.sin.default
        aten.slice.Tensor aten.split_with_sizes.default aten.sqrt.default aten.squeeze.default
        aten.squeeze.dim aten.squeeze.dims aten.sub.Scalar aten.sub.Tensor aten.sum.default
        aten.sum.dim_IntList aten.tanh.default aten.unsqueeze.default aten.view.default
        aten.where.self
        operator.getitem"""
    assert supported_ops() == sorted(expected.split())


def test_import_tlir_and_compiling_json_import_neither_torch_nor_onnx():
    code = (
        "import sys, tlir\n"
        "m = tlir.compile('examples/cnn.json')\n"
        "assert 'torch' not in sys.modules and 'onnx' not in sys.modules, "
        "[k for k in sys.modules if k.startswith(('torch', 'onnx'))]\n"
    )
    root = __file__.rsplit("/test/", 1)[0]
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr


def test_example_from_pytorch(tmp_path, capsys):
    """examples/from_pytorch.py: trained, imported, compared, saved and reloaded."""
    import runpy

    root = __file__.rsplit("/test/", 1)[0]
    example = runpy.run_path(f"{root}/examples/from_pytorch.py")
    example["main"](str(tmp_path / "cnn.json"))
    lines = capsys.readouterr().out.splitlines()
    assert float(lines[0].rsplit("= ", 1)[1]) < 1e-4
    assert float(lines[1].rsplit("difference ", 1)[1]) < 1e-4
    assert lines[2].endswith("the same outputs: True")
    assert float(lines[3].rsplit("= ", 1)[1]) < 1e-4  # the same model at another batch


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_clamp_and_leaky_relu_are_exact(dtype):
    """Lean's max and min in the right operand order: bit-identical to
    PyTorch, signed zeros, infinities and NaN included."""
    values = [-3.0, -1.5, -0.5, -0.0, 0.0, 0.3, 1.0, 2.0, 6.5, np.inf, -np.inf, np.nan]
    x = torch.tensor([values], dtype=dtype)
    model = torch_models.Clamps()
    got = tlir.compile(tlir.from_torch(model, (x,)))(x.numpy())
    for g, want in zip(got, model(x), strict=True):
        np.testing.assert_array_equal(g, want.numpy())
        np.testing.assert_array_equal(np.signbit(g), np.signbit(want.numpy()))


class Detached(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64))

    def forward(self, x):
        return (x * self.w).detach() * x + x * self.w


def test_detach_stops_the_gradient():
    model = Detached()
    x = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64, requires_grad=True)
    module = tlir.from_torch(model, (x.detach(),))
    assert "tlir.detach" in str(module)
    _, (dx,), grads = tlir.compile(module).vjp([x.detach().numpy()], [np.ones((1, 3))])
    want_dx, want_dw = torch.autograd.grad(model(x), [x, model.w], torch.ones(1, 3))
    np.testing.assert_array_equal(dx, want_dx.numpy())  # 2·x·w, not 3·x·w
    np.testing.assert_array_equal(grads["w"], want_dw.numpy())  # x, not 2·x²


class Counting(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        self.count.add_(1.0)
        return x + self.count


def test_a_model_that_changes_a_buffer_is_refused():
    with pytest.raises(TlirError, match="changes 'count' as it runs"):
        tlir.from_torch(Counting(), (torch.ones(2, 3),))


class CausalAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(8, 2, batch_first=True, dtype=torch.float64)

    def forward(self, x):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(x.shape[1], dtype=x.dtype)
        return self.attn(x, x, x, attn_mask=mask, need_weights=False, is_causal=True)[0]


def test_constants_built_in_forward_are_folded():
    """The causal mask (full, triu) depends on neither input nor parameters:
    PyTorch computes it at import, a fixed constant in the module."""
    torch.manual_seed(4)
    model = CausalAttention().eval()
    x = torch.randn(2, 5, 8, dtype=torch.float64, requires_grad=True)
    compiled = tlir.compile(tlir.from_torch(model, (x.detach(),)))
    assert list(compiled.parameters()) == [n for n, _ in model.named_parameters()]
    y = model(x)
    cot = torch.randn_like(y)
    grads = torch.autograd.grad(y, [x, *model.parameters()], cot)
    (out,), (dx,), dparams = compiled.vjp([x.detach().numpy()], [cot.numpy()])
    np.testing.assert_allclose(out, y.detach().numpy(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(dx, grads[0].numpy(), rtol=0, atol=1e-10)
    for (name, _), want in zip(model.named_parameters(), grads[1:], strict=True):
        np.testing.assert_allclose(dparams[name], want.numpy(), rtol=0, atol=1e-10)


class Noisy(torch.nn.Module):
    def forward(self, x):
        return x + torch.rand(3)


def test_random_numbers_are_not_folded():
    with pytest.raises(TlirError, match=r"aten\.rand\.default"):
        tlir.from_torch(Noisy(), (torch.ones(2, 3),))


class Uninitialised(torch.nn.Module):
    def forward(self, x):
        return x + torch.empty(3)


def test_uninitialised_memory_is_not_folded():
    with pytest.raises(TlirError, match=r"aten\.empty"):
        tlir.from_torch(Uninitialised(), (torch.ones(2, 3),))


class Scalars(torch.nn.Module):
    def forward(self, x):
        return torch.rsub(x, 2.0, alpha=3), torch.sub(x, x * x, alpha=0.5), 1 - x, -x, x**3


def test_scalar_arithmetic_with_alpha():
    x = torch.tensor([[-1.5, 0.25, 3.0]], dtype=torch.float64)
    got = tlir.compile(tlir.from_torch(Scalars(), (x,)))(x.numpy())
    for g, want in zip(got, Scalars()(x), strict=True):
        np.testing.assert_allclose(g, want.numpy(), rtol=1e-15, atol=0)


def test_an_import_leaves_no_python_thread_behind():
    """torch.fx's interpreter starts tqdm's monitor thread during the export;
    while another Python thread runs, no compile may fork helper processes."""
    import threading

    before = threading.active_count()
    model = torch_models.MLP().to(torch.float64).eval()
    tlir.from_torch(model, (torch.randn(2, 6, dtype=torch.float64),))
    assert threading.active_count() == before


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_parameters_are_named_parameters_with_and_without_bias(bias, dtype):
    """A layer without a bias adds no parameter of its own (its zero bias is
    fixed): the names are `named_parameters()`'s, and so are the gradients' keys."""
    torch.manual_seed(12)
    model = torch_models.Biasless(bias).to(dtype).eval()
    x = torch.randn(2, 4, 8, dtype=dtype)
    compiled = tlir.compile(tlir.from_torch(model, (x,)))
    names = [n for n, _ in model.named_parameters()]
    assert list(compiled.parameters()) == names
    assert bias or not any("bias" in n for n in names)
    (y,) = compiled(x.numpy())
    _, _, grads = compiled.vjp([x.numpy()], [np.ones_like(y)])
    assert list(grads) == names
    xg = x.clone().requires_grad_(True)
    want = torch.autograd.grad(model(xg).sum(), list(model.parameters()))
    for name, expected in zip(names, want, strict=True):
        np.testing.assert_allclose(
            grads[name], expected.numpy(), rtol=0, atol=TOLERANCE[dtype] * 10, err_msg=name
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", ["cnn", "transformer", "mix"])
def test_saved_model_computes_the_same_bits(tmp_path, name, dtype):
    """Saved as JSON and as a .tlz at a batch, and as a .tlz with its '?', then
    reloaded: the outputs are the compiled original's, bit for bit. The grouped
    convs' dense weights, computed from the parameters inside the function, are
    written as their values; attention's sliced projections are matmuls on the
    activations, written as nodes."""
    model, x, module = imported(name, dtype)
    compiled = tlir.compile(module)
    batch = x.shape[0] + 3
    rng = np.random.default_rng(5)
    inputs = rng.standard_normal((batch, *x.shape[1:])).astype(x.numpy().dtype)
    expected = compiled(inputs)
    carrier = "f32" if dtype is torch.float32 else "f64"
    for file, at in (("m.json", batch), ("m.tlz", batch), ("dynamic.tlz", None)):
        path = str(tmp_path / file)
        tlir.save(compiled, path, batch=at)
        reloaded = tlir.compile(path, dtype=carrier)
        for got, want in zip(reloaded(inputs), expected, strict=True):
            assert got.dtype == want.dtype
            assert got.tobytes() == want.tobytes(), file


def test_saved_grouped_conv_weight_is_dense_and_block_diagonal(tmp_path):
    """TorchLean's conv with `groups` reads a dense [outC, inC, k…] weight: the
    packed [outC, inC/groups, k…] parameter (its current value, here changed
    after the compile) on the diagonal blocks, zero elsewhere; the concat, the
    mask and the packed parameter are no nodes."""
    import json

    model, x = make("cnn", torch.float64)
    compiled = tlir.compile(tlir.from_torch(model, (x,)))
    packed = compiled.parameters()["conv1.weight"]  # [6, 2, 3, 3]
    packed[...] = np.arange(packed.size).reshape(packed.shape) / 8 - 6
    tlir.save(compiled, str(tmp_path / "m.json"), batch=2)
    nodes = json.loads((tmp_path / "m.json").read_text())["nodes"]
    assert [n["kind"] for n in nodes] == [
        "input", "conv", "batch_norm_eval", "relu", "conv", "avg_pool", "max_pool", "reshape",
        "linear",
    ]  # fmt: skip
    conv = nodes[1]
    assert (conv["groups"], conv["in_channels"], conv["out_channels"]) == (2, 4, 6)
    dense = np.zeros((6, 4, 3, 3))
    dense[:3, :2], dense[3:, 2:] = packed[:3], packed[3:]
    weight = np.array(conv["weight"])
    assert weight.shape == dense.shape
    np.testing.assert_array_equal(weight, dense)
    np.testing.assert_array_equal(conv["bias"], model.conv1.bias.detach().numpy())
