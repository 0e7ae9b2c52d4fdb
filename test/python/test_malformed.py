"""Malformed or inconsistent torchlean.ir.v1 files: each gets one clear error."""

from __future__ import annotations

import copy
import subprocess

import pytest
from graphs import Graph, write

from tlir.diagnostics import TlirError
from tlir.torchlean import import_file


def base() -> dict:
    g = Graph([2, 4])
    lin = g.add("linear", [0], [2, 3], out_dim=3, in_dim=4, weight=[[0.0] * 4] * 3, bias=[0, 0, 0])
    g.add("relu", [lin], [2, 3])
    return g.current([2])


def edit(change):
    def make() -> dict | str:
        doc = copy.deepcopy(base())
        result = change(doc)
        replaced = isinstance(result, str) or (isinstance(result, dict) and "nodes" in result)
        return result if replaced else doc

    return make


def with_node(kind: str, parents: list[int], shape, **fields):
    def change(doc):
        node = {"id": len(doc["nodes"]), "kind": kind, "parents": parents}
        if shape is not None:
            node["shape"] = shape
        node.update(fields)
        doc["nodes"].append(node)
        doc["output_ids"] = [node["id"]]

    return edit(change)


CASES = [
    ("not json", edit(lambda d: '{"format": "torchlean.ir.v1", '), r"model.json:1:\d+: error: invalid JSON"),
    ("nan token", edit(lambda d: '{"format": NaN}'), "NaN is not a JSON number"),
    ("top level list", edit(lambda d: "[]"), "the top level must be a JSON object"),
    ("wrong format", edit(lambda d: d.update(format="onnx")), "'format' must be \"torchlean.ir.v1\""),
    ("no format", edit(lambda d: d.pop("format") and None), "got nothing"),
    ("empty outputs", edit(lambda d: d.update(output_ids=[])), "'output_ids' must be a non-empty list"),
    ("bad output id", edit(lambda d: d.update(output_ids=[7])), "output id 7 does not name a node"),
    ("no input_id", edit(lambda d: d.pop("input_id")), "missing 'input_id'"),
    ("input_id wrong", edit(lambda d: d.update(input_id=1)), "'input_id' is 1 but the input node is node 0"),
    ("empty nodes", edit(lambda d: d.update(nodes=[])), "'nodes' must be a non-empty list"),
    ("id discipline", edit(lambda d: d["nodes"][1].update(id=5)), "node 1: 'id' is 5, expected 1"),
    ("forward parent", edit(lambda d: d["nodes"][1].update(parents=[2])), "parent 2 is not an earlier node"),
    ("negative parent", edit(lambda d: d["nodes"][2].update(parents=[-1])), "each parent must be a natural number"),
    ("two inputs", with_node("input", [], [2, 4]), "expected exactly one 'input' node, found 2"),
    ("no kind", edit(lambda d: d["nodes"][2].pop("kind") and None), "node 2: 'kind' must be a string"),
    ("unknown kind", with_node("gelu", [2], [2, 3]), "node 3 \\(gelu\\): unknown op kind 'gelu'"),
    ("missing shape", edit(lambda d: d["nodes"][2].pop("shape")), "node 2 \\(relu\\): missing field 'shape'"),
    ("float extent", edit(lambda d: d["nodes"][2].update(shape=[2.0, 3])), "'shape' must be a natural number, got 2.0"),
    ("arity", with_node("add", [2], [2, 3]), "node 3 \\(add\\): expects 2 parent\\(s\\), got 1"),
    ("declared shape", edit(lambda d: d["nodes"][2].update(shape=[3, 2])),
     "node 2 \\(relu\\): declared result shape \\[3, 2\\] does not match the inferred shape \\[2, 3\\]"),
    ("linear weight shape", edit(lambda d: d["nodes"][1].update(weight=[[0.0] * 4] * 2)),
     "node 1 \\(linear\\): field 'weight': expected a list of 3 at this level"),
    ("linear in_dim", edit(lambda d: d["nodes"][1].update(in_dim=5)), "payload in_dim = 5 does not match"),
    ("linear missing bias", edit(lambda d: d["nodes"][1].pop("bias")), "node 1 \\(linear\\): missing field 'bias'"),
    ("weight not numbers", edit(lambda d: d["nodes"][1].update(weight=[["a"] * 4] * 3)), "expected a number"),
    ("const values count", with_node("const", [], [2], values=[1.0]), "field 'values' must be a flat list of 2"),
    ("const no values", with_node("const", [], [2]), "missing field 'values'"),
    ("const value_shape", with_node("const", [], [2], value_shape=[3], values=[1, 2, 3]), "value_shape \\[3\\] does not match"),
    ("add shapes differ", with_node("add", [0, 2], [2, 3]), "operand shapes \\[2, 4\\] and \\[2, 3\\] differ"),
    ("reduce axis only", with_node("reduce_sum", [2], [2], axis=1), "needs 'axes' and 'keepdim'"),
    ("reduce axis range", with_node("reduce_sum", [2], [2], axes=[2], keepdim=False), "axis 2 is out of range for rank 2"),
    ("reduce dup axes", with_node("reduce_sum", [2], [], axes=[1, 1], keepdim=False), "has a duplicate"),
    ("reduce declared", with_node("reduce_sum", [2], [3], axes=[1], keepdim=False), "declared shape \\[3\\] does not match"),
    ("broadcast from", with_node("broadcast_to", [2], [4, 2, 3], from_shape=[2, 4], to_shape=[4, 2, 3]),
     "from_shape \\[2, 4\\] does not match the parent shape \\[2, 3\\]"),
    ("broadcast rule", with_node("broadcast_to", [2], [4, 3], from_shape=[2, 3], to_shape=[4, 3]),
     "extent 2 at source axis 0 is neither 1 nor 4"),
    ("reshape size", with_node("reshape", [2], [5], in_shape=[2, 3], out_shape=[5]), "cannot reshape \\[2, 3\\]"),
    ("flatten shape", with_node("flatten", [2], [6], value_shape=[3, 2]), "value_shape \\[3, 2\\] does not match"),
    ("permute", with_node("permute", [2], [3, 2], perm=[1, 1]), "perm entry 1 is repeated"),
    ("softmax axis", with_node("softmax", [2], [2, 3], axis=2), "axis 2 is out of range for rank 2"),
    ("custom", with_node("custom", [2], [2, 3], name="k"), "custom computations need a checked Lean body"),
    ("mask without extension", with_node("hard_masked_softmax", [2], [2, 3]), "no mask encoding"),
    ("bernoulli parent", with_node("bernoulli_mask", [2], [4], seed=1), "keep probability must be a scalar"),
    ("seed negative", with_node("rand_uniform", [], [4], seed=-3), "field 'seed' must be a natural number"),
    ("layernorm partial payload", with_node("layernorm", [2], [2, 3], axis=1, gamma=[1, 1, 1]),
     "missing field 'beta'"),
    ("conv channels", with_node("conv", [0], [2, 1, 2], spatial_rank=1, kernel=[3], stride=[1], padding=[0],
                                channel_axis=0, in_channels=3, out_channels=1, weight=[[[0] * 3] * 3], bias=[0]),
     "input channel extent 2 at axis 0 does not match in_channels = 3"),
    ("conv input_spatial", with_node("conv", [0], [1, 2], spatial_rank=1, kernel=[3], stride=[1], padding=[0],
                                     channel_axis=0, in_channels=2, out_channels=1, input_spatial=[5],
                                     weight=[[[0, 0, 0], [0, 0, 0]]], bias=[0]),
     "input_spatial \\[5\\] does not match"),
    ("pool lists", with_node("max_pool", [2], [2, 1], spatial_rank=1, kernel=[2, 2], stride=[1], padding=[0]),
     "field 'kernel' has 2 entries, expected 1"),
    ("tuple output", edit(lambda d: d["nodes"][2].update(value_kind="tuple", tuple_shapes=[[2, 3]])),
     "only multihead_attention may produce a tuple value"),
    ("getitem non tuple", with_node("tuple_getitem", [2], [2, 3], index=0), "needs a tuple-valued parent"),
    ("legacy conv rank", edit(lambda d: {**d, "output_id": 3, "output_ids": None} and {
        "format": "torchlean.ir.v1", "input_id": 0, "output_id": 1,
        "nodes": [{"id": 0, "kind": "input", "parents": [], "shape": [1, 2, 4, 4]},
                  {"id": 1, "kind": "conv2d", "parents": [0], "shape": [1, 1, 4, 4], "inC": 2,
                   "outC": 1, "kH": 3, "kW": 3, "stride": 1, "padding": 1}]}),
     "legacy conv2d has no batch axis"),
    ("legacy pool fit", edit(lambda d: {
        "format": "torchlean.ir.v1", "input_id": 0, "output_id": 1,
        "nodes": [{"id": 0, "kind": "input", "parents": [], "shape": [1, 2, 2]},
                  {"id": 1, "kind": "max_pool2d", "parents": [0], "shape": [1, 0, 0], "kH": 3, "kW": 3,
                   "stride": 1}]}),
     "does not fit H = 2"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "make", "message"), CASES, ids=[c[0] for c in CASES])
def test_malformed_file(tmp_path, name, make, message):
    path = write(tmp_path, make())
    with pytest.raises(TlirError, match=message) as info:
        import_file(path)
    assert str(info.value).startswith(f"{path}"), str(info.value)
    assert "\n" not in str(info.value)


def test_enough_malformed_cases():
    assert len(CASES) >= 25


@pytest.mark.parametrize("tool", ["tlir-translate --import-torchlean", "tlir-run --reference"])
def test_cli_reports_one_line_and_exit_1(tmp_path, tool):
    bad = copy.deepcopy(base())
    bad["nodes"][2]["shape"] = [3, 2]
    path = write(tmp_path, bad)
    out = tmp_path / "out.mlir"
    cmd = tool.split() + [path, "-o" if "translate" in tool else "--output", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{path}: error: node 2 (relu): declared result shape")
    assert not out.exists()


def test_run_rejects_wrong_input_shape(tmp_path):
    import numpy as np

    path = write(tmp_path, base())
    x = tmp_path / "x.npy"
    np.save(x, np.zeros((4, 2)))
    proc = subprocess.run(["tlir-run", path, "--reference", "--input", str(x)],
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "input 0 has shape [4, 2] and dtype float64, expected shape [2, 4]" in proc.stderr


def known_kinds_of(message: str) -> list[str]:
    head, _, listed = message.partition(" (known kinds: ")
    assert listed.endswith(")"), message
    return listed[:-1].split(", ")


def test_an_unknown_kind_is_named_first_then_the_known_kinds_sorted(tmp_path):
    path = write(tmp_path, with_node("gelu", [2], [2, 3])())
    with pytest.raises(TlirError) as info:
        import_file(path)
    message = info.value.message
    assert message.startswith("node 3 (gelu): unknown op kind 'gelu' (known kinds: ")
    kinds = known_kinds_of(message)
    assert kinds == sorted(kinds) and len(kinds) == len(set(kinds))
    # current-dialect kinds, the raw graph's kinds; no legacy kind in a current file
    assert {"add", "conv", "linear", "relu", "input", "multihead_attention"} <= set(kinds)
    assert {"tuple_getitem", "hard_masked_softmax", "rand_uniform"} <= set(kinds)
    assert "conv2d" not in kinds and "gelu" not in kinds


def test_a_legacy_file_lists_the_legacy_kinds_too(tmp_path):
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    doc = json.loads((root / "examples/legacy_cnn.json").read_text())
    doc["nodes"][1]["kind"] = "gelu"
    with pytest.raises(TlirError) as info:
        import_file(write(tmp_path, doc))
    kinds = known_kinds_of(info.value.message)
    assert kinds == sorted(kinds) and {"conv2d", "max_pool2d", "conv", "max_pool"} <= set(kinds)
