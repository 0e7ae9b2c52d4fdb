"""Threads split independent outputs only: every result is bit-identical for
any thread count, and the large kernels really are split."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import tlir
import tlir.compiler.model
from tlir.compiler import jit

pytestmark = pytest.mark.skipif(not jit.host().threads, reason="no POSIX threads")

N = 256
MODEL = f"""func.func @main(%x: tensor<{N}x{N}xf64>, %w: tensor<{N}x{N}xf64>) -> (tensor<{N}x{N}xf64>, tensor<{N}x{N}xf64>, tensor<{N}xf64>) {{
  %0 = tlir.matmul %x, %w : (tensor<{N}x{N}xf64>, tensor<{N}x{N}xf64>) -> tensor<{N}x{N}xf64>
  %1 = tlir.sigmoid %0 : (tensor<{N}x{N}xf64>) -> tensor<{N}x{N}xf64>
  %2 = tlir.mul_elem %x, %w : (tensor<{N}x{N}xf64>, tensor<{N}x{N}xf64>) -> tensor<{N}x{N}xf64>
  %3 = tlir.softmax %2 axis = 1 : (tensor<{N}x{N}xf64>) -> tensor<{N}x{N}xf64>
  %4 = tlir.reduce_sum %3 axis = 1 : (tensor<{N}x{N}xf64>) -> tensor<{N}xf64>
  func.return %1, %3, %4 : tensor<{N}x{N}xf64>, tensor<{N}x{N}xf64>, tensor<{N}xf64>
}}"""


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_any_thread_count_gives_the_same_bits(dtype):
    text = MODEL.replace("f64", dtype)
    numpy_type = np.float64 if dtype == "f64" else np.float32
    rng = np.random.default_rng(7)
    inputs = [rng.normal(size=(N, N)).astype(numpy_type) for _ in range(2)]
    inputs[0][3, 5] = np.nan
    inputs[1][7, 1] = -0.0
    results = {}
    for threads in (1, 2, 3, 5):
        model = tlir.compile(text, threads=threads)
        results[threads] = [o.tobytes() for o in model(*inputs)]
    assert results[1] == results[2] == results[3] == results[5]
    from tlir.reference import evaluate

    reference = evaluate(tlir.parse_module(text), inputs)
    assert results[1] == [r.tobytes() for r in reference]


@pytest.mark.parametrize("threads", [2, 3, 5, 8])
def test_every_iteration_runs_in_every_call(threads):
    """The workers split each threaded step into chunks down to single
    iterations (the matmul here has a few, fewer than 5 or 8 threads, and not
    a multiple of 3): every iteration must run. Two calls with different
    inputs, so that an iteration left out would show the previous call's
    values (or whatever the fresh output buffer holds)."""
    from tlir.reference import evaluate

    model = tlir.compile(MODEL, threads=threads)
    assert any(s.threaded and 1 < s.extent < 5 and s.extent % 3 for s in model.plan.steps)
    for seed in (1, 2):
        rng = np.random.default_rng(seed)
        inputs = [rng.normal(size=(N, N)) for _ in range(2)]
        got = [o.tobytes() for o in model(*inputs)]
        assert got == [r.tobytes() for r in evaluate(tlir.parse_module(MODEL), inputs)]


def test_partial_sums_in_scratch_keep_the_bits_for_any_thread_count():
    """A matmul whose rows of C are 4 KiB apart (512 f64 columns) and whose sum
    takes several k blocks keeps its partial sums in a scratch argument, a
    workspace slice of the plan that all threads share (one part per work
    unit): the results are the reference's for 1, 2 and 5 threads, with a
    fused relu, and from the compile cache."""
    from tlir.reference import evaluate

    m, k, n = 48, 300, 512
    a, b, c = (f"tensor<{s}xf64>" for s in (f"{m}x{k}", f"{k}x{n}", f"{m}x{n}"))
    text = (
        f"func.func @main(%a: {a}, %b: {b}) -> {c} {{\n"
        f"  %0 = tlir.matmul %a, %b : ({a}, {b}) -> {c}\n"
        f"  %1 = tlir.relu %0 : ({c}) -> {c}\n"
        f"  func.return %1 : {c}\n}}"
    )
    rng = np.random.default_rng(3)
    inputs = [rng.normal(size=(m, k)), rng.normal(size=(k, n))]
    inputs[0][1, 2] = np.inf
    expected = [r.tobytes() for r in evaluate(tlir.parse_module(text), inputs)]
    for threads in (1, 2, 5):
        for _ in range(2):  # the second compile is a cache hit
            model = tlir.compile(text, threads=threads)
            (step,) = model.plan.steps
            assert [s.kind for s in step.args] == ["input", "input", "output", "workspace"]
            assert [o.tobytes() for o in model(*inputs)] == expected


def test_large_kernels_are_threaded():
    model = tlir.compile(MODEL, threads=2)
    threaded = [s for s in model.plan.steps if s.threaded]
    assert len(threaded) >= 2
    assert all(s.extent > 1 for s in threaded)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_threads_must_be_a_positive_integer(bad):
    with pytest.raises(tlir.compiler.model.TlirError, match="threads must be a positive integer"):
        tlir.compile(MODEL, threads=bad)


@pytest.mark.parametrize("rows", [7, 8, 13, 37])
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_row_reductions_in_strips_keep_every_fold(rows, dtype):
    """Row reductions run strips of 8 rows side by side (tlir-linalg-to-loops);
    row counts below, at and past a strip, split across threads at ranges that
    are not multiples of 8, give the reference's bits."""
    from tlir.reference import evaluate

    cols = 19
    t, r = f"tensor<{rows}x{cols}x{dtype}>", f"tensor<{rows}x{dtype}>"
    text = f"""func.func @main(%x: {t}) -> ({t}, {t}, {r}, {r}) {{
  %0 = tlir.softmax %x axis = 1 : ({t}) -> {t}
  %1 = tlir.layernorm %x {{axis = 1 : i64, eps = 1.0e-05 : f64}} : ({t}) -> {t}
  %2 = tlir.reduce_sum %x axis = 1 : ({t}) -> {r}
  %3 = tlir.reduce_mean %0 axis = 1 : ({t}) -> {r}
  func.return %0, %1, %2, %3 : {t}, {t}, {r}, {r}
}}"""
    numpy_type = np.float64 if dtype == "f64" else np.float32
    x = np.random.default_rng(rows).normal(size=(rows, cols)).astype(numpy_type) * 1e3
    x[rows // 2, 3] = -0.0
    reference = [np.asarray(a).tobytes() for a in evaluate(tlir.parse_module(text), [x])]
    for threads in (1, 3):
        outputs = tlir.compile(text, threads=threads, cache=False)(x)
        assert [o.tobytes() for o in outputs] == reference, threads


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_pooling_splits_over_samples_with_the_same_bits(dtype):
    """Pooling kernels split over samples (their window-shape operand is never
    written), with the reference's bits for any thread count."""
    from tlir.reference import evaluate

    t, r = f"tensor<4x16x64x64x{dtype}>", f"tensor<4x16x32x32x{dtype}>"
    window = "kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>"
    text = f"""func.func @main(%x: {t}) -> ({r}, {r}) {{
  %0 = tlir.max_pool %x {{{window}}} : ({t}) -> {r}
  %1 = tlir.avg_pool %x {{{window}}} : ({t}) -> {r}
  func.return %0, %1 : {r}, {r}
}}"""
    numpy_type = np.float64 if dtype == "f64" else np.float32
    x = np.random.default_rng(3).normal(size=(4, 16, 64, 64)).astype(numpy_type)
    x[1, 2, 3, 4] = np.nan
    reference = [np.asarray(a).tobytes() for a in evaluate(tlir.parse_module(text), [x])]
    for threads in (1, 3):
        model = tlir.compile(text, threads=threads, cache=False)
        if threads > 1:
            assert all(step.threaded for step in model.plan.steps), model.plan.steps
        assert [o.tobytes() for o in model(x)] == reference, threads


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_derivatives_split_with_the_same_bits(dtype):
    """A conv → relu → pool model's JVP and VJP (contraction kernels threaded,
    the derivative folds on one thread: `tlir.compiler.work.WORK`) have the reference's
    bits for any thread count."""
    from tlir.reference import jvp, vjp

    x_t, y_t = f"tensor<8x4x32x32x{dtype}>", f"tensor<8x4x16x16x{dtype}>"
    w_t, b_t = f"tensor<4x4x3x3x{dtype}>", f"tensor<4x{dtype}>"
    conv = (
        "kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, "
        "padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, "
        "channel_axis = 1 : i64, in_channels = 4 : i64, out_channels = 4 : i64"
    )
    pool = "kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>"
    text = f"""func.func @main(%x: {x_t}) -> {y_t} {{
  %w = tlir.const {{value = dense<0.125> : {w_t}}} : {w_t}
  %b = tlir.const {{value = dense<-0.5> : {b_t}}} : {b_t}
  %c = tlir.conv %x, %w, %b {{{conv}}} : ({x_t}, {w_t}, {b_t}) -> {x_t}
  %r = tlir.relu %c : ({x_t}) -> {x_t}
  %p = tlir.max_pool %r {{{pool}}} : ({x_t}) -> {y_t}
  func.return %p : {y_t}
}}"""
    numpy_type = np.float64 if dtype == "f64" else np.float32
    rng = np.random.default_rng(11)
    x = rng.normal(size=(8, 4, 32, 32)).astype(numpy_type)
    x[0, 1, 2, 3] = np.nan
    dx = rng.normal(size=x.shape).astype(numpy_type)
    dy = rng.normal(size=(8, 4, 16, 16)).astype(numpy_type)
    module = tlir.parse_module(text)
    want_jvp = [np.asarray(a).tobytes() for a in jvp(module, [x], [dx])]
    want_vjp = [np.asarray(a).tobytes() for a in vjp(module, [x], [dy])]
    for threads in (1, 3):
        model = tlir.compile(text, threads=threads, cache=False)
        ys, ts = model.jvp([x], [dx])
        assert [a.tobytes() for a in [*ys, *ts]] == want_jvp, threads
        ys, gx, gp = model.vjp([x], [dy])
        assert [a.tobytes() for a in [*ys, *gx, *gp.values()]] == want_vjp, threads
        if threads > 1:  # the conv, its input and kernel gradients
            steps = model._derivative("vjp", "all").plan.steps
            assert sum(step.threaded for step in steps) >= 3, steps


def test_a_huge_thread_count_is_capped_with_a_warning(capsys):
    from tlir.compiler.threads import MAX_THREADS_PER_CORE, max_threads, usable_cores

    assert max_threads() == MAX_THREADS_PER_CORE * usable_cores()
    model = tlir.compile(MODEL, threads=100_000)
    assert model.threads == max_threads()
    model.threads = 10**12  # beyond the entry function's i32 too
    assert model.threads == max_threads()
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"tlir: warning: threads={n} asks for {n} threads, more than {MAX_THREADS_PER_CORE} "
        f"per usable core: using {max_threads()}"
        for n in (100_000, 10**12)
    ]


RUN_HUGE = f"""
import sys
import numpy as np
import tlir
from tlir.reference import evaluate
text = sys.argv[1]
threads = int(sys.argv[2]) if len(sys.argv) > 2 else None
rng = np.random.default_rng(0)
inputs = [rng.normal(size=({N}, {N})) for _ in range(2)]
got = tlir.compile(text, threads=threads, cache=False)(*inputs)
want = evaluate(tlir.parse_module(text), inputs)
print(all(a.tobytes() == b.tobytes() for a, b in zip(got, want)))
"""


@pytest.mark.parametrize(
    "argv, env", [(["100000"], {}), ([], {"TLIR_NUM_THREADS": str(10**9)})], ids=["api", "env"]
)
def test_a_huge_thread_count_runs_instead_of_crashing(argv, env):
    """Once a segmentation fault (100,000 threads) or libgomp's 'Out of memory
    allocating 224000001344 bytes' (10**9)."""
    proc = subprocess.run(
        [sys.executable, "-c", RUN_HUGE, MODEL, *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "True\n"
    (warning,) = proc.stderr.splitlines()
    assert warning.startswith("tlir: warning: ") and "threads" in warning


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
def test_conv_of_whole_row_units_keeps_the_bits_for_one_and_two_threads(dtype, backend):
    """A conv of 32 channels over rows of 28 (bench/kernels.py's, smaller), with
    a fused relu: its k blocks are shortened so that units hold whole output
    rows (with AVX-512). Bit-identical to the reference with 1 and 2 threads,
    through both back ends."""
    from tlir.compiler.backend.mlir import find_tool
    from tlir.reference import evaluate

    if backend == "mlir" and not find_tool("mlir-opt"):
        pytest.skip("no mlir-opt")
    x, w, b, y = (f"tensor<{s}x{dtype}>" for s in ("2x32x6x28", "16x32x3x3", "16", "2x16x6x28"))
    props = ("{kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, "
             "padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, "
             "channel_axis = 1 : i64, in_channels = 32 : i64, out_channels = 16 : i64}")  # fmt: skip
    text = (
        f"func.func @main(%x: {x}, %w: {w}, %b: {b}) -> {y} {{\n"
        f"  %0 = tlir.conv %x, %w, %b {props} : ({x}, {w}, {b}) -> {y}\n"
        f"  %1 = tlir.relu %0 : ({y}) -> {y}\n"
        f"  func.return %1 : {y}\n}}"
    )
    numpy_type = np.float64 if dtype == "f64" else np.float32
    rng = np.random.default_rng(5)
    inputs = [
        rng.normal(size=s).astype(numpy_type) for s in ((2, 32, 6, 28), (16, 32, 3, 3), (16,))
    ]
    inputs[0][1, 3, 0, 27] = np.nan
    expected = [r.tobytes() for r in evaluate(tlir.parse_module(text), inputs)]
    for threads in (1, 2):
        model = tlir.compile(text, threads=threads, backend=backend, cache=False)
        assert [o.tobytes() for o in model(*inputs)] == expected, threads


def test_derivatives_and_bounds_follow_the_models_thread_count():
    """Setting `model.threads` after a derivative or the bounds program was
    compiled reaches them: each runs with the model's count at the call."""
    text = """func.func @main(%x: tensor<4x8xf64>) -> tensor<4x3xf64> {
  %w = tlir.const {value = dense<0.25> : tensor<3x8xf64>} : tensor<3x8xf64>
  %b = tlir.const {value = dense<-0.5> : tensor<3xf64>} : tensor<3xf64>
  %y = tlir.linear %x, %w, %b : (tensor<4x8xf64>, tensor<3x8xf64>, tensor<3xf64>) -> tensor<4x3xf64>
  func.return %y : tensor<4x3xf64>
}"""
    model = tlir.compile(text, threads=1, cache=False)
    x = np.linspace(-1.0, 1.0, 32).reshape(4, 8)
    model.vjp([x], [np.ones((4, 3))])
    model.ibp([x - 0.5], [x + 0.5])
    model.threads = 2
    model.vjp([x], [np.ones((4, 3))])
    model.ibp([x - 0.5], [x + 0.5])
    assert model._derivatives, "no derivative was compiled"
    assert {key: d.threads for key, d in model._derivatives.items()} == {
        key: 2 for key in model._derivatives
    }
