"""bench/kernels.py's two instrumented kernels: packing once (compute alone)
and tiles skipped (packing alone) keep what they time."""

from __future__ import annotations

import sys
from pathlib import Path

import tlir
from tlir.compiler.kernel_harness import CompiledKernel, instruction_counts
from tlir.passes.contraction_kernels import contraction_kernel, host_target

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import kernels as bench  # noqa: E402

# a linear whose weight is packed by in-register transposes (n·k ≥ 16384)
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
