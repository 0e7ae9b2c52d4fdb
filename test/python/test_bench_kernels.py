"""bench/kernels.py's two instrumented kernels: packing once (compute alone)
and tiles skipped (packing alone) keep what they time; bench/small_linears.py's
packing rules are the ones it names, and leave the packer as it was."""

from __future__ import annotations

import sys
from pathlib import Path

import tlir
from tlir.compiler.kernel_harness import CompiledKernel, instruction_counts
from tlir.passes.contraction_kernels import contraction_kernel, host_target

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import kernels as bench  # noqa: E402
import small_linears  # noqa: E402

# a linear whose weight is packed by in-register transposes (n·k ≥ 2048)
LINEAR = """
func.func @main(%x: tensor<20x130xf64>, %w: tensor<140x130xf64>, %b: tensor<140xf64>)
    -> tensor<20x140xf64> {
  %y = tlir.linear %x, %w, %b : (tensor<20x130xf64>, tensor<140x130xf64>, tensor<140xf64>)
      -> tensor<20x140xf64>
  func.return %y : tensor<20x140xf64>
}
"""


def _counts(context) -> dict[str, int]:
    """Shuffles and multiplies in the machine code of LINEAR's kernel generated
    within `context`."""
    op = next(op for op in tlir.parse_module(LINEAR).walk() if op.name == "tlir.linear")
    with context():
        function = contraction_kernel(op, "kernel", host_target())
    counts = instruction_counts(CompiledKernel(function).assembly())
    shuffles = sum(n for key, n in counts.items() if key.startswith("shuffle"))
    multiplies = sum(n for key, n in counts.items() if key.startswith(("vmul", "mul")))
    return {"shuffles": shuffles, "multiplies": multiplies}


def test_tiles_skipped_keeps_the_packing_and_drops_the_arithmetic():
    counts = _counts(bench.tiles_skipped)
    assert counts["shuffles"] > 0 and counts["multiplies"] == 0


def test_packing_once_keeps_the_arithmetic_and_the_packing():
    counts = _counts(bench.packing_once)
    assert counts["shuffles"] > 0 and counts["multiplies"] > 0


# a conv packing per column tile (`conv_fused`): rows of 20, vectors of 8 f64
# lanes span two rows (a shuffle), on an AVX-512 target
CONV = """
func.func @main(%x: tensor<1x8x12x20xf64>, %w: tensor<16x8x3x3xf64>, %b: tensor<16xf64>)
    -> tensor<1x16x12x20xf64> {
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>,
      padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>,
      dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64,
      in_channels = 8 : i64, out_channels = 16 : i64}
      : (tensor<1x8x12x20xf64>, tensor<16x8x3x3xf64>, tensor<16xf64>) -> tensor<1x16x12x20xf64>
  func.return %y : tensor<1x16x12x20xf64>
}
"""


def _conv_counts(context, monkeypatch) -> dict[str, int]:
    from tlir.passes.contraction_kernels import TargetInfo, conv_fused

    fused = []
    init = conv_fused.FusedConvEmitter.__init__

    def spy(self, *args) -> None:
        init(self, *args)
        fused.append(self.fused)

    monkeypatch.setattr(conv_fused.FusedConvEmitter, "__init__", spy)
    target = TargetInfo(vector_bytes=64, registers=32, l1_bytes=48 * 1024, l1_ways=12,
                        l2_bytes=2 << 20, load_broadcasts=True)  # fmt: skip
    op = next(op for op in tlir.parse_module(CONV).walk() if op.name == "tlir.conv")
    with context():
        function = contraction_kernel(op, "kernel", target)
    assert fused == [True]
    counts = instruction_counts(CompiledKernel(function).assembly())
    shuffles = sum(n for key, n in counts.items() if key.startswith("shuffle"))
    multiplies = sum(n for key, n in counts.items() if key.startswith(("vmul", "mul")))
    return {"shuffles": shuffles, "multiplies": multiplies}


def test_fused_conv_instrumented_kernels_keep_what_they_time(monkeypatch):
    skipped = _conv_counts(bench.tiles_skipped, monkeypatch)
    assert skipped["shuffles"] > 0 and skipped["multiplies"] == 0
    import contextlib

    full = _conv_counts(contextlib.nullcontext, monkeypatch)
    once = _conv_counts(bench.packing_once, monkeypatch)  # packs the first column tile only
    assert once["multiplies"] == full["multiplies"] > 0
    assert once["shuffles"] < full["shuffles"]


def test_small_linears_rules_pick_their_squares_and_restore_the_packer():
    from tlir.passes.contraction_kernels import gemm

    before = vars(gemm.StridedPacker).copy()
    target = host_target()
    lanes = target.vector_bytes // 4
    text, _ = small_linears.case("256x10", 8, "f32")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    picked = {}
    for rule in ("16384:full", "2048:2", "2048:16"):
        widths: list[int] = []
        with small_linears.rule(rule, widths):
            contraction_kernel(op, "kernel", target)
        picked[rule] = set(widths)
    assert picked == {"16384:full": {0}, "2048:2": {min(8, lanes)}, "2048:16": {0}}
    assert vars(gemm.StridedPacker) == before
