"""examples/verify.py in a reduced mode: a trained CNN certified at a few radii
with IBP and CROWN; every certified ball is checked by sampling against the
reference evaluator here, and CROWN (relu mode) certifies at least what IBP does."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _example():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        spec = importlib.util.spec_from_file_location(
            "verify_example", ROOT / "examples" / "verify.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "examples"))
    return module


def test_verify_example_reduced():
    radii = [0.005, 0.01, 0.03]
    results = _example().main(
        ["--epochs", "4", "--images", "20", "--radii", ",".join(map(str, radii))]
    )
    assert results["clean"] > 0.6
    certified = [results["certified"][eps] for eps in radii]
    for ibp, crown in certified:
        assert crown >= ibp
        assert crown <= results["clean"]
    assert certified[0][1] > 0  # a small ball is certified for some image
    assert any(crown > ibp for ibp, crown in certified)  # CROWN is tighter somewhere
    # larger balls hold more inputs: never more certified
    assert all(a[k] >= b[k] for a, b in zip(certified, certified[1:]) for k in (0, 1))


def test_a_certified_ball_has_no_counterexample_among_samples():
    example = _example()
    import tempfile

    import tlir
    from tlir.reference import evaluate

    images, labels, _ = example.digits.load_digits()
    x = (images / 16.0).reshape(len(images), 1, 8, 8)
    with tempfile.TemporaryDirectory() as directory:
        graph = example.digits.cnn(4)
        path = Path(directory) / "cnn.json"
        path.write_text(__import__("json").dumps(graph))
        trained = tlir.compile(str(path))
        verifier = example.logits_model(trained, "f64", Path(directory))
    module = verifier.module()
    rng = np.random.default_rng(0)
    found = 0
    for i in range(40):
        image, label = x[i][None], int(labels[i])
        if int(verifier(image)[0].argmax()) != label:
            continue
        ibp, crown = example.certify(verifier, image, label, 0.01)
        if not crown:
            continue
        found += 1
        for _ in range(30):
            point = np.clip(
                image + rng.uniform(-0.01, 0.01, image.shape), image - 0.01, image + 0.01
            )
            assert int(evaluate(module, [point])[0].argmax()) == label
    assert found > 0
