"""Row reductions on vectors (tlir.passes.vector_row_folds): one output per
lane, each output's terms still folded one at a time in ascending order, so
every result keeps the reference's bits — on both back ends, in both
precisions, for any thread count, with strips, transposed squares and scalar
tails all exercised by the shapes below."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, memref, vector

import tlir
from tlir.compiler.backend import kernel_to_loops, mlir
from tlir.compiler.build import _entry_module
from tlir.passes.contraction_kernels.target import host_target
from tlir.passes.tlir_form_kernels import is_kernel
from tlir.reference import evaluate

BACKENDS = ["xdsl"] + (["mlir"] if mlir.find_tool("mlir-opt") else [])
LN = "{axis = 1 : i64, eps = 1.0e-05 : f64}"

# (name, input shape, output shape, op): 37 rows and 243 terms leave rows past
# the last whole vector (8 lanes of f64, 16 of f32 with AVX-512) and terms past
# the last whole square; every fold has at least MIN_TERMS terms in all.
STRIPS = [
    ("sum over rows", (37, 243), (37,), "tlir.reduce_sum %x axis = 1"),
    ("mean over the last axis of 3-D", (3, 21, 99), (3, 21), "tlir.reduce_mean %x axis = 2"),
    ("layernorm", (37, 243), (37, 243), f"tlir.layernorm %x {LN}"),
]
# Folds over a leading axis: the outputs are contiguous, their loop is innermost
# and LLVM vectorises it; no strips.
LEADING = [
    ("sum over columns", (45, 37), (37,), "tlir.reduce_sum %x axis = 0"),
    ("sum over the middle axis", (2, 33, 20), (2, 20), "tlir.reduce_sum %x axis = 1"),
]
CASES = STRIPS + LEADING


def _text(shape, out_shape, op: str, dtype: str) -> str:
    t = f"tensor<{'x'.join(map(str, shape))}x{dtype}>"
    r = f"tensor<{'x'.join(map(str, out_shape))}x{dtype}>"
    return f"""func.func @main(%x: {t}) -> {r} {{
  %y = {op} : ({t}) -> {r}
  func.return %y : {r}
}}"""


def _input(shape, dtype: str, seed: int = 0) -> np.ndarray:
    """Terms over six orders of magnitude: a fold in any other order rounds differently."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) * 10.0 ** rng.uniform(-3, 3, size=shape)
    x = x.astype(np.float64 if dtype == "f64" else np.float32)
    x.flat[5] = -0.0
    return x


def _vector_ops(text: str, kinds: tuple[type, ...] = (vector.ShuffleOp, vector.LoadOp)) -> int:
    """Ops of `kinds` in the loops of the model's kernels (by default those of
    the row folds' strips)."""
    work, _ = _entry_module(tlir.parse_module(text), "main", True)
    count = 0
    for kernel in work.ops:
        if isinstance(kernel, func.FuncOp) and is_kernel(kernel):
            loops = kernel_to_loops(kernel)
            count += sum(isinstance(op, kinds) for op in loops.walk())
    return count


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_vector_strips_give_the_reference_bits(case, dtype, backend):
    _, shape, out_shape, op = case
    text = _text(shape, out_shape, op, dtype)
    x = _input(shape, dtype)
    expected = np.asarray(evaluate(tlir.parse_module(text), [x])[0]).tobytes()
    for threads in (1, 2):
        model = tlir.compile(text, backend=backend, threads=threads, cache=False, progress=False)
        assert model(x)[0].tobytes() == expected, threads


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("case", STRIPS, ids=[c[0] for c in STRIPS])
def test_row_folds_take_the_vector_strips(case, dtype):
    if host_target().vector_bytes < 16:
        pytest.skip("no vector unit the strips use")
    _, shape, out_shape, op = case
    assert _vector_ops(_text(shape, out_shape, op, dtype)) > 0


def _at_offset(x: np.ndarray, offset: int) -> np.ndarray:
    """A copy of `x` whose data starts `offset` bytes past a 64-byte boundary."""
    raw = np.empty(x.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    copy = raw[start : start + x.nbytes].view(x.dtype).reshape(x.shape)
    copy[...] = x
    return copy


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_misaligned_rows_peel_their_first_terms_with_the_same_bits(dtype, backend):
    """Rows of a multiple of 64 bytes: every row
    starts at the array's offset within a vector, so the strips run the terms
    before the first boundary one by one; at every offset the sums and the
    layernorm keep the reference's bits."""
    terms = 160  # rows of 1,280 / 640 bytes
    text = _text((37, terms), (37, terms), f"tlir.layernorm %x {LN}", dtype)
    sums = _text((37, terms), (37,), "tlir.reduce_sum %x axis = 1", dtype)
    if host_target().vector_bytes in (32, 64):
        assert _vector_ops(sums, (memref.ExtractAlignedPointerAsIndexOp,)) == 1
    x = _input((37, terms), dtype, seed=2)
    models = [tlir.compile(t, backend=backend, cache=False, progress=False) for t in (text, sums)]
    expected = [np.asarray(evaluate(tlir.parse_module(t), [x])[0]).tobytes() for t in (text, sums)]
    for offset in range(0, 64, x.itemsize):
        shifted = _at_offset(x, offset)
        assert shifted.ctypes.data % 64 == offset
        got = [model(shifted)[0].tobytes() for model in models]
        assert got == expected, offset


def test_the_inputs_tell_fold_orders_apart():
    """The bit-for-bit comparison above means something: summing the same
    rows pairwise (NumPy) or backwards gives other bits for some row."""
    x = _input((37, 243), "f64")
    ascending = np.zeros(37)
    for k in range(243):
        ascending = ascending + x[:, k]
    backwards = np.zeros(37)
    for k in reversed(range(243)):
        backwards = backwards + x[:, k]
    assert ascending.tobytes() != backwards.tobytes()
    assert ascending.tobytes() != x.sum(axis=1).tobytes()


@pytest.mark.parametrize(
    "op, shape, out_shape",
    [
        ("tlir.reduce_sum %x axis = 1", (5, 2048), (5,)),  # fewer rows than lanes
        ("tlir.reduce_sum %x axis = 1", (2048, 3), (2048,)),  # fewer terms than lanes
        ("tlir.reduce_sum %x axis = 1", (20, 40), (20,)),  # fewer terms than MIN_TERMS
    ],
)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_folds_the_strips_do_not_take_stay_scalar_and_exact(op, shape, out_shape, dtype):
    text = _text(shape, out_shape, op, dtype)
    assert _vector_ops(text) == 0
    x = _input(shape, dtype, seed=1)
    expected = np.asarray(evaluate(tlir.parse_module(text), [x])[0]).tobytes()
    assert tlir.compile(text, cache=False, progress=False)(x)[0].tobytes() == expected


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_derivative_folds_take_the_strips_with_the_same_bits(dtype, backend, monkeypatch):
    """Layernorm's and softmax's JVP and VJP sum rows of products (dy · x̂, dy · y)
    and broadcasts: at 37 × 243 those folds run on vector strips, with the
    reference's bits."""
    import tlir.passes.tlir_linalg_to_loops as loops
    from tlir.reference import jvp, vjp

    strips: list[str] = []
    emit = loops.emit_vector_strips

    def counted(fold, *args):
        strips.append(fold.op.name)
        return emit(fold, *args)

    monkeypatch.setattr(loops, "emit_vector_strips", counted)
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "1")  # lowered in this process

    t = f"tensor<37x243x{dtype}>"
    r = f"tensor<37x{dtype}>"
    text = f"""func.func @main(%x: {t}) -> ({t}, {r}) {{
  %n = tlir.layernorm %x {LN} : ({t}) -> {t}
  %s = tlir.softmax %n axis = 1 : ({t}) -> {t}
  %m = tlir.reduce_mean %s axis = 1 : ({t}) -> {r}
  func.return %s, %m : {t}, {r}
}}"""
    x = _input((37, 243), dtype, seed=3)
    rng = np.random.default_rng(4)
    dx = rng.normal(size=x.shape).astype(x.dtype)
    dys = [rng.normal(size=x.shape).astype(x.dtype), rng.normal(size=(37,)).astype(x.dtype)]
    module = tlir.parse_module(text)
    want_jvp = [np.asarray(a).tobytes() for a in jvp(module, [x], [dx])]
    want_vjp = [np.asarray(a).tobytes() for a in vjp(module, [x], dys)]
    model = tlir.compile(text, backend=backend, cache=False, progress=False)
    ys, ts = model.jvp([x], [dx])
    assert [a.tobytes() for a in [*ys, *ts]] == want_jvp
    ys, gx, gp = model.vjp([x], dys)
    assert [a.tobytes() for a in [*ys, *gx, *gp.values()]] == want_vjp
    if host_target().vector_bytes >= 16:
        assert len(strips) >= 13  # the JVP's 5 and the VJP's 8 folds, besides the forward's
