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


def _parameters(dtype) -> dict[str, np.ndarray]:
    """Parameters of several shapes (a rank-0 one too) with signed zeros and
    subnormals among the values."""
    rng = np.random.default_rng(5)
    params = {
        "w": rng.normal(size=(33, 17)).astype(dtype),
        "b": rng.normal(size=(17,)).astype(dtype),
        "s": np.array(0.75, dtype),
        "k": rng.normal(size=(3, 2, 5, 5)).astype(dtype),
        # a parameter of the other precision: its own scalars, rounded to it
        "o": rng.normal(size=(6,)).astype(np.float32 if dtype == np.float64 else np.float64),
    }
    params["w"][0, :4] = [0.0, -0.0, np.finfo(dtype).smallest_subnormal, 1e30]
    return params


def _gradients(params, rng) -> dict[str, np.ndarray]:
    grads = {n: rng.normal(size=p.shape).astype(p.dtype) for n, p in params.items()}
    grads["w"][0, :3] = [0.0, -0.0, np.finfo(params["w"].dtype).smallest_subnormal]
    grads["b"][:2] = [1e20, -1e-20]
    return grads


def _optimizer(kind: str, params, compiled: bool):
    if kind == "sgd":
        return SGD(params, lr=0.05, compiled=compiled)
    return Adam(params, lr=0.01, betas=(0.8, 0.99), eps=1e-6, compiled=compiled)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # f32 g·g, 1e20²
@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_update_is_the_numpy_update_bit_for_bit(kind, dtype):
    compiled_params, numpy_params = _parameters(dtype), _parameters(dtype)
    compiled = _optimizer(kind, compiled_params, True)
    reference = _optimizer(kind, numpy_params, False)
    rng = np.random.default_rng(6)
    for step in range(5):
        grads = _gradients(compiled_params, rng)
        compiled.step(grads)
        reference.step(grads)
        for name in compiled_params:
            assert compiled_params[name].tobytes() == numpy_params[name].tobytes(), (step, name)
            if kind == "adam":
                assert compiled.m[name].tobytes() == reference.m[name].tobytes(), (step, name)
                assert compiled.v[name].tobytes() == reference.v[name].tobytes(), (step, name)
                assert compiled.power1[name] == reference.power1[name]
    # The compiled update ran, in place: one map per parameter reading its inputs
    # and writing its outputs only.
    assert compiled._update is not None and compiled._update.in_place
    assert reference._update is None


def test_an_update_not_in_place_copies_its_results_back(monkeypatch):
    """A plan that is not one map per parameter reading inputs and writing
    outputs is called out of place; the results are the same."""
    import tlir.update

    monkeypatch.setattr(tlir.update, "_in_place", lambda plan: False)
    params, reference = _parameters(np.float64), _parameters(np.float64)
    compiled, numpy_adam = Adam(params, lr=0.01), Adam(reference, lr=0.01, compiled=False)
    rng = np.random.default_rng(9)
    for _ in range(2):
        grads = _gradients(params, rng)
        compiled.step(grads)
        numpy_adam.step(grads)
    assert not compiled._update.in_place
    assert all(params[n].tobytes() == reference[n].tobytes() for n in params)
    assert all(compiled.v[n].tobytes() == numpy_adam.v[n].tobytes() for n in params)


def test_compiled_update_writes_into_the_given_arrays():
    params = _parameters(np.float64)
    arrays = {n: p for n, p in params.items()}
    addresses = {n: p.ctypes.data for n, p in params.items()}
    before = {n: p.copy() for n, p in params.items()}
    Adam(params, lr=0.1).step(_gradients(params, np.random.default_rng(1)))
    assert all(params[n] is arrays[n] and params[n].ctypes.data == addresses[n] for n in params)
    assert all(not np.array_equal(params[n], before[n]) for n in params)


def test_parameters_the_compiled_update_cannot_write_take_the_numpy_update():
    base = np.arange(12.0).reshape(3, 4)
    params = {"t": base.T}  # not C-contiguous
    optimizer = SGD(params, lr=0.5)
    optimizer.step({"t": np.ones((4, 3))})
    assert np.array_equal(base, np.arange(12.0).reshape(3, 4) - 0.5)
    assert optimizer._update is None
    # Two views of one array: updated one after the other, as NumPy does.
    whole = np.zeros(4)
    params = {"a": whole[:3], "b": whole[1:]}
    optimizer = SGD(params, lr=1.0)
    optimizer.step({"a": np.ones(3), "b": np.ones(3)})
    assert whole.tolist() == [-1.0, -2.0, -2.0, -1.0] and optimizer._update is None


def test_rebound_parameters_get_an_update_of_their_shape():
    params = {"w": np.ones(3)}
    optimizer = Adam(params, lr=0.1)
    optimizer.step({"w": np.ones(3)})
    first = optimizer._update
    params["w"] = np.ones(300)
    optimizer.m["w"], optimizer.v["w"] = np.zeros(300), np.zeros(300)
    optimizer.step({"w": np.full(300, 2.0)})
    reference = {"w": np.ones(300)}
    numpy_adam = Adam(reference, lr=0.1, compiled=False)
    numpy_adam.t, numpy_adam.power1, numpy_adam.power2 = 1, {"w": 0.9}, {"w": 0.999}
    numpy_adam.step({"w": np.full(300, 2.0)})
    assert optimizer._update is not first and optimizer._update.layout == [("w", (300,), "f8")]
    assert params["w"].tobytes() == reference["w"].tobytes()


@pytest.mark.parametrize(
    ("grads", "message"),
    [
        ({"v": np.ones(3)}, "optimizer: error: no gradient for parameter 'w'"),
        (
            {"v": np.ones(3), "w": np.ones((2, 2), np.float32)},
            "optimizer: error: the gradient of 'w' has shape [2, 2] and dtype float32, "
            "expected shape [2, 2] and dtype float64",
        ),
        (
            {"v": np.ones(3), "w": [[1.0, 2.0], [3.0, 4.0]]},
            "optimizer: error: the gradient of 'w' has shape [] and dtype list, "
            "expected shape [2, 2] and dtype float64",
        ),
    ],
)
@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_compiled_update_rejects_bad_gradients_in_one_line(kind, grads, message):
    from tlir.diagnostics import TlirError

    params = {"v": np.ones(3), "w": np.ones((2, 2))}
    optimizer = _optimizer(kind, params, True)
    with pytest.raises(TlirError) as err:
        optimizer.step(grads)
    assert str(err.value) == message
    # nothing half-written: the first parameter and Adam's state are unchanged
    assert np.array_equal(params["v"], np.ones(3)) and np.array_equal(params["w"], np.ones((2, 2)))
    assert getattr(optimizer, "t", 0) == 0


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
    # batches of 4, 4, then the last 2, from one compile: no batch compiled on its own
    assert model.stats["compiled batches"] == []
    assert model.stats["per-batch kernel compiles"] == 0
    assert [real for _, real in train.batches(10, 4, None, pad=False)] == [4, 4, 2]
    assert all(len(i) == r for i, r in train.batches(10, 4, None, pad=False))
    assert any(not np.array_equal(before[n], p) for n, p in model.parameters().items())
    assert np.isfinite(loss)
    assert train.predict(model, data[0], 4).shape == (10, 10)
