"""The compiled bounds (`tlir-ibp`, `CompiledModel.ibp`) against the reference
rules, bit for bit and unresolved for unresolved: every op case, the bundled
models, random graphs; f64 and f32, both back ends, 1 and 2 threads. And the
soundness of the bounds: the forward evaluator's outputs at points of the box
lie inside them."""

from __future__ import annotations

from pathlib import Path

import fuzz_graphs
import numpy as np
import pytest
from fuzz_graphs import budget
from hypothesis import given
from hypothesis import strategies as st
from op_cases import OpCase, build_cases
from op_cases import _conv as conv_case

import tlir
import tlir.compiler.model
from tlir.compiler.backend.mlir import find_tool
from tlir.reference import evaluate
from tlir.reference.ibp import boxes as reference_boxes

HAVE_MLIR = find_tool("mlir-opt") is not None
BACKENDS = ["xdsl", pytest.param("mlir", marks=pytest.mark.skipif(not HAVE_MLIR, reason="mlir"))]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = build_cases()


def random_box(xs, seed: int):
    """A box around each array: radii |N(0, 1)|/2, some exactly 0 (points)."""
    rng = np.random.default_rng(seed)
    lows, highs = [], []
    for x in xs:
        radius = (np.abs(rng.normal(size=x.shape)) * 0.5) * (rng.random(x.shape) < 0.8)
        with np.errstate(all="ignore"):
            lows.append((x - radius.astype(x.dtype)).astype(x.dtype))
            highs.append((x + radius.astype(x.dtype)).astype(x.dtype))
    return lows, highs


def assert_same_bounds(model, module, lows, highs, context=""):
    """The compiled bounds are the reference's: the same bits, the same
    unresolved outputs with the same reason."""
    got = model.bounds(lows, highs)
    want = reference_boxes(module, lows, highs)
    for k, (box, cause) in enumerate(zip(want.output_boxes(), want.output_causes(), strict=True)):
        if box is None:
            assert got.lowers[k] is None and got.uppers[k] is None, (k, context)
            assert got.reasons[k] == cause.message(), (k, context)
            continue
        assert got.lowers[k] is not None, (k, got.reasons[k], context)
        assert fuzz_graphs.same_bits(got.lowers[k], box[0]), (k, got.lowers[k], box[0], context)
        assert fuzz_graphs.same_bits(got.uppers[k], box[1]), (k, got.uppers[k], box[1], context)
    return got


def _one_dtype_per_backend(cases):
    """Each case on each back end in one dtype, the other dtype on the other
    back end, alternating between cases: every pair of case, dtype and back
    end meets without compiling every case four times."""
    params = []
    for index, case in enumerate(cases):
        for backend in ("xdsl", "mlir"):
            dtype = ("f64", "f32")[(index + (backend == "mlir")) % 2]
            marks = BACKENDS[1].marks if backend == "mlir" else ()
            params.append(
                pytest.param(case, dtype, backend, marks=marks, id=f"{case.name}-{dtype}-{backend}")
            )
    return params


@pytest.mark.parametrize("case, dtype, backend", _one_dtype_per_backend(CASES))
def test_every_op_case(case, dtype, backend):
    module = tlir.parse_module(case.text(dtype))
    lows, highs = random_box(case.inputs(dtype), seed=len(case.name))
    model = tlir.compile(module, backend=backend)
    assert_same_bounds(model, module, lows, highs, f"{case.name} {dtype}")
    assert_same_bounds(model, module, *random_box(case.inputs(dtype, seed=3), 7))


def _mlp(batch: int, dtype: str) -> str:
    rng = np.random.default_rng(0)
    t = dtype

    def const(name, shape):
        values = np.round(rng.normal(size=shape), 3).tolist()
        typ = f"tensor<{'x'.join(map(str, shape))}x{t}>"
        return f"  %{name} = tlir.const {{value = dense<{values}> : {typ}}} : {typ}\n"

    x, h, y = f"tensor<{batch}x24x{t}>", f"tensor<{batch}x40x{t}>", f"tensor<{batch}x10x{t}>"
    return (
        f"func.func @main(%x: {x}) -> {y} {{\n" + const("w1", (40, 24)) + const("b1", (40,))
        + const("w2", (10, 40)) + const("b2", (10,))
        + f"  %z = tlir.linear %x, %w1, %b1 : ({x}, tensor<40x24x{t}>, tensor<40x{t}>) -> {h}\n"
        + f"  %r = tlir.relu %z : ({h}) -> {h}\n"
        + f"  %y = tlir.linear %r, %w2, %b2 : ({h}, tensor<10x40x{t}>, tensor<10x{t}>) -> {y}\n"
        + f"  func.return %y : {y}\n}}\n"
    )  # fmt: skip


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_threads_give_the_same_bits(threads, dtype):
    module = tlir.parse_module(_mlp(256, dtype))
    np_dtype = np.float32 if dtype == "f32" else np.float64
    x = np.random.default_rng(1).normal(size=(256, 24)).astype(np_dtype)
    model = tlir.compile(module, threads=threads)
    assert_same_bounds(model, module, *random_box([x], 2))
    conv = next(c for c in CASES if c.name == "conv_groups")
    module = tlir.parse_module(conv.text(dtype))
    model = tlir.compile(module, threads=threads)
    assert_same_bounds(model, module, *random_box(conv.inputs(dtype), 5))


# every pair of (model, dtype, back end) values once: each model in one dtype
# per back end, and each back end in both dtypes
@pytest.mark.parametrize(
    "name, dtype, backend",
    [
        ("cnn", "f64", "xdsl"),
        pytest.param("cnn", "f32", "mlir", marks=BACKENDS[1].marks),
        ("legacy_cnn", "f32", "xdsl"),
        pytest.param("legacy_cnn", "f64", "mlir", marks=BACKENDS[1].marks),
        ("transformer_block", "f64", "xdsl"),
        pytest.param("transformer_block", "f32", "mlir", marks=BACKENDS[1].marks),
    ],
)
def test_bundled_models(name, dtype, backend):
    module = tlir.load_model(str(EXAMPLES / f"{name}.json"), dtype)
    x = np.load(EXAMPLES / f"{name}_input.npy").astype(np.float32 if dtype == "f32" else np.float64)
    model = tlir.compile(module, backend=backend)
    for eps in (0.0, 0.01, 0.5):
        lows, highs = model.ibp_ball([x], eps)
        from tlir.verification import ball_boxes

        lo_in, hi_in = ball_boxes(model.function_op, [x], eps, "x")
        got = assert_same_bounds(model, module, lo_in, hi_in, f"{name} {dtype} {eps}")
        for a, b in zip(lows, got.lowers, strict=True):
            assert (a is None and b is None) or fuzz_graphs.same_bits(a, b)


@budget(ci=40, long=2_000)
@given(data=st.data())
def test_random_graphs(tmp_path_factory, data):
    from test_random_graphs import draw_model

    case = draw_model(data, tmp_path_factory)
    lows, highs = random_box([case.x], data.draw(st.integers(0, 100), label="seed"))
    model = tlir.compile(case.module, backend=case.backend)
    assert_same_bounds(model, case.module, lows, highs, case.context("ibp"))


@budget(ci=40, long=2_000)
@given(data=st.data())
def test_bounds_hold_at_sampled_points(tmp_path_factory, data):
    """Soundness: for a random graph (finite values) and box, the forward
    evaluator's outputs at 30 random points and 8 corners of the box lie
    inside every resolved output's bounds."""
    from tlir.diagnostics import TlirError
    from tlir.torchlean import import_file

    document = data.draw(fuzz_graphs.graphs(), label="graph")
    dtype = data.draw(st.sampled_from(["f32", "f64"]), label="dtype")
    path = tmp_path_factory.mktemp("sound") / "model.json"
    path.write_text(fuzz_graphs.dumps(document))
    module = import_file(str(path), dtype)
    np_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    shape = tuple(document["nodes"][0]["shape"])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    centre = rng.normal(size=shape).astype(np_dtype)
    radius = np.abs(rng.normal(size=shape)).astype(np_dtype) * np_dtype.type(0.3)
    lo, hi = (centre - radius).astype(np_dtype), (centre + radius).astype(np_dtype)
    found = reference_boxes(module, [lo], [hi]).output_boxes()
    points = [lo, hi] + [np.where(rng.random(shape) < 0.5, lo, hi) for _ in range(6)]
    points += [
        np.clip((lo + rng.random(shape) * (hi - lo)).astype(np_dtype), lo, hi) for _ in range(30)
    ]
    for point in points:
        try:
            values = evaluate(module, [point])
        except TlirError:
            continue  # log of a non-positive value: no forward value to bound
        for box, value in zip(found, values, strict=True):
            if box is None:
                continue
            inside = (box[0] <= value) & (value <= box[1])
            ok = inside | np.isnan(value) | np.isnan(box[0]) | np.isnan(box[1])
            assert np.all(ok), (
                value[~ok],
                box[0][~ok],
                box[1][~ok],
                tlir.compiler.model.to_text(module),
            )


NEXT = """
func.func @main(%x: tensor<16x{t}>) -> (tensor<16x{t}>, tensor<16x{t}>) {{
  %u, %d = tlir_ad.map(%x) : (tensor<16x{t}>) -> (tensor<16x{t}>, tensor<16x{t}>) {{
  ^bb0(%a: {t}):
    %p = tlir_ad.next_up %a : {t}
    %m = tlir_ad.next_down %a : {t}
    tlir_ad.yield %p, %m : {t}, {t}
  }}
  func.return %u, %d : tensor<16x{t}>, tensor<16x{t}>
}}
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_next_up_and_down_on_the_bits(dtype, backend):
    """TorchLean's nextUp/nextDown (Python's math.nextafter, in the carrier) on
    zeros, subnormals, the largest floats, infinities and NaN."""
    import math

    np_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    info = np.finfo(np_dtype)
    tiny = np_dtype.type(info.smallest_subnormal)
    values = [0.0, -0.0, tiny, -tiny, info.max, -info.max, math.inf, -math.inf, math.nan,
              1.0, -1.0, info.tiny, -info.tiny, 0.1, -3.5, 1e30]  # fmt: skip
    x = np.array(values, np_dtype)
    up, down = tlir.compile(NEXT.format(t=dtype), backend=backend)(x)
    if dtype == "f64":
        want_up = [math.nextafter(v, math.inf) for v in x.tolist()]
        want_down = [math.nextafter(v, -math.inf) for v in x.tolist()]
    else:
        want_up = np.nextafter(x, np.float32(np.inf))
        want_down = np.nextafter(x, np.float32(-np.inf))
    assert fuzz_graphs.same_bits(up, np.array(want_up, np_dtype))
    assert fuzz_graphs.same_bits(down, np.array(want_down, np_dtype))
    assert down[0].view(np.uint64 if dtype == "f64" else np.uint32) == (
        0x8000000000000001 if dtype == "f64" else 0x80000001
    )  # nextDown(+0) is the smallest negative subnormal
    assert up[6] == math.inf and down[6] == info.max and math.isnan(up[8])


NEXT_MANY = NEXT.replace("16x", "4096x")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_next_up_and_down_on_random_bit_patterns(dtype, backend):
    """Every class of bit pattern (random ones cover subnormals, both zeros'
    neighbours, huge values and NaNs of either sign with any payload): NaN
    keeps its exact bits, the rest is nextafter."""
    np_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    uint = np.uint32 if dtype == "f32" else np.uint64
    width = np_dtype.itemsize * 8
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**width, size=4096, dtype=np.uint64).astype(uint)
    # small magnitudes (subnormals, ±0 and their neighbours) and the patterns
    # next to ±inf (the largest finite values, infinities, the first NaNs)
    bits[:512] = rng.integers(0, 4, size=512).astype(uint)
    bits[512:1024] = (np.arange(512) % 8 - 4).astype(np.int64).astype(uint) + uint(
        np.finfo(np_dtype).max.view(uint)
    )
    bits[::3] |= uint(1) << uint(width - 1)  # a third with the sign bit set
    x = bits.view(np_dtype)
    up, down = tlir.compile(NEXT_MANY.format(t=dtype), backend=backend)(x)
    nan = np.isnan(x)
    with np.errstate(invalid="ignore", over="ignore"):
        want_up = np.where(nan, x, np.nextafter(x, np_dtype.type(np.inf)))
        want_down = np.where(nan, x, np.nextafter(x, np_dtype.type(-np.inf)))
    assert up.view(uint).tolist() == want_up.view(uint).tolist()
    assert down.view(uint).tolist() == want_down.view(uint).tolist()


def test_unresolved_outputs_are_none_with_the_first_cause(tmp_path):
    text = """
func.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %e = tlir.exp %x : (tensor<2xf64>) -> tensor<2xf64>
  %i = tlir.inv %x : (tensor<2xf64>) -> tensor<2xf64>
  %s = tlir.add %i, %e : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %t = tlir.add %i, %x : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  func.return %s, %t, %x : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}"""
    module = tlir.parse_module(text)
    model = tlir.compile(module)
    # inv resolves on [1, 2] (so s fails at exp, index 0) and fails on [-1, 1]
    for lo, hi, first in (([1.0, 1.0], [2.0, 2.0], None), ([-1.0, 1.0], [1.0, 2.0], 1)):
        got = assert_same_bounds(model, module, [np.array(lo)], [np.array(hi)])
        assert got.lowers[0] is None and "(tlir.exp): no interval rule for exp on Float" in (
            got.reasons[0]
        )  # fmt: skip
        if first is None:
            assert got.lowers[1] is not None
        else:
            assert got.lowers[1] is None and "(tlir.inv): an interval of the divisor" in (
                got.reasons[1]
            )  # fmt: skip
        assert got.lowers[2].tolist() == lo
    lows, highs = model.ibp([np.array([-1.0, 1.0])], [np.array([1.0, 2.0])])
    assert lows[0] is None and highs[1] is None and lows[2] is not None


def test_f32_model_takes_float64_boxes_outward():
    module = tlir.parse_module(
        "func.func @main(%x: tensor<1xf32>) -> tensor<1xf32> {\n"
        "  func.return %x : tensor<1xf32>\n}\n"
    )
    model = tlir.compile(module)
    lows, highs = model.ibp([np.array([0.1])], [np.array([0.1])])
    assert lows[0].dtype == np.float32 and float(lows[0][0]) < 0.1 < float(highs[0][0])
    assert highs[0][0] == np.nextafter(lows[0][0], np.float32(1))
    lows, highs = model.ibp_ball([np.array([1.0])], 0.5)
    assert lows[0][0] == np.nextafter(np.float32(0.5), np.float32(0))
    assert highs[0][0] == np.nextafter(np.float32(1.5), np.float32(2))


def test_bad_boxes_are_one_line_errors():
    from tlir.diagnostics import TlirError

    model = tlir.compile(_mlp(2, "f64"))
    with pytest.raises(TlirError, match=r"expected 1 lower and 1 upper bounds"):
        model.ibp([], [])
    with pytest.raises(TlirError, match=r"lower bound 0 has shape \[3\], expected \[2, 24\]"):
        model.ibp([np.zeros(3)], [np.zeros((2, 24))])
    with pytest.raises(TlirError, match="eps must be finite and >= 0"):
        model.ibp_ball([np.zeros((2, 24))], -0.5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_calls_are_unresolved_and_the_least_cause_wins(backend):
    """`tlir.custom` has no rule; an op reading a value that may fail at run time
    (inv, index 1) and one that fails at compile time (the custom call, index 2)
    reports whichever comes first on its path."""
    text = """
func.func @f(%a: tensor<2xf64>) -> tensor<2xf64> {
  func.return %a : tensor<2xf64>
}
func.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %s = tlir.sqrt %x : (tensor<2xf64>) -> tensor<2xf64>
  %i = tlir.inv %s : (tensor<2xf64>) -> tensor<2xf64>
  %c = tlir.custom @f(%x) {name = "f"} : (tensor<2xf64>) -> tensor<2xf64>
  %m = tlir.mul_elem %c, %i : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  func.return %m, %i : tensor<2xf64>, tensor<2xf64>
}"""
    module = tlir.parse_module(text)
    model = tlir.compile(module, backend=backend)
    for lo, hi, first in (([1.0, 4.0], [2.0, 9.0], 2), ([-1.0, 4.0], [-0.5, 9.0], 0),
                          ([0.0, 4.0], [1.0, 9.0], 1)):  # fmt: skip
        got = assert_same_bounds(model, module, [np.array(lo)], [np.array(hi)])
        assert got.lowers[0] is None
        assert (
            got.reasons[0]
            .split(" (")[1]
            .startswith(("tlir.custom", "tlir.sqrt", "tlir.inv")[[2, 0, 1].index(first)])
        )


def test_an_op_without_a_rule_and_several_results():
    """A `tlir_ad.map` in a model (a derivative program) has no interval rule:
    all of its results are unresolved, the other outputs are not."""
    text = """
func.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %u, %d = tlir_ad.map(%x) : (tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  ^bb0(%a: f64):
    %p = tlir_ad.next_up %a : f64
    tlir_ad.yield %p, %a : f64, f64
  }
  %r = tlir.relu %x : (tensor<2xf64>) -> tensor<2xf64>
  func.return %u, %d, %r : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}"""
    module = tlir.parse_module(text)
    got = assert_same_bounds(tlir.compile(module), module, [np.zeros(2)], [np.ones(2)])
    assert got.lowers[:2] == [None, None] and got.uppers[2].tolist() == [1.0, 1.0]
    assert got.reasons[1].endswith("(tlir_ad.map): no interval rule for tlir_ad.map on Float")


LINEAR_IBP = """
func.func @main(%x: tensor<8x64x{t}>, %w: tensor<128x64x{t}>, %b: tensor<128x{t}>) -> tensor<8x128x{t}> {{
  %y = tlir.linear %x, %w, %b : (tensor<8x64x{t}>, tensor<128x64x{t}>, tensor<128x{t}>) -> tensor<8x128x{t}>
  func.return %y : tensor<8x128x{t}>
}}
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_interval_linear_runs_in_full_width_vectors(dtype, backend):
    """On an AVX-512 host the interval linear's fold is vectorised in 512-bit
    registers (LLVM's tuning would pick 256), through either back end."""
    from tlir.compiler.build import lower_kernel
    from tlir.compiler.jit import assembly
    from tlir.compiler.kernel_harness import instruction_counts
    from tlir.compiler.model import derivative_module
    from tlir.passes.contraction_kernels import host_target
    from tlir.passes.tlir_form_kernels import TlirFormKernels
    from tlir.universe import context

    if host_target().vector_bytes != 64:
        pytest.skip("no AVX-512")
    module = derivative_module(tlir.parse_module(LINEAR_IBP.format(t=dtype)), "main", "ibp")
    TlirFormKernels().apply(context(), module)
    kernels = [op for op in module.walk() if op.name == "func.func" and "reduction" in str(op)]
    assert len(kernels) == 1  # the fold over the columns (the bias is added apart)
    counts = instruction_counts(assembly(lower_kernel(kernels[0], backend, "test")[1]))
    suffix = "pd" if dtype == "f64" else "ps"
    assert counts[f"vmul{suffix} zmm"] >= 2 and counts[f"vadd{suffix} zmm"] >= 2, counts


@pytest.mark.parametrize("backend", BACKENDS)
def test_interval_linear_is_split_across_threads(backend):
    """The fold of a large interval linear is a threaded step (its weight's
    transpose is a kernel of its own), and 2 threads give the same bits as the
    reference."""
    sizes = {"8x64x": "64x256x", "128x64x": "256x256x", "128x": "256x", "8x128x": "64x256x"}
    text = LINEAR_IBP.format(t="f64")
    for old, new in sizes.items():
        text = text.replace(f"<{old}", f"<{new}")
    model = tlir.compile(text, backend=backend, threads=2)
    plan = model._derivative("ibp", None).plan
    assert all(step.extent > 1 for step in plan.steps)  # every step can be split
    # the fold is, over its 16 tiles of 16 outputs (register tiles of two 8-lane vectors)
    assert any(step.threaded and step.extent == 16 for step in plan.steps)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(64, 256))
    w, b = rng.normal(size=(256, 256)), rng.normal(size=256)
    lows, highs = [x - 0.01, w, b], [x + 0.01, w, b]
    got = model.ibp(lows, highs)
    from tlir.reference.ibp import ibp as reference_ibp

    want = reference_ibp(model.module(), lows, highs)
    assert all(fuzz_graphs.same_bits(g, v) for g, v in zip(got[0] + got[1], want[0] + want[1]))


# convolutions whose groups have at least as many output channels as the last
# output axis has positions: the interval rule vectorises over the channels
# (f64 8 and f32 16 lanes: 19 channels leave remainders in both)
CHANNEL_MAJOR_CONVS = [
    conv_case("conv_pad", (2, 3, 6, 5), (8, 3, 3, 3), (2, 8, 6, 5), (3, 3), (1, 1), (1, 1),
              (1, 1), (1, 1), 1),
    conv_case("conv_groups_stride_dilation", (1, 4, 7, 7), (10, 4, 3, 2), (1, 10, 3, 3),
              (3, 2), (2, 2), (1, 0), (0, 1), (1, 2), 2),
    conv_case("conv_1d_unbatched", (3, 9), (12, 3, 3), (12, 4), (3,), (2,), (1,), (0,), (1,),
              1, axis=0),
    conv_case("conv_remainder", (1, 2, 4, 4), (19, 2, 2, 2), (1, 19, 4, 4), (2, 2), (1, 1),
              (1, 1), (0, 0), (1, 1), 1),
]  # fmt: skip


def _adversarial(lows, highs, seed: int):
    """Some cells of each box set to ±0, subnormals, ±inf, NaN, or lo = hi."""
    rng = np.random.default_rng(seed)
    for lo, hi in zip(lows, highs, strict=True):
        tiny = np.finfo(lo.dtype).smallest_subnormal
        specials = [0.0, -0.0, tiny, -tiny, np.inf, -np.inf, np.nan]
        flat_lo, flat_hi = lo.reshape(-1), hi.reshape(-1)
        for index in rng.choice(flat_lo.size, size=max(1, flat_lo.size // 8), replace=False):
            value = specials[rng.integers(len(specials))]
            if rng.random() < 0.5:
                flat_lo[index] = flat_hi[index] = value  # a point
            elif value < 0 or np.isnan(value):
                flat_lo[index] = value
            else:
                flat_hi[index] = value
    return lows, highs


def _dense(value: np.ndarray) -> str:
    """A dense literal of the exact bits (hex: NaN, ±inf, -0 and subnormals too)."""
    uint, digits = (np.uint32, 8) if value.dtype == np.float32 else (np.uint64, 16)
    bits = value.view(uint)
    return repr(np.vectorize(lambda b: f"0x{int(b):0{digits}X}", otypes=[object])(bits).tolist())


def _with_constant_parameters(case, dtype: str, seed: int, specials=()) -> str:
    """The case's module with its weight and bias as `tlir.const` (point boxes):
    structural zeros, and `specials` spread over the weight's rows."""
    _, w, b = case.inputs(dtype, seed)
    flat = w.reshape(-1)
    flat[::5] = 0.0
    for k, value in enumerate(specials):
        flat[(k * (w.shape[-1] + 3)) % flat.size] = value
    return with_constants(case, dtype, w, b)


def with_constants(case, dtype: str, w: np.ndarray, b: np.ndarray) -> str:
    """The case's module with its weight `w` and bias `b` as `tlir.const`."""
    head, rest = case.text(dtype).split("\n", 1)
    consts = ""
    for name, value in (("a1", w), ("a2", b)):
        typ = "tensor<" + "".join(f"{n}x" for n in value.shape) + dtype + ">"
        literal = _dense(value).replace("'", "")
        consts += f"  %{name} = tlir.const {{value = dense<{literal}> : {typ}}} : {typ}\n"
    return f"{head.split(', %a1')[0]}) -> {head.split(') -> ')[1]}\n{consts}{rest}"


@pytest.mark.parametrize("case, dtype, backend", _one_dtype_per_backend(CHANNEL_MAJOR_CONVS))
def test_channel_major_interval_conv(case, dtype, backend):
    """The interval conv vectorised over output channels gives the reference's
    bits: weights as boxes and as constants, adversarial values, 1 and 2 threads."""
    module = tlir.parse_module(case.text(dtype))
    point = tlir.parse_module(_with_constant_parameters(case, dtype, 4))
    for threads in (1, 2):
        model = tlir.compile(module, backend=backend, threads=threads)
        assert_same_bounds(model, module, *random_box(case.inputs(dtype), 1))
        boxes = _adversarial(*random_box(case.inputs(dtype, seed=2), 3), seed=threads)
        assert_same_bounds(model, module, *boxes, "adversarial")
        model = tlir.compile(point, backend=backend, threads=threads)
        x = case.inputs(dtype, seed=5)[:1]
        assert_same_bounds(model, point, *random_box(x, 6))
        assert_same_bounds(model, point, *_adversarial(*random_box(x, 8), seed=9), "point")


LINEAR_REMAINDER = OpCase(
    "linear_remainder", "linear", [(5, 13), (19, 13), (19,)], (5, 19), "tlir.linear %a0, %a1, %a2"
)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_interval_linear_on_adversarial_values(dtype, backend):
    """19 outputs (remainders after 8 and 16 lanes), boxes and constant weights
    with ±0, subnormals, ±inf, NaN and points, 1 and 2 threads: the reference's bits."""
    case = LINEAR_REMAINDER
    module = tlir.parse_module(case.text(dtype))
    tiny = np.finfo(np.float32 if dtype == "f32" else np.float64).smallest_subnormal
    specials = [0.0, -0.0, tiny, -tiny, np.inf, -np.inf, np.nan]
    point = tlir.parse_module(_with_constant_parameters(case, dtype, 4, specials))
    for threads in (1, 2):
        model = tlir.compile(module, backend=backend, threads=threads)
        boxes = _adversarial(*random_box(case.inputs(dtype, seed=2), 3), seed=threads)
        assert_same_bounds(model, module, *boxes, "adversarial")
        model = tlir.compile(point, backend=backend, threads=threads)
        x = case.inputs(dtype, seed=5)[:1]
        assert_same_bounds(model, point, *_adversarial(*random_box(x, 8), seed=9), "point")


def test_interval_conv_is_split_across_threads():
    """The channel-major conv's fold is split across threads even where its
    permuted weight [in channel, cell…, out channel] leads with the batch's
    extent by chance (16 input channels, batch 16): the weight is permuted in a
    kernel of its own, since the fold does not read it along the batch."""
    case = conv_case("conv_16", (16, 16, 4, 4), (32, 16, 3, 3), (16, 32, 4, 4), (3, 3), (1, 1),
                     (1, 1), (1, 1), (1, 1), 1)  # fmt: skip
    module = tlir.parse_module(case.text("f64"))
    model = tlir.compile(module, threads=2)
    plan = model._derivative("ibp", None).plan
    assert all(step.extent > 1 for step in plan.steps), plan.steps  # every step can be split
    assert any(step.threaded for step in plan.steps)
    assert_same_bounds(model, module, *random_box(case.inputs("f64"), 1))
