"""Index geometry shared by the JVP and VJP rules: matmul batches and the
windows of pooling and convolution."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import d, shape_of


def batch_exprs(operand_batch: Sequence[int], out_batch: Sequence[int]) -> list:
    """Right-aligned batch indices of an operand; a broadcast extent-1 axis reads 0."""
    offset = len(out_batch) - len(operand_batch)
    return [
        0 if extent == 1 and out_batch[offset + t] != 1 else d(offset + t)
        for t, extent in enumerate(operand_batch)
    ]


@dataclass(frozen=True)
class Window:
    """A pooling or convolution window: `lead` axes before the channel axis (conv)
    or before the spatial axes (pooling), then `d` spatial axes."""

    lead: int
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    pad_before: tuple[int, ...]
    pad_after: tuple[int, ...]
    in_spatial: tuple[int, ...]
    out_spatial: tuple[int, ...]

    @staticmethod
    def of_pool(op: T.WindowOp) -> Window:
        kernel = T._ints(op.kernel)
        rank = len(kernel)
        x, y = shape_of(op.input), shape_of(op.result)
        padding = T._ints(op.padding)
        return Window(
            len(x) - rank, kernel, T._ints(op.stride), (1,) * rank, padding, padding,
            x[len(x) - rank :], y[len(y) - rank :],
        )  # fmt: skip

    @staticmethod
    def of_conv(op: T.ConvOp) -> Window:
        cfg = op.config
        axis = cfg.channel_axis
        return Window(
            axis, cfg.kernel, cfg.stride, cfg.dilation, cfg.padding, cfg.padding_after,
            shape_of(op.input)[axis + 1 :], shape_of(op.result)[axis + 1 :],
        )  # fmt: skip

    @property
    def rank(self) -> int:
        return len(self.kernel)

    @property
    def volume(self) -> int:
        return math.prod(self.kernel)

    def padded_read(self, out_dims: Sequence[int], kernel_dims: Sequence[int]) -> list:
        """Padded coordinates o·stride + k·dilation of output and kernel dimensions."""
        return [
            d(o) * s + d(k) * dl
            for o, k, s, dl in zip(out_dims, kernel_dims, self.stride, self.dilation, strict=True)
        ]

    def spread(self, out_extent: int, axis: int) -> tuple[int, int, int]:
        """(low, high, interior) turning an output axis into the 'transposed' grid
        of a backward window: element o lands at L + o·stride, L = dilation·(k − 1),
        and the grid covers every read L + i + pad_before − k·dilation of an input
        position i (the reads of `backward_read`)."""
        low = self.dilation[axis] * (self.kernel[axis] - 1)
        natural = (out_extent - 1) * self.stride[axis] + 1 if out_extent else 0
        needed = self.in_spatial[axis] + self.pad_before[axis] + low
        return low, max(0, needed - low - natural), self.stride[axis] - 1

    def backward_read(
        self, in_dims: Sequence[int], kernel_dims: Sequence[int], reverse: bool = False
    ) -> list:
        """Where input position i meets kernel cell k in the spread grid:
        L + i + pad_before − k·dilation (the output o is that − L, over the
        stride). With `reverse` the dimension counts k' = k_max − k, so that the
        cells are visited last to first (the outputs first to last)."""
        reads = []
        for a, (i, k) in enumerate(zip(in_dims, kernel_dims, strict=True)):
            dl, pb = self.dilation[a], self.pad_before[a]
            if reverse:
                reads.append(d(i) + d(k) * dl + pb)
            else:
                reads.append(d(i) + (dl * (self.kernel[a] - 1) + pb) - d(k) * dl)
        return reads

    def offsets(self, reverse: bool = False) -> np.ndarray:
        """Each kernel cell's row-major position plus one (0 means 'no cell');
        with `reverse`, indexed by k' = k_max − k."""
        table = np.arange(1, self.volume + 1, dtype=np.float64).reshape(self.kernel)
        return table[(slice(None, None, -1),) * self.rank] if reverse else table

    def cells(self):
        return itertools.product(*(range(k) for k in self.kernel))
