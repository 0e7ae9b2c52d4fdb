"""`tlir-run --ibp`, IBP certificates and their checker: outputs, files written
whole, and one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tlir.diagnostics import TlirError
from tlir.verification import check_certificate, read_certificate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CNN = str(EXAMPLES / "cnn.json")
CNN_INPUT = str(EXAMPLES / "cnn_input.npy")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tlir.tools.run", *args], capture_output=True, text=True
    )


def test_ibp_compare_and_npz(tmp_path):
    out = run(CNN, "--input", CNN_INPUT, "--ibp", "0.01", "--compare", "-q")
    assert out.returncode == 0, out.stderr
    assert "lower1: shape [1, 3] float64" in out.stdout
    assert "all 2 outputs bit-identical to the reference" in out.stdout
    path = tmp_path / "b.npz"
    out = run(CNN, "--input", CNN_INPUT, "--ibp", "0.01", "--output", str(path), "-q")
    assert out.returncode == 0, out.stderr
    with np.load(path) as data:
        assert sorted(data.files) == ["lower0", "lower1", "upper0", "upper1"]
        assert np.all(data["lower1"] <= data["upper1"])


def test_unresolved_output_is_one_line(tmp_path):
    model = tmp_path / "m.mlir"
    model.write_text(
        "func.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {\n"
        "  %e = tlir.exp %x : (tensor<2xf64>) -> tensor<2xf64>\n"
        "  func.return %e, %x : tensor<2xf64>, tensor<2xf64>\n}\n"
    )
    x = tmp_path / "x.npy"
    np.save(x, np.array([1.0, 2.0]))
    out = run(str(model), "--input", str(x), "--ibp", "0.5", "--reference", "-q")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("output0: unresolved: ")
    assert lines[0].endswith("(tlir.exp): no interval rule for exp on Float")
    assert lines[1] == "lower1: shape [2] float64: 0.49999999999999994 1.4999999999999998"


def test_certificate_round_trip_and_rejection(tmp_path):
    cert = tmp_path / "c.json"
    out = run(CNN, "--input", CNN_INPUT, "--ibp", "0.01", "--certificate", str(cert),
              "--certificate-output", "1", "-q")  # fmt: skip
    assert out.returncode == 0, out.stderr
    document = json.loads(cert.read_text())
    assert document["input_box"]["dim"] == 192 and document["result"]["dim"] == 3
    out = run(CNN, "--input", CNN_INPUT, "--ibp", "0.01", "--check-certificate", str(cert),
              "--certificate-output", "1", "-q")  # fmt: skip
    assert out.returncode == 0 and "certificate accepted (output 1)" in out.stdout
    # a tighter claim is rejected, naming the coordinate and its bits
    document["result"]["hi"][2] = document["result"]["lo"][2]
    cert.write_text(json.dumps(document))
    out = run(CNN, "--input", CNN_INPUT, "--ibp", "0.01", "--check-certificate", str(cert),
              "--certificate-output", "1", "-q")  # fmt: skip
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert "coordinate 2: computed" in out.stderr and "0x" in out.stderr
    # a wider radius gives a box the certificate no longer encloses
    out = run(CNN, "--input", CNN_INPUT, "--ibp", "0.5", "--check-certificate", str(cert),
              "--certificate-output", "1", "-q")  # fmt: skip
    assert out.returncode == 1


def test_certificate_endpoints_round_outward():
    claimed = read_certificate(
        '{"result": {"node_id": 3, "dim": 1, "lo": [0.1], "hi": [0.1]}}', "c.json"
    )
    assert claimed["lo"][0] < 0.1 < claimed["hi"][0] or (
        claimed["lo"][0] <= 0.1 <= claimed["hi"][0]
    )  # fmt: skip
    # 0.1 is not a double: the lower end rounds down, the upper up, one apart
    assert claimed["hi"][0] == np.nextafter(claimed["lo"][0], 1.0)
    exact = read_certificate('{"result": {"dim": 1, "lo": [0.5], "hi": [0.5]}}', "c.json")
    assert exact["lo"][0] == exact["hi"][0] == 0.5
    check_certificate(claimed, np.array([0.1]), np.array([0.1]), "c.json")
    with pytest.raises(TlirError, match="no box"):
        check_certificate(claimed, None, None, "c.json")


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "not JSON"),
        ("[]", "a certificate is an object with a 'result' object"),
        ('{"result": {"dim": 1, "lo": [0]}}', "missing field 'hi'"),
        ('{"result": {"dim": 2, "lo": [0], "hi": [1]}}', r"result.lo must be a list of 2"),
        ('{"result": {"dim": 1, "lo": ["a"], "hi": [1]}}', r"result.lo\[0\] is not a number"),
        ('{"result": {"dim": 1, "lo": [1e999], "hi": [1e999]}}', "is not finite"),
        ('{"result": {"dim": 1, "lo": [NaN], "hi": [1]}}', "is not a number"),
        ('{"result": {"dim": 1, "lo": [2], "hi": [1]}}', "coordinate 0 has lo > hi"),
        ('{"result": {"dim": -1, "lo": [], "hi": []}}', "must be a natural number"),
    ],
)
def test_malformed_certificates(text, message):
    with pytest.raises(TlirError, match=message) as info:
        read_certificate(text, "c.json")
    assert "\n" not in str(info.value)


def test_certificate_flags_need_ibp():
    out = run(CNN, "--input", CNN_INPUT, "--certificate", "x.json", "-q")
    assert out.returncode == 1 and "go with --ibp" in out.stderr


def test_f32_model_rounds_a_float64_centre():
    out = run(CNN, "--input", CNN_INPUT, "--dtype", "f32", "--ibp", "0.01", "--compare", "-q")
    assert out.returncode == 0, out.stderr
    assert "lower1: shape [1, 3] float32" in out.stdout
    assert "all 2 outputs bit-identical to the reference" in out.stdout
