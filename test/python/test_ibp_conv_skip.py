"""The interval conv's skipped cells (kernel cells in the padding before the
input add no term): one table over every padded axis where it is small, one
per axis beyond `conv_cells.MASK_CELLS`; either way the reference's bits."""

from __future__ import annotations

import pytest
from op_cases import _conv as conv_case
from test_ibp_compiled import BACKENDS, _adversarial, assert_same_bounds, random_box

import tlir
from tlir.passes.ibp import conv_cells

# (case, padded axes): channels inner (the fold at least 2^15 terms: the fast
# path) with groups, stride and dilation; positions inner; a 3-D conv
CASES = [
    (conv_case("channels_inner", (2, 4, 12, 11), (32, 4, 3, 3), (2, 32, 6, 10), (3, 3), (2, 1),
               (1, 2), (0, 1), (1, 2), 2), 2),
    (conv_case("positions_inner", (1, 3, 9, 20), (4, 3, 3, 3), (1, 4, 9, 20), (3, 3), (1, 1),
               (2, 1), (0, 1), (1, 1), 1), 2),
    (conv_case("conv_3d", (1, 2, 5, 6, 4), (9, 2, 3, 3, 2), (1, 9, 5, 6, 5), (3, 3, 2),
               (1, 1, 1), (1, 1, 1), (1, 1, 1), (1, 1, 1), 1), 3),
]  # fmt: skip


def _conv_fold(text: str):
    """The fold of the conv in the module's fast IBP function."""
    from tlir.compiler.model import derivative_module

    module = derivative_module(tlir.parse_module(text), "main", "ibp", "fast")
    folds = [op for op in module.walk() if op.name == "tlir_ad.fold"]
    return max(folds, key=lambda op: len(op.bounds.get_values()))


@pytest.mark.parametrize("case, axes", CASES, ids=[c.name for c, _ in CASES])
def test_one_skip_table_over_all_padded_axes(case, axes, monkeypatch):
    """Below the limit a term reads one flag, indexed by every padded axis's
    kernel cell and output position; above it one flag per padded axis."""
    inputs = len(_conv_fold(case.text("f64")).inputs)  # the ends of x and w, the tables
    assert inputs == 4 + 1
    monkeypatch.setattr(conv_cells, "MASK_CELLS", 0)
    assert len(_conv_fold(case.text("f64")).inputs) == 4 + axes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("limit", [conv_cells.MASK_CELLS, 0], ids=["one table", "per axis"])
@pytest.mark.parametrize("case", [c for c, _ in CASES], ids=[c.name for c, _ in CASES])
def test_skipped_cells_give_the_reference_bits(case, limit, dtype, backend, monkeypatch):
    """Random boxes, and boxes with ±0, subnormals, ±inf and NaN (a non-finite
    sum sends the call to the exact program): the reference's bits."""
    monkeypatch.setattr(conv_cells, "MASK_CELLS", limit)
    module = tlir.parse_module(case.text(dtype))
    model = tlir.compile(module, backend=backend)
    assert_same_bounds(model, module, *random_box(case.inputs(dtype), 1))
    boxes = _adversarial(*random_box(case.inputs(dtype, seed=2), 3), seed=4)
    assert_same_bounds(model, module, *boxes, "adversarial")
