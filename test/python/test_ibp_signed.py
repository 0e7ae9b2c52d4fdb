"""The signed interval `linear` (passes/ibp/signed.py): with a point weight
and whole vectors of rows, the fast path takes each product's end by the
weight's sign, loads it at a selected index, and keeps an MLP chain's boxes
stacked [end, feature, row] through relu. Chains of several widths (outputs a
multiple of the register tile and not, rows in whole vectors and not, batch
1), f64 and f32, both back ends, 1 and 2 threads as a covering array; weights
with ±0, negative, subnormal, ±inf and NaN entries; boxes with ±0, subnormal,
±inf, NaN ends, points and inverted ends: the reference's bits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_ibp_compiled import BACKENDS, _adversarial, _dense, assert_same_bounds

import tlir
from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as A
from tlir.passes import directed_steps

needs_avx512 = pytest.mark.skipif(
    not directed_steps.host_has_embedded_rounding(), reason="no AVX-512"
)

# every pair of (dtype, back end, threads) values once
COVERING = [
    ("f64", "xdsl", 1),
    ("f32", "xdsl", 2),
    pytest.param("f64", "mlir", 2, marks=BACKENDS[1].marks),
    pytest.param("f32", "mlir", 1, marks=BACKENDS[1].marks),
]


def _lanes(dtype: str) -> int:
    return 16 if dtype == "f32" else 8


def chain_text(lead: list[int], widths: list[int], dtype: str, seed: int, specials=()) -> str:
    """linear → relu → … → linear with constant weights (normal, with zeros of
    both signs, negatives, subnormals, then `specials` in the first layer)."""
    rng = np.random.default_rng(seed)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    tiny = np.finfo(np_dtype).smallest_subnormal

    def typ(shape) -> str:
        return "tensor<" + "".join(f"{n}x" for n in shape) + dtype + ">"

    x_shape = [*lead, widths[0]]
    lines = [f"func.func @main(%x: {typ(x_shape)}) -> {typ([*lead, widths[-1]])} {{"]
    value, shape = "%x", x_shape
    for layer, (k, m) in enumerate(zip(widths, widths[1:], strict=False)):
        w = rng.normal(size=(m, k)).astype(np_dtype)
        flat = w.reshape(-1)
        picks = rng.choice(flat.size, size=max(1, flat.size // 4), replace=False)
        flat[picks] = rng.choice(np.array([0.0, -0.0, tiny, -tiny, 3 * tiny], np_dtype), picks.size)
        if layer == 0:
            for k_, special in enumerate(specials):
                flat[(7 * k_ + 1) % flat.size] = special
        b = rng.normal(size=m).astype(np_dtype)
        b[::3] = -0.0
        out = [*lead, m]
        lines += [
            f"  %w{layer} = tlir.const {{value = dense<{_dense(w)}> : {typ(w.shape)}}} : "
            f"{typ(w.shape)}".replace("'", ""),
            f"  %b{layer} = tlir.const {{value = dense<{_dense(b)}> : {typ(b.shape)}}} : "
            f"{typ(b.shape)}".replace("'", ""),
            f"  %y{layer} = tlir.linear {value}, %w{layer}, %b{layer} : ({typ(shape)}, "
            f"{typ(w.shape)}, {typ(b.shape)}) -> {typ(out)}",
        ]
        value, shape = f"%y{layer}", out
        if layer < len(widths) - 2:
            lines.append(f"  %r{layer} = tlir.relu {value} : ({typ(out)}) -> {typ(out)}")
            value = f"%r{layer}"
    lines += [f"  func.return {value} : {typ(shape)}", "}"]
    return "\n".join(lines)


def chains(dtype: str) -> dict[str, tuple[list[int], list[int]]]:
    """(lead, widths) per chain: 4, 3 and 2 vectors of rows with outputs that
    fill the register tile's outputs and not; rows not in whole vectors in
    strips (one of 4 vectors, one of a vector, 5 rows alone; one of 4 vectors,
    one of 3, 3 rows alone); one vector, rows
    not in whole vectors under two vectors and batch 1 (the other layouts)."""
    lanes = _lanes(dtype)
    return {
        "4 vectors": ([4 * lanes], [13, 10, 7, 3]),
        "3 vectors, lead 2": ([3, lanes], [9, 16, 12]),
        "2 vectors": ([2 * lanes], [5, 16, 9]),
        "strips": ([5 * lanes + 5], [13, 10, 7, 3]),
        "strips of 3 vectors": ([7 * lanes + 3], [13, 10, 7, 3]),
        "1 vector": ([lanes], [6, 8, 4]),
        "ragged rows": ([lanes + 3], [6, 8, 4]),
        "batch 1": ([1], [7, 32, 5]),
    }


@pytest.fixture(scope="module")
def all_fast():
    """Every contraction takes the fast path (module-wide, for the shared compiles)."""
    from tlir.passes.ibp import structured

    saved = structured.FAST_TERMS
    structured.FAST_TERMS = 0
    yield
    structured.FAST_TERMS = saved


_MODELS: dict = {}


def compiled(name: str, dtype: str, backend: str, threads: int, specials=()):
    """Each chain compiled once per (dtype, back end, threads, specials)."""
    key = (name, dtype, backend, threads, tuple(map(repr, specials)))
    if key not in _MODELS:
        lead, widths = chains(dtype)[name]
        text = chain_text(lead, widths, dtype, seed=len(name), specials=specials)
        module = tlir.parse_module(text)
        _MODELS[key] = (tlir.compile(module, backend=backend, threads=threads), module)
    return _MODELS[key]


def _box(lead, width, dtype: str, seed: int):
    np_dtype = np.float32 if dtype == "f32" else np.float64
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(*lead, width)).astype(np_dtype)
    radius = (np.abs(rng.normal(size=x.shape)) * 0.3 * (rng.random(x.shape) < 0.8)).astype(np_dtype)
    return [x - radius], [x + radius]


def fast_checks(model, lows, highs) -> list[float]:
    """The fast program's checks (after the bounds and the status) for a box."""
    from tlir.verification import input_boxes

    boxes = input_boxes(model.function_op, lows, highs, "test")
    return [float(r) for r in model._derivative("ibp", "fast").run_checked(boxes)[3:]]


@needs_avx512
@pytest.mark.parametrize("name", ["4 vectors", "3 vectors, lead 2", "2 vectors", "strips",
                                  "strips of 3 vectors", "1 vector", "ragged rows",
                                  "batch 1"])  # fmt: skip
@pytest.mark.parametrize(("dtype", "backend", "threads"), COVERING)
def test_chains_are_the_references_bits(all_fast, name, dtype, backend, threads):
    """Random boxes (their fast results stand: every check clear), then
    adversarial ones (±0, subnormal, ±inf, NaN ends, points), then inverted
    ends: the reference's bits each time."""
    model, module = compiled(name, dtype, backend, threads)
    lead, widths = chains(dtype)[name]
    lows, highs = _box(lead, widths[0], dtype, seed=1)
    assert not any(fast_checks(model, lows, highs))
    assert_same_bounds(model, module, lows, highs, "random")
    boxes = _adversarial(*_box(lead, widths[0], dtype, seed=2), seed=threads)
    assert_same_bounds(model, module, *boxes, "adversarial")
    lows, highs = _box(lead, widths[0], dtype, seed=3)
    flat_lo, flat_hi = lows[0].reshape(-1), highs[0].reshape(-1)
    flat_lo[::5], flat_hi[::5] = flat_hi[::5].copy(), flat_lo[::5].copy()  # some ends inverted
    assert_same_bounds(model, module, lows, highs, "inverted")


@needs_avx512
@pytest.mark.parametrize(("dtype", "backend", "threads"), COVERING)
def test_points_and_one_ulp_boxes_absorb_zero_signs(all_fast, dtype, backend, threads):
    """Points (lo = hi) of ±0, ± the smallest subnormals and ±1 against the
    weights' ±0 and subnormals, then one ulp wide: products of either sign of
    zero, both products equal; every check clear, the reference's bits."""
    model, module = compiled("4 vectors", dtype, backend, threads)
    lead, widths = chains(dtype)["4 vectors"]
    np_dtype = np.float32 if dtype == "f32" else np.float64
    tiny = np.finfo(np_dtype).smallest_subnormal
    values = np.array([0.0, -0.0, tiny, -tiny, 2 * tiny, 1.0, -1.0], np_dtype)
    x = np.random.default_rng(4).choice(values, size=(*lead, widths[0]))
    assert not any(fast_checks(model, [x], [x.copy()]))
    assert_same_bounds(model, module, [x], [x.copy()], "points")
    upper = np.nextafter(x, np_dtype(np.inf)).astype(np_dtype)
    assert not any(fast_checks(model, [x], [upper]))
    assert_same_bounds(model, module, [x], [upper], "one ulp")


@needs_avx512
@pytest.mark.parametrize(("dtype", "backend", "threads"), COVERING)
def test_weights_of_inf_and_nan_take_the_exact_program(all_fast, dtype, backend, threads):
    """A weight of +inf, -inf or NaN: the fast sums are not finite, a check is
    set and the bounds are the exact program's, the reference's bits."""
    specials = [math.inf, -math.inf, math.nan]
    model, module = compiled("3 vectors, lead 2", dtype, backend, threads, specials)
    lead, widths = chains(dtype)["3 vectors, lead 2"]
    lows, highs = _box(lead, widths[0], dtype, seed=5)
    assert any(fast_checks(model, lows, highs))
    assert_same_bounds(model, module, lows, highs, "special weights")


@needs_avx512
@pytest.mark.parametrize(("dtype", "backend", "threads"), COVERING[:2])
def test_an_inverted_box_sets_the_order_check(all_fast, dtype, backend, threads):
    """lo > hi in one cell of the input: finite sums, but the order check is
    set (the sign's choice is not min2/max2's there) and the bounds are the
    exact program's."""
    model, module = compiled("4 vectors", dtype, backend, threads)
    lead, widths = chains(dtype)["4 vectors"]
    lows, highs = _box(lead, widths[0], dtype, seed=6)
    lows[0][3, 2], highs[0][3, 2] = highs[0][3, 2] + 1, lows[0][3, 2] - 1
    assert any(fast_checks(model, lows, highs))
    assert_same_bounds(model, module, lows, highs, "inverted cell")


def _ibp_function(text: str):
    from tlir.compiler.model import derivative_module

    module = derivative_module(tlir.parse_module(text), "main", "ibp", "fast")
    return next(op for op in module.walk() if op.name == "func.func")


def test_a_chain_is_transposed_only_at_its_ends(all_fast):
    """Three signed folds (one stacked box read twice), the chain's input
    stacked (read transposed) and checked ordered once, its output transposed
    once: the boxes in between stay stacked through relu."""
    lead, widths = chains("f64")["4 vectors"]
    body = _ibp_function(chain_text(lead, widths, "f64", seed=0))
    folds = [op for op in body.walk() if isinstance(op, A.FoldOp)]
    signed = [f for f in folds if len(f.inputs) == 3 and f.inputs[0] is f.inputs[1]]
    assert len(signed) == 3
    order_checks = [f for f in folds if len(f.inputs) == 2 and f.inputs[0] is f.inputs[1]]
    assert len(order_checks) == 1
    assert sum(isinstance(op, T.TransposeOp) for op in body.walk()) == 2  # the output's ends


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_rows_not_in_whole_vectors_run_in_strips(all_fast, dtype):
    """Rows not in whole vectors but at least two vectors of them (a dynamic
    batch's nominal rows): the signed folds over [output tile, column, output,
    row] with the rows in strips of 4 vectors, then of 3, 2 and one, a half
    and a quarter, then one by one."""
    lanes = _lanes(dtype)
    lead, widths = chains(dtype)["strips"]
    body = _ibp_function(chain_text(lead, widths, dtype, seed=0))
    signed = [
        f
        for f in body.walk()
        if isinstance(f, A.FoldOp) and len(f.inputs) == 3 and f.inputs[0] is f.inputs[1]
    ]
    assert len(signed) == 3
    for fold in signed:
        assert list(fold.attributes[A.ROW_STRIPS].get_values()) == [
            3,
            1,
            4 * lanes,
            3 * lanes,
            2 * lanes,
            lanes,
            lanes // 2,
            lanes // 4,
        ]
        bounds = A.ints(fold.bounds)  # [m / J, n, J, rows]
        assert (bounds[1], bounds[3]) == (fold.inputs[0].type.get_shape()[1], lead[0])


def test_rows_not_in_whole_vectors_keep_the_other_layouts(all_fast):
    """One vector of rows, rows that do not fill whole vectors, batch 1: no
    signed fold."""
    for name in ("1 vector", "ragged rows", "batch 1"):
        lead, widths = chains("f32")[name]
        body = _ibp_function(chain_text(lead, widths, "f32", seed=0))
        folds = [op for op in body.walk() if isinstance(op, A.FoldOp)]
        assert not [f for f in folds if len(f.inputs) > 1 and f.inputs[0] is f.inputs[1]], name


@needs_avx512
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_signed_fold_loads_the_chosen_end_without_min_or_blend(all_fast, dtype, backend):
    """The hot loop of the signed fold: the products read memory at an index
    chosen by a scalar select (cmov), no vector min/max and no blend of the
    two ends (a branch per weight would also show as no cmov)."""
    from tlir.compiler.build import lower_kernel
    from tlir.compiler.jit import assembly
    from tlir.compiler.model import derivative_module
    from tlir.passes.tlir_form_kernels import TlirFormKernels
    from tlir.universe import context

    lead, _ = chains(dtype)["4 vectors"]
    text = chain_text(lead, [64, 32], dtype, seed=0)
    with directed_steps.steps_with_embedded_rounding(True):
        module = derivative_module(tlir.parse_module(text), "main", "ibp", "fast")
        TlirFormKernels().apply(context(), module)
        kernels = [op for op in module.walk() if op.name == "func.func" and "reduction" in str(op)]
        codes = [assembly(lower_kernel(k, backend, "test")[1]) for k in kernels]
    suffix = "pd" if dtype == "f64" else "ps"
    code = next(c for c in codes if "rd-sae" in c and f"vmul{suffix}" in c)
    assert "cmov" in code
    assert f"vmin{suffix}" not in code and f"vmax{suffix}" not in code
    assert "blendm" not in code
