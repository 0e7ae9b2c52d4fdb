"""2-D convs of stride 1 whose column tiles pack their own micro-panels from
bands of input rows (`conv_fused`): the reference's bits, also for the last
unit's fewer rows and partial tile, row tiles of fewer rows, dilations,
asymmetric padding, groups, special values, a fused epilogue; and the fma
kernel's bits without it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_contraction_kernels import BACKENDS, HOST, _inputs, _module, _run_case, conv

import tlir
from tlir.compiler.kernel_harness import CompiledKernel
from tlir.passes.contraction_kernels import TargetInfo, contraction_kernel, conv_fused

AVX512 = TargetInfo(vector_bytes=64, registers=32, l1_bytes=48 * 1024, l1_ways=12,
                    l2_bytes=2 << 20, load_broadcasts=True)  # fmt: skip
AVX2 = TargetInfo(vector_bytes=32, registers=16, l1_bytes=32768, l2_bytes=1 << 20)
TARGETS = {"avx512": AVX512, "avx2": AVX2, "host": HOST}

# (name, conv, target, special values?): every case takes the fused emitter
CASES = [
    # 16 rows in tiles of 8 (6 on AVX2: a tile of 4 rows at the end); f32 on
    # AVX-512: units of 8 rows, the last of 4, its last tile half a tile
    ("rows_20", conv((2, 8, 20, 20), 16, (3, 3), pad=(1, 1)), "avx512", True),
    ("rows_20_avx2", conv((2, 8, 20, 20), 16, (3, 3), pad=(1, 1)), "avx2", False),
    # dilation, asymmetric padding, 3x2 kernel, groups
    (
        "dilated",
        conv((3, 6, 21, 19), 16, (3, 2), pad=(2, 0), pad_after=(1, 2), dilation=(2, 1), groups=2),
        "avx512",
        False,
    ),
    # rows of 33 (vectors span rows at every offset), 5 k blocks of 3 channels
    ("rows_33_blocks", conv((2, 10, 30, 33), 24, (3, 3), pad=(1, 1)), "avx2", True),
    # 1x1: one unit of all 9 rows of 17, its last tile partial
    ("pointwise", conv((1, 12, 9, 17), 8, (1, 1)), "avx512", False),
]


@pytest.fixture
def fused_kernels(monkeypatch) -> list[bool]:
    """Whether each conv kernel generated meanwhile took the fused packing."""
    seen: list[bool] = []
    init = conv_fused.FusedConvEmitter.__init__

    def spy(self, *args) -> None:
        init(self, *args)
        seen.append(self.fused)

    monkeypatch.setattr(conv_fused.FusedConvEmitter, "__init__", spy)
    return seen


# Every case in both dtypes on the xdsl route; through the mlir route in one dtype
# each (f32 on AVX-512 or the host, f64 on AVX2).
FUSED_RUNS = [
    pytest.param(*case[1:], dtype, backend, id=f"{case[0]}-{dtype}-{backend}")
    for case in CASES
    for dtype in ("f64", "f32")
    for backend in BACKENDS
    if backend == "xdsl" or (dtype == "f32") != (case[2] == "avx2")
]


@pytest.mark.parametrize("case, target, special, dtype, backend", FUSED_RUNS)
def test_fused_conv_matches_reference(case, target, special, dtype, backend, fused_kernels):
    op_text, arg_shapes, out = case
    text = _module(op_text, arg_shapes, out, dtype)
    _run_case(text, arg_shapes, TARGETS[target], dtype, backend, special)  # 1 and 3 ranges
    assert fused_kernels == [True]


def test_fused_conv_with_epilogue_matches_reference(fused_kernels):
    op_text, arg_shapes, out = conv((2, 8, 20, 20), 16, (3, 3), pad=(1, 1))
    text = _module(op_text, arg_shapes, out, "f32", "  %e = tlir.relu %r : ({out}) -> {out}\n")
    _run_case(text, arg_shapes, AVX512, "f32", "xdsl", special=True, epilogue=1)
    assert fused_kernels == [True]


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_fused_conv_fma_has_the_bits_of_the_block_packer(dtype, monkeypatch, fused_kernels):
    op_text, arg_shapes, out = conv((2, 8, 20, 20), 16, (3, 3), pad=(1, 1))
    module = tlir.parse_module(_module(op_text, arg_shapes, out, dtype))
    op = next(op for op in module.walk() if op.name == "tlir.conv")
    inputs = _inputs(arg_shapes, dtype, special=True)
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(conv_fused, "ENABLED", enabled)
        kernel = CompiledKernel(contraction_kernel(op, "k", HOST, fused_multiply_add=True))
        result = np.full(out, 7.0, inputs[0].dtype)
        kernel([*inputs, result])
        results.append(result)
    assert fused_kernels == [True, False]
    assert results[0].tobytes() == results[1].tobytes()


def test_conv_without_whole_row_units_keeps_the_block_packer(fused_kernels):
    """Rows of 33 with units of 64 positions (AVX-512 f64): units cut rows, so
    the band packer packs whole blocks (and the results are the reference's)."""
    op_text, arg_shapes, out = conv((2, 10, 30, 33), 24, (3, 3), pad=(1, 1))
    text = _module(op_text, arg_shapes, out, "f64")
    _run_case(text, arg_shapes, dataclasses.replace(AVX512), "f64", "xdsl", special=False)
    assert fused_kernels == [False]
