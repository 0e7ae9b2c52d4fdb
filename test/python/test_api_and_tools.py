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
