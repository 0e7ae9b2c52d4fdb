"""`tlir_ad.pad` without interior padding fills only the border with +0 and
writes the window by the copy alone (`convert_tlir_to_linalg.ad_ops._bordered`):
every cell of the result is written, whatever its buffer held before (the
outputs given to `run_into` start as NaN), on both back ends, f32 and f64,
1 and 2 threads; the reference's bits."""

from __future__ import annotations

import numpy as np
import pytest
from test_ibp_compiled import BACKENDS

import tlir
from tlir.reference import evaluate

PAD = """
func.func @main(%a: tensor<{shape}x{t}>) -> tensor<{padded}x{t}> {{
  %p = tlir_ad.pad %a {{low = array<i64: {low}>, high = array<i64: {high}>,
    interior = array<i64: {interior}>}} : (tensor<{shape}x{t}>) -> tensor<{padded}x{t}>
  func.return %p : tensor<{padded}x{t}>
}}
"""

# (shape, low, high): asymmetric, one side only, a leading axis unpadded, every
# axis padded, rank 1, a pad wider than the operand
CASES = [
    ((2, 3, 4), (0, 1, 2), (0, 2, 0)),
    ((16, 3, 5, 5), (0, 0, 1, 1), (0, 0, 1, 1)),
    ((4, 7, 3, 8), (0, 2, 0, 1), (0, 0, 3, 1)),
    ((3, 2, 2), (1, 1, 1), (2, 1, 1)),
    ((5,), (3,), (4,)),
    ((1, 2, 1), (0, 5, 0), (0, 6, 3)),
]


def _text(shape, low, high, dtype) -> str:
    padded = [n + lo + hi for n, lo, hi in zip(shape, low, high, strict=True)]
    join = "x".join
    return PAD.format(
        shape=join(map(str, shape)), padded=join(map(str, padded)), t=dtype,
        low=", ".join(map(str, low)), high=", ".join(map(str, high)),
        interior=", ".join("0" for _ in shape),
    )  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize(("shape", "low", "high"), CASES)
def test_border_only_pad_writes_every_cell(shape, low, high, dtype, backend):
    text = _text(shape, low, high, dtype)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    x = np.random.default_rng(1).normal(size=shape).astype(np_dtype)
    x.reshape(-1)[::3] = -0.0  # a -0 in the window stays -0; the border is +0
    want = evaluate(tlir.parse_module(text), [x])[0]
    for threads in (1, 2):
        model = tlir.compile(tlir.parse_module(text), backend=backend, threads=threads)
        out = np.full(want.shape, np.nan, np_dtype)
        model.run_into([x], [out])
        assert out.tobytes() == want.tobytes(), threads
