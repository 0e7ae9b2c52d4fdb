"""The training example in a reduced mode (loss goes down, save and reload are
bit-exact) and TorchLean's optimizer updates (docs/autodiff.md#optimizers) against hand-derived values."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from tlir.optim import SGD, Adam, max_zero

ROOT = Path(__file__).resolve().parents[2]


def _example():
    spec = importlib.util.spec_from_file_location("train_example", ROOT / "examples" / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_training_example_reduced(tmp_path):
    results = _example().main(["--epochs", "3", "--out", str(tmp_path)])
    assert set(results["runs"]) == {"mlp+sgd", "mlp+adam", "cnn+sgd", "cnn+adam"}
    for label, run in results["runs"].items():
        losses = run["losses"]
        assert len(losses) == 3
        assert losses[-1] < losses[0], (label, losses)
        assert run["reload_identical"], label
        assert run["test_accuracy"] > 0.5, (label, run["test_accuracy"])
        assert Path(run["saved"]).exists()


def test_training_example_without_out_leaves_no_directory(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    results = _example().main(["--epochs", "1"])
    assert all(run["reload_identical"] and run["saved"] is None for run in results["runs"].values())
    assert list(tmp_path.iterdir()) == []


def test_generated_digits_are_deterministic():
    train = _example()
    a, la = train.generated_digits(50)
    b, lb = train.generated_digits(50)
    assert a.tobytes() == b.tobytes() and np.array_equal(la, lb)
    assert a.shape == (50, 8, 8) and a.min() >= 0 and a.max() <= 16


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sgd_step_is_p_minus_g_times_lr(dtype):
    p0, g0, lr = [1.0, -2.0, 0.3, -0.0], [0.5, 0.25, -3.0, 0.0], 0.1
    p = np.array(p0, dtype)
    SGD({"w": p}, lr).step({"w": np.array(g0, dtype)})
    f = dtype  # every operation rounded to the carrier
    want = [f(f(a) - f(f(g) * f(lr))) for a, g in zip(p0, g0)]
    assert p.tobytes() == np.array(want, dtype).tobytes()


def _adam_by_hand(p, g, m, v, t, lr, b1, b2, eps, f):
    """One Adam step on scalars, in the order of docs/autodiff.md#optimizers, rounding to `f` each time."""
    p1, p2 = f(1.0), f(1.0)
    for _ in range(t):
        p1, p2 = f(p1 * f(b1)), f(p2 * f(b2))
    m = f(f(m * f(b1)) + f(g * f(f(1.0) - f(b1))))
    v = f(f(v * f(b2)) + f(f(g * g) * f(f(1.0) - f(b2))))
    m_hat = f(m * f(f(1.0) / f(f(1.0) - p1)))
    v_hat = f(v * f(f(1.0) / f(f(1.0) - p2)))
    root = f(math.sqrt(v_hat if v_hat > 0 else 0.0))
    lr_eff = f(f(lr) / f(root + f(eps)))
    return f(p - f(lr_eff * m_hat)), m, v


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_adam_steps_follow_the_formulas(dtype):
    p0, g1, g2 = [0.5, -1.25, 2.0, 0.0], [0.1, -0.4, 0.0, 3.0], [0.2, 0.3, -0.1, -3.0]
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    p = np.array(p0, dtype)
    opt = Adam({"w": p}, lr=lr, betas=(b1, b2), eps=eps)
    f = dtype
    state = [(f(a), f(0.0), f(0.0)) for a in p0]
    for t, grads in enumerate([g1, g2], start=1):
        opt.step({"w": np.array(grads, dtype)})
        state = [
            _adam_by_hand(a, f(g), m, v, t, lr, b1, b2, eps, f)
            for (a, m, v), g in zip(state, grads)
        ]
        assert p.tobytes() == np.array([s[0] for s in state], dtype).tobytes(), t
    assert opt.t == 2
    # The first step moves by about lr·sign(g) (m̂ = g, v̂ = g·g).
    first = np.array(p0) - 0.01 * np.sign(g1)
    assert np.allclose(_first_step(p0, g1, dtype), first, atol=1e-6)


def _first_step(p0, g, dtype):
    p = np.array(p0, dtype)
    Adam({"w": p}, lr=0.01).step({"w": np.array(g, dtype)})
    return p


def test_max_zero_is_max_of_le():
    x = np.array([-0.0, np.nan, -1.0, 2.0])
    got = max_zero(x)
    assert got[0] == 0 and not np.signbit(got[0])
    assert np.isnan(got[1]) and got[2] == 0 and got[3] == 2


def test_optimizers_write_into_the_compiled_models_parameters():
    import tlir

    train = _example()
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        path = Path(out) / "mlp.json"
        path.write_text(json.dumps(train.mlp(4, hidden=8)))
        model = tlir.compile(str(path), "f64")
        x = np.random.default_rng(0).random((4, 64))
        before = model(x)[1].copy()
        params = model.parameters()
        _, _, grads = model.vjp([x], [np.zeros((4, 10)), np.ones((4, 10))])
        SGD(params, lr=0.5).step(grads)
        after = model(x)[1]
        assert not np.array_equal(before, after)
        from tlir.reference import evaluate

        assert evaluate(model.module(), [x])[1].tobytes() == after.tobytes()


def test_training_example_model_takes_the_short_last_batch(tmp_path):
    """The example's models have a `?` batch: the last minibatch is trained on
    as it is (no padding), so every sample counts in every epoch."""
    train = _example()
    model = train.dynamic_model(lambda b: train.mlp(b, hidden=8), 4, "f64", tmp_path, "mlp", 1)
    assert train.any_batch(model)
    rng = np.random.default_rng(0)
    data = (rng.random((10, 64)), rng.integers(0, 10, 10))
    before = {n: p.copy() for n, p in model.parameters().items()}
    (loss,) = train.train(model, SGD(model.parameters(), lr=0.1), data, 1, 4, "t")
    assert sorted(model.stats["compiled batches"]) == [2, 4]  # 4, 4, then the last 2
    assert [real for _, real in train.batches(10, 4, None, pad=False)] == [4, 4, 2]
    assert all(len(i) == r for i, r in train.batches(10, 4, None, pad=False))
    assert any(not np.array_equal(before[n], p) for n, p in model.parameters().items())
    assert np.isfinite(loss)
    assert train.predict(model, data[0], 4).shape == (10, 10)
