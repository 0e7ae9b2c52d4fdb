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


def _attention(tmp_path, seq: int, dtype: str):
    from graphs import write
    from test_importer import attention_graph

    g, out = attention_graph(seq=seq)
    return tlir.compile(write(tmp_path, g.current([out])), dtype, cache=False)


def _copy_as_argument(module):
    """`module` with the attention's [B, N, N] copy of `scale` as a second
    argument of @main instead of the broadcast of the parameter."""
    from xdsl.dialects.builtin import FunctionType

    from tlir.dialects import tlir as T
    from tlir.interface import find_function
    from tlir.parameters import NAME_ATTRIBUTE

    module = module.clone()
    main = find_function(module)
    block = main.body.block
    const = next(
        op
        for op in block.ops
        if isinstance(op, T.ConstOp) and op.attributes[NAME_ATTRIBUTE].data == "node1.scale"
    )
    (use,) = const.result.uses
    broadcast = use.operation
    (use,) = broadcast.result.uses
    reshape = use.operation
    copy = block.insert_arg(reshape.result.type, 1)
    reshape.result.replace_all_uses_with(copy)
    for op in (reshape, broadcast, const):
        block.erase_op(op)
    outputs = main.function_type.outputs.data
    main.function_type = FunctionType.from_lists([a.type for a in block.args], outputs)
    return module


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_attention_scale_is_the_scalar_of_the_model_file(tmp_path, dtype):
    """`node1.scale` has the model file's shape, []: parameters() holds the
    scalar, its gradient is the fold from +0, in row-major order, of the adjoint
    of the [B, N, N] copy the expansion broadcasts it to, and its tangent is a
    scalar; vjp and jvp equal the reference bit for bit."""
    np_type = np.float32 if dtype == "f32" else np.float64
    model = _attention(tmp_path, 6, dtype)
    params = model.parameters()
    assert params["node1.scale"].shape == () and params["node1.scale"] == 4**-0.5
    rng = np.random.default_rng(4)
    x = rng.normal(size=(1, 6, 4)).astype(np_type)
    dy = [rng.normal(size=(1, 6, 4)).astype(np_type)]
    ys, gx, gp = model.vjp([x], dy)
    assert gp["node1.scale"].shape == () and gp["node1.scale"].dtype == np_type
    assert _all_same([*ys, *gx, *gp.values()], vjp(model.module(), [x], dy))
    copy = np.full((1, 6, 6), params["node1.scale"], np_type)
    *_, adjoint = vjp(_copy_as_argument(model.module()), [x, copy], dy, wrt="inputs")
    row_major = np_type(0.0)
    for term in adjoint.ravel():
        row_major = row_major + term
    assert same_bits(gp["node1.scale"], np.asarray(row_major))
    # the data tells it from broadcast_to's own rule (each axis on its own, outermost first)
    per_axis = np_type(0.0)
    for column in adjoint[0].T:
        partial = np_type(0.0)
        for term in column:
            partial = partial + term
        per_axis = per_axis + partial
    assert not same_bits(np.asarray(per_axis), np.asarray(row_major))
    dx = np.zeros_like(x)
    seed = np.array(-1.5, np_type)
    ys, dys = model.jvp([x], [dx], param_tangents={"node1.scale": seed})
    ordered = [seed if name == "node1.scale" else np.zeros_like(p) for name, p in params.items()]
    assert _all_same([*ys, *dys], jvp(model.module(), [x], [dx], ordered))
    with pytest.raises(TlirError, match=r"expected shape \[\]"):
        model.jvp([x], [dx], param_tangents={"node1.scale": copy})


def test_attention_scale_is_saved_as_a_scalar(tmp_path):
    model = _attention(tmp_path, 3, "f64")
    model.parameters()["node1.scale"][...] = 0.25
    path = tmp_path / "saved.json"
    tlir.save(model, str(path))
    nodes = json.loads(path.read_text())["nodes"]
    (scale,) = [n for n in nodes if n["kind"] == "const"]
    assert scale["shape"] == [] and scale["values"] == [0.25]
    again = tlir.compile(str(path), "f64", cache=False)
    saved = [p for p in again.parameters().values() if p.shape == ()]
    assert len(saved) == 1 and saved[0] == 0.25
    x = np.random.default_rng(6).normal(size=(1, 3, 4))
    assert _all_same(again(x), model(x))
