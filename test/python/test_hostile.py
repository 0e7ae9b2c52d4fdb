"""Hostile input: every bad file, flag, environment variable, array or API
argument gets one line (`where: error: message`), exit code 1, no traceback, no
"internal error", nothing half-written — and never a crash, a hang, code
execution or unbounded memory. One test (or a few) per failure class, each
built from the input that used to break it."""

from __future__ import annotations

import gc
import json
import os
import re
import stat
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tlir
from tlir.diagnostics import TlirError, printable
from tlir.reference import evaluate
from tlir.tools import opt as opt_tool
from tlir.tools import run as run_tool
from tlir.tools import translate as translate_tool

ROOT = Path(__file__).resolve().parents[2]

SOFTMAX = """func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = tlir.softmax %x axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  func.return %0 : tensor<2x3xf64>
}
"""


def graph(nodes: list[dict], output: int) -> dict:
    return {"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [output], "nodes": nodes}


def node(node_id: int, kind: str, parents: list[int], shape, **fields) -> dict:
    return {"id": node_id, "kind": kind, "parents": parents, "shape": shape, **fields}


def write_json(tmp_path: Path, document, name: str = "model.json") -> str:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def write_text(tmp_path: Path, text: str, name: str = "model.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def save(tmp_path: Path, array: np.ndarray, name: str = "x.npy") -> str:
    path = tmp_path / name
    np.save(path, array)
    return str(path)


def one_line_error(tool_main, argv: list[str], capsys) -> str:
    """Run a tool in-process: exit code 1 and exactly one line on stderr, which
    is returned; never a traceback nor an internal error."""
    code = tool_main(argv)
    err = capsys.readouterr().err
    assert code == 1, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    return lines[0]


# --- F1: memory: tensor sizes checked before anything is allocated ------------

BROADCAST_EXP_SUM = graph(
    [
        node(0, "input", [], [1]),
        node(1, "broadcast_to", [0], [10**10], from_shape=[1], to_shape=[10**10]),
        node(2, "exp", [1], [10**10]),
        node(3, "sum", [2], []),
    ],
    3,
)

HUGE_MLIR = """func.func @main(%x: tensor<1xf64>) -> tensor<f64> {
  %b = tlir.broadcast_to %x : (tensor<1xf64>) -> tensor<1152921504606846976xf64>
  %e = tlir.exp %b : (tensor<1152921504606846976xf64>) -> tensor<1152921504606846976xf64>
  %s = tlir.sum %e : (tensor<1152921504606846976xf64>) -> tensor<f64>
  func.return %s : tensor<f64>
}
"""


@pytest.mark.parametrize("mode", ["compiled", "reference"])
def test_f1_json_broadcast_to_ten_billion_is_rejected_at_its_node(tmp_path, capsys, mode):
    path = write_json(tmp_path, BROADCAST_EXP_SUM)
    x = save(tmp_path, np.ones(1))
    flags = ["--reference"] if mode == "reference" else ["--no-cache"]
    line = one_line_error(run_tool.main, [path, "--input", x, *flags], capsys)
    assert line.startswith(f"{path}: node 1: error: 'tlir.broadcast_to' op: the tensor")
    assert "tensor<10000000000xf64>" in line and "TLIR_MAX_TENSOR_BYTES" in line


@pytest.mark.parametrize("mode", ["compiled", "reference"])
def test_f1_mlir_tensor_of_2_to_the_60_elements_is_rejected(tmp_path, capsys, mode):
    path = write_text(tmp_path, HUGE_MLIR)
    x = save(tmp_path, np.ones(1))
    flags = ["--reference"] if mode == "reference" else ["--no-cache"]
    line = one_line_error(run_tool.main, [path, "--input", x, *flags], capsys)
    # refused where the type is written, before anything is built from it
    assert line.startswith(f"{path}:2:57: error: tensor<1152921504606846976xf64> takes ")
    assert line.endswith("(set TLIR_MAX_TENSOR_BYTES to change it)")


def test_f1_limit_comes_from_the_environment(monkeypatch):
    model = tlir.parse_module(SOFTMAX, "m.mlir")
    x = np.ones((2, 3))
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "47")  # a 2x3 f64 tensor is 48 bytes
    with pytest.raises(TlirError, match=r"m.mlir:1:1: error: 'func.func' op: the tensor"):
        evaluate(model, [x])
    with pytest.raises(TlirError, match="more than the limit of 47 bytes"):
        tlir.compile(model, cache=False)
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "48")
    assert evaluate(model, [x])[0].shape == (2, 3)
    # the compiled model's workspace (its tensors alive at once, 64-byte aligned) counts too
    with pytest.raises(TlirError, match="the workspace of the compiled model takes"):
        tlir.compile(model, cache=False)
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "4096")
    assert tlir.compile(model, cache=False)(x)[0].shape == (2, 3)


@pytest.mark.parametrize("value", ["abc", "0", "-5", "1e9", ""])
def test_f1_bad_limit_in_the_environment_is_one_line(tmp_path, capsys, monkeypatch, value):
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", value)
    path = write_text(tmp_path, SOFTMAX)
    x = save(tmp_path, np.ones((2, 3)))
    line = one_line_error(run_tool.main, [path, "--input", x, "--reference"], capsys)
    assert (
        line == f"TLIR_MAX_TENSOR_BYTES: error: must be a positive integer (bytes), got '{value}'"
    )


def test_f1_allocation_beyond_i64_is_an_error_not_a_wrapped_size(tmp_path, capsys, monkeypatch):
    # a limit above the size, so that the parser lets the type through to the lowering
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", str(10**30))
    text = HUGE_MLIR.replace("1152921504606846976", "2305843009213693952")
    path = write_text(tmp_path, text)
    line = one_line_error(opt_tool.main, [path, "-p", "tlir-to-llvm"], capsys)
    assert "beyond malloc's range" in line


# --- F2: an unterminated string literal is rejected in linear time ------------


def test_f2_unterminated_string_fails_fast(tmp_path, capsys):
    # 200,000 characters: milliseconds in linear time, hours in quadratic time, so
    # the generous bound holds on a loaded machine and still catches a quadratic lexer
    text = 'func.func @f() attributes {s = "' + "a" * 200_000 + "} {\n"
    path = write_text(tmp_path, text)
    start = time.perf_counter()
    line = one_line_error(opt_tool.main, [path], capsys)
    assert time.perf_counter() - start < 10.0
    assert line == f"{path}:1:32: error: End of file reached before closing string literal."


def test_f2_string_literals_still_lex_as_before():
    text = 'func.func @f() attributes {s = "a\\"b\\\\c\\0A\\n\\t", t = ""} {\n  func.return\n}\n'
    module = tlir.parse_module(text)
    attrs = next(iter(module.ops)).attributes
    assert attrs["s"].data == 'a"b\\c\n\n\t' and attrs["t"].data == ""


# --- F3: malformed pass pipelines ---------------------------------------------


@pytest.mark.parametrize("pipeline", [",", "}", " ", ",,", "convert-tlir-to-linalg{"])
def test_f3_malformed_pipeline_is_one_line(tmp_path, capsys, pipeline):
    path = write_text(tmp_path, SOFTMAX)
    line = one_line_error(opt_tool.main, [path, "-p", pipeline], capsys)
    assert line.startswith(f"tlir-opt: error: bad pass pipeline '{pipeline}': Expected")


# --- F4: no code execution: passes, external calls ----------------------------


def test_f4_mlir_opt_pass_is_not_offered(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDSL_MLIR_OPT", "sh")
    path = write_text(tmp_path, SOFTMAX)
    pipeline = 'mlir-opt{executable="sh" arguments="-c","id > pwned; cat"}'
    line = one_line_error(opt_tool.main, [path, "-p", pipeline], capsys)
    assert "unknown pass 'mlir-opt' (known passes: " in line
    assert not (tmp_path / "pwned").exists()


def test_f4_only_tlir_and_safe_xdsl_passes_are_registered():
    from tlir.universe import tlir_passes

    available = set(opt_tool.TlirOptMain([]).available_passes)
    assert available == set(opt_tool.SAFE_XDSL_PASSES) | set(tlir_passes())
    assert "mlir-opt" not in available and "apply-pdl" not in available


EXIT_42 = """func.func private @exit(i32)
func.func private @k(%x: tensor<2xf64>) -> tensor<2xf64> attributes {tlir.kernel} {
  %c = arith.constant 42 : i32
  func.call @exit(%c) : (i32) -> ()
  %y = tlir.exp %x : (tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}
func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = func.call @k(%x) : (tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}
"""


def test_f4_model_calling_exit_is_a_compile_error(tmp_path):
    """In a subprocess: were the call compiled, it would end the test process."""
    path = write_text(tmp_path, EXIT_42)
    x = save(tmp_path, np.ones(2))
    proc = subprocess.run(
        [sys.executable, "-m", "tlir.tools.run", path, "--input", x, "--no-cache"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == (
        f"{path}:4:3: error: 'func.call' op calls @exit, which the module does not define "
        "(a compiled model may call only its own functions)\n"
    )


def test_f4_declared_external_function_in_llvm_ir_is_refused():
    from tlir.compiler import jit

    ir = "declare void @system(ptr)\ndefine void @f(ptr %p) {\n  call void @system(ptr %p)\n  ret void\n}\n"
    with pytest.raises(TlirError, match="external function @system"):
        jit.compile_object(ir, 0, "m.mlir")
    ir = "@environ = external global ptr\ndefine ptr @f() {\n  %p = load ptr, ptr @environ\n  ret ptr %p\n}\n"
    with pytest.raises(TlirError, match="external variable @environ"):
        jit.compile_object(ir, 0, "m.mlir")
    ir = "declare ptr @malloc(i64)\ndefine ptr @f() {\n  %p = call ptr @malloc(i64 8)\n  ret ptr %p\n}\n"
    with pytest.raises(TlirError, match="external function @malloc"):  # never unchecked
        jit.compile_object(ir, 0, "m.mlir")


# --- F5: custom calls may not recurse -----------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            """func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = tlir.custom @main(%x) {name = "m"} : (tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}""",
            r"m.mlir:2:\d+: error: tlir.custom: callee @main calls back into @main",
        ),
        (
            """func.func @a(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = tlir.custom @b(%x) {name = "b"} : (tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}
func.func @b(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = tlir.custom @a(%x) {name = "a"} : (tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}
func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = tlir.custom @a(%x) {name = "a"} : (tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}""",
            r"m.mlir:2:\d+: error: tlir.custom: callee @b calls back into @a",
        ),
    ],
    ids=["direct", "indirect"],
)
def test_f5_recursive_custom_calls_are_rejected(tmp_path, text, message):
    path = write_text(tmp_path, text, "m.mlir")
    with pytest.raises(TlirError, match=message.replace("m.mlir", path)):
        tlir.load_model(path)


# --- F6: output files ---------------------------------------------------------


def test_f6_symlink_is_followed_and_stays_a_symlink(tmp_path):
    from tlir.tools.common import write_output

    target = tmp_path / "target.mlir"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.mlir"
    link.symlink_to(target.name)
    write_output(str(link), "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    dangling = tmp_path / "dangling"
    dangling.symlink_to("created")
    write_output(str(dangling), "made")
    assert dangling.is_symlink() and (tmp_path / "created").read_text() == "made"


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_f6_new_files_get_the_umask_mode(tmp_path, mask):
    from tlir.tools.common import write_output

    previous = os.umask(mask)
    try:
        write_output(str(tmp_path / "out"), b"data")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == 0o666 & ~mask


def test_f6_devices_are_written_not_replaced(tmp_path):
    from tlir.tools.common import write_output

    write_output("/dev/null", "discarded")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    read, write = os.pipe()
    try:
        write_output(f"/proc/self/fd/{write}", "through the pipe")
        assert os.read(read, 100) == b"through the pipe"
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.parametrize(
    ("tool", "argv"),
    [
        (opt_tool.main, ["{model}", "-o", "{out}"]),
        (translate_tool.main, ["--export-torchlean", "{model}", "-o", "{out}"]),
        (run_tool.main, ["{model}", "--input", "{x}", "--reference", "--output", "{out}"]),
    ],
    ids=["tlir-opt", "tlir-translate", "tlir-run"],
)
def test_f6_every_tool_writes_through_symlinks_and_names_the_path_on_failure(
    tmp_path, capsys, tool, argv
):
    model = write_text(tmp_path, SOFTMAX)
    x = save(tmp_path, np.ones((2, 3)))
    (tmp_path / "real").write_text("old")
    (tmp_path / "link").symlink_to("real")
    fill = {"model": model, "x": x, "out": str(tmp_path / "link")}
    assert tool([a.format(**fill) for a in argv]) == 0
    assert (tmp_path / "link").is_symlink() and (tmp_path / "real").read_bytes() != b"old"
    capsys.readouterr()
    missing = str(tmp_path / "no-such-dir" / "out")
    fill["out"] = missing
    line = one_line_error(tool, [a.format(**fill) for a in argv], capsys)
    assert line == f"{missing}: error: cannot write the output file: No such file or directory"
    assert not list(tmp_path.glob("**/.tlir-*"))


# --- F7: integers beyond i64 are rejected, never wrapped ----------------------

BIG = 2**64


@pytest.mark.parametrize(
    ("kind", "shape", "fields", "message"),
    [
        ("softmax", [2, 3], {"axis": BIG}, "field 'axis' is 18446744073709551616, out of range"),
        ("transpose", [3, 2], {"axis1": BIG, "axis2": 1}, "field 'axis1' is"),
        ("permute", [3, 2], {"perm": [BIG + 1, 0]}, "field 'perm' is 18446744073709551617"),
        ("concat", [4, 3], {"axis": 2**63}, "field 'axis' is 9223372036854775808, out of range"),
    ],
)
def test_f7_json_integers_beyond_i64(tmp_path, capsys, kind, shape, fields, message):
    parents = [0, 0] if kind == "concat" else [0]
    document = graph([node(0, "input", [], [2, 3]), node(1, kind, parents, shape, **fields)], 1)
    path = write_json(tmp_path, document)
    line = one_line_error(translate_tool.main, ["--import-torchlean", path], capsys)
    assert line.startswith(f"{path}: error: node 1 ({kind}): ") and message in line


def test_f7_max_pool_kernel_beyond_i64(tmp_path, capsys):
    fields = {"spatial_rank": 2, "kernel": [BIG, 1], "stride": [1, 1], "padding": [0, 0]}
    document = graph(
        [node(0, "input", [], [1, 2, 3]), node(1, "max_pool", [0], [1, 1, 1], **fields)], 1
    )
    path = write_json(tmp_path, document)
    line = one_line_error(translate_tool.main, ["--import-torchlean", path], capsys)
    assert "field 'kernel' is 18446744073709551616, out of range" in line


def test_f7_a_seed_may_exceed_i64_and_is_taken_mod_2_to_the_64(tmp_path):
    def uniform(seed: int) -> np.ndarray:
        document = graph(
            [node(0, "input", [], [2]), node(1, "rand_uniform", [], [4], seed=seed)], 1
        )
        path = write_json(tmp_path, document, f"seed{seed}.json")
        return evaluate(tlir.load_model(path), [np.zeros(2)])[0]

    assert uniform(7 + 2**64 * 3).tobytes() == uniform(7).tobytes()


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            "tlir.softmax %x axis = 18446744073709551616 : (tensor<2x3xf64>) -> tensor<2x3xf64>",
            "out of range for type i64",
        ),
        (
            "tlir.max_pool %x {kernel = array<i64: -3>, stride = array<i64: 1>, "
            "padding = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>",
            "kernel is -3 at spatial axis 0, not a natural number",
        ),
        (
            "tlir.max_pool %x {kernel = array<i64: 9223372036854775808>, stride = array<i64: 1>, "
            "padding = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<2x3xf64>",
            "not a natural number",
        ),
    ],
)
def test_f7_mlir_integer_properties_out_of_range(tmp_path, capsys, op, message):
    text = SOFTMAX.replace("tlir.softmax %x axis = 1 : (tensor<2x3xf64>) -> tensor<2x3xf64>", op)
    path = write_text(tmp_path, text)
    line = one_line_error(opt_tool.main, [path], capsys)
    assert line.startswith(f"{path}:2:") and message in line


# --- F8, F15, F9: float payloads and properties beyond a carrier's range ------


def run_both(path: str, x: np.ndarray, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    module = tlir.load_model(path, dtype)
    compiled = tlir.compile(module, cache=False)(x)[0]
    return compiled, evaluate(module, [x])[0]


def layernorm_graph(eps) -> dict:
    fields = {"axis": 1, "eps": eps, "gamma": [1, 1, 1], "beta": [0, 0, 0]}
    return graph([node(0, "input", [], [2, 3]), node(1, "layernorm", [0], [2, 3], **fields)], 1)


def test_f8_layernorm_eps_beyond_f32_rounds_to_inf_in_both(tmp_path):
    path = write_json(tmp_path, layernorm_graph(1e308))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled, reference = run_both(path, x, "f32")
    assert compiled.tobytes() == reference.tobytes()
    assert np.all(compiled == 0)  # (x - mean) / sqrt(var + inf)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_f15_integer_literal_beyond_binary64_reads_as_inf(tmp_path, dtype):
    document = graph(
        [
            node(0, "input", [], [2, 3]),
            node(1, "const", [], [2, 3], values=[2, 2, 2, 2, 2, -2]),
            node(2, "add", [0, 1], [2, 3]),
        ],
        2,
    )
    text = json.dumps(document).replace(
        "[2, 2, 2, 2, 2, -2]", f"[1{'0' * 400}, 2, 2, 2, 2, -1{'0' * 400}]"
    )
    path = write_json(tmp_path, text)
    x = np.zeros((2, 3), np.float32 if dtype == "f32" else np.float64)
    compiled, reference = run_both(path, x, dtype)
    assert compiled.tobytes() == reference.tobytes()
    assert compiled[0, 0] == np.inf and compiled[1, 2] == -np.inf and compiled[0, 1] == 2


def test_f15_integer_eps_beyond_binary64(tmp_path):
    text = json.dumps(layernorm_graph(3)).replace('"eps": 3', f'"eps": 1{"0" * 400}')
    path = write_json(tmp_path, text)
    compiled, reference = run_both(path, np.arange(6.0).reshape(2, 3), "f64")
    assert compiled.tobytes() == reference.tobytes()


def test_f9_const_beyond_f32_rounds_to_inf_without_a_warning(tmp_path):
    document = graph(
        [
            node(0, "input", [], [2, 3]),
            node(1, "const", [], [2, 3], values=[1e39] * 6),
            node(2, "add", [0, 1], [2, 3]),
        ],
        2,
    )
    path = write_json(tmp_path, document)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled, reference = run_both(path, np.zeros((2, 3), np.float32), "f32")
    assert compiled.tobytes() == reference.tobytes() and np.all(np.isinf(compiled))


# --- F10: argument and syntax errors are one line, exit 1 ---------------------


@pytest.mark.parametrize(
    ("tool", "argv", "message"),
    [
        (
            opt_tool.main,
            ["--no-such-flag"],
            "tlir-opt: error: unrecognized arguments: --no-such-flag",
        ),
        (opt_tool.main, ["-t", "x86-asm"], "tlir-opt: error: argument -t/--target: invalid choice"),
        (translate_tool.main, [], "tlir-translate: error: one of the arguments"),
        (translate_tool.main, ["-t", "x86-asm"], "tlir-translate: error: "),
        (run_tool.main, [], "tlir-run: error: the following arguments are required: model"),
        (run_tool.main, ["m.json", "--dtype", "f16"], "tlir-run: error: argument --dtype"),
        (run_tool.main, ["m.json", "-O", "99"], "tlir-run: error: argument -O/--opt-level"),
    ],
)
def test_f10_argument_errors(capsys, tool, argv, message):
    assert one_line_error(tool, argv, capsys).startswith(message)


@pytest.mark.parametrize("name", ["model.json", "model.mlir"])
def test_f10_a_file_holding_an_open_string(tmp_path, capsys, name):
    path = write_text(tmp_path, '"x', name)
    x = save(tmp_path, np.ones(1))
    line = one_line_error(run_tool.main, [path, "--input", x], capsys)
    assert line.startswith(f"{path}:1:1: error: ")
    assert one_line_error(opt_tool.main, [write_text(tmp_path, '"x', "o.mlir")], capsys)


# --- F11: user errors that used to be internal errors -------------------------


def test_f11_empty_npy(tmp_path, capsys):
    model = write_text(tmp_path, SOFTMAX)
    (tmp_path / "x.npy").write_bytes(b"")
    line = one_line_error(run_tool.main, [model, "--input", str(tmp_path / "x.npy")], capsys)
    assert line == f"{tmp_path / 'x.npy'}: error: not a .npy array: the file is empty or cut short"


def test_f11_property_of_the_wrong_type_is_located(tmp_path, capsys):
    text = SOFTMAX.replace(
        "tlir.softmax %x axis = 1 :", '"tlir.softmax"(%x) <{axis = 1 : index}> :'
    )
    line = one_line_error(opt_tool.main, [write_text(tmp_path, text)], capsys)
    assert ":2:3: error: 'tlir.softmax' op Expected attribute i64 but got index" in line


def test_f11_scalar_main_is_located(tmp_path, capsys):
    path = write_text(tmp_path, "func.func @main(%x: f64) -> f64 {\n  func.return %x : f64\n}\n")
    x = save(tmp_path, np.array(1.0))
    for flags in (["--reference"], ["--no-cache"]):
        line = one_line_error(run_tool.main, [path, "--input", x, *flags], capsys)
        assert (
            line == f"{path}:1:1: error: @main argument 0 is f64: a model takes and returns "
            "tensors of f32 or f64 with static shapes"
        )


@pytest.mark.parametrize("name", ["Random/ops.mlir", "Tlir/ops.mlir"])
def test_f11_tlir_to_llvm_on_the_dialect_tests(capsys, name):
    code = opt_tool.main([str(ROOT / "test/Dialect" / name), "-p", "tlir-to-llvm"])
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    assert code == 0 or len(err.splitlines()) == 1


def test_f11_scalar_function_through_tlir_to_llvm(tmp_path, capsys):
    path = write_text(tmp_path, "func.func @f(%x: f64) -> f64 {\n  func.return %x : f64\n}\n")
    assert opt_tool.main([path, "-p", "tlir-to-llvm"]) == 0
    assert "llvm.func @f" in capsys.readouterr().out


def test_f11_deep_nesting(tmp_path, capsys):
    deep = "[" * 100_000 + "]" * 100_000
    path = write_text(tmp_path, deep, "deep.json")
    x = save(tmp_path, np.ones(1))
    assert one_line_error(run_tool.main, [path, "--input", x], capsys) == (
        f"{path}: error: invalid JSON: nested too deeply"
    )
    path = write_text(tmp_path, "func.func @f() attributes {a = " + deep + "} {}", "deep.mlir")
    for tool, argv in ((opt_tool.main, [path]), (run_tool.main, [path, "--input", x])):
        assert one_line_error(tool, argv, capsys) == (
            f"{path}: error: the input is nested too deeply to parse"
        )


def test_f11_disable_verify_on_invalid_ir_reports_the_verifier(tmp_path, capsys):
    path = write_text(tmp_path, SOFTMAX.replace("axis = 1", "axis = 3"))
    line = one_line_error(
        opt_tool.main, [path, "--disable-verify", "-p", "convert-tlir-to-linalg"], capsys
    )
    assert line == f"{path}:2:3: error: tlir.softmax: axis 3 is out of range for rank 2"


def test_f11_int32_input_is_named(tmp_path, capsys):
    model = write_text(tmp_path, SOFTMAX)
    x = save(tmp_path, np.ones((2, 3), np.int32))
    line = one_line_error(run_tool.main, [model, "--input", x], capsys)
    assert "dtype int32, expected shape [2, 3] and dtype float64" in line


# --- F12: no memory amplification ---------------------------------------------


def test_f12_attention_scale_is_a_scalar_broadcast(tmp_path, capsys):
    seq = 100_000
    weights = {f"{p}_weight": [[1]] for p in "qkv"} | {"out_weight": [[1]]}
    fields = dict(
        embed_dim=1, num_heads=1, batch_first=True, dropout_zero=True, bias=False, **weights
    )
    attention = node(1, "multihead_attention", [0], None, value_kind="tuple", **fields)
    attention.pop("shape")
    attention["tuple_shapes"] = [[1, seq, 1], [1, seq, seq]]
    document = graph(
        [
            node(0, "input", [], [1, seq, 1]),
            attention,
            node(2, "tuple_getitem", [1], [1, seq, 1], index=0),
        ],
        2,
    )
    path = write_json(tmp_path, document)
    assert os.path.getsize(path) < 1000
    start = time.perf_counter()
    assert translate_tool.main(["--import-torchlean", path]) == 0
    out = capsys.readouterr().out
    assert time.perf_counter() - start < 10 and len(out) < 10_000
    assert "dense<1.000000e+00> : tensor<f64>" in out
    assert f"(tensor<f64>) -> tensor<{seq * seq}xf64>" in out
    x = save(tmp_path, np.ones((1, seq, 1)))
    line = one_line_error(run_tool.main, [path, "--input", x, "--reference"], capsys)
    assert "'tlir.matmul' op: the tensor tensor<1x100000x100000xf64> takes 74.5 GiB" in line


def test_f12_model_files_are_read_up_to_a_limit(tmp_path, capsys, monkeypatch):
    from tlir import limits

    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 1 << 16)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    big = tmp_path / "big.mlir"
    big.write_text(" " * (1 << 17))
    x = save(tmp_path, np.ones(1))
    for tool, argv, path in (
        (run_tool.main, [str(zero), "--input", x], zero),
        (opt_tool.main, [str(big)], big),
        (translate_tool.main, ["--import-torchlean", str(zero)], zero),
    ):
        line = one_line_error(tool, argv, capsys)
        assert line == f"{path}: error: the file is larger than 64.0 KiB (65536 bytes): not read"


# --- F13: the Python API -------------------------------------------------------


@pytest.mark.parametrize("dtype", ["f16", "int8", "float16", np.int32, "float32,float64", 32])
def test_f13_unknown_dtype(dtype):
    message = re.escape(
        f"dtype must be 'f32' or 'f64' (or NumPy's float32 or float64), got {dtype!r}"
    )
    with pytest.raises(TlirError, match=message):
        tlir.compile(str(ROOT / "examples/cnn.json"), dtype=dtype)
    with pytest.raises(TlirError, match=message):
        tlir.load_model(str(ROOT / "examples/cnn.json"), dtype)


@pytest.mark.parametrize("level", [99, -1, "2", 2.0, True])
def test_f13_bad_opt_level(level):
    with pytest.raises(TlirError, match="opt_level must be one of 0, 1, 2, 3"):
        tlir.compile(SOFTMAX, opt_level=level, cache=False)


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_f13_recompiling_does_not_grow_memory():
    x = np.arange(6.0).reshape(2, 3)
    for _ in range(10):
        tlir.compile(SOFTMAX, cache=False)(x)
    gc.collect()
    before = _rss()
    for _ in range(100):
        tlir.compile(SOFTMAX, cache=False)(x)
    gc.collect()
    assert _rss() - before < 5 * 2**20


@pytest.mark.parametrize(
    ("tool", "flags"),
    [(opt_tool.main, []), (translate_tool.main, ["--export-torchlean"]), (run_tool.main, [])],
)
def test_f11_input_that_is_not_utf8(tmp_path, capsys, tool, flags):
    path = tmp_path / "bad.mlir"
    path.write_bytes(b"func.func @f() {\n  func.return\n}\n\xff\xfe")
    line = one_line_error(tool, [*flags, str(path)], capsys)
    assert line in (
        f"{path}: error: the input is not UTF-8 text",
        f"{path}: error: the file is not UTF-8 text",
    )


def test_f5_custom_callee_without_a_body(tmp_path):
    text = """func.func private @k(tensor<2xf64>) -> tensor<2xf64>
func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = tlir.custom @k(%x) {name = "k"} : (tensor<2xf64>) -> tensor<2xf64>
  func.return %y : tensor<2xf64>
}
"""
    path = write_text(tmp_path, text)
    with pytest.raises(
        TlirError, match=f"{path}:3:3: error: tlir.custom: callee @k is only declared"
    ):
        tlir.load_model(path)


def test_f11_tlir_to_llvm_on_functions_already_lowered_to_branches(capsys):
    path = ROOT / "test/Conversion/TlirLowerToLLVM/lower.mlir"
    code = opt_tool.main(
        [str(path), "--split-input-file", "--verify-diagnostics", "-p", "tlir-to-llvm"]
    )
    assert code == 0 and "internal error" not in capsys.readouterr().err


# --- F16: untrusted text is shown escaped -------------------------------------

HOSTILE = "evil\x1b[2J\x00\nsecond line\u202e\x9b\x7f"
"""A string from a model file: clears the screen, hides text, breaks the line."""
SHOWN = "evil\\x1b[2J\\x00\\x0asecond line\\u202e\\x9b\\x7f"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("a\x00b", "a\\x00b"),
        ("one\ntwo\rthree", "one\\x0atwo\\x0dthree"),
        ("tab\there", "tab\\x09here"),
        ("del\x7f csi\x9b nel\x85", "del\\x7f csi\\x9b nel\\x85"),
        ("exe\u202ejson", "exe\\u202ejson"),
        ("\u2066isolated\u2069 \u200fmark", "\\u2066isolated\\u2069 \\u200fmark"),
        ("line\u2028paragraph\u2029", "line\\u2028paragraph\\u2029"),
        ("no-break\xa0space", "no-break\\xa0space"),
        ("undecodable byte \udcff", "undecodable byte \\udcff"),
        ("tag \U000e0041", "tag \\U000e0041"),
        ("café 日本語 Ωμέγα 😀 ∑", "café 日本語 Ωμέγα 😀 ∑"),
        ("model.json: error: node 1 (add): x", "model.json: error: node 1 (add): x"),
    ],
)
def test_f16_printable_escapes_what_a_terminal_would_act_on(text, shown):
    assert printable(text) == shown


def hostile_kind_graph() -> dict:
    return graph([node(0, "input", [], [2]), node(1, HOSTILE, [0], [2])], 1)


@pytest.mark.parametrize("tool", ["run", "translate"])
def test_f16_a_hostile_op_kind_is_one_escaped_line(tmp_path, capsys, tool):
    path = write_json(tmp_path, hostile_kind_graph())
    if tool == "run":
        line = one_line_error(run_tool.main, [path, "--input", save(tmp_path, np.ones(2))], capsys)
    else:
        line = one_line_error(translate_tool.main, ["--import-torchlean", path], capsys)
    assert line.startswith(f"{path}: error: node 1 ({SHOWN}): unknown op kind '{SHOWN}'")
    assert line.isprintable()


def test_f16_the_api_error_text_is_escaped_and_keeps_the_raw_message(tmp_path):
    with pytest.raises(TlirError) as info:
        tlir.load_model(write_json(tmp_path, hostile_kind_graph()))
    assert str(info.value).isprintable() and SHOWN in str(info.value)
    assert f"unknown op kind '{HOSTILE}'" in info.value.message


def test_f16_a_hostile_file_name_is_escaped(tmp_path, capsys):
    path = write_text(tmp_path, "{", "m\x1b]0;title\x07\n\u202e.json")
    line = one_line_error(run_tool.main, [path, "--input", save(tmp_path, np.ones(2))], capsys)
    shown = str(tmp_path / "m\\x1b]0;title\\x07\\x0a\\u202e.json")
    assert line.startswith(f"{shown}:1:2: error: invalid JSON") and line.isprintable()


def test_f16_a_hostile_environment_value_is_escaped(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "\x1b[2J1\n2")
    line = one_line_error(opt_tool.main, [write_text(tmp_path, SOFTMAX)], capsys)
    expected = (
        "TLIR_MAX_TENSOR_BYTES: error: must be a positive integer (bytes), got '\\x1b[2J1\\n2'"
    )
    assert line == expected


def test_f16_a_warning_quoting_the_environment_is_escaped(tmp_path, capsys, monkeypatch):
    from tlir.compiler import cache

    monkeypatch.setenv("TLIR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TLIR_CACHE_MAX_MB", "\x1b]0;owned\x07")
    cache.open_cache()
    err = capsys.readouterr().err
    assert err == (
        "tlir: warning: TLIR_CACHE_MAX_MB must be a finite number of megabytes >= 0, "
        "got '\\x1b]0;owned\\x07'; using 1024\n"
    )


HOSTILE_PARAMETER = """func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %w = tlir.const {tlir.name = "w\\1B[2J\\0A2", value = dense<[1.0, 2.0]> : tensor<2xf64>} : tensor<2xf64>
  %0 = tlir.mul_elem %x, %w : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  func.return %0 : tensor<2xf64>
}
"""


@pytest.mark.parametrize("mode", ["--reference", "--compare"])
def test_f16_a_hostile_parameter_name_is_escaped_on_stdout(tmp_path, capsys, mode):
    path = write_text(tmp_path, HOSTILE_PARAMETER)
    x, dy = save(tmp_path, np.ones(2)), save(tmp_path, np.ones(2), "dy.npy")
    assert run_tool.main([path, "--input", x, "--vjp", dy, mode, "--no-cache", "-q"]) == 0
    out = capsys.readouterr().out
    assert all(line.isprintable() for line in out.splitlines()), out
    assert "param_grad:w\\x1b[2J\\x0a2: shape [2] float64: 1.0 1.0" in out


@given(text=st.text(max_size=16))
@settings(max_examples=300, deadline=None)
def test_f16_any_text_shows_on_one_printable_line(text):
    shown = printable(text)
    assert shown.isprintable() and "\n" not in shown
    assert (shown == text) == text.isprintable()
    assert str(TlirError(text, text)) == f"{shown}: error: {shown}"


@pytest.mark.parametrize(
    "variable", ["TLIR_NUM_THREADS", "TLIR_COMPILE_PROCESSES", "TLIR_MAX_TENSOR_BYTES"]
)
def test_f16_every_environment_value_is_escaped(tmp_path, capsys, monkeypatch, variable):
    monkeypatch.setenv(variable, HOSTILE.replace("\x00", ""))  # (no NUL in the environment)
    path = str(ROOT / "examples/cnn.json")
    argv = [path, "--input", str(ROOT / "examples/cnn_input.npy"), "--no-cache", "-q"]
    line = one_line_error(run_tool.main, argv, capsys)
    assert line.startswith(f"{variable}: error: must be a positive integer")
    # the number parser quotes the value with ascii(): escaped, on one line
    assert line.endswith(f"got {ascii(HOSTILE.replace(chr(0), ''))}") and line.isprintable()
