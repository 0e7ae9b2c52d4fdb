"""Importing torchlean.ir.v1 graphs: every importable op, both dialects, docs/json-format.md#import-time-expansions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from graphs import Graph, write

from tlir.interface import find_function
from tlir.parameters import parameter_names
from tlir.reference import evaluate
from tlir.torchlean import import_file
from tlir.torchlean.exporter import dumps, export_module


def ops_of(module) -> list:
    main = next(iter(module.ops))
    return list(main.body.block.ops)


def op_names(module) -> list[str]:
    return [op.name for op in ops_of(module)]


def every_op_graph() -> tuple[Graph, list[int]]:
    """One current-dialect graph using every importable kind."""
    g = Graph([2, 3, 4, 4])
    x = 0
    c = g.add("conv", [x], [2, 4, 4, 4], spatial_rank=2, kernel=[3, 3], stride=[1, 1],
              padding=[1, 1], padding_after=[1, 1], dilation=[1, 1], groups=1, channel_axis=1,
              in_channels=3, out_channels=4, input_spatial=[4, 4],
              weight=np.full((4, 3, 3, 3), 0.1).tolist(), bias=[0.0, 0.1, 0.2, 0.3])  # fmt: skip
    bn = g.add("batch_norm_eval", [c], [2, 4, 4, 4], channel_axis=1, channels=4, eps=1e-5,
               gamma=[1, 1, 1, 1], beta=[0, 0, 0, 0], mean=[0, 0, 0, 0], var=[1, 1, 1, 1])  # fmt: skip
    mp = g.add(
        "max_pool", [bn], [2, 4, 2, 2], spatial_rank=2, kernel=[2, 2], stride=[2, 2], padding=[0, 0]
    )
    ap = g.add(
        "avg_pool", [mp], [2, 4, 2, 2], spatial_rank=2, kernel=[3, 3], stride=[1, 1], padding=[1, 1]
    )
    rs = g.add("reduce_sum", [ap], [2, 4, 2], axes=[3], keepdim=False)
    rm = g.add("reduce_mean", [rs], [2, 4], axes=[2], keepdim=False)
    lin = g.add(
        "linear", [rm], [2, 3], out_dim=3, in_dim=4, weight=np.eye(3, 4).tolist(), bias=[1, 2, 3]
    )
    unary = lin
    for kind in (
        "relu",
        "tanh",
        "sigmoid",
        "exp",
        "abs",
        "sqrt",
        "inv",
        "sin",
        "cos",
        "softplus",
        "detach",
    ):
        unary = g.add(kind, [unary], [2, 3])
    lg = g.add("log", [unary], [2, 3])
    eps = g.add("const", [], [], values=[1e-6])
    sl = g.add("safe_log", [lg, eps], [2, 3])
    sm = g.add("softmax", [sl], [2, 3], axis=1)
    ln = g.add("layernorm", [sm], [2, 3], axis=1, eps=1e-5, gamma=[1, 2, 3], beta=[0, 0, 1])
    hm = g.add(
        "hard_masked_softmax", [ln], [2, 3], allowed=[True, False, True, False, False, False]
    )
    k = g.add("const", [], [2, 3], value_shape=[2, 3], values=[1, 2, 3, 4, 5, 6])
    a = g.add("add", [hm, k], [2, 3])
    s = g.add("sub", [a, k], [2, 3])
    m = g.add("mul_elem", [s, k], [2, 3])
    mx = g.add("max_elem", [m, k], [2, 3])
    mn = g.add("min_elem", [mx, k], [2, 3])
    t = g.add("transpose", [mn], [3, 2], axis1=0, axis2=1)
    p = g.add("permute", [t], [2, 3], perm=[1, 0])
    mm = g.add("matmul", [p, t], [2, 2])
    bc = g.add("broadcast_to", [mm], [3, 2, 2], from_shape=[2, 2], to_shape=[3, 2, 2])
    rsh = g.add("reshape", [bc], [6, 2], in_shape=[3, 2, 2], out_shape=[6, 2])
    fl = g.add("flatten", [rsh], [12], value_shape=[6, 2])
    cat = g.add("concat", [fl, fl, fl], [36], axis=0)
    half = g.add("const", [], [], values=[0.5])
    ru = g.add("rand_uniform", [], [36], seed=3)
    bm = g.add("bernoulli_mask", [half], [36], seed=4)
    mix = g.add("add", [cat, ru], [36])
    mix2 = g.add("mul_elem", [mix, bm], [36])
    total = g.add("sum", [mix2], [])
    mse = g.add("mse_loss", [cat, ru], [])
    return g, [total, mse, ru]


def test_every_importable_op(tmp_path):
    g, outputs = every_op_graph()
    module = import_file(write(tmp_path, g.current(outputs)))
    names = set(op_names(module))
    from tlir.dialects.tlir import TLIR_OPS

    expected = {cls.name for cls in TLIR_OPS} - {"tlir.custom"}
    assert expected <= names, expected - names
    total, mse, ru = evaluate(module, [np.full((2, 3, 4, 4), 0.25)])
    assert total.shape == () and mse.shape == () and ru.shape == (36,)


def test_random_node_ids_are_tensor_ids(tmp_path):
    g, outputs = every_op_graph()
    module = import_file(write(tmp_path, g.current(outputs)))
    by_name = {op.name: op for op in ops_of(module)}
    # no expansion in this graph: tensor id = raw id
    raw = {n["kind"]: n["id"] for n in g.nodes}
    assert by_name["tlir.rand_uniform"].node_id.value.data == raw["rand_uniform"] == 39
    assert by_name["tlir.bernoulli_mask"].node_id.value.data == raw["bernoulli_mask"] == 40


def test_payload_becomes_operands(tmp_path):
    g = Graph([2, 4])
    w = [[0.1, 0.2, 0.3, 0.4], [0.0, -1.0, 0.5, 0.25], [1.0, 0.0, 0.0, -0.5]]
    lin = g.add("linear", [0], [2, 3], out_dim=3, in_dim=4, weight=w, bias=[0.0, 0.1, -0.1])
    module = import_file(write(tmp_path, g.current([lin])))
    assert op_names(module) == ["tlir.const", "tlir.const", "tlir.linear", "func.return"]
    x = np.arange(8.0).reshape(2, 4)
    y = evaluate(module, [x])[0]
    for i in range(2):
        for o in range(3):
            acc = 0.0
            for k in range(4):
                acc = acc + w[o][k] * x[i, k]
            assert y[i, o] == acc + [0.0, 0.1, -0.1][o]


def test_float32_import_rounds_payloads(tmp_path):
    g = Graph([3])
    c = g.add("const", [], [3], values=[0.1, 1 / 3, 16777217.0])
    out = g.add("add", [0, c], [3])
    module = import_file(write(tmp_path, g.current([out])), dtype="f32")
    y = evaluate(module, [np.zeros(3, np.float32)])[0]
    assert y.dtype == np.float32
    assert y.tolist() == np.array([0.1, 1 / 3, 16777217.0], np.float32).tolist()


def test_reduce_expansion_descending_with_keepdim_and_renumbering(tmp_path):
    g = Graph([2, 3, 4])
    r = g.add("reduce_sum", [0], [2, 1, 1], axes=[1, 2], keepdim=True)
    u = g.add("rand_uniform", [], [2], seed=9)
    module = import_file(write(tmp_path, g.current([r, u])))
    ops = ops_of(module)
    assert [op.name for op in ops] == [
        "tlir.reduce_sum", "tlir.reshape", "tlir.reduce_sum", "tlir.reshape",
        "tlir.rand_uniform", "func.return",
    ]  # fmt: skip
    assert [ops[0].axis.value.data, ops[2].axis.value.data] == [2, 1]
    # raw node 2 becomes tensor id 5: input, 2 reduces, 2 reshapes come first
    assert ops[4].node_id.value.data == 5
    x = np.arange(24.0).reshape(2, 3, 4)
    total, _ = evaluate(module, [x])
    assert total.reshape(-1).tolist() == [sum(x[0].ravel()), sum(x[1].ravel())]


def test_reduce_mean_over_axes_without_keepdim_and_empty_axes(tmp_path):
    g = Graph([2, 3, 4])
    r = g.add("reduce_mean", [0], [2], axes=[2, 1], keepdim=False)
    same = g.add("reduce_sum", [0], [2, 3, 4], axes=[], keepdim=False)
    module = import_file(write(tmp_path, g.current([r, same])))
    assert op_names(module) == ["tlir.reduce_mean", "tlir.reduce_mean", "func.return"]
    x = np.arange(24.0).reshape(2, 3, 4)
    mean, ident = evaluate(module, [x])
    assert ident.tolist() == x.tolist()
    expect = []
    for b in range(2):
        rows = []
        for i in range(3):
            acc = 0.0
            for k in range(4):
                acc = acc + x[b, i, k]
            rows.append(acc / 4)
        acc = 0.0
        for v in rows:
            acc = acc + v
        expect.append(acc / 3)
    assert mean.tolist() == expect


def attention_graph(seq: int = 3, embed: int = 4) -> tuple[Graph, int]:
    rng = np.random.default_rng(1)
    g = Graph([1, seq, embed])
    fields = {}
    for p in ("q", "k", "v", "out"):
        fields[f"{p}_weight"] = np.round(rng.normal(size=(embed, embed)), 3).tolist()
        fields[f"{p}_bias"] = np.round(rng.normal(size=embed), 3).tolist()
    mha = g.add("multihead_attention", [0, 0, 0], None, value_kind="tuple",
                tuple_shapes=[[1, seq, embed], [1, seq, seq]], embed_dim=embed, num_heads=1,
                batch_first=True, dropout_zero=True, bias=True, **fields)  # fmt: skip
    out = g.add("tuple_getitem", [mha], [1, seq, embed], index=0)
    return g, out


def test_attention_expands_to_ten_nodes(tmp_path):
    g, out = attention_graph()
    after = g.add("rand_uniform", [], [2], seed=1)
    module = import_file(write(tmp_path, g.current([out, after])))
    main_ops = [op for op in ops_of(module) if op.name not in ("tlir.const", "func.return")]
    assert [op.name for op in main_ops] == [
        "tlir.linear", "tlir.linear", "tlir.linear", "tlir.transpose", "tlir.matmul",
        "tlir.broadcast_to", "tlir.reshape", "tlir.mul_elem", "tlir.softmax", "tlir.matmul",
        "tlir.linear", "tlir.rand_uniform",
    ]  # fmt: skip
    # the scalar scale broadcast and reshaped: one node, the const [B, N, N] of the
    # expansion; input (0) + 10 attention nodes: the next tensor id is 11 (raw id 3)
    assert main_ops[-1].node_id.value.data == 11
    x = np.random.default_rng(2).normal(size=(1, 3, 4))
    y = evaluate(module, [x])[0]
    doc = g.current([out])
    node = doc["nodes"][1]
    lin = lambda v, p: v @ np.array(node[f"{p}_weight"]).T + np.array(node[f"{p}_bias"])  # noqa: E731
    q, k, v = lin(x[0], "q"), lin(x[0], "k"), lin(x[0], "v")
    s = (q @ k.T) * (4**-0.5)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    expect = lin((e / e.sum(axis=1, keepdims=True)) @ v, "out")
    assert np.allclose(y[0], expect, rtol=1e-12, atol=1e-12)


def test_legacy_graph_rewrites(tmp_path):
    g = Graph([2, 6, 6])
    conv = g.add("conv2d", [0], [3, 6, 6], inC=2, outC=3, kH=3, kW=3, stride=1, padding=1,
                 weight=np.full((3, 2, 3, 3), 0.5).tolist(), bias=[0, 0, 1])  # fmt: skip
    p1 = g.add("max_pool2d", [conv], [3, 3, 3], kH=2, kW=2, stride=2)
    p2 = g.add("avg_pool2d_pad", [p1], [3, 3, 3], kH=3, kW=3, stride=1, padding=1)
    p3 = g.add("max_pool2d_pad", [p2], [3, 2, 2], kH=2, kW=2, stride=2, padding=1)
    p4 = g.add("avg_pool2d", [p3], [3, 1, 1], kH=2, kW=2, stride=1)
    sw = g.add("swap_first_two", [p4], [1, 3, 1])
    tr = g.add("transpose3d_last_two", [sw], [1, 1, 3])
    r = g.add("reduce_sum", [tr], [1, 3], axis=1)
    bcast = g.add("broadcastTo", [r], [2, 1, 3], from_shape=[1, 3], to_shape=[2, 1, 3])
    re = g.add("reshape", [bcast], [2, 3, 1, 1], in_shape=[2, 1, 3], out_shape=[2, 3, 1, 1])
    bn = g.add("batch_norm2d_nchw_eval", [re], [2, 3, 1, 1], channels=3, gamma=[1, 1, 1],
               beta=[0, 0, 0], mean=[0, 0, 0], var=[1, 1, 1], eps=1e-5)  # fmt: skip
    ln = g.add("layernorm", [bn], [2, 3, 1, 1], axis=1)
    module = import_file(write(tmp_path, g.legacy(ln)))
    names = op_names(module)
    assert names.count("tlir.max_pool") == 2 and names.count("tlir.avg_pool") == 2
    assert names.count("tlir.transpose") == 2 and "tlir.conv" in names
    assert "tlir.batch_norm_eval" in names and "tlir.reduce_sum" in names
    conv_op = next(op for op in ops_of(module) if op.name == "tlir.conv")
    assert conv_op.channel_axis.value.data == 0
    ln_op = next(op for op in ops_of(module) if op.name == "tlir.layernorm")
    assert ln_op.gamma is None and ln_op.eps.value.data == 1e-5
    y = evaluate(module, [np.ones((2, 6, 6))])[0]
    assert y.shape == (2, 3, 1, 1) and all(math.isfinite(v) for v in y.ravel())


def test_export_import_round_trip(tmp_path):
    g, outputs = every_op_graph()
    first = import_file(write(tmp_path, g.current(outputs)))
    exported = write(tmp_path, dumps(export_module(first)), "again.json")
    second = import_file(exported)
    strip = lambda m: str(m)  # noqa: E731 - locations are not printed by str()
    assert strip(first) == strip(second)


def test_attention_export_round_trip(tmp_path):
    """The same module again, but for the parameter names: they follow the JSON
    node ids, and the export writes the expansion's nodes one by one."""
    g, out = attention_graph()
    first = import_file(write(tmp_path, g.current([out])))
    second = import_file(write(tmp_path, dumps(export_module(first)), "again.json"))
    assert parameter_names(find_function(first)) == [
        f"node1.{p}_{w}" for p in ("q", "k", "v") for w in ("weight", "bias")
    ] + ["node1.scale", "node1.out_weight", "node1.out_bias"]
    assert parameter_names(find_function(second))[0] == "node1.weight"
    assert without_names(first) == without_names(second)


def without_names(module) -> str:
    for op in module.walk():
        op.attributes.pop("tlir.name", None)
    return str(module)


@pytest.mark.parametrize("name", ["cnn", "transformer_block", "legacy_cnn"])
def test_bundled_examples_import_and_run(name):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "examples"
    module = import_file(str(root / f"{name}.json"))
    outputs = evaluate(module, [np.load(root / f"{name}_input.npy")])
    assert all(np.all(np.isfinite(o)) for o in outputs)
