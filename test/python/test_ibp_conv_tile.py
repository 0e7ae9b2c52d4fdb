"""The fast interval conv's register tile of output positions: channels
inner with one 512-bit vector of output channels per group and at least
`conv.TILE_MIN_TERMS` terms per output, the fold runs
`conv.POSITION_TILE` positions of the last output axis after the
kernel cells. Each output still takes its terms in the same order: the fast
program's own result (its checks zero) has the reference's bits, with the
weight a box and a constant, with sums in the subnormal range; the fold's
bounds show where the tile is taken and where not."""

from __future__ import annotations

import pytest
from test_ibp_compiled import BACKENDS, random_box
from test_ibp_conv_skip import _conv_fold
from test_ibp_conv_zero_terms import (
    _case,
    _with_weight_at,
    assert_fast_is_reference,
    assert_random_tiny_and_adversarial,
)

import tlir
from tlir.passes.ibp import conv

# 8 output channels per group (one vector in f32 and in f64), at least 2^15
# terms (the fast path), 36 or more terms per output, the last output axis even
SYMMETRIC = _case("symmetric", (4, 4, 8, 8), 8, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1)
TILED = [
    SYMMETRIC,
    _case("asymmetric", (4, 4, 9, 8), 8, (3, 3), (1, 1), (0, 1), (2, 1), (1, 1), 1),
    _case("stride_dilation", (4, 4, 11, 12), 8, (3, 3), (2, 2), (1, 1), (2, 2), (2, 2), 1),
    _case("groups", (2, 8, 6, 6), 16, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 2),
    _case("conv_1d", (16, 16, 8), 8, (3,), (1,), (1,), (1,), (1,), 1),
    _case("conv_3d", (2, 2, 5, 6, 4), 8, (3, 3, 2), (1, 1, 1), (1, 1, 0), (1, 1, 1),
          (1, 1, 1), 1),
]  # fmt: skip
# the last output axis odd (7 positions): no tile
ODD = _case("odd_axis", (4, 4, 8, 7), 8, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1)
# 27 terms per output (3 input channels): no tile
FEW_TERMS = _case("few_terms", (8, 3, 8, 8), 8, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1)
# 16 output channels: two vectors in f64, one in f32
TWO_VECTORS = _case("two_vectors", (4, 4, 8, 8), 16, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1)


def _bounds(case, dtype: str = "f64") -> list[int]:
    return list(_conv_fold(case.text(dtype)).bounds.get_values())


def test_the_tile_is_taken_where_intended():
    """[batch, group, output rows, tiles of the last axis, local input
    channel, kernel rows, kernel columns, position in the tile, output channel]."""
    tile = conv.POSITION_TILE
    assert tile > 1
    assert _bounds(SYMMETRIC) == [4, 1, 8, 8 // tile, 4, 3, 3, tile, 8]
    assert _bounds(TILED[3]) == [2, 2, 6, 6 // tile, 4, 3, 3, tile, 8]  # groups
    assert _bounds(TILED[4]) == [16, 1, 8 // tile, 16, 3, tile, 8]  # 1-D
    assert _bounds(TILED[5]) == [2, 1, 5, 6, 4 // tile, 2, 3, 3, 2, tile, 8]  # 3-D
    assert _bounds(ODD) == [4, 1, 8, 7, 4, 3, 3, 8]
    assert _bounds(FEW_TERMS) == [8, 1, 8, 8, 3, 3, 3, 8]
    assert _bounds(TWO_VECTORS, "f64") == [4, 1, 8, 8, 4, 3, 3, 16]
    assert _bounds(TWO_VECTORS, "f32") == [4, 1, 8, 8 // tile, 4, 3, 3, tile, 16]


def test_the_exact_program_takes_no_tile():
    """The tile is the fast path's: the exact program's fold keeps its layout."""
    from tlir.compiler.model import derivative_module

    module = derivative_module(tlir.parse_module(SYMMETRIC.text("f64")), "main", "ibp", "torchlean")
    folds = [op for op in module.walk() if op.name == "tlir_ad.fold"]
    fold = max(folds, key=lambda op: len(op.bounds.get_values()))
    assert list(fold.bounds.get_values()) == [4, 1, 8, 8, 4, 3, 3, 8]


CASES = [*TILED, ODD]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_tiled_folds_give_the_reference_bits(case, dtype, backend):
    """Random boxes, the same with sums in the subnormal range, and boxes
    with ±0, subnormals, ±inf and NaN (those may fall back)."""
    assert_random_tiny_and_adversarial(case, dtype, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("case", TILED[:4], ids=[c.name for c in TILED[:4]])
def test_tiled_folds_with_a_constant_weight(case, dtype, backend):
    """A point weight (a constant of the module, as in a trained model)."""
    module = tlir.parse_module(_with_weight_at(case, dtype, [], 0.0))
    model = tlir.compile(module, backend=backend)
    x = case.inputs(dtype, seed=7)[:1]
    assert_fast_is_reference(model, module, *random_box(x, 8), "random")
