"""The fast path's finite check of a conv's sums taken over by the `max_pool`
that reads them (`pooling.taken_check`, docs/verification.md#performance): the
pool poisons its lower end where a window's sums are not all finite and the
check counts that end, so a non-finite sum hidden by relu or by the max still
sends the call to the exact program; windows that miss a sum leave the
check at the conv. The reference's bits on both back ends, f64 and f32, 1 and
2 threads."""

from __future__ import annotations

import numpy as np
import pytest
from test_ibp_compiled import BACKENDS, _dense, assert_same_bounds, random_box
from test_ibp_fast import _checks, needs_avx512

import tlir
from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as A
from tlir.passes.ibp import structured

CONV_POOL = """
func.func @main(%x: tensor<{n}x3x{h}x{w}x{t}>) -> tensor<{n}x{c}x{ph}x{pw}x{t}> {{
  %w = tlir.const {{value = dense<{weight}> : tensor<{c}x3x1x1x{t}>}} : tensor<{c}x3x1x1x{t}>
  %b = tlir.const {{value = dense<{bias}> : tensor<{c}x{t}>}} : tensor<{c}x{t}>
  %y = tlir.conv %x, %w, %b {{kernel = array<i64: 1, 1>, stride = array<i64: 1, 1>,
    padding = array<i64: 0, 0>, padding_after = array<i64: 0, 0>,
    dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64,
    in_channels = 3 : i64, out_channels = {c} : i64}}
    : (tensor<{n}x3x{h}x{w}x{t}>, tensor<{c}x3x1x1x{t}>, tensor<{c}x{t}>)
    -> tensor<{n}x{c}x{h}x{w}x{t}>
  {relu}
  %p = tlir.max_pool {src} {{kernel = array<i64: {k}, {k}>, stride = array<i64: {s}, {s}>,
    padding = array<i64: 0, 0>}} : (tensor<{n}x{c}x{h}x{w}x{t}>) -> tensor<{n}x{c}x{ph}x{pw}x{t}>
  func.return %p : tensor<{n}x{c}x{ph}x{pw}x{t}>
}}
"""

RELU = "%r = tlir.relu %y : (tensor<{n}x{c}x{h}x{w}x{t}>) -> tensor<{n}x{c}x{h}x{w}x{t}>"


def _model_text(dtype, hw, kernel, stride, relu=True, n=2, c=8, bias=None) -> str:
    """A 1x1 conv (3 → c channels, c at least the width: the fold vectorised
    over the channels), relu or not, a max_pool; weights 2, 0.75, 0.75."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    weight = np.empty((c, 3, 1, 1), np_dtype)
    weight[:, 0], weight[:, 1:] = 2.0, 0.75
    if bias is None:
        bias = np.linspace(-0.5, 0.5, c)
    bias = np.asarray(bias).astype(np_dtype)
    h, w = hw
    sizes = {"n": n, "c": c, "h": h, "w": w, "t": dtype, "k": kernel, "s": stride,
             "ph": (h - kernel) // stride + 1, "pw": (w - kernel) // stride + 1}  # fmt: skip
    return CONV_POOL.format(
        **sizes,
        weight=_dense(weight).replace("'", ""),
        bias=_dense(bias).replace("'", ""),
        relu=RELU.format(**sizes) if relu else "",
        src="%r" if relu else "%y",
    )


def _hidden_overflow(dtype, hw, at, n=2) -> tuple[list, list]:
    """A point box of ones but for pixel `at` of image 0: (-MAX, MAX, MAX).
    TorchLean's upper sum there: 2·(-MAX) is -inf, nextUp gives -MAX, and the
    two terms 0.75·MAX bring it back to about MAX/2; the fast upper sum stays
    -inf (and so does the lower sum in both), which relu makes +0: hidden,
    while the exact pooled upper end is about MAX/2."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    big = np.finfo(np_dtype).max
    x = np.ones((n, 3, *hw), np_dtype)
    x[(0, 0, *at)], x[(0, 1, *at)], x[(0, 2, *at)] = -big, big, big
    return [x.copy()], [x.copy()]


def _check_reads_sums(text: str) -> bool:
    """Whether the fast program has a fold with a reduction (a finite check)
    reading the conv's sums, through reshapes."""
    from tlir.passes.tlir_ibp import TlirIbp
    from tlir.universe import context

    module = tlir.parse_module(text)
    TlirIbp(function="main", rules="torchlean", fast=True).apply(context(), module)
    folds = [op for op in module.walk() if isinstance(op, A.FoldOp)]
    conv = next(f for f in folds if A.REDUCTION in f.kinds)  # the first contraction
    values, readers = list(conv.outs), []
    while values:
        for use in list(values.pop().uses):
            if isinstance(use.operation, T.ReshapeOp):
                values.append(use.operation.results[0])
            else:
                readers.append(use.operation)
    return any(isinstance(op, A.FoldOp) and A.REDUCTION in op.kinds for op in readers)


@pytest.fixture(autouse=True)
def every_contraction_fast(monkeypatch):
    monkeypatch.setattr(structured, "FAST_TERMS", 0)


@pytest.mark.parametrize("relu", [True, False], ids=["relu", "no_relu"])
def test_a_covering_pool_takes_the_check_over(relu):
    """A 2x2 pool of stride 2 over 4x4 sums reads each sum once: no check
    reads the sums (the pool's end is checked instead), with or without relu;
    an overlapping 3x3 pool of stride 1 too."""
    assert not _check_reads_sums(_model_text("f64", (4, 4), 2, 2, relu))
    assert not _check_reads_sums(_model_text("f64", (4, 4), 3, 1, relu))


@pytest.mark.parametrize(
    ("hw", "kernel", "stride"),
    [((5, 4), 2, 2), ((4, 4), 1, 2)],
    ids=["last_row_unread", "stride_over_kernel"],
)
def test_a_pool_that_misses_sums_leaves_the_check(hw, kernel, stride):
    assert _check_reads_sums(_model_text("f64", hw, kernel, stride))


# every pair of (dtype, back end, threads) values once
PAIRS = [
    ("f64", "xdsl", 1),
    ("f32", "xdsl", 2),
    pytest.param("f64", "mlir", 2, marks=BACKENDS[1].marks),
    pytest.param("f32", "mlir", 1, marks=BACKENDS[1].marks),
]


@needs_avx512
@pytest.mark.parametrize(("dtype", "backend", "threads"), PAIRS)
@pytest.mark.parametrize(
    ("hw", "kernel", "stride", "at", "relu"),
    [
        ((4, 4), 2, 2, (1, 2), True),  # the pool's check, relu hides -inf
        ((4, 4), 2, 2, (3, 3), False),  # the pool's check, the max skips +0
        ((4, 4), 3, 1, (1, 1), True),  # overlapping windows
        ((5, 4), 2, 2, (4, 1), True),  # in the row no window reads: the conv's check
    ],
    ids=["relu", "no_relu", "overlapping", "unread_row"],
)
def test_a_hidden_non_finite_sum_falls_back(dtype, backend, threads, hw, kernel, stride, at, relu):
    """A conv sum non-finite on the fast path only where TorchLean's steps come
    back to a finite value, hidden from the pooled box by relu or the max: the
    check is set, and the bounds are the exact program's, the reference's
    bits; random boxes leave every check clear, with the same bits."""
    text = _model_text(dtype, hw, kernel, stride, relu)
    module = tlir.parse_module(text)
    model = tlir.compile(module, backend=backend, threads=threads)
    lows, highs = _hidden_overflow(dtype, hw, at)
    assert any(_checks(model, lows, highs))
    got = assert_same_bounds(model, module, lows, highs, "hidden")
    if (hw, kernel, stride) == ((4, 4), 2, 2) and relu:
        # the exact upper end is far above what the fast sums would have given
        assert got.uppers[0].max() > np.finfo(lows[0].dtype).max / 4
    np_dtype = lows[0].dtype.type
    x = np.linspace(-2, 2, lows[0].size).astype(np_dtype).reshape(lows[0].shape)
    lows, highs = random_box([x], 4)
    assert not any(_checks(model, lows, highs))
    assert_same_bounds(model, module, lows, highs, "finite")


def _conv_relu_text(dtype, hw, c) -> str:
    """`_model_text`'s conv and relu, without the pool: the conv keeps its check."""
    text = _model_text(dtype, hw, 1, 1, c=c)
    head, body = text.split("\n", 2)[1:]
    n, h, w = 2, *hw
    typ = f"tensor<{n}x{c}x{h}x{w}x{dtype}>"
    body = body.split("  %p = ")[0] + f"  func.return %r : {typ}\n}}\n"
    return head.split(" -> ")[0] + f" -> {typ} {{\n" + body


def test_the_check_counts_in_long_rows():
    """Sums [2, 4, 4, 16] (channels last) are checked as [2, 2, 128]: a row
    long enough for LLVM's loop vectoriser (16 channels were unrolled whole
    into scalar code), the counts then summed over the first axis."""
    from tlir.passes.tlir_ibp import TlirIbp
    from tlir.universe import context

    module = tlir.parse_module(_conv_relu_text("f64", (4, 4), 16))
    TlirIbp(function="main", rules="torchlean", fast=True).apply(context(), module)
    folds = [op for op in module.walk() if isinstance(op, A.FoldOp)]
    checks = [A.ints(op.bounds) for op in folds if len(op.outs) == 1]
    assert checks == [(2, 2, 128), (2, 128)]  # the count per row, then over the first axis


@needs_avx512
@pytest.mark.parametrize(("dtype", "backend", "threads"), PAIRS)
def test_a_non_finite_sum_anywhere_in_long_rows_falls_back(dtype, backend, threads):
    """The hidden overflow of `_hidden_overflow` at each pixel in turn, in
    either image, under relu and no pool: the check (over the sums reshaped
    to long rows) is set, and the bounds are the reference's bits."""
    text = _conv_relu_text(dtype, (4, 4), 16)
    module = tlir.parse_module(text)
    model = tlir.compile(module, backend=backend, threads=threads)
    for image in (0, 1):
        for at in [(0, 0), (1, 3), (2, 1), (3, 3)]:
            lows, highs = _hidden_overflow(dtype, (4, 4), at)
            if image:
                lows, highs = [lows[0][::-1].copy()], [highs[0][::-1].copy()]
            assert any(_checks(model, lows, highs)), (image, at)
            assert_same_bounds(model, module, lows, highs, f"image {image} at {at}")


@needs_avx512
@pytest.mark.parametrize(("dtype", "backend", "threads"), PAIRS)
@pytest.mark.parametrize("relu", [True, False], ids=["relu", "no_relu"])
def test_biased_sums_at_the_smallest_subnormal(dtype, backend, threads, relu):
    """A box of zeros: each lower sum is -6m and each upper 6m (m the
    smallest subnormal: three terms of two steps from 0), and biases 7m and
    -7m make `s + b` exactly m (lower) and -m (upper), where the fast steps
    give -0 and +0 for TorchLean's +0 and -0. After relu both are +0: with
    relu the pool adds the bias with the fast steps, the checks stay clear and
    the bits are the reference's; without relu the zero's sign would reach the
    max, so the bias keeps TorchLean's steps: the reference's bits again."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    m = np.finfo(np_dtype).smallest_subnormal
    bias = np.array([7, -7, 7, -7, 0, 1, -1, 0]) * np.float64(m)
    text = _model_text(dtype, (4, 4), 2, 2, relu, bias=bias)
    module = tlir.parse_module(text)
    model = tlir.compile(module, backend=backend, threads=threads)
    zeros = np.zeros((2, 3, 4, 4), np_dtype)
    lows, highs = [zeros.copy()], [zeros.copy()]
    assert not any(_checks(model, lows, highs))
    got = assert_same_bounds(model, module, lows, highs, "zeros")
    if not relu:  # TorchLean's +0 and -0 at channels 0 and 1
        assert np.signbit(got.lowers[0][:, 0]).sum() == 0
        assert np.signbit(got.uppers[0][:, 1]).all()


@needs_avx512
@pytest.mark.parametrize(("dtype", "backend", "threads"), PAIRS)
def test_a_bias_overflowing_finite_sums_falls_back(dtype, backend, threads):
    """Finite sums of about MAX/2 plus a bias of 0.75·MAX: `s + b` is +inf,
    which TorchLean's lower step makes MAX and the pool's fast step keeps
    +inf: the check is set, and the bounds are the reference's bits (MAX
    after relu)."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    big = np.finfo(np_dtype).max
    text = _model_text(dtype, (4, 4), 2, 2, bias=np.full(8, 0.75 * np.float64(big)))
    module = tlir.parse_module(text)
    model = tlir.compile(module, backend=backend, threads=threads)
    x = np.ones((2, 3, 4, 4), np_dtype)
    x[0, 0, 1, 2] = big / 4
    lows, highs = [x.copy()], [x.copy()]
    assert any(_checks(model, lows, highs))
    got = assert_same_bounds(model, module, lows, highs, "overflowing bias")
    assert (got.lowers[0][0, :, 0, 1] == big).all()
