"""The directed steps in AVX-512's per-instruction rounding and the interval
contractions' fast path (docs/verification.md#performance): the steps' bits
on special values with the host's rounding and with the portable integer
form, the fast path's checks and its fallback to the exact program
(overflow mid-sum, infinities and NaN, the smallest subnormals, lo = hi),
bit-identical to the reference rules on both back ends, f64 and f32, 1 and 2
threads, and a host without AVX-512 (forced) taking the exact program."""

from __future__ import annotations

import math

import fuzz_graphs
import numpy as np
import pytest
from op_cases import OpCase
from test_ibp_compiled import (
    BACKENDS,
    CASES,
    CHANNEL_MAJOR_CONVS,
    LINEAR_REMAINDER,
    NEXT,
    _adversarial,
    _with_constant_parameters,
    assert_same_bounds,
    random_box,
)

import tlir
from tlir.passes import directed_steps

AVX512 = directed_steps.host_has_embedded_rounding()
needs_avx512 = pytest.mark.skipif(not AVX512, reason="no AVX-512")


@pytest.fixture(autouse=True)
def every_contraction_fast(monkeypatch):
    """The small contractions of these tests take the fast path too."""
    from tlir.passes.ibp import structured

    monkeypatch.setattr(structured, "FAST_TERMS", 0)


STEPS = """
func.func @main(%x: tensor<16x{t}>) -> (tensor<16x{t}>, tensor<16x{t}>) {{
  %u, %d = tlir_ad.map(%x) : (tensor<16x{t}>) -> (tensor<16x{t}>, tensor<16x{t}>) {{
  ^bb0(%a: {t}):
    %p = tlir_ad.step_up %a : {t}
    %m = tlir_ad.step_down %a : {t}
    tlir_ad.yield %p, %m : {t}, {t}
  }}
  func.return %u, %d : tensor<16x{t}>, tensor<16x{t}>
}}
"""


def _specials(dtype: str) -> np.ndarray:
    np_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    info = np.finfo(np_dtype)
    tiny = info.smallest_subnormal
    values = [0.0, -0.0, tiny, -tiny, info.max, -info.max, math.inf, -math.inf, math.nan,
              1.0, -1.0, info.tiny, -info.tiny, 0.1, -3.5, 2 * tiny]  # fmt: skip
    return np.array(values, np_dtype)


@pytest.fixture(params=[True, False], ids=["embedded", "bits"])
def rounding(request, monkeypatch):
    """Both lowerings of the steps: AVX-512's rounding (where the host has
    it) and the integer form every host has (`TLIR_EMBEDDED_ROUNDING=0`)."""
    if request.param and not AVX512:
        pytest.skip("no AVX-512")
    if not request.param:
        monkeypatch.setenv("TLIR_EMBEDDED_ROUNDING", "0")
    return request.param


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_step_ops_round_once_without_the_mending(dtype, backend, rounding):
    """`step_down(y) = RD(y − m)`: nextDown except +inf (stays) and m (−0);
    `step_up` the mirror; the reference evaluator agrees."""
    x = _specials(dtype)
    up, down = tlir.compile(STEPS.format(t=dtype), backend=backend)(x)
    want_up = [math.nextafter(v, math.inf) for v in x.astype(np.float64).tolist()]
    want_down = [math.nextafter(v, -math.inf) for v in x.astype(np.float64).tolist()]
    if dtype == "f32":
        want_up = np.nextafter(x, np.float32(np.inf))
        want_down = np.nextafter(x, np.float32(-np.inf))
    want_up, want_down = np.array(want_up, x.dtype), np.array(want_down, x.dtype)
    want_up[7], want_down[6] = -np.inf, np.inf  # the far infinity stays
    want_up[3], want_down[2] = 0.0, -0.0  # a step onto zero keeps the direction's sign
    assert fuzz_graphs.same_bits(up, want_up), (up, want_up)
    assert fuzz_graphs.same_bits(down, want_down), (down, want_down)
    from tlir.reference import evaluate

    module = tlir.parse_module(STEPS.format(t=dtype))
    ref_up, ref_down = evaluate(module, [x])
    assert fuzz_graphs.same_bits(ref_up, want_up) and fuzz_graphs.same_bits(ref_down, want_down)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_next_ops_are_nextafter_with_either_lowering(dtype, backend, rounding):
    """nextUp/nextDown keep their exact bits (NaN and signalling NaN included)
    whichever way they are lowered."""
    x = _specials(dtype)
    bits = x.view(np.uint64 if dtype == "f64" else np.uint32)
    bits[8] = 0x7FF4000000000001 if dtype == "f64" else 0x7FA00001  # a signalling NaN
    up, down = tlir.compile(NEXT.format(t=dtype), backend=backend)(x)
    nan = np.isnan(x)
    with np.errstate(over="ignore"):
        want_up = np.where(nan, x, np.nextafter(x, x.dtype.type(np.inf)))
        want_down = np.where(nan, x, np.nextafter(x, x.dtype.type(-np.inf)))
    uint = bits.dtype
    assert up.view(uint).tolist() == want_up.view(uint).tolist()
    assert down.view(uint).tolist() == want_down.view(uint).tolist()


def test_steps_are_calls_only_with_the_hosts_rounding(monkeypatch):
    """The lowering calls the step functions with AVX-512's rounding in force,
    which the JIT defines as `vsubpd {rd-sae}` and `vfixupimmpd`; the integer
    form otherwise (the pass's default: its output is the same on every host)."""
    from tlir.compiler.backend.xdsl import llvm_dialect_to_ir, lower_to_llvm_dialect
    from tlir.compiler.jit import assembly
    from tlir.passes.directed_steps import steps_with_embedded_rounding

    def lowered(embedded: bool) -> str:
        module = tlir.parse_module(NEXT.format(t="f64"))
        with steps_with_embedded_rounding(embedded):
            return llvm_dialect_to_ir(lower_to_llvm_dialect(module), "test")

    assert "tlir_next_up_f64" not in lowered(False)
    text = lowered(True)
    assert "tlir_next_up_f64" in text and "tlir_next_down_f64" in text
    if AVX512:
        code = assembly(text)
        assert "{rd-sae}" in code and "{ru-sae}" in code and "vfixupimm" in code


LINEAR = """
func.func @main(%x: tensor<{rows}x{k}x{t}>) -> tensor<{rows}x{m}x{t}> {{
  %w = tlir.const {{value = dense<{w}> : tensor<{m}x{k}x{t}>}} : tensor<{m}x{k}x{t}>
  %b = tlir.const {{value = dense<{b}> : tensor<{m}x{t}>}} : tensor<{m}x{t}>
  %y = tlir.linear %x, %w, %b : (tensor<{rows}x{k}x{t}>, tensor<{m}x{k}x{t}>, tensor<{m}x{t}>) -> tensor<{rows}x{m}x{t}>
  func.return %y : tensor<{rows}x{m}x{t}>
}}
"""  # noqa: E501


def _linear(w: np.ndarray, b: np.ndarray, rows: int, dtype: str) -> str:
    from test_ibp_compiled import _dense

    m, k = w.shape
    return LINEAR.format(rows=rows, k=k, m=m, t=dtype, w=_dense(w).replace("'", ""),
                         b=_dense(b).replace("'", ""))  # fmt: skip


def _checks(model, lows, highs) -> list[float]:
    """The fast program's checks (after the statuses) for a box."""
    from tlir.verification import input_boxes

    boxes = input_boxes(model.function_op, lows, highs, "test")
    results = model._derivative("ibp", "fast").run_checked(boxes)
    return [float(r) for r in results[3:]]


# every pair of (dtype, back end, threads) values once
@needs_avx512
@pytest.mark.parametrize(
    ("dtype", "backend", "threads"),
    [
        ("f64", "xdsl", 1),
        ("f32", "xdsl", 2),
        pytest.param("f64", "mlir", 2, marks=BACKENDS[1].marks),
        pytest.param("f32", "mlir", 1, marks=BACKENDS[1].marks),
    ],
)
def test_fast_path_overflow_mid_sum_falls_back(dtype, backend, threads):
    """A sum that reaches +inf where TorchLean's steps give the largest float
    and come back (nextDown(+inf) = MAX, then a large negative term): the fast
    sum stays +inf, its check is set, and the bounds are the exact program's,
    the reference's bits. The same for the upper sum with -inf."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    big = np.finfo(np_dtype).max
    rows, m, k = 4, 32, 3
    w = np.ones((m, k), np_dtype)
    w[:, 0], w[:, 1] = 2.0, -0.5
    b = np.zeros(m, np_dtype)
    model = tlir.compile(_linear(w, b, rows, dtype), backend=backend, threads=threads)
    module = model.module()
    x = np.full((rows, k), 1.0, np_dtype)
    x[:, 0] = big  # both products overflow to +inf: TorchLean's step gives MAX
    x[1, 0] = -big  # -inf: the upper sum's mirror in row 1
    lows, highs = [x.copy()], [x.copy()]
    assert any(_checks(model, lows, highs))  # the fast sums are not finite
    got = assert_same_bounds(model, module, lows, highs, "overflow")
    assert np.isfinite(got.lowers[0][0]).all()  # TorchLean's finite bounds come back
    assert np.isfinite(got.uppers[0][1]).all()
    # and with finite values only, the fast path's bounds stand unchecked
    lows, highs = random_box([np.linspace(-2, 2, rows * k).astype(np_dtype).reshape(rows, k)], 1)
    assert not any(_checks(model, lows, highs))
    assert_same_bounds(model, module, lows, highs, "finite")


@needs_avx512
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_fast_path_zero_signs_are_absorbed(dtype, backend):
    """Products and sums equal to ± the smallest subnormal (where the fast
    step gives -0 for TorchLean's +0, or +0 for -0), ±0, lo = hi, and weights
    of both signs: every check clear and the reference's bits."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    tiny = np.finfo(np_dtype).smallest_subnormal
    rows, m, k = 4, 32, 6
    rng = np.random.default_rng(5)
    w = rng.choice(np.array([1.0, -1.0, 0.5, -0.0, 0.0, 2.0], np_dtype), size=(m, k))
    b = rng.choice(np.array([0.0, -0.0, tiny, -tiny, 1.0], np_dtype), size=m)
    model = tlir.compile(_linear(w, b, rows, dtype), backend=backend)
    x = rng.choice(np.array([tiny, -tiny, 0.0, -0.0, 2 * tiny, 1.0], np_dtype), size=(rows, k))
    lows, highs = [x.copy()], [x.copy()]  # points
    assert not any(_checks(model, lows, highs))
    assert_same_bounds(model, model.module(), lows, highs, "points")
    highs = [np.nextafter(x, np_dtype(np.inf)).astype(np_dtype)]  # one ulp wide
    assert not any(_checks(model, lows, highs))
    assert_same_bounds(model, model.module(), lows, highs, "one ulp")


# fewer outputs than rows, whole vectors of rows (8 f64, 16 f32 lanes): the
# interval linear runs with the rows innermost; a leading batch of 2 x 8 rows
LINEAR_ROWS_INNER = OpCase(
    "linear_rows_inner", "linear", [(2, 8, 13), (5, 13), (5,)], (2, 8, 5),
    "tlir.linear %a0, %a1, %a2",
)  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_bounds_without_avx512_take_the_exact_program(dtype, backend, monkeypatch):
    """A host without AVX-512 (forced): no fast program is compiled, the
    steps are the integer form, the reference's bits (adversarial boxes too)."""
    monkeypatch.setattr(directed_steps, "_host_avx512", lambda: False)
    tiny = np.finfo(np.float32 if dtype == "f32" else np.float64).smallest_subnormal
    for case in (LINEAR_REMAINDER, LINEAR_ROWS_INNER):
        text = _with_constant_parameters(case, dtype, 4, [0.0, -0.0, tiny, np.inf, np.nan])
        model = tlir.compile(text, backend=backend)
        x = case.inputs(dtype, seed=5)[:1]
        assert_same_bounds(model, model.module(), *_adversarial(*random_box(x, 8), seed=9))
        assert_same_bounds(model, model.module(), *random_box(x, 3))
        assert list(model._derivatives) == [("ibp", "torchlean")]


CONTRACTIONS = (
    [c for c in CASES if c.op in ("linear", "conv")]
    + CHANNEL_MAJOR_CONVS
    + [
        LINEAR_REMAINDER,
        LINEAR_ROWS_INNER,
    ]
)


def _contraction_params():
    """Each case on each back end in one dtype, the other dtype on the other
    back end, alternating between cases: every pair of case, back end, dtype
    and thread count meets (compiling each case in both dtypes on both back
    ends would double the time; the thread counts share the kernels)."""
    params = []
    for index, case in enumerate(CONTRACTIONS):
        for backend in BACKENDS:
            name = backend if isinstance(backend, str) else backend.values[0]
            marks = () if isinstance(backend, str) else backend.marks
            dtype = ("f64", "f32")[(index + (name == "mlir")) % 2]
            params.append(
                pytest.param(case, name, dtype, marks=marks, id=f"{case.name}-{name}-{dtype}")
            )
    return params


@needs_avx512
@pytest.mark.parametrize("case, backend, dtype", _contraction_params())
def test_fast_path_on_every_contraction_case(case, backend, dtype):
    """Every linear and conv case, weights as boxes and as constants (zeros,
    ±0, subnormals, ±inf, NaN among them), random and adversarial boxes, f64
    and f32, 1 and 2 threads: the reference's bits, through the fast path's
    checks and, where they are set, the exact program."""
    tiny = np.finfo(np.float32 if dtype == "f32" else np.float64).smallest_subnormal
    module = tlir.parse_module(case.text(dtype))
    specials = [0.0, -0.0, tiny, -tiny, np.inf, -np.inf, np.nan]
    empty = any(0 in x.shape for x in case.inputs(dtype))
    for threads in (1, 2):
        model = tlir.compile(module, backend=backend, threads=threads)
        assert_same_bounds(model, module, *random_box(case.inputs(dtype), 1), dtype)
        if empty:
            continue
        boxes = _adversarial(*random_box(case.inputs(dtype, seed=2), 3), seed=threads)
        assert_same_bounds(model, module, *boxes, f"{dtype} adversarial")
        point = tlir.parse_module(_with_constant_parameters(case, dtype, 4, specials))
        model = tlir.compile(point, backend=backend, threads=threads)
        x = case.inputs(dtype, seed=5)[:1]
        assert_same_bounds(model, point, *random_box(x, 6), f"{dtype} point")
        boxes = _adversarial(*random_box(x, 8), seed=9)
        assert_same_bounds(model, point, *boxes, f"{dtype} point adversarial")
