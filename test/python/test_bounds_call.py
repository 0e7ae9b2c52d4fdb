"""The call path of `CompiledModel.bounds` (`tlir.compiler.bounds_call`): a box
of the model's dtype goes in as it is, any other box is copied or rounded
outward, the results are fresh arrays of each call, the statuses and checks
are read as numbers, and a call on the common path looks at no xDSL type and
takes no detour through `tlir.verification`. A dynamic-batch model's bounds
take the same path at each batch met before (with that batch's programs)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from test_dynamic_batch import CNN as DYNAMIC_CNN
from test_ibp_compiled import assert_same_bounds

import tlir
from tlir.compiler.calling import ArraySpecs, EntryCall, pointer_array
from tlir.compiler.dynamic import DynamicBatchModel
from tlir.diagnostics import TlirError
from tlir.passes.tlir_specialize_batch import specialize

CNN = str(Path(__file__).resolve().parents[2] / "examples" / "cnn.json")


BATCH = 3  # a dynamic-batch model's boxes


@pytest.fixture(scope="module")
def static_cnn32():
    return tlir.compile(CNN, "f32", cache=False)


@pytest.fixture(scope="module")
def dynamic_cnn32():
    # relu for tanh (no rule on Float32): every output resolves
    text = DYNAMIC_CNN.replace("DT", "f32").replace("tlir.tanh", "tlir.relu")
    model = tlir.compile(tlir.parse_module(text), cache=False)
    assert isinstance(model, DynamicBatchModel)
    return model


@pytest.fixture(params=["static", "dynamic"])
def cnn32(request):
    """A static CNN, and a dynamic-batch one at `BATCH` (a batch met before,
    after the first of the test's calls)."""
    return request.getfixturevalue(f"{request.param}_cnn32")


def _shapes(model) -> list[tuple[int, ...]]:
    """The inputs' shapes, a dynamic-batch model's at `BATCH`."""
    specs = getattr(model._inputs, "specs", model._inputs)
    return [tuple(BATCH if d < 0 else d for d in shape) for shape, _ in specs]


def _static_module(model):
    module = model.module()
    return specialize(module, BATCH) if isinstance(model, DynamicBatchModel) else module


def _box(model, seed: int = 0, dtype=np.float32) -> tuple[list[np.ndarray], list[np.ndarray]]:
    shapes = _shapes(model)
    xs = [np.random.default_rng(seed).normal(size=s).astype(dtype) for s in shapes]
    return [x - dtype(0.01) for x in xs], [x + dtype(0.01) for x in xs]


@pytest.fixture
def passed_boxes(monkeypatch) -> list[list[np.ndarray]]:
    """The boxes each compiled bounds call receives (whichever program runs)."""
    calls: list[list[np.ndarray]] = []
    run_split, run = EntryCall.run_split, EntryCall.run

    def spy_split(self, checked, threads, arrays):
        calls.append(list(checked))
        return run_split(self, checked, threads, arrays)

    def spy_run(self, checked, threads):
        calls.append(list(checked))
        return run(self, checked, threads)

    monkeypatch.setattr(EntryCall, "run_split", spy_split)
    monkeypatch.setattr(EntryCall, "run", spy_run)
    return calls


def test_a_box_of_the_models_dtype_is_not_copied(cnn32, passed_boxes):
    lows, highs = _box(cnn32)
    cnn32.bounds(lows, highs)
    assert all(got is given for got, given in zip(passed_boxes[-1], lows + highs, strict=True))


def test_other_boxes_are_copied_or_rounded_outward(cnn32, passed_boxes):
    """A Fortran-ordered box is copied into C order; a float64 box of the f32
    model is rounded outward; both give the reference's bits."""
    lows, highs = _box(cnn32, 1)
    fortran = [np.asfortranarray(lows[0])]
    got = assert_same_bounds(cnn32, _static_module(cnn32), fortran, highs)
    assert passed_boxes[-1][0] is not fortran[0] and passed_boxes[-1][0].flags.c_contiguous
    np.testing.assert_array_equal(passed_boxes[-1][0], lows[0])
    wide_lows, wide_highs = _box(cnn32, 2, np.float64)
    got = cnn32.bounds(wide_lows, wide_highs)
    low, high = passed_boxes[-1]
    assert low.dtype == high.dtype == np.float32
    assert (low.astype(np.float64) <= wide_lows[0]).all()
    assert (high.astype(np.float64) >= wide_highs[0]).all()
    assert got.lowers[0] is not None


def test_results_are_fresh_arrays_of_each_call(cnn32):
    first = cnn32.bounds(*_box(cnn32, 3))
    kept = [a.copy() for a in first.lowers + first.uppers]
    second = cnn32.bounds(*_box(cnn32, 4))
    for array, copy in zip(first.lowers + first.uppers, kept, strict=True):
        np.testing.assert_array_equal(array, copy)  # the second call wrote elsewhere
        assert array.flags.writeable and array.flags.c_contiguous
        assert not any(np.shares_memory(array, other) for other in second.lowers + second.uppers)
    assert first.reasons == [None] * len(first.lowers)


def test_the_common_path_reads_no_types(cnn32):
    """After the first call, `bounds` of boxes of the model's dtype calls into
    neither xDSL (a type's shape) nor `tlir.verification`'s general checks."""
    lows, highs = _box(cnn32, 5)
    cnn32.bounds(lows, highs)
    calls: set[tuple[str, str]] = set()

    def hook(frame, event, arg):
        if event == "call":
            calls.add((frame.f_globals.get("__name__", ""), frame.f_code.co_name))

    sys.setprofile(hook)
    try:
        cnn32.ibp(lows, highs)
    finally:
        sys.setprofile(None)
    assert not any(module.startswith("xdsl") for module, _ in calls), sorted(calls)
    general = {("tlir.verification", name) for name in ("input_boxes", "_box_end", "interpret")}
    assert not calls & general, sorted(calls)


def test_bad_rules_and_counts_are_one_line_errors(cnn32):
    lows, highs = _box(cnn32)
    with pytest.raises(TlirError, match="rules must be one of"):
        cnn32.bounds(lows, highs, rules="loose")
    with pytest.raises(TlirError, match="expected 1 lower and 1 upper bounds"):
        cnn32.bounds(lows, highs + highs)
    with pytest.raises(TlirError, match=r"upper bound 0 has shape \[3\]"):
        cnn32.bounds(lows, [np.zeros(3, np.float32)])


def _numbers(outputs, values) -> list[float]:
    """`run_split`'s numbers (after one array) of a buffer holding `values`."""
    call = EntryCall(None, ArraySpecs([]), outputs, 0, pointer_array([]), "test")
    buffer = np.zeros(call._output_bytes + 64, np.uint8)
    skip = -buffer.ctypes.data % 64
    for (shape, dtype, offset), value in zip(call._views[1:], values, strict=True):
        np.ndarray(shape, dtype, buffer, skip + offset)[()] = value
    return call._numbers(1)(buffer, skip)


def test_numbers_are_read_in_one_view_or_one_by_one():
    """Statuses and checks of one dtype 64 bytes apart (one strided view), and
    of mixed dtypes (one view each): the values, as Python floats."""
    f64, f32 = np.dtype(np.float64), np.dtype(np.float32)
    same = _numbers([((3, 5), f64), ((), f64), ((), f64), ((), f64)], [np.inf, 2.0, 0.5])
    assert same == [np.inf, 2.0, 0.5] and all(type(v) is float for v in same)
    mixed = _numbers([((7,), f32), ((), f32), ((), f64), ((), f32)], [np.inf, 3.0, 0.25])
    assert mixed == [np.inf, 3.0, 0.25]


def test_ibp_ball_rounds_a_radius_once_and_returns_fresh_boxes(cnn32, monkeypatch):
    """The second ball of a radius does not round it again; the centre is only
    read (its ends are new arrays); a centre of the wrong shape is a one-line error."""
    from tlir import bounds

    x = np.random.default_rng(6).normal(size=_shapes(cnn32)[0]).astype(np.float32)
    kept = x.copy()
    cnn32.ibp_ball([x], 0.0123)
    rounded = []
    outward = bounds.outward
    monkeypatch.setattr(bounds, "outward", lambda *a, **k: rounded.append(a) or outward(*a, **k))
    lows, highs = cnn32.ibp_ball([x], 0.0123)
    assert rounded == []
    np.testing.assert_array_equal(x, kept)
    assert not any(np.shares_memory(x, a) for a in lows + highs)
    eps = np.float32(0.0123)  # rounded upward into binary32 by hand
    eps = eps if float(eps) >= 0.0123 else np.nextafter(eps, np.float32(1))
    box = (
        [np.nextafter(x - eps, np.float32(-np.inf))],
        [np.nextafter(x + eps, np.float32(np.inf))],
    )
    want_lows, want_highs = cnn32.ibp(*box)
    pairs = zip(lows + highs, want_lows + want_highs, strict=True)
    assert all(got.tobytes() == want.tobytes() for got, want in pairs)
    with pytest.raises(TlirError, match=r"input 0 has shape \[3\]"):
        cnn32.ibp_ball([np.zeros(3, np.float32)], 0.01)


UNRESOLVED = """
func.func @main(%x: tensor<Nxf64>) -> (tensor<Nxf64>, tensor<Nxf64>) {
  %e = tlir.exp %x : (tensor<Nxf64>) -> tensor<Nxf64>
  %i = tlir.inv %x : (tensor<Nxf64>) -> tensor<Nxf64>
  func.return %e, %i : tensor<Nxf64>, tensor<Nxf64>
}"""


@pytest.mark.parametrize("shape", ["2", "?x2"])
def test_an_unresolved_outputs_reason_is_looked_up_once(shape):
    """exp has no rule on Float (always unresolved), inv resolves on [1, 2]
    and not on [-1, 1]: the reasons are the reference's, and a second call
    with the same unresolved op does not look its reason up again (a
    dynamic-batch model's at a batch met before, as a static one's)."""
    module = tlir.parse_module(UNRESOLVED.replace("N", shape))
    model = tlir.compile(module, cache=False)
    lead = (1,) if shape.startswith("?") else ()
    reference = specialize(module, 1) if lead else module

    def box(low, high):
        return [np.array(low).reshape(*lead, 2)], [np.array(high).reshape(*lead, 2)]

    first = assert_same_bounds(model, reference, *box([-1.0, 1.0], [1.0, 2.0]))
    assert first.lowers == [None, None] and "(tlir.inv)" in first.reasons[1]
    looked_up: list[str] = []

    def hook(frame, event, arg):
        if event == "call" and frame.f_code.co_name in ("unresolved_reason", "unresolved_message"):
            looked_up.append(frame.f_code.co_name)

    sys.setprofile(hook)
    try:
        again = model.bounds(*box([-1.0, 1.0], [1.0, 2.0]))
    finally:
        sys.setprofile(None)
    assert looked_up == [] and again.reasons == first.reasons
    mixed = assert_same_bounds(model, reference, *box([1.0, 1.0], [2.0, 2.0]))
    assert mixed.lowers[0] is None and mixed.reasons[1] is None and mixed.lowers[1] is not None


def test_a_dynamic_models_bounds_take_its_threads_at_each_call(dynamic_cnn32, monkeypatch):
    """The bounds at a batch met before run with the threads the model has at
    the call, not those it had when the batch was met."""
    lows, highs = _box(dynamic_cnn32, 7)
    dynamic_cnn32.threads = 1
    want = dynamic_cnn32.bounds(lows, highs)
    seen: list[int] = []
    run_split, run = EntryCall.run_split, EntryCall.run
    monkeypatch.setattr(
        EntryCall, "run_split", lambda s, c, t, a: seen.append(t) or run_split(s, c, t, a)
    )
    monkeypatch.setattr(EntryCall, "run", lambda s, c, t: seen.append(t) or run(s, c, t))
    try:
        dynamic_cnn32.threads = 2
        got = dynamic_cnn32.bounds(lows, highs)
    finally:
        dynamic_cnn32.threads = 1
    assert seen and set(seen) == {2}
    pairs = zip(got.lowers + got.uppers, want.lowers + want.uppers, strict=True)
    assert all(g.tobytes() == w.tobytes() for g, w in pairs)
