"""The Python API and the tools around compilation: inputs checked, nothing
leaked, opt levels, outputs written whole, errors as one line."""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tlir
from tlir.diagnostics import TlirError
from tlir.reference import evaluate

ROOT = Path(__file__).resolve().parents[2]
ADD = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<f32>) {
  %0 = tlir.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tlir.sum %0 : (tensor<2x3xf32>) -> tensor<f32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<f32>
}
"""


def test_compile_accepts_text_module_and_path():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    from_text = tlir.compile(ADD)(x, x)
    from_module = tlir.compile(tlir.parse_module(ADD))(x, x)
    assert from_text[0].tolist() == from_module[0].tolist() == (2 * x).tolist()
    assert from_text[1].shape == () and float(from_text[1]) == 30.0
    model = tlir.compile(str(ROOT / "examples/cnn.json"), dtype="f32")
    out = model(np.load(ROOT / "examples/cnn_input.npy").astype(np.float32))
    assert out[0].dtype == np.float32 and out[0].shape == (1, 3)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            (np.zeros((3, 2), np.float32), np.zeros((2, 3), np.float32)),
            "input 0 has shape \\[3, 2\\]",
        ),
        ((np.zeros((2, 3), np.float64), np.zeros((2, 3), np.float32)), "dtype float64"),
        ((np.zeros((2, 3), np.float32),), "takes 2 inputs, got 1"),
    ],
)
def test_compiled_model_checks_inputs(args, message):
    model = tlir.compile(ADD)
    with pytest.raises(TlirError, match=message):
        model(*args)


def test_compile_and_compiled_model_take_the_same_options():
    """One definition of the options: names and defaults, and the checks of each."""
    import dataclasses
    import inspect

    from tlir.compiler.model import CompiledModel
    from tlir.compiler.options import CompileOptions

    want = [(f.name, f.default) for f in dataclasses.fields(CompileOptions)]
    assert [f[0] for f in want] == [
        "backend", "opt_level", "threads", "cache", "progress", "fuse", "numerics", "parameters"
    ]  # fmt: skip
    for callee in (tlir.compile, CompiledModel):
        parameters = inspect.signature(callee).parameters.values()
        keyword = [(p.name, p.default) for p in parameters if p.kind is p.KEYWORD_ONLY]
        assert keyword == want, callee
    module = tlir.parse_module(ADD)
    for bad in [{"backend": "gcc"}, {"opt_level": 4}, {"numerics": "fast"}, {"threads": 0}]:
        messages = []
        for compile_ in (tlir.compile, lambda m, **o: CompiledModel(m, where="module", **o)):
            with pytest.raises(TlirError) as err:
                compile_(module, **bad)
            messages.append(str(err.value))
        assert messages[0] == messages[1] and "\n" not in messages[0], messages
    for compile_, name in ((tlir.compile, "compile"), (CompiledModel, "CompiledModel")):
        with pytest.raises(
            TypeError, match=f"{name}\\(\\) got an unexpected keyword argument 'fusion'"
        ):
            compile_(module, fusion=False)


def test_inputs_are_not_modified_and_outputs_are_fresh():
    model = tlir.compile(ADD)
    x = np.ones((2, 3), np.float32)
    before = x.copy()
    first = model(x, x)[0]
    second = model(x, x)[0]
    assert np.array_equal(x, before)
    assert first is not second and np.array_equal(first, second)


@pytest.mark.parametrize("opt_level", [0, 1, 3])
def test_opt_levels_give_the_same_bits(opt_level):
    path = str(ROOT / "examples/transformer_block.json")
    x = np.load(ROOT / "examples/transformer_block_input.npy")
    got = tlir.compile(path, opt_level=opt_level)(x)[0]
    ref = evaluate(tlir.load_model(path), [x])[0]
    assert got.tobytes() == ref.tobytes()


def test_no_leak_across_10000_calls():
    path = str(ROOT / "examples/cnn.json")
    model = tlir.compile(path)
    x = np.load(ROOT / "examples/cnn_input.npy")
    for _ in range(500):  # warm up the allocator
        model(x)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(10_000):
        model(x)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    # every call allocates ~20 KiB of temporaries; a leak would grow by ~200 MiB
    assert grown_kib < 8 * 1024, f"max RSS grew by {grown_kib} KiB over 10,000 calls"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, cwd=ROOT)


def test_tlir_run_compiles_and_writes_npz(tmp_path):
    out = tmp_path / "out.npz"
    proc = run(
        "tlir-run", "examples/cnn.json", "--input", "examples/cnn_input.npy", "--output", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    data = np.load(out)
    ref = evaluate(
        tlir.load_model(str(ROOT / "examples/cnn.json")), [np.load(ROOT / "examples/cnn_input.npy")]
    )
    assert sorted(data.files) == ["output0", "output1"]
    assert (
        data["output0"].tobytes() == ref[0].tobytes()
        and data["output1"].tobytes() == ref[1].tobytes()
    )


def test_tlir_run_compare_reports_agreement():
    proc = run(
        "tlir-run",
        "examples/legacy_cnn.json",
        "--input",
        "examples/legacy_cnn_input.npy",
        "--compare",
    )
    assert proc.returncode == 0, proc.stderr
    assert "output0: bit-identical to the reference (9 values)" in proc.stdout


def test_tlir_run_rejects_missing_input_file(tmp_path):
    proc = run("tlir-run", "examples/cnn.json", "--input", str(tmp_path / "none.npy"))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "none.npy: error: no such input file" in proc.stderr


def test_tlir_translate_to_llvm_ir():
    proc = run("tlir-translate", "--mlir-to-llvmir", "test/Dialect/Tlir/ops.mlir")
    assert proc.returncode == 0, proc.stderr
    assert 'define i32 @"basic"' in proc.stdout and 'declare double @"tanh"(double' in proc.stdout


# --- tlir-run --compare: exit code 1 when the results differ ----------------------

CNN = str(ROOT / "examples/cnn.json")
CNN_INPUT = str(ROOT / "examples/cnn_input.npy")


def perturb_reference(monkeypatch, entry: str, change) -> None:
    """Replace `tlir.reference.<entry>` by the true reference whose results
    `change` edits in place.

    Compiled code is bit-identical to the reference evaluator for every model
    (that is the contract the test suites hold it to), so a model that makes the
    two disagree cannot be written on purpose; a miscompiled kernel would. These
    tests make the disagreement on the reference's side instead: the smallest
    real one (a value one ulp off, a zero of the other sign), which the tool must
    report exactly as it would a compiler bug."""
    import tlir.reference

    true = getattr(tlir.reference, entry)

    def perturbed(*args, **kwargs):
        results = [np.array(value, copy=True) for value in true(*args, **kwargs)]
        change(results)
        return results

    monkeypatch.setattr(tlir.reference, entry, perturbed)


def one_ulp_up(results: list[np.ndarray]) -> None:
    results[1].flat[1] = np.nextafter(results[1].flat[1], np.inf)


def test_tlir_run_compare_exits_1_and_names_the_first_differing_output(monkeypatch, capsys):
    from tlir.tools import run as run_tool

    perturb_reference(monkeypatch, "evaluate", one_ulp_up)
    assert run_tool.main([CNN, "--input", CNN_INPUT, "--compare", "-q"]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert "output0: bit-identical to the reference (3 values)" in lines
    assert any(line.startswith("output1: largest difference ") for line in lines), lines
    assert lines[-1].endswith(", 1 of 3 differ")
    assert captured.err == f"{CNN}: error: output1 differs from the reference (1 of 2 differ)\n"


ZERO = """func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = tlir.add %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  func.return %0 : tensor<3xf64>
}
"""


def run_zero_model(tmp_path, capsys, x: np.ndarray) -> tuple[int, str, str]:
    from tlir.tools import run as run_tool

    model, path = tmp_path / "m.mlir", tmp_path / "x.npy"
    model.write_text(ZERO)
    np.save(path, x)
    code = run_tool.main([str(model), "--input", str(path), "--compare", "-q", "--no-cache"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_tlir_run_compare_counts_a_zero_of_the_other_sign(tmp_path, capsys, monkeypatch):
    """-0 and +0 compare equal as numbers; the contract compares their bits."""

    def negate_zero(results):
        assert results[0][0] == 0.0 and not np.signbit(results[0][0])
        results[0][0] = -0.0

    perturb_reference(monkeypatch, "evaluate", negate_zero)
    code, out, err = run_zero_model(tmp_path, capsys, np.array([0.0, 1.0, 2.0]))
    assert code == 1 and "output0: largest difference 0.000e+00" in out and "1 of 3 differ" in out
    assert err.endswith(": error: output0 differs from the reference\n")


def test_tlir_run_compare_passes_a_nan_of_another_payload(tmp_path, capsys, monkeypatch):
    """NaN's sign and payload are not part of the contract, only its position."""
    other_nan = np.array([0x7FF8000000000123], dtype=np.uint64).view(np.float64)[0]

    def change_payload(results):
        assert np.isnan(results[0][1])
        results[0][1] = other_nan

    perturb_reference(monkeypatch, "evaluate", change_payload)
    code, out, err = run_zero_model(tmp_path, capsys, np.array([1.0, np.nan, 2.0]))
    assert (code, err) == (0, "")
    assert (
        "output0: identical to the reference but for the sign or payload of NaNs (3 values)" in out
    )


def test_tlir_run_compare_of_derivatives_exits_1_on_a_difference(tmp_path, capsys, monkeypatch):
    from tlir.interface import find_function
    from tlir.parameters import parameter_names
    from tlir.tools import run as run_tool

    def perturb_input_grad(results):  # output0, output1, input_grad0, parameter gradients
        results[2].flat[0] = np.nextafter(results[2].flat[0], -np.inf)

    perturb_reference(monkeypatch, "vjp", perturb_input_grad)
    dy = tmp_path / "dy.npz"
    np.savez(dy, output0=np.ones((1, 3)), output1=np.ones((1, 3)))
    argv = [CNN, "--input", CNN_INPUT, "--vjp", str(dy), "--compare", "-q", "--no-cache"]
    assert run_tool.main(argv) == 1
    count = 3 + len(parameter_names(find_function(tlir.load_model(CNN))))
    captured = capsys.readouterr()
    assert "output0: bit-identical to the reference (3 values)" in captured.out
    assert f"\n1 of {count} arrays differ from the reference\n" in captured.out
    expected = f"{CNN}: error: input_grad0 differs from the reference (1 of {count} differ)\n"
    assert captured.err == expected


# --- what a new user met -------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "name"), [("opt", "tlir-opt"), ("translate", "tlir-translate"), ("run", "tlir-run")]
)
def test_every_tool_prints_its_version(capsys, tool, name):
    from importlib import import_module
    from importlib.metadata import version

    assert import_module(f"tlir.tools.{tool}").main(["--version"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith(f"{name} {version('tlir')} (xDSL {version('xdsl')}, ")


def test_tlir_run_without_input_says_how_to_give_it(capsys):
    from tlir.tools import run as run_tool

    assert run_tool.main([CNN]) == 1
    assert capsys.readouterr().err == (
        f"{CNN}: error: @main takes 1 input, got 0: "
        "give one --input X.npy per input, in argument order\n"
    )


def test_tlir_opt_lists_the_passes_after_an_unknown_one(tmp_path, capsys):
    from tlir.tools import opt as opt_tool

    path = tmp_path / "m.mlir"
    path.write_text(ZERO)
    assert opt_tool.main([str(path), "-p", "cse,no-such-pass"]) == 1
    line = capsys.readouterr().err.strip()
    prefix = "tlir-opt: error: bad pass pipeline 'cse,no-such-pass': unknown pass 'no-such-pass' "
    assert line.startswith(prefix + "(known passes: ") and line.endswith(")")
    known = line[len(prefix + "(known passes: ") : -1].split(", ")
    assert known == sorted(known)
    assert {"cse", "convert-tlir-to-linalg", "tlir-to-llvm", "tlir-vjp"} <= set(known)
    assert "mlir-opt" not in known


NUMPY_NAMES = {
    "f32": ["float32", np.float32, np.dtype("float32"), "f32"],
    "f64": ["float64", np.float64, np.dtype(np.float64), float, "f64"],
}


@pytest.mark.parametrize(
    ("element", "dtype"), [(e, d) for e, names in NUMPY_NAMES.items() for d in names]
)
def test_numpy_dtype_names_are_accepted(element, dtype):
    x = np.load(CNN_INPUT).astype(np.float32 if element == "f32" else np.float64)
    module = tlir.load_model(CNN, dtype)
    assert str(tlir.interface.find_function(module).args[0].type.element_type) == element
    got = tlir.compile(CNN, dtype=dtype)(x)
    want = evaluate(tlir.load_model(CNN, element), [x])
    assert [g.tobytes() for g in got] == [w.tobytes() for w in want]


@pytest.mark.parametrize("tool", ["translate", "run"])
@pytest.mark.parametrize("names", [("f32", "float32"), ("f64", "float64")])
def test_the_tools_take_numpy_dtype_names(tmp_path, capsys, tool, names):
    from importlib import import_module

    main = import_module(f"tlir.tools.{tool}").main
    x = tmp_path / "x.npy"
    np.save(x, np.load(CNN_INPUT).astype(names[1]))
    flags = ["--import-torchlean", CNN] if tool == "translate" else [CNN, "--input", str(x)]
    outputs = []
    for dtype in names:
        assert main([*flags, "--dtype", dtype, "--reference"][: None if tool == "run" else -1]) == 0
        outputs.append(capsys.readouterr())
    shown = f"shape [1, 3] {names[1]}:" if tool == "run" else f"tensor<1x3x{names[0]}>"
    assert outputs[0] == outputs[1] and shown in outputs[0].out


F32_MODEL = ZERO.replace("f64", "f32")


def run_f32_model(tmp_path, capsys, x: np.ndarray, model_text: str = F32_MODEL):
    from tlir.tools import run as run_tool

    model, path, out = tmp_path / "m.mlir", tmp_path / "x.npy", tmp_path / "out.npz"
    model.write_text(model_text)
    np.save(path, x)
    argv = [str(model), "--input", str(path), "--output", str(out), "-q", "--no-cache"]
    code = run_tool.main(argv)
    return code, capsys.readouterr().err, out, str(path)


def test_tlir_run_casts_float64_input_that_float32_holds_exactly(tmp_path, capsys):
    x = np.array([0.5, -1.25, np.inf], dtype=np.float64)  # each a float32 value
    code, err, out, _ = run_f32_model(tmp_path, capsys, x)
    assert (code, err) == (0, "")
    want = evaluate(tlir.parse_module(F32_MODEL), [x.astype(np.float32)])[0]
    assert np.load(out)["output0"].tobytes() == want.tobytes()


def test_tlir_run_casts_float32_input_for_a_float64_model(tmp_path, capsys):
    x = np.array([0.1, -3.0e38, 1e-45], dtype=np.float32)  # widening keeps every value
    code, err, out, _ = run_f32_model(tmp_path, capsys, x, ZERO)
    assert (code, err) == (0, "")
    want = evaluate(tlir.parse_module(ZERO), [x.astype(np.float64)])[0]
    assert np.load(out)["output0"].tobytes() == want.tobytes()


def test_tlir_run_refuses_a_cast_that_changes_values(tmp_path, capsys):
    # 0.1 rounds, 1e300 overflows to inf, 1e-320 underflows to 0; 3.0, NaN and -0.0 survive
    x = np.array([0.1, 1e300, 3.0, np.nan, -0.0, 1e-320])
    code, err, out, path = run_f32_model(tmp_path, capsys, x[[0, 1, 2]])
    assert code == 1 and not out.exists()
    assert err == (
        f"{path}: error: input 0 is float64 and the model takes float32: "
        "the cast would change 2 of 3 values (give float32 values)\n"
    )
    model = F32_MODEL.replace("3xf32", "6xf32")
    code, err, out, path = run_f32_model(tmp_path, capsys, x, model)
    assert code == 1 and "the cast would change 3 of 6 values" in err


@pytest.mark.parametrize("dtype", ["f64", "float64", np.float64])
def test_compile_checks_the_dtype_of_mlir_text_and_modules(dtype):
    for model in (ADD, tlir.parse_module(ADD)):
        with pytest.raises(TlirError, match=r"@main takes tensor<2x3xf32>, not f64"):
            tlir.compile(model, dtype=dtype)
    x = np.ones((2, 3), np.float32)
    assert tlir.compile(ADD, dtype=np.float32)(x, x)[1] == 12.0
