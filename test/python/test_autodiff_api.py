"""`CompiledModel.jvp/vjp/parameters` and `tlir.save`: derivatives compiled
through the forward's route equal the reference, parameters are one set of
arrays shared by the forward and every derivative compile, saving writes the
current values, and bad arguments are one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from autodiff_util import same_bits

import tlir
from tlir.diagnostics import TlirError
from tlir.reference import evaluate, jvp, vjp

CNN = "examples/cnn.json"


@pytest.fixture(scope="module")
def cnn():
    model = tlir.compile(CNN, "f64")
    x = np.load("examples/cnn_input.npy")
    return model, x


def _all_same(got, want) -> bool:
    return len(got) == len(want) and all(same_bits(g, w) for g, w in zip(got, want, strict=True))


def test_jvp_and_vjp_equal_the_reference(cnn):
    model, x = cnn
    rng = np.random.default_rng(1)
    dx = rng.normal(size=x.shape)
    ys, dys = model.jvp([x], [dx])
    assert _all_same([*ys, *dys], jvp(model.module(), [x], [dx]))
    assert _all_same(ys, model(x))
    dy = [rng.normal(size=y.shape) for y in ys]
    ys, gx, gp = model.vjp([x], dy)
    assert list(gp) == list(model.parameters())
    assert _all_same([*ys, *gx, *gp.values()], vjp(model.module(), [x], dy))


def test_parameter_tangents_by_name_or_in_order(cnn):
    model, x = cnn
    params = model.parameters()
    rng = np.random.default_rng(2)
    seeds = {name: rng.normal(size=p.shape) for name, p in params.items()}
    dx = np.zeros_like(x)
    by_name = model.jvp([x], [dx], param_tangents={"node1.weight": seeds["node1.weight"]})
    ordered = [seeds["node1.weight"] if n == "node1.weight" else np.zeros_like(p)
               for n, p in params.items()]  # fmt: skip
    want = jvp(model.module(), [x], [dx], ordered)
    assert _all_same([*by_name[0], *by_name[1]], want)
    in_order = model.jvp([x], [dx], param_tangents=list(seeds.values()))
    assert _all_same(
        [*in_order[0], *in_order[1]], jvp(model.module(), [x], [dx], list(seeds.values()))
    )


def test_writing_parameters_changes_forward_jvp_and_vjp():
    model = tlir.compile(CNN, "f32")
    x = np.load("examples/cnn_input.npy").astype(np.float32)
    dx = np.ones_like(x)
    dy = [np.ones(s, np.float32) for s, _ in model.plan.outputs]
    before = [model(x), model.jvp([x], [dx]), model.vjp([x], dy)]  # all compiled now
    params = model.parameters()
    assert params is not model.parameters()  # a fresh dict of the same arrays
    assert all(a is b for a, b in zip(params.values(), model.parameters().values()))
    params["node9.weight"] *= np.float32(-2)
    params["node1.bias"][...] = 0.25
    module = model.module()
    assert _all_same(model(x), evaluate(module, [x]))
    ys, dys = model.jvp([x], [dx])
    assert _all_same([*ys, *dys], jvp(module, [x], [dx]))
    ys, gx, gp = model.vjp([x], dy)
    assert _all_same([*ys, *gx, *gp.values()], vjp(module, [x], dy))
    assert not np.array_equal(before[0][1], model(x)[1])


def test_vjp_with_respect_to_params_or_inputs(cnn):
    model, x = cnn
    dy = [np.ones(s) for s, _ in model.plan.outputs]
    ys, gx, gp = model.vjp([x], dy)
    ys_p, gx_p, gp_p = model.vjp([x], dy, wrt="params")
    assert gx_p == [] and _all_same(list(gp_p.values()), list(gp.values()))
    ys_i, gx_i, gp_i = model.vjp([x], dy, wrt="inputs")
    assert gp_i == {} and _all_same(gx_i, gx)
    with pytest.raises(TlirError, match="wrt must be one of"):
        model.vjp([x], dy, wrt="weights")


def test_save_writes_current_values_and_reloads_bit_exact(cnn, tmp_path):
    model = tlir.compile("examples/legacy_cnn.json", "f64")
    x = np.load("examples/legacy_cnn_input.npy")
    params = model.parameters()
    first = next(iter(params))
    params[first] += 0.125
    path = tmp_path / "saved.json"
    tlir.save(model, str(path))
    graph = json.loads(path.read_text())
    assert graph["format"] == "torchlean.ir.v1"
    again = tlir.compile(str(path), "f64")
    assert _all_same(again(x), model(x))
    assert all(np.array_equal(a, b) for a, b in zip(again.parameters().values(), params.values()))


def test_save_of_an_mlir_model_and_its_errors(tmp_path):
    text = (
        "func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {\n"
        "  %c = tlir.const {value = dense<[1.5, -2.0]> : tensor<2xf64>} : tensor<2xf64>\n"
        "  %y = tlir.mul_elem %x, %c : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>\n"
        "  func.return %y : tensor<2xf64>\n}\n"
    )
    model = tlir.compile(text)
    assert list(model.parameters()) == ["const0"]
    model.parameters()["const0"][0] = 3.0
    tlir.save(model, str(tmp_path / "m.json"))
    again = tlir.compile(str(tmp_path / "m.json"), "f64")
    assert again(np.ones(2))[0].tolist() == [3.0, -2.0]
    with pytest.raises(TlirError, match="use a .json or .tlz path"):
        tlir.save(model, str(tmp_path / "m.mlir"))
    two = (
        "func.func @main(%x: tensor<2xf64>, %z: tensor<2xf64>) -> tensor<2xf64> {\n"
        "  %y = tlir.add %x, %z : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>\n"
        "  func.return %y : tensor<2xf64>\n}\n"
    )
    with pytest.raises(TlirError, match="exactly one input"):
        tlir.save(tlir.compile(two), str(tmp_path / "two.json"))
    with pytest.raises(TlirError, match="expected a compiled model"):
        tlir.save("examples/cnn.json", str(tmp_path / "x.json"))


def test_bad_arguments_are_one_line_errors(cnn):
    model, x = cnn
    dy = [np.ones(s) for s, _ in model.plan.outputs]
    cases = [
        (lambda: model.jvp([x], []), "expected 1 tangents"),
        (lambda: model.jvp([x], [x.astype(np.float32)]), "tangent 0 has shape"),
        (lambda: model.jvp([x[0]], [x]), "input 0 has shape"),
        (lambda: model.jvp([x], [x], param_tangents={"nope": x}), "no parameter named 'nope'"),
        (lambda: model.jvp([x], [x], param_tangents=[x]), "parameters, got 1"),
        (lambda: model.vjp([x], dy[:1]), "expected 2 cotangents"),
        (lambda: model.vjp([x], [dy[0], dy[1][:, :2]]), "cotangent 1 has shape"),
    ]
    for call, message in cases:
        with pytest.raises(TlirError, match=message) as err:
            call()
        assert "\n" not in str(err.value)
