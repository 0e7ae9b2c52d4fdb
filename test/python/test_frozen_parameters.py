"""`parameters="frozen"`: read-only parameters, linear weights packed once at
link time, results bit-identical to the live model's; derivatives, optimizers
refused; tlir-run compiles live."""

from __future__ import annotations

import numpy as np
import pytest
from crown_models import Net, random_cnn

import tlir
from tlir.compiler.model import CompiledModel
from tlir.diagnostics import TlirError
from tlir.optim import SGD, Adam
from tlir.reference import evaluate


def _mlp(dtype: str, batch: int = 19) -> Net:
    """Batched MLP 70 -> 40 -> 10 -> 3: tails of rows, columns and k blocks."""
    rng = np.random.default_rng(1)
    net = Net((batch, 70), dtype)
    for i, (fan_in, fan_out) in enumerate([(70, 40), (40, 10), (10, 3)]):
        if i:
            net.relu()
        net.linear(rng.normal(0, fan_in**-0.5, (fan_out, fan_in)), rng.normal(0, 0.1, fan_out))
    return net


def _model(kind: str, dtype: str) -> tuple[Net, np.ndarray]:
    rng = np.random.default_rng(2)
    net = _mlp(dtype) if kind == "mlp" else random_cnn((3, 12, 12), (8, 6), 7, dtype)
    return net, rng.standard_normal(net.input_shape).astype(net.np)


# A covering array of strength 2 over (model, dtype, back end, threads, numerics):
# every pair of values of every two factors appears in some row.
COVERING = [
    ("mlp", "f64", "xdsl", 1, "exact"),
    ("mlp", "f64", "mlir", 2, "fma"),
    ("cnn", "f32", "xdsl", 2, "fma"),
    ("cnn", "f32", "mlir", 1, "exact"),
    ("cnn", "f64", "xdsl", 1, "fma"),
    ("mlp", "f32", "mlir", 2, "exact"),
    ("cnn", "f64", "mlir", 2, "exact"),
    ("mlp", "f32", "xdsl", 1, "fma"),
]


def test_covering_array_covers_every_pair():
    values = [sorted({row[i] for row in COVERING}, key=str) for i in range(5)]
    for i in range(5):
        for j in range(i + 1, 5):
            seen = {(row[i], row[j]) for row in COVERING}
            assert len(seen) == len(values[i]) * len(values[j]), (i, j)


@pytest.mark.parametrize("kind, dtype, backend, threads, numerics", COVERING)
def test_frozen_results_are_the_live_models_bits(kind, dtype, backend, threads, numerics):
    net, x = _model(kind, dtype)
    options = dict(backend=backend, threads=threads, numerics=numerics, cache=False)
    live = tlir.compile(net.module(), **options)
    frozen = tlir.compile(net.module(), parameters="frozen", **options)
    # the frozen model reads its linear weights packed, the live one packs per call
    assert frozen.plan.packed and not live.plan.packed
    assert all(p.flags.writeable for p in live.parameters().values())
    expected = live(x)
    got = frozen(x)
    assert all(np.array_equal(a, b) for a, b in zip(expected, got, strict=True))
    if numerics == "exact":
        reference = evaluate(net.module(), [x])
        assert all(a.tobytes() == b.tobytes() for a, b in zip(got, reference, strict=True))


def test_frozen_parameters_cannot_be_written_by_any_route():
    net, x = _model("mlp", "f64")
    model = tlir.compile(net.module(), parameters="frozen", cache=False)
    before = model(x)[0]
    arrays = [*model.parameters().values(), *model.constant_arrays()]
    assert arrays
    for p in arrays:
        assert not p.flags.writeable
        with pytest.raises(ValueError):
            p[...] = 0
        with pytest.raises(ValueError):
            p.flags.writeable = True
        base = p.base
        while isinstance(base, np.ndarray):  # nor through the arrays it views
            with pytest.raises(ValueError):
                base.flags.writeable = True
            base = base.base
        with pytest.raises(ValueError):
            np.asarray(p).setflags(write=True)
    assert np.array_equal(model(x)[0], before)
    # module() reads them: the module evaluates to the same bits
    assert evaluate(model.module(), [x])[0].tobytes() == before.tobytes()


def test_live_model_updated_in_place_gives_the_new_result():
    net, x = _model("mlp", "f32")
    model = tlir.compile(net.module(), cache=False)
    model(x)
    for p in model.parameters().values():
        p *= np.float32(-1.5)  # in place: weights and biases
    assert evaluate(model.module(), [x])[0].tobytes() == model(x)[0].tobytes()


def test_frozen_model_refuses_derivatives_and_optimizers():
    net, x = _model("mlp", "f64")
    model = tlir.compile(net.module(), parameters="frozen", cache=False)
    y = model(x)[0]
    with pytest.raises(TlirError, match='jvp needs live parameters.*parameters="frozen"'):
        model.jvp([x], [np.ones_like(x)])
    with pytest.raises(TlirError, match="vjp needs live parameters"):
        model.vjp([x], [np.ones_like(y)])
    for optimizer in (lambda p: SGD(p, 0.1), lambda p: Adam(p)):
        with pytest.raises(TlirError, match="is read-only .*cannot be trained"):
            optimizer(model.parameters())
    assert "\n" not in str(TlirError("model", "x"))
    # bounds only read the parameters: allowed
    lowers, uppers = model.ibp_ball([x], 0.01)
    assert np.all(lowers[0] <= y) and np.all(y <= uppers[0])


def test_dynamic_batch_model_frozen():
    rng = np.random.default_rng(3)
    net = Net(("?", 24), "f64")
    net.linear(rng.normal(0, 0.2, (16, 24)), rng.normal(0, 0.1, 16)).relu()
    net.linear(rng.normal(0, 0.2, (5, 16)), rng.normal(0, 0.1, 5))
    live = tlir.compile(net.module(), cache=False)
    frozen = tlir.compile(net.module(), parameters="frozen", cache=False)
    assert type(frozen).__name__ == "DynamicBatchModel"
    for batch in (1, 7):
        x = rng.standard_normal((batch, 24))
        assert np.array_equal(live(x)[0], frozen(x)[0])
    assert not any(p.flags.writeable for p in frozen.parameters().values())
    with pytest.raises(TlirError, match="vjp needs live parameters"):
        frozen.vjp([x], [np.ones((7, 5))])


def test_parameters_option_is_checked():
    net, _ = _model("mlp", "f64")
    with pytest.raises(TlirError, match="parameters must be one of live, frozen, got 'cold'"):
        tlir.compile(net.module(), parameters="cold", cache=False)


def test_frozen_model_file_from_the_compile_cache_is_frozen(tmp_path):
    net, x = _model("cnn", "f64")
    path = tmp_path / "cnn.mlir"
    path.write_text(net.text())
    first = tlir.compile(str(path), parameters="frozen")
    again = tlir.compile(str(path), parameters="frozen")  # linked from the source entry
    assert again.stats["source"] == "hit" and again.plan.packed
    assert not any(p.flags.writeable for p in again.parameters().values())
    assert np.array_equal(first(x)[0], again(x)[0])
    live = tlir.compile(str(path))
    assert live.stats["source"] == "miss" and not live.plan.packed


def test_frozen_model_from_the_compile_cache_reads_packed_weights():
    net, x = _model("mlp", "f32")
    first = tlir.compile(net.module(), parameters="frozen")
    again = tlir.compile(net.module(), parameters="frozen")
    assert again.stats["cache"] == "hit"
    assert again.plan.packed == first.plan.packed and again.plan.packed
    assert np.array_equal(first(x)[0], again(x)[0])
    live = tlir.compile(net.module())  # another key: no packed plan for it
    assert not live.plan.packed and np.array_equal(live(x)[0], first(x)[0])


@pytest.mark.parametrize("parameters", ["live", "frozen"])
def test_each_packed_layout_is_worked_out_once_per_compile(parameters, monkeypatch):
    """A frozen linear's kernel needs its weight's layout to be lowered and the
    plan needs it to pack the weight: one computation serves both (the
    generator's tiling, checked against it, gives it too)."""
    from tlir.passes.contraction_kernels import generator

    asked: list = []
    original = generator.packed_layout

    def counted(op, *rest):
        asked.append(op)
        return original(op, *rest)

    monkeypatch.setattr(generator, "packed_layout", counted)
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "1")  # every kernel lowered in this process
    net = _mlp("f64")
    x = np.random.default_rng(3).standard_normal(net.input_shape)
    model = tlir.compile(net.module(), parameters=parameters, cache=False, progress=False)
    assert np.array_equal(model(x)[0], evaluate(net.module(), [x])[0])
    linears = sum(op.name == "tlir.linear" for op in net.module().walk())
    assert len(asked) == (linears if parameters == "frozen" else 0)
    assert len(model.plan.packed) == len(asked) and len(set(map(id, asked))) == len(asked)


def test_tlir_run_compiles_live(tmp_path, monkeypatch):
    """One call gains nothing from weights packed once; a live model shares
    its cache entries with a plain `tlir.compile(path)`."""
    from tlir.tools.run import run

    net, x = _model("mlp", "f64")
    (tmp_path / "m.mlir").write_text(net.text())
    np.save(tmp_path / "x.npy", x)
    frozen: list[bool] = []
    link = CompiledModel._link

    def spy(self, *args, **kwargs):
        frozen.append(self.frozen)
        return link(self, *args, **kwargs)

    monkeypatch.setattr(CompiledModel, "_link", spy)
    common = [str(tmp_path / "m.mlir"), "--input", str(tmp_path / "x.npy"), "--no-cache", "-q"]
    run([*common, "--output", str(tmp_path / "y.npz")])
    assert frozen == [False]
    y = np.load(tmp_path / "y.npz")["output0"]
    assert y.tobytes() == evaluate(net.module(), [x])[0].tobytes()
    np.save(tmp_path / "dy.npy", np.ones_like(y))
    frozen.clear()
    run([*common, "--vjp", str(tmp_path / "dy.npy"), "--output", str(tmp_path / "g.npz")])
    assert frozen and not any(frozen)


# (linear shape (rows, fan_in, fan_out), target of test_contraction_kernels):
# several k blocks, partial sums in scratch or in C, wide panels in the
# scratch buffer, tails of rows and columns, one- and two-vector tiles
PACKED_KERNELS = [
    ((29, 37, 70), "tiny"),
    ((19, 300, 45), "crowded"),
    ((33, 64, 130), "panel"),
    ((21, 90, 77), "panel_partials"),
    ((13, 20, 19), "outer"),
    ((128, 256, 10), "host"),
]


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("shape, target", PACKED_KERNELS)
def test_kernel_reading_the_packed_weight_has_the_live_kernels_bits(shape, target, fused):
    """Special values included: NaN, ±inf, ±0 in x, w and b."""
    from test_contraction_kernels import (
        TARGETS,
        _assert_bit_identical,
        _inputs,
        _module,
        _ranges,
        linear,
    )

    from tlir.compiler.kernel_harness import CompiledKernel
    from tlir.passes.contraction_kernels import contraction_kernel
    from tlir.passes.contraction_kernels.generator import packed_layout

    rows, fan_in, fan_out = shape
    dtype = "f32" if fused else "f64"
    op_text, arg_shapes, out = linear((rows, fan_in), fan_out)
    module = tlir.parse_module(_module(op_text, arg_shapes, out, dtype))
    op = next(op for op in module.walk() if op.name == "tlir.linear")
    x, w, b = _inputs(arg_shapes, dtype, special=True)
    results = []
    for packed in (False, True):
        kernel = CompiledKernel(
            contraction_kernel(op, "k", TARGETS[target], (), fused, packed_weight=packed)
        )
        weight = packed_layout(op, TARGETS[target], fused).of(w) if packed else w
        for ranges in ([(0, kernel.extent)], _ranges(kernel.extent)):
            result = np.full(out, 7.0, x.dtype)
            kernel([x, weight, b, result], ranges)
            results.append(result)
    for result in results[1:]:  # every bit but NaN's sign and payload (docs/numerics.md)
        _assert_bit_identical(result, results[0])
    if not fused:
        _assert_bit_identical(results[0], evaluate(module, [x, w, b])[0])
