"""Minimised inputs the randomized tests (test_random_graphs.py,
test_fuzz_contract.py) found, kept as plain tests: each compiles on both back
ends and in both precisions and matches the reference bit for bit, or fails
with a one-line located error."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fuzz_graphs import same_bits

import tlir
from tlir.compiler.backend.mlir import find_tool
from tlir.diagnostics import TlirError
from tlir.reference import evaluate

BACKENDS = [
    "xdsl",
    pytest.param(
        "mlir", marks=pytest.mark.skipif(find_tool("mlir-opt") is None, reason="no mlir-opt")
    ),
]


def graph(input_shape: list[int], nodes: list[dict], outputs: list[int]) -> dict:
    first = {"id": 0, "kind": "input", "parents": [], "shape": input_shape}
    numbered = [{"id": i + 1, **node} for i, node in enumerate(nodes)]
    return {
        "format": "torchlean.ir.v1",
        "input_id": 0,
        "output_ids": outputs,
        "nodes": [first, *numbered],
    }


CONV = {"spatial_rank": 2, "kernel": [1, 1], "stride": [1, 1], "dilation": [1, 1], "groups": 1}
CASES = {
    # An empty input padded into a non-empty window: the copy of the empty input
    # into the padded buffer was a subview at offset 1 of an extent-1 axis,
    # which mlir-opt rejects ("offset 2 is out-of-bounds: 1 >= 1").
    "conv_of_empty_input_with_padding": graph(
        [0],
        [
            {"kind": "const", "parents": [], "shape": [1, 0, 0], "values": []},
            {
                "kind": "conv", "parents": [1], "shape": [1, 1, 1], **CONV,
                "padding": [0, 1], "padding_after": [1, 0], "channel_axis": 0,
                "in_channels": 1, "out_channels": 1, "weight": [[[[2.0]]]], "bias": [-0.0],
            },
        ],
        [2],
    ),
    "concat_with_an_empty_operand": graph(
        [2, 0],
        [
            {"kind": "const", "parents": [], "shape": [2, 3], "values": [1, 2, 3, 4, 5, 6]},
            {"kind": "concat", "parents": [0, 1, 0], "shape": [2, 3], "axis": 1},
            {"kind": "concat", "parents": [1, 0], "shape": [2, 3], "axis": 1},
        ],
        [2, 3],
    ),
    "avg_pool_of_empty_padded_axis": graph(
        [1, 0],
        [
            {
                "kind": "avg_pool", "parents": [0], "shape": [1, 0], "spatial_rank": 1,
                "kernel": [1], "stride": [1], "padding": [0],
            },
        ],
        [1],
    ),
}  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_found_by_fuzzing_compiles_and_matches(tmp_path, name, dtype, backend):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(CASES[name]))
    shape = CASES[name]["nodes"][0]["shape"]
    x = np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape)
    x = x.astype(np.float32 if dtype == "f32" else np.float64)
    want = evaluate(tlir.load_model(str(path), dtype), [x])
    got = tlir.compile(str(path), dtype=dtype, backend=backend)(x)
    assert all(same_bits(g, w) for g, w in zip(got, want, strict=True)), (got, want)


def test_json_nested_too_deeply_is_invalid_json(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(TlirError, match=r"deep\.json: error: invalid JSON: .*nested too deeply"):
        tlir.load_model(str(path))


def test_f32_import_of_a_value_beyond_f32_prints_no_warning(tmp_path):
    """1e300 rounds to inf in f32 (the documented rounding), silently."""
    import subprocess
    import sys

    path = tmp_path / "big.json"
    path.write_text(
        json.dumps(
            graph(
                [], [{"kind": "const", "parents": [], "shape": [2], "values": [1e300, -1e300]}], [1]
            )
        )
    )
    script = "import sys; from tlir.tools.translate import main; sys.exit(main(sys.argv[1:]))"
    args = ["--import-torchlean", "--dtype", "f32", str(path)]
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "0x7f800000, 0xff800000" in proc.stdout


USE_BEFORE_DEFINITION = """func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = tlir.relu %1 : (tensor<2xf64>) -> tensor<2xf64>
  %1 = tlir.abs %x : (tensor<2xf64>) -> tensor<2xf64>
  func.return %0 : tensor<2xf64>
}
"""


def test_use_before_definition_is_a_located_error(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text(USE_BEFORE_DEFINITION)
    with pytest.raises(TlirError) as err:
        tlir.load_model(str(path))
    assert (
        str(err.value)
        == f"{path}:2:3: error: 'tlir.relu' op operand #0 is used before its definition"
    )


@pytest.mark.parametrize(
    "text, column, detail",
    [
        ('"test.op"() {a = 1.0e10 : f16} : () -> ()', 30, "too large to pack"),
        ('"test.op"() {a = 0x1FFFFFFFF : f32} : () -> ()', 35, "int too big"),
    ],
)
def test_attribute_value_out_of_range_is_a_located_parse_error(text, column, detail):
    from tlir.api import parse_module_checked
    from tlir.universe import context

    ctx = context()
    ctx.allow_unregistered = True
    with pytest.raises(TlirError) as err:
        parse_module_checked(text, "m.mlir", ctx)
    message = str(err.value)
    assert message.startswith(f"m.mlir:1:{column}: error: a value is out of range for its type"), (
        message
    )
    assert detail in message and "\n" not in message


def test_parse_error_without_a_message_names_the_token():
    from tlir.api import parse_module_checked

    with pytest.raises(TlirError) as err:
        parse_module_checked("builtin.module { {\n", "m.mlir")
    assert str(err.value) == "m.mlir:1:18: error: unexpected '{' in block definition"


def test_a_type_beyond_the_tensor_limit_is_refused_while_parsing(monkeypatch):
    """A huge splat is refused at its type, before xDSL would expand it."""
    from tlir.api import parse_module_checked
    from tlir.universe import context

    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "1000")
    ctx = context()
    ctx.allow_unregistered = True
    text = '"test.op"() {a = dense<0.0> : tensor<4294967296xf32>} : () -> ()'
    with pytest.raises(TlirError) as err:
        parse_module_checked(text, "m.mlir", ctx)
    assert str(err.value) == (
        "m.mlir:1:38: error: tensor<4294967296xf32> takes 17179869184 bytes, more than the "
        "limit of 1000 (set TLIR_MAX_TENSOR_BYTES to change it)"
    )
    parse_module_checked('"test.op"() {a = dense<0.0> : tensor<250xf32>} : () -> ()', "m.mlir", ctx)
    # An extent beyond 64 bits (which xDSL cannot pack) meets the same check.
    huge = '"test.op"() {a = dense<0.0> : tensor<9223372036854775808xf32>} : () -> ()'
    with pytest.raises(TlirError, match=r"^m\.mlir:1:38: error: tensor<9223372036854775808xf32>"):
        parse_module_checked(huge, "m.mlir", ctx)


def test_an_internal_error_of_an_op_parser_is_a_located_error(tmp_path, capsys):
    """xDSL's linalg.fill parser raises IndexError on a repeated op name; the
    user sees a one-line error at the op and exit code 1."""
    from tlir.tools.opt import main as opt_main

    path = tmp_path / "fill.mlir"
    path.write_text(
        "func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {\n"
        "  %c = arith.constant 0.0 : f64\n"
        "  %r = linalg.fill linalg.fill ins(%c : f64) outs(%x : tensor<4xf64>) -> tensor<4xf64>\n"
        "  func.return %r : tensor<4xf64>\n"
        "}\n"
    )
    assert opt_main([str(path)]) == 1
    error = capsys.readouterr().err.strip()
    assert error == (
        f"{path}:3:3: error: cannot parse this op (xDSL's parser failed: IndexError)"
    ), error
    with pytest.raises(TlirError, match=r"fill.mlir:3:3: error: cannot parse this op"):
        tlir.load_model(str(path))


@pytest.mark.parametrize("op", ["avg_pool", "max_pool"])
def test_a_pool_emptied_by_a_huge_padding_evaluates_and_compiles(op):
    """A padding past kernel // 2 empties its axis (TorchLean's poolOutDim), whatever
    its size: an i64 of 9.2e18 made the reference evaluator try to pad the input."""
    text = (
        "func.func @main(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {\n"
        f"  %0 = tlir.{op} %x {{kernel = array<i64: 1>, stride = array<i64: 1>, "
        "padding = array<i64: 0x7FF8000000000000>} : (tensor<3x0xf32>) -> tensor<3x0xf32>\n"
        "  func.return %0 : tensor<3x0xf32>\n}\n"
    )
    module = tlir.parse_module(text)
    x = np.zeros((3, 0), np.float32)
    (expected,) = evaluate(module, [x])
    assert expected.shape == (3, 0) and expected.dtype == np.float32
    (got,) = tlir.compile(text, cache=False)(x)
    assert got.shape == (3, 0)


def test_an_empty_conv_with_an_extreme_padding_is_a_located_error_or_evaluates(tmp_path):
    """A batch of 0 leaves the result empty however large the padding: the
    reference builds no padded input (numpy: 'Maximum allowed dimension exceeded').
    Past what a NumPy array can describe (extents above 2**63 bytes, zeros left
    out), the result type itself is refused, at its op."""

    def text(p: int) -> tuple[str, int]:
        width = 4 + 2 * p  # (4 + 2p - 1) // 1 + 1
        return (
            "func.func @main(%x: tensor<0x1x4xf64>) -> tensor<0x1x" + str(width) + "xf64> {\n"
            "  %w = tlir.const {value = dense<1.0> : tensor<1x1x1xf64>} : tensor<1x1x1xf64>\n"
            "  %b = tlir.const {value = dense<0.0> : tensor<1xf64>} : tensor<1xf64>\n"
            "  %y = tlir.conv %x, %w, %b {spatial_rank = 1 : i64, channel_axis = 1 : i64,"
            " in_channels = 1 : i64, out_channels = 1 : i64, kernel = array<i64: 1>,"
            f" stride = array<i64: 1>, padding = array<i64: {p}>,"
            f" padding_after = array<i64: {p}>, dilation = array<i64: 1>, groups = 1 : i64}}"
            f" : (tensor<0x1x4xf64>, tensor<1x1x1xf64>, tensor<1xf64>)"
            f" -> tensor<0x1x{width}xf64>\n"
            f"  func.return %y : tensor<0x1x{width}xf64>\n}}\n"
        ), width

    x = np.zeros((0, 1, 4))
    source, width = text(1 << 40)  # an empty result NumPy can describe
    (expected,) = evaluate(tlir.parse_module(source), [x])
    assert expected.shape == (0, 1, width)
    assert tlir.compile(source, cache=False)(x)[0].shape == (0, 1, width)
    # Past NumPy: refused where the type is written (the argument of a mutated
    # module, tensor<9223372036854775808x0xf32>, stopped the fuzzer's own harness) ...
    source, width = text(1 << 61)
    with pytest.raises(TlirError, match=r"<string>:\d+:\d+: error: tensor<0x1x\d+xf64> cannot"):
        tlir.compile(source, cache=False)
    # ... and, for a module built otherwise (JSON), at the op holding it.
    graph = {
        "format": "torchlean.ir.v1", "input_id": 0, "output_ids": [1],
        "nodes": [
            {"id": 0, "kind": "input", "parents": [], "shape": [0, 1 << 62]},
            {"id": 1, "kind": "relu", "parents": [0], "shape": [0, 1 << 62]},
        ],
    }  # fmt: skip
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(graph))
    module = tlir.load_model(str(path))
    for run in (lambda: evaluate(module, [np.zeros((0, 1))]), lambda: tlir.compile(module)):
        with pytest.raises(TlirError, match=r"the empty tensor<0x\d+xf64> cannot be a NumPy"):
            run()


@pytest.mark.parametrize("op", ["avg_pool", "max_pool"])
def test_derivatives_of_an_emptied_pool_evaluate_and_compile(op):
    """An op whose result has no elements contributes nothing to a VJP: tlir-vjp
    ran the pool's rule, whose padded input (a padding of 9.2e18) was refused as
    a tensor of 2**64 elements; the references agree (empty results, +0)."""
    from tlir.reference import jvp, vjp

    text = (
        "func.func @main(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {\n"
        f"  %0 = tlir.{op} %x {{kernel = array<i64: 1>, stride = array<i64: 1>, "
        "padding = array<i64: 0x7FF8000000000000>} : (tensor<3x0xf32>) -> tensor<3x0xf32>\n"
        "  func.return %0 : tensor<3x0xf32>\n}\n"
    )
    x = np.zeros((3, 0), np.float32)
    module = tlir.parse_module(text)
    assert [a.shape for a in jvp(module, [x], [x])] == [(3, 0), (3, 0)]
    assert [a.shape for a in vjp(module, [x], [x])] == [(3, 0), (3, 0)]
    model = tlir.compile(text, cache=False)
    ys, dys = model.jvp([x], [x])
    assert ys[0].shape == dys[0].shape == (3, 0)
    outputs, grads, _ = model.vjp([x], [x])
    assert outputs[0].shape == grads[0].shape == (3, 0)
