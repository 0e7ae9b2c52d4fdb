"""Models whose batch is `?`: one compiled model called at any batch ≥ 1,
bit-identical to the reference evaluator (and to a static compile) at each,
with the input checks, `tlir.save`'s batch and `tlir-run`."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import tlir
from tlir.api import parse_module
from tlir.compiler.backend import mlir
from tlir.compiler.dynamic import DynamicBatchModel
from tlir.diagnostics import TlirError
from tlir.passes.tlir_specialize_batch import check_batch, specialize
from tlir.reference import evaluate
from tlir.reference import vjp as reference_vjp

CNN = """
func.func @main(%x: tensor<?x2x6x6xDT>) -> (tensor<?x3xDT>, tensor<?x4xDT>) {
  %w = tlir.const {value = dense<[[[[0.5, -0.25, 0.125], [0.75, 1.0, -0.5], [0.25, 0.5, -1.0]],
      [[-0.5, 0.25, 0.375], [0.125, -0.75, 0.5], [1.0, 0.25, 0.5]]],
      [[[0.25, 0.5, -0.125], [-0.75, 0.5, 0.5], [0.5, -0.25, 1.0]],
      [[0.5, -0.5, 0.625], [0.25, 0.75, -0.5], [-1.0, 0.5, 0.25]]]]> : tensor<2x2x3x3xDT>} : tensor<2x2x3x3xDT>
  %b = tlir.const {value = dense<[0.1, -0.2]> : tensor<2xDT>} : tensor<2xDT>
  %fw = tlir.const {value = dense<0.03125> : tensor<3x8xDT>} : tensor<3x8xDT>
  %fb = tlir.const {value = dense<[0.5, -0.5, 0.25]> : tensor<3xDT>} : tensor<3xDT>
  %c = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 2 : i64} : (tensor<?x2x6x6xDT>, tensor<2x2x3x3xDT>, tensor<2xDT>) -> tensor<?x2x4x4xDT>
  %r = tlir.relu %c : (tensor<?x2x4x4xDT>) -> tensor<?x2x4x4xDT>
  %p = tlir.max_pool %r {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<?x2x4x4xDT>) -> tensor<?x2x2x2xDT>
  %f = tlir.reshape %p : (tensor<?x2x2x2xDT>) -> tensor<?x8xDT>
  %y = tlir.linear %f, %fw, %fb : (tensor<?x8xDT>, tensor<3x8xDT>, tensor<3xDT>) -> tensor<?x3xDT>
  %s = tlir.softmax %y axis = 1 : (tensor<?x3xDT>) -> tensor<?x3xDT>
  %q = tlir.reshape %p : (tensor<?x2x2x2xDT>) -> tensor<?x4xDT>
  %t = tlir.tanh %q : (tensor<?x4xDT>) -> tensor<?x4xDT>
  func.return %s, %t : tensor<?x3xDT>, tensor<?x4xDT>
}
"""

BATCHES = (1, 2, 3, 7)


def module(dtype: str = "f32"):
    return parse_module(CNN.replace("DT", dtype))


def inputs(batch: int, dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + batch)
    return rng.standard_normal((batch, 2, 6, 6)).astype(np.dtype(dtype.replace("f", "float")))


def assert_identical(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.tobytes() == w.tobytes()


NEEDS_MLIR = pytest.mark.skipif(mlir.find_tool("mlir-opt") is None, reason="mlir-opt not installed")


# every pair of (dtype, back end, threads) values once
@pytest.mark.parametrize(
    "dtype, backend, threads",
    [
        ("f32", "xdsl", 1),
        ("f64", "xdsl", 2),
        pytest.param("f32", "mlir", 2, marks=NEEDS_MLIR),
        pytest.param("f64", "mlir", 1, marks=NEEDS_MLIR),
    ],
)
def test_one_model_every_batch_bit_identical_to_the_reference(dtype, backend, threads):
    model = tlir.compile(module(dtype), backend=backend, threads=threads, cache=False)
    assert isinstance(model, DynamicBatchModel)
    for batch in BATCHES:
        x = inputs(batch, dtype)
        assert_identical(model(x), evaluate(module(dtype), [x]))
    dy = [np.ones((3, 3), x.dtype), np.full((6, 4), 0.5, x.dtype)]  # the tanh: 2·B rows
    x = inputs(3, dtype)
    outputs, input_grads, param_grads = model.vjp([x], dy)
    want = reference_vjp(module(dtype), [x], dy)
    assert_identical([*outputs, *input_grads, *param_grads.values()], want)


def test_one_compile_serves_every_batch_and_matches_a_static_compile():
    model = tlir.compile(module("f64"), cache=False)
    for batch in (4, 1, 4, 1):
        model(inputs(batch, "f64"))
    assert model.stats["compiled batches"] == []  # every kernel takes the batch at run time
    assert model.stats["kernels compiled per batch"] == {"main": 0}
    static = tlir.compile(specialize(module("f64"), 4), cache=False)
    x = inputs(4, "f64", seed=9)
    assert_identical(model(x), static(x))


def test_parameters_are_shared_by_every_batch():
    model = tlir.compile(module("f64"), cache=False)
    x1, x3 = inputs(1, "f64"), inputs(3, "f64")
    model(x1), model(x3)
    params = model.parameters()
    assert list(params) == ["const0", "const1", "const2", "const3"]
    params["const3"][...] += 1.0  # the second linear bias: every probability changes
    changed = module("f64")
    for op in changed.ops.first.body.block.ops:
        if op.name == "tlir.const" and op.result.type.get_shape() == (3,):
            from tlir.dense import numpy_to_dense

            op.value = numpy_to_dense(params["const3"].copy())
    for x in (x1, x3):
        assert_identical(model(x), evaluate(changed, [x]))


@pytest.mark.parametrize(
    "shape, message",
    [
        ((0, 2, 6, 6), r"input 0 has shape \[0, 2, 6, 6\] and dtype float32, expected shape "),
        ((2, 2, 6, 5), r"expected shape \[\?, 2, 6, 6\] and dtype float32"),
        ((2, 2, 6), r"input 0 has shape \[2, 2, 6\]"),
    ],
)
def test_bad_inputs_are_one_line_errors(shape, message):
    model = tlir.compile(module("f32"), cache=False)
    with pytest.raises(TlirError, match=message):
        model(np.zeros(shape, np.float32))
    with pytest.raises(TlirError, match=message):
        model.vjp([np.zeros(shape, np.float32)], [])
    assert model.stats["compiled batches"] == []


def test_the_batch_analysis_refuses_an_extent_that_is_not_a_multiple():
    text = """
    func.func @main(%x: tensor<?x6xf32>) -> tensor<?x4xf32> {
      %r = tlir.reshape %x : (tensor<?x6xf32>) -> tensor<?x4xf32>
      func.return %r : tensor<?x4xf32>
    }"""
    with pytest.raises(TlirError, match="would split the batch"):
        check_batch(parse_module(text))
    with pytest.raises(TlirError, match="would split the batch"):
        tlir.compile(text)


def test_save_needs_a_batch_and_writes_a_static_graph(tmp_path):
    model = tlir.compile(module("f64"), cache=False)
    with pytest.raises(TlirError, match=r"give tlir.save the batch to write \(batch=N\)"):
        tlir.save(model, str(tmp_path / "m.json"))
    assert not (tmp_path / "m.json").exists()
    model.parameters()["const1"][...] = [0.5, 0.25]
    tlir.save(model, str(tmp_path / "m.json"), batch=3)
    graph = json.loads((tmp_path / "m.json").read_text())
    assert graph["nodes"][0]["shape"] == [3, 2, 6, 6]
    again = tlir.compile(str(tmp_path / "m.json"), cache=False)
    x = inputs(3, "f64")
    assert_identical(again(x), model(x))
    static = tlir.compile(specialize(module("f64"), 3), cache=False)
    with pytest.raises(TlirError, match="not batch 5"):
        tlir.save(static, str(tmp_path / "s.json"), batch=5)


def test_tlir_run_takes_any_batch(tmp_path):
    path = tmp_path / "cnn.mlir"
    path.write_text(CNN.replace("DT", "f32"))
    for batch in (1, 5):
        np.save(tmp_path / "x.npy", inputs(batch, "f32"))
        result = subprocess.run(
            [sys.executable, "-m", "tlir.tools.run", str(path), "--input", str(tmp_path / "x.npy")]
            + ["--compare", "-q", "--no-cache"],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        assert f"output0: shape [{batch}, 3] float32" in result.stdout
        assert "bit-identical to the reference" in result.stdout
    np.save(tmp_path / "x.npy", np.zeros((0, 2, 6, 6), np.float32))
    result = subprocess.run(
        [sys.executable, "-m", "tlir.tools.run", str(path), "--input", str(tmp_path / "x.npy")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stderr.strip().endswith("the model's batch '?' is its leading extent, at least 1")


def test_jvp_and_ibp_run_at_the_inputs_batch():
    from tlir.reference import jvp as reference_jvp

    model = tlir.compile(module("f64"), cache=False)
    for batch in (1, 4):
        x = inputs(batch, "f64")
        dx = inputs(batch, "f64", seed=5)
        outputs, tangents = model.jvp([x], [dx])
        assert_identical([*outputs, *tangents], reference_jvp(module("f64"), [x], [dx]))
        lowers, uppers = model.ibp([x - 0.01], [x + 0.01])
        static = tlir.compile(specialize(module("f64"), batch), cache=False)
        want_lowers, want_uppers = static.ibp([x - 0.01], [x + 0.01])
        assert_identical(lowers, want_lowers)
        assert_identical(uppers, want_uppers)
        assert lowers[0].shape == (batch, 3)


def test_bound_options_reach_the_batchs_model():
    """`rules=` and `mode=` are passed on to the model compiled for the batch."""
    model = tlir.compile(module("f64"), cache=False)
    x = inputs(3, "f64")
    static = tlir.compile(specialize(module("f64"), 3), cache=False)
    for rules in ("torchlean", "tight"):
        got = model.ibp_ball([x], 0.01, rules=rules)
        want = static.ibp_ball([x], 0.01, rules=rules)
        assert_identical([*got[0], *got[1]], [*want[0], *want[1]])
    assert model.bounds([x - 0.01], [x + 0.01], rules="tight") is not None


def test_concurrent_first_calls_compile_once():
    from concurrent.futures import ThreadPoolExecutor

    model = tlir.compile(module("f32"), cache=False)
    x = inputs(5, "f32")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: model(x), range(4)))
    assert list(model._codes) == [("forward", None)]  # compiled once
    assert model.stats["compiled batches"] == []
    for got in results:
        assert_identical(got, evaluate(module("f32"), [x]))


def test_a_batch_compiled_before_comes_from_the_compile_cache():
    """A second model of the same module (another process's, say) meets batch 6
    in the compile cache."""
    text = CNN.replace("DT", "f32").replace("0.03125", "0.0625")  # a module of its own
    first = tlir.compile(text)
    first(inputs(6, "f32"))
    assert first.stats["cache"] == "miss"
    again = tlir.compile(text)
    x = inputs(6, "f32")
    assert_identical(again(x), first(x))
    assert again.stats["cache"] == "hit"


# --- a `?` batch in a .tlz -----------------------------------------------------


def saved_dynamic(tmp_path, dtype: str):
    """The CNN compiled with a parameter changed (the file must hold the current
    values) and saved as a `.tlz` without a batch."""
    model = tlir.compile(module(dtype), cache=False)
    model.parameters()["const1"][...] = [0.5, -0.0]
    path = tmp_path / "m.tlz"
    tlir.save(model, str(path))
    return model, path


def graph_document(path) -> dict:
    import zipfile

    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("graph.json"))


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_tlz_keeps_the_dynamic_batch(tmp_path, dtype):
    model, path = saved_dynamic(tmp_path, dtype)
    document = graph_document(path)
    assert document["container"] == "tlz.v3"
    assert document["batch"]["batches"] == [2, 3]
    assert document["nodes"][0]["shape"] == [2, 2, 6, 6]
    assert document["batch"]["nodes"][0]["shape"] == [3, 2, 6, 6]
    again = tlir.compile(str(path), cache=False)
    assert isinstance(again, DynamicBatchModel)
    assert str(again.function_op.function_type) == str(model.function_op.function_type)
    # renamed as a graph's payloads are (node{ID}.field), in the same order
    assert_identical(list(again.parameters().values()), list(model.parameters().values()))
    for batch in BATCHES:
        x = inputs(batch, dtype)
        assert_identical(again(x), model(x))


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_tlz_at_a_batch_stays_static(tmp_path, dtype):
    model = tlir.compile(module(dtype), cache=False)
    tlir.save(model, str(tmp_path / "m.tlz"), batch=3)
    assert graph_document(tmp_path / "m.tlz")["container"] == "tlz.v2"
    again = tlir.compile(str(tmp_path / "m.tlz"), cache=False)
    assert not isinstance(again, DynamicBatchModel)
    x = inputs(3, dtype)
    assert_identical(again(x), model(x))
    static = tlir.compile(specialize(module(dtype), 3), cache=False)
    tlir.save(static, str(tmp_path / "s.tlz"))
    assert graph_document(tmp_path / "s.tlz")["container"] == "tlz.v2"
    assert_identical(tlir.compile(str(tmp_path / "s.tlz"), cache=False)(x), static(x))


def test_tlir_run_takes_any_batch_of_a_dynamic_tlz(tmp_path):
    model, path = saved_dynamic(tmp_path, "f32")
    for batch in (1, 5):
        x = inputs(batch, "f32")
        np.save(tmp_path / "x.npy", x)
        result = subprocess.run(
            [sys.executable, "-m", "tlir.tools.run", str(path), "--input", str(tmp_path / "x.npy")]
            + ["--output", str(tmp_path / "out.npz"), "-q", "--no-cache"],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        with np.load(tmp_path / "out.npz") as out:
            assert_identical([out[name] for name in out.files], model(x))


def rewrite(path, edit) -> None:
    """Rewrite a `.tlz`'s graph.json with `edit` applied, keeping its arrays."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    document = json.loads(members["graph.json"])
    edit(document)
    members["graph.json"] = json.dumps(document).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _set(key, value):
    return lambda document: document["batch"].__setitem__(key, value)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("batch"), "field 'batch' must be"),
        (_set("batches", [3, 2]), "field 'batch' must be"),
        (_set("batches", [1, 2]), "field 'batch' must be"),
        (_set("batches", [2, 4]), "field 'batch' does not describe a '?' batch"),
        (_set("nodes", "x"), "'nodes' must be a non-empty list"),
        (lambda d: d["batch"]["nodes"][0].__setitem__("shape", [3, 2, 6, 7]), "node"),
        (lambda d: d["batch"]["nodes"].pop(), "m.tlz"),
    ],
)
def test_a_bad_batch_field_is_a_one_line_error(tmp_path, edit, message):
    _, path = saved_dynamic(tmp_path, "f64")
    rewrite(path, edit)
    with pytest.raises(TlirError, match=re.escape(message)) as caught:
        tlir.compile(str(path), cache=False)
    assert "\n" not in str(caught.value)
    assert caught.value.where.endswith("m.tlz") or "m.tlz" in str(caught.value)


def test_a_reader_of_tlz_v2_refuses_a_dynamic_tlz_by_its_container_field(tmp_path, monkeypatch):
    """A reader that knows `tlz.v2` only meets an error naming the field that
    marks the `?`, never the model at one of its two batches."""
    from tlir.torchlean import container

    _, path = saved_dynamic(tmp_path, "f64")
    monkeypatch.setattr(container, "CONTAINERS", ("tlz.v1", "tlz.v2"))
    with pytest.raises(TlirError, match='\'container\' must be "tlz.v1" or "tlz.v2", got "tlz.v3"'):
        tlir.compile(str(path), cache=False)


def test_saving_a_dynamic_model_as_json_still_needs_a_batch(tmp_path):
    model = tlir.compile(module("f64"), cache=False)
    with pytest.raises(TlirError, match=r"or write a \.tlz, which keeps the '\?'"):
        tlir.save(model, str(tmp_path / "m.json"))
    assert not (tmp_path / "m.json").exists()


def test_translate_imports_a_dynamic_tlz_with_its_batch_or_at_one(tmp_path):
    _, path = saved_dynamic(tmp_path, "f32")
    command = [sys.executable, "-m", "tlir.tools.translate", "--import-torchlean", str(path)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "tensor<?x2x6x6xf32>" in result.stdout
    result = subprocess.run([*command, "--batch", "4"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "tensor<4x2x6x6xf32>" in result.stdout and "?" not in result.stdout
