"""The tight interval rules (`rules="tight"`, docs/verification.md#tight-rules):
the compiled bounds are the reference's bit for bit (every op case, f64 and
f32, both back ends, 1 and 2 threads, random graphs); the boxes contain the
exact real function (evaluated with `decimal` at 50 digits) at sampled points
and corners; they lie inside TorchLean's boxes; exact sums and products are
not widened; and the C library's error table is what makes them sound."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import fuzz_graphs
import numpy as np
import pytest
from fuzz_graphs import budget
from hypothesis import given
from hypothesis import strategies as st
from op_cases import build_cases
from test_ibp_compiled import BACKENDS, HAVE_MLIR, random_box

import tlir
import tlir.tight
from tlir.diagnostics import TlirError
from tlir.reference import evaluate
from tlir.reference.ibp import boxes as reference_boxes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = build_cases()
TRANSCENDENTAL = [
    c for c in CASES if c.name.split("_")[0] in ("exp", "log", "tanh", "sigmoid", "softplus",
                                                  "softmax", "safe")
] + [c for c in CASES if c.name in ("mul_elem", "linear", "conv", "layernorm_affine", "mse_loss")]  # fmt: skip


def assert_same_tight_bounds(model, module, lows, highs, context=""):
    got = model.bounds(lows, highs, rules="tight")
    want = reference_boxes(module, lows, highs, rules="tight")
    for k, (box, cause) in enumerate(zip(want.output_boxes(), want.output_causes(), strict=True)):
        if box is None:
            assert got.lowers[k] is None, (k, context)
            assert got.reasons[k] == cause.message(), (k, context)
            continue
        assert got.lowers[k] is not None, (k, got.reasons[k], context)
        assert fuzz_graphs.same_bits(got.lowers[k], box[0]), (k, got.lowers[k], box[0], context)
        assert fuzz_graphs.same_bits(got.uppers[k], box[1]), (k, got.uppers[k], box[1], context)
    return got


# --- compiled = reference -------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_op_case(case):
    for dtype in ("f64", "f32"):
        module = tlir.parse_module(case.text(dtype))
        model = tlir.compile(module)
        lows, highs = random_box(case.inputs(dtype), seed=len(case.name))
        assert_same_tight_bounds(model, module, lows, highs, f"{case.name} {dtype}")
        assert_same_tight_bounds(model, module, *random_box(case.inputs(dtype, seed=3), 7))


# each case in one dtype, alternating (`test_every_op_case` runs both on the
# xdsl route): every pair of case and dtype, and each dtype on this route
@pytest.mark.skipif(not HAVE_MLIR, reason="mlir")
@pytest.mark.parametrize(
    "case, dtype",
    [(case, ("f64", "f32")[index % 2]) for index, case in enumerate(TRANSCENDENTAL)],
    ids=[f"{case.name}-{('f64', 'f32')[index % 2]}" for index, case in enumerate(TRANSCENDENTAL)],
)
def test_op_cases_on_the_mlir_route(case, dtype):
    module = tlir.parse_module(case.text(dtype))
    model = tlir.compile(module, backend="mlir")
    lows, highs = random_box(case.inputs(dtype), seed=len(case.name))
    assert_same_tight_bounds(model, module, lows, highs, f"{case.name} {dtype}")


# every pair of (back end, threads, dtype) values once
@pytest.mark.parametrize(
    "backend, threads, dtype",
    [
        ("xdsl", 1, "f64"),
        ("xdsl", 2, "f32"),
        pytest.param("mlir", 2, "f64", marks=BACKENDS[1].marks),
        pytest.param("mlir", 1, "f32", marks=BACKENDS[1].marks),
    ],
)
def test_transformer_block(backend, threads, dtype):
    """Softmax, layernorm, matmul and linear, threaded: bit for bit, and the
    tight box much narrower than TorchLean's."""
    module = tlir.load_model(str(EXAMPLES / "transformer_block.json"), dtype)
    x = np.load(EXAMPLES / "transformer_block_input.npy")
    x = x.astype(np.float32 if dtype == "f32" else np.float64)
    model = tlir.compile(module, backend=backend, threads=threads)
    from tlir.verification import ball_boxes

    lows, highs = ball_boxes(model.function_op, [x], 0.01, "x")
    got = assert_same_tight_bounds(model, module, lows, highs, dtype)
    loose = model.bounds(lows, highs)
    width, loose_width = got.uppers[0] - got.lowers[0], loose.uppers[0] - loose.lowers[0]
    assert np.all(width <= loose_width) and width.sum() < 0.5 * loose_width.sum()


@budget(ci=25, long=1_000)
@given(data=st.data())
def test_random_graphs(tmp_path_factory, data):
    from test_random_graphs import draw_model

    case = draw_model(data, tmp_path_factory)
    lows, highs = random_box([case.x], data.draw(st.integers(0, 100), label="seed"))
    model = tlir.compile(case.module, backend=case.backend)
    assert_same_tight_bounds(model, case.module, lows, highs, case.context("ibp tight"))


# --- soundness against the exact function --------------------------------------------


def _exact(name: str, x: Decimal) -> Decimal:
    if name == "exp":
        return x.exp()
    if name == "log":
        return x.ln()
    if name == "tanh":
        with localcontext() as ctx:  # e^2x − 1 cancels: as many more digits as x is small
            ctx.prec = 60 + max(0, -x.adjusted()) if x else 60
            e = (2 * x).exp()
            value = (e - 1) / (e + 1)
        return +value
    if name == "sigmoid":
        return 1 / (1 + (-x).exp())
    return (1 + x.exp()).ln()  # softplus


def _module(name: str, dtype: str, n: int) -> object:
    t = f"tensor<{n}x{dtype}>"
    return tlir.parse_module(
        f"func.func @main(%x: {t}) -> {t} {{\n"
        f"  %y = tlir.{name} %x : ({t}) -> {t}\n  func.return %y : {t}\n}}\n"
    )


def _tight_box(name, dtype, lo, hi):
    found = reference_boxes(_module(name, dtype, lo.size), [lo], [hi], rules="tight")
    return found.output_boxes()[0]


def _violations(name, lo, hi, box) -> list:
    """The sampled points (ends, and 5 inside each coordinate's interval) whose
    exact value lies outside the box."""
    rng = np.random.default_rng(0)
    bad = []
    with localcontext() as ctx:
        ctx.prec = 50
        for k in range(lo.size):
            points = [lo[k], hi[k]] + [lo[k] + (hi[k] - lo[k]) * rng.random() for _ in range(5)]
            for p in points:
                p = float(np.clip(lo.dtype.type(p), lo[k], hi[k]))
                if name == "log" and p <= 0:
                    continue
                value = _exact(name, Decimal(p))
                if not Decimal(float(box[0][k])) <= value <= Decimal(float(box[1][k])):
                    bad.append((k, p, value, box[0][k], box[1][k]))
    return bad


def _random_boxes(name: str, dtype: str, seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    scale = {"exp": 30.0, "log": 5.0}.get(name, 8.0)
    centre = rng.normal(size=n) * scale
    if name == "log":
        centre = np.abs(centre) + 1e-3
    radius = np.abs(rng.normal(size=n)) * (rng.random(n) < 0.7) * rng.choice([1e-6, 0.1, 2.0], n)
    lo = (centre - radius).astype(np_dtype)
    hi = (centre + radius).astype(np_dtype)
    if name == "log":
        lo = np.maximum(lo, np_dtype(0))
    return lo, hi


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sigmoid", "softplus"])
def test_boxes_hold_the_exact_function(name, dtype):
    for seed in range(3):
        lo, hi = _random_boxes(name, dtype, seed)
        box = _tight_box(name, dtype, lo, hi)
        assert box is not None
        assert _violations(name, lo, hi, box) == []


EXTREMES = {
    "exp": [-745.0, -744.0, -740.0, -708.5, -1e-300, 1e-300, 88.5, 709.7, 709.78],
    "log": [5e-324, 1e-310, 1e-300, 0.999999999, 1.0, 1.0000001, 1e300, 1.7e308],
    "tanh": [-1e-300, 1e-300, 1e-8, 0.5493, 19.06, 20.0, 1e5],
    "sigmoid": [-745.0, -710.0, -40.0, -1e-300, 1e-300, 40.0, 745.0],
    "softplus": [-745.0, -40.0, -1e-300, 1e-300, 36.0, 40.0, 1e5],
}


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_boxes_hold_at_extreme_points(name, dtype):
    """Point boxes near underflow, overflow and 0, where ulps are subnormal or
    the result is infinite (an infinite end is a bound)."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    with np.errstate(over="ignore", under="ignore"):
        x = np.array(EXTREMES[name], np_dtype)
    x = x[np.isfinite(x)]
    box = _tight_box(name, dtype, x, x)
    assert box is not None
    assert _violations(name, x, x, box) == []


MASK = np.array([[1, 0, 1, 1, 0], [0, 0, 0, 0, 0], [0, 1, 0, 0, 0]], bool)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_softmax_boxes_hold_the_exact_function(dtype, masked):
    """softmax along axis 1, and hard_masked_softmax (a blocked cell and a row
    without allowed cells are 0; a row with one allowed cell is 1 there)."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    rng = np.random.default_rng(5)
    t = f"tensor<3x5x{dtype}>"
    mask = str(MASK.tolist()).lower()
    op = (
        f"tlir.hard_masked_softmax %x {{mask = dense<{mask}> : tensor<3x5xi1>}}"
        if masked
        else "tlir.softmax %x axis = 1"
    )
    module = tlir.parse_module(
        f"func.func @main(%x: {t}) -> {t} {{\n  %y = {op} : ({t}) -> {t}\n"
        f"  func.return %y : {t}\n}}\n"
    )
    allowed = MASK if masked else np.ones((3, 5), bool)
    centre = rng.normal(size=(3, 5)) * 4
    radius = np.abs(rng.normal(size=(3, 5))) * (rng.random((3, 5)) < 0.7) * 0.3
    lo, hi = (centre - radius).astype(np_dtype), (centre + radius).astype(np_dtype)
    box = reference_boxes(module, [lo], [hi], rules="tight").output_boxes()[0]
    with localcontext() as ctx:
        ctx.prec = 50
        for _ in range(40):
            choice = rng.random((3, 5))
            point = np.where(choice < 0.3, lo, np.where(choice < 0.6, hi, lo + (hi - lo) * choice))
            point = np.clip(point.astype(np_dtype), lo, hi)
            for r in range(3):
                terms = [Decimal(float(v)).exp() if a else 0 for v, a in zip(point[r], allowed[r])]
                total = sum(terms)
                for i in range(5):
                    value = terms[i] / total if total else Decimal(0)
                    assert Decimal(float(box[0][r, i])) <= value <= Decimal(float(box[1][r, i]))
    assert np.all(box[0][~allowed] == 0) and np.all(box[1][~allowed] == 0)
    if masked:
        assert box[0][2, 1] == 1 and box[1][2, 1] == 1


@budget(ci=25, long=1_000)
@given(data=st.data())
def test_graph_bounds_hold_the_forward_values(tmp_path_factory, data):
    """For random graphs and boxes, the forward evaluator's outputs at corners
    and points of the box lie inside the tight box, up to the C library's
    error on the last step (a few ulps); a NaN end, which the rules of the
    algebraic ops let through as TorchLean's do, claims nothing."""
    from tlir.torchlean import import_file

    document = data.draw(fuzz_graphs.graphs(), label="graph")
    dtype = data.draw(st.sampled_from(["f32", "f64"]), label="dtype")
    path = tmp_path_factory.mktemp("tight") / "model.json"
    path.write_text(fuzz_graphs.dumps(document))
    module = import_file(str(path), dtype)
    np_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    shape = tuple(document["nodes"][0]["shape"])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    centre = rng.normal(size=shape).astype(np_dtype)
    radius = np.abs(rng.normal(size=shape)).astype(np_dtype) * np_dtype.type(0.3)
    lo, hi = (centre - radius).astype(np_dtype), (centre + radius).astype(np_dtype)
    found = reference_boxes(module, [lo], [hi], rules="tight").output_boxes()
    points = [lo, hi] + [np.where(rng.random(shape) < 0.5, lo, hi) for _ in range(4)]
    points += [np.clip((lo + rng.random(shape) * (hi - lo)).astype(np_dtype), lo, hi)]
    for point in points:
        try:
            values = evaluate(module, [point])
        except TlirError:
            continue
        for box, value in zip(found, values, strict=True):
            if box is None:
                continue
            low, high = box[0], box[1]
            for _ in range(4):
                low, high = np.nextafter(low, -np.inf), np.nextafter(high, np.inf)
            # a NaN end (inf − inf in a TorchLean rule, as there) bounds nothing
            ok = ((low <= value) & (value <= high)) | np.isnan(value)
            ok |= np.isnan(low) | np.isnan(high)
            assert np.all(ok), (value[~ok], box[0][~ok], box[1][~ok])


# --- tighter than TorchLean, and exact where exact -------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_inside_the_torchlean_box(case):
    for dtype in ("f64", "f32"):
        module = tlir.parse_module(case.text(dtype))
        lows, highs = random_box(case.inputs(dtype), seed=len(case.name))
        loose = reference_boxes(module, lows, highs).output_boxes()
        tight = reference_boxes(module, lows, highs, rules="tight").output_boxes()
        special = any(np.any(~np.isfinite(x)) for x in (*lows, *highs))
        for a, b in zip(loose, tight, strict=True):
            if a is None:
                continue
            assert b is not None or special, case.name
            if b is not None:
                with np.errstate(invalid="ignore"):
                    assert np.all((a[0] <= b[0]) | np.isnan(a[0])), case.name
                    assert np.all((b[1] <= a[1]) | np.isnan(a[1])), case.name


def _binary(op: str, dtype: str) -> object:
    t = f"tensor<4x{dtype}>"
    return tlir.parse_module(
        f"func.func @main(%x: {t}, %y: {t}) -> {t} {{\n"
        f"  %z = tlir.{op} %x, %y : ({t}, {t}) -> {t}\n  func.return %z : {t}\n}}\n"
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_exact_results_are_not_widened(dtype, backend):
    np_dtype = np.float32 if dtype == "f32" else np.float64
    tiny = np_dtype(2.0**-60 if dtype == "f64" else 2.0**-30)
    x = np.array([1, 1.5, -3, 1], np_dtype)
    y = np.array([1, 0, 0.25, tiny], np_dtype)
    for op, want_lo, want_hi in (
        # 1+1, 1.5+0, -3+0.25 exact; 1 + tiny: exact sum above 1, so 1 stays below, one step up
        ("add", [2, 1.5, -2.75, 1], [2, 1.5, -2.75, np.nextafter(np_dtype(1), np_dtype(2))]),
        ("mul_elem", [1, 0, -0.75, tiny], [1, 0, -0.75, tiny]),
    ):
        module = _binary(op, dtype)
        got = tlir.compile(module, backend=backend).bounds([x, y], [x, y], rules="tight")
        want = reference_boxes(module, [x, y], [x, y], rules="tight").output_boxes()[0]
        for lo, hi in (want, (got.lowers[0], got.uppers[0])):
            assert fuzz_graphs.same_bits(lo, np.array(want_lo, np_dtype)), (op, lo)
            assert fuzz_graphs.same_bits(hi, np.array(want_hi, np_dtype)), (op, hi)
        loose = reference_boxes(module, [x, y], [x, y]).output_boxes()[0]
        assert np.all(loose[0] < want[0]) or op == "add"  # TorchLean widens even 1·1


@pytest.mark.parametrize("backend", BACKENDS)
def test_inexact_results_step_toward_the_error(backend):
    """1/3 · 3 rounds to 1 from below (exactly 1 − 2^-54): 1 is an upper bound,
    the lower one steps; 2^-600 squared underflows (its error is not exact):
    both ends step; 1/3 + 3 rounds up (checked with fractions), 1 + 2^-60
    down, 2^-600 + 2^-600 is exact."""
    third, small = np.float64(1) / np.float64(3), np.float64(2.0**-600)
    x = np.array([third, small, 1.0, 3.0])
    y = np.array([3.0, small, 2.0**-60, third])
    below, above = np.nextafter(1.0, 0), np.nextafter(1.0, 2)
    tiny = np.nextafter(0.0, 1)
    cases = (
        ("mul_elem", [below, -tiny, 2.0**-60, below], [1.0, tiny, 2.0**-60, 1.0]),
        ("add", [np.nextafter(third + 3, 0), 2 * small, 1.0, np.nextafter(3 + third, 0)],
                [third + 3, 2 * small, above, 3 + third]),
    )  # fmt: skip
    assert Fraction(third) + 3 < Fraction(third + 3)
    for op, want_lo, want_hi in cases:
        module = _binary(op, "f64")
        got = tlir.compile(module, backend=backend).bounds([x, y], [x, y], rules="tight")
        want = reference_boxes(module, [x, y], [x, y], rules="tight").output_boxes()[0]
        for lo, hi in (want, (got.lowers[0], got.uppers[0])):
            assert fuzz_graphs.same_bits(lo, np.array(want_lo)), (op, lo)
            assert fuzz_graphs.same_bits(hi, np.array(want_hi)), (op, hi)


def _special_floats(dtype, rng, n):
    """Random floats over the whole range: normal, subnormal, huge, signed."""
    info = np.finfo(dtype)
    exponents = rng.integers(info.minexp - info.nmant, info.maxexp, n)
    values = np.ldexp(rng.random(n) + 0.5, exponents).astype(dtype)
    return values * rng.choice([-1, 1], n).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tight_quotients_hold_the_exact_quotient(dtype):
    """`div_down_tight(a, b) ≤ a/b ≤ div_up_tight(a, b)` exactly (fractions)
    over the whole range, subnormal and overflowing quotients included, and
    exact quotients are kept."""
    from tlir.bounds import div_down_tight, div_up_tight

    rng = np.random.default_rng(3)
    a, b = _special_floats(dtype, rng, 3000), _special_floats(dtype, rng, 3000)
    a[:40], b[:40] = (np.arange(40) - 20).astype(dtype), np.array([4, -2, 0.5, 8] * 10, dtype)
    with np.errstate(all="ignore"):
        low, high = div_down_tight(a, b), div_up_tight(a, b)
        q = a / b
    kept = 0
    for x, y, lo, hi, rounded in zip(a, b, low, high, q, strict=True):
        exact = Fraction(float(x)) / Fraction(float(y))
        if np.isfinite(lo):
            assert Fraction(float(lo)) <= exact, (x, y, lo)
        if np.isfinite(hi):
            assert exact <= Fraction(float(hi)), (x, y, hi)
        # kept where nothing is near underflow (far above it: |a| > 2^-90), or a is 0
        clear = abs(x) > 2.0**-90 and abs(rounded) >= np.finfo(dtype).smallest_normal
        if np.isfinite(rounded) and (clear or x == 0) and Fraction(float(rounded)) == exact:
            assert lo == rounded and hi == rounded, (x, y)
            kept += 1
    assert kept >= 40


@pytest.mark.parametrize("backend", BACKENDS)
def test_exact_means_and_inverses_are_points(backend):
    """The mean of [2, 4] is 3 and 1/4 is 0.25, with no step (the count is
    exactly [2, 2]); 1/3 rounds down, so it steps up only."""
    t, r = "tensor<2xf64>", "tensor<f64>"
    module = tlir.parse_module(
        f"func.func @main(%x: {t}) -> ({r}, {t}) {{\n"
        f"  %m = tlir.reduce_mean %x axis = 0 : ({t}) -> {r}\n"
        f"  %i = tlir.inv %x : ({t}) -> {t}\n"
        f"  func.return %m, %i : {r}, {t}\n}}\n"
    )
    x = np.array([2.0, 4.0])
    got = tlir.compile(module, backend=backend).bounds([x], [x], rules="tight")
    assert got.lowers[0] == 3 and got.uppers[0] == 3
    assert list(got.lowers[1]) == [0.5, 0.25] and list(got.uppers[1]) == [0.5, 0.25]
    x = np.array([3.0, 3.0])
    got = tlir.compile(module, backend=backend).bounds([x], [x], rules="tight")
    third = 1 / 3
    assert Fraction(third) < Fraction(1, 3)
    assert got.lowers[1][0] == third and got.uppers[1][0] == np.nextafter(third, 1)


# --- the C library's error table ----------------------------------------------------


def test_widening_by_the_table_is_needed(monkeypatch):
    """With exp's table entry at 0 (no widening) the boxes of points miss the
    exact value wherever glibc's result lies above it (about half the points)."""
    lo, hi = _random_boxes("exp", "f64", seed=9)
    lo = hi  # point boxes
    assert _violations("exp", lo, hi, _tight_box("exp", "f64", lo, hi)) == []
    monkeypatch.setitem(tlir.tight.LIBM_ULPS, "exp", (0, 0))
    bad = _violations("exp", lo, hi, _tight_box("exp", "f64", lo, hi))
    assert len(bad) >= 5


@pytest.mark.parametrize(
    ("dtype", "point"), [("f64", 10.319907627004703), ("f32", -4.67538595199585)]
)
def test_a_point_where_glibc_exp_is_not_correctly_rounded(dtype, point, monkeypatch):
    """glibc's exp at `point` (found by search) is not the float nearest to the
    exact value, so even a correctly rounded claim (table entry 0) misses it."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    x = np.array([point], np_dtype)
    from tlir.reference.carrier import libm

    computed = libm("exp", x)[0]
    with localcontext() as ctx:
        ctx.prec = 50
        exact = Decimal(float(x[0])).exp()
        neighbours = [
            np.nextafter(computed, np_dtype(-np.inf)),
            np.nextafter(computed, np_dtype(np.inf)),
        ]
        error = abs(Decimal(float(computed)) - exact)
        assert min(abs(Decimal(float(v)) - exact) for v in neighbours) < error
    assert _violations("exp", x, x, _tight_box("exp", dtype, x, x)) == []
    monkeypatch.setitem(tlir.tight.LIBM_ULPS, "exp", (0, 0))
    assert len(_violations("exp", x, x, _tight_box("exp", dtype, x, x))) > 0


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_steps_follow_the_table(dtype):
    assert tlir.tight.steps("exp", np.dtype(dtype.replace("f", "float"))) == 2
    assert tlir.tight.steps("tanh", np.dtype(dtype.replace("f", "float"))) == 3


def test_rules_are_checked():
    module = _module("exp", "f64", 2)
    x = np.zeros(2)
    with pytest.raises(TlirError, match="rules must be one of torchlean, tight"):
        reference_boxes(module, [x], [x], rules="bogus")
    model = tlir.compile(module)
    with pytest.raises(TlirError, match="rules must be one of"):
        model.ibp([x], [x], rules="exact")


def test_tight_refuses_a_c_library_that_is_not_glibc(monkeypatch):
    monkeypatch.setattr(tlir.tight, "glibc_version", lambda: None)
    with pytest.raises(TlirError, match="this host's C library is not glibc"):
        tlir.tight.check_rules("tight", "x")
    monkeypatch.setattr(tlir.tight, "glibc_version", lambda: (2, 17))
    with pytest.raises(TlirError, match="glibc 2.17"):
        tlir.tight.check_rules("tight", "x")
    assert tlir.tight.check_rules("torchlean", "x") == "torchlean"


def test_torchlean_rules_are_unchanged():
    """The default is TorchLean's: exp unresolved, 1 + 1 widened."""
    module = _binary("add", "f64")
    one = np.ones(4)
    box = reference_boxes(module, [one, one], [one, one]).output_boxes()[0]
    assert np.all(box[0] == np.nextafter(2.0, 0)) and np.all(box[1] == np.nextafter(2.0, 3))
    assert reference_boxes(_module("exp", "f64", 2), [one[:2]], [one[:2]]).output_boxes() == [None]
    assert math.isfinite(float(box[1][0]))


# --- tools ---------------------------------------------------------------------------


def _run(*args: str):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "tlir.tools.run", *args], capture_output=True, text=True
    )


def test_tlir_run_rules_tight(tmp_path):
    model, x = (
        str(EXAMPLES / "transformer_block.json"),
        str(EXAMPLES / "transformer_block_input.npy"),
    )
    out = _run(model, "--input", x, "--ibp", "0.01", "--rules", "tight", "--compare", "-q")
    assert out.returncode == 0, out.stderr
    assert "all 1 outputs bit-identical to the reference" in out.stdout
    path = tmp_path / "tight.npz"
    out = _run(model, "--input", x, "--ibp", "0.01", "--rules", "tight", "--output", str(path))
    assert out.returncode == 0, out.stderr
    module = tlir.load_model(model)
    with np.load(path) as data:
        lo, hi = data["lower0"], data["upper0"]
    from tlir.verification import ball_boxes

    lows, highs = ball_boxes(module.body.block.first_op, [np.load(x)], 0.01, "x", "tight")
    want = reference_boxes(module, lows, highs, rules="tight").output_boxes()[0]
    assert fuzz_graphs.same_bits(lo, want[0]) and fuzz_graphs.same_bits(hi, want[1])
    out = _run(model, "--input", x, "--rules", "tight")
    assert out.returncode == 1 and out.stderr.strip().endswith("--rules goes with --ibp or --crown")
    out = _run(model, "--input", x, "--ibp", "0.01", "--rules", "exact")
    assert out.returncode != 0 and "invalid choice" in out.stderr


def test_tight_ball_is_exact_where_it_can_be():
    """The ball's ends by the tight steps: 1 ± 0.5 exactly (TorchLean's widen)."""
    t = "tensor<2xf64>"
    module = tlir.parse_module(
        f"func.func @main(%x: {t}) -> {t} {{\n  %y = tlir.detach %x : ({t}) -> {t}\n"
        f"  func.return %y : {t}\n}}\n"
    )
    model = tlir.compile(module)
    x = np.array([1.0, 0.1])
    lo, hi = model.ibp_ball([x], 0.5, rules="tight")
    assert lo[0][0] == 0.5 and hi[0][0] == 1.5
    # 0.1 − 0.5 and 0.1 + 0.5 are inexact: one step out, in the error's direction
    assert Fraction(float(lo[0][1])) < Fraction(0.1) - Fraction(0.5) < Fraction(float(hi[0][1]))
    loose_lo, loose_hi = model.ibp_ball([x], 0.5)
    assert loose_lo[0][0] < 0.5 and loose_hi[0][0] > 1.5
    assert loose_lo[0][1] <= lo[0][1] and hi[0][1] <= loose_hi[0][1]


def test_crown_takes_tight_boxes():
    """CROWN discharges exp against its IBP box: unresolved under TorchLean's
    rules, bounded (and holding the forward value) under the tight ones."""
    t = "tensor<3xf64>"
    module = tlir.parse_module(
        f"func.func @main(%x: {t}) -> {t} {{\n"
        f"  %y = tlir.exp %x : ({t}) -> {t}\n  %z = tlir.relu %y : ({t}) -> {t}\n"
        f"  func.return %z : {t}\n}}\n"
    )
    model = tlir.compile(module)
    x = np.array([0.5, -1.0, 2.0])
    assert model.crown_ball([x], 0.1) == (None, None)
    lo, hi = model.crown_ball([x], 0.1, rules="tight")
    value = evaluate(module, [x])[0]
    assert np.all(lo <= value) and np.all(value <= hi)
