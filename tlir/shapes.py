"""TorchLean's shape rules (docs/ops.md), as plain functions on tuples of extents.

One function per rule family. Each returns the inferred output shape or raises
`ShapeError` with a message that states the rule that failed; the caller adds
the op name (the dialect verifiers) or the file and node (the JSON importer).
Rules are checked in the order TorchLean checks them, so the first failure
reported is the one TorchLean would report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Shape = tuple[int, ...]


class ShapeError(ValueError):
    """A node violates one of TorchLean's shape rules."""


class BatchExtent:
    """`?` in a type: a positive multiple of the module's batch B, which one op
    alone does not know (docs/design.md#dynamic-batch). Two are equal (an op
    cannot tell them apart; the module's batch analysis checks them), none is 0
    or 1, and a multiple of B times a static extent is one; any other
    arithmetic or ordering is a rule that cannot be checked with an unknown
    batch, reported as such."""

    _instance: BatchExtent | None = None

    def __new__(cls) -> BatchExtent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BatchExtent)

    def __hash__(self) -> int:
        return hash("?")

    def __str__(self) -> str:
        return "?"

    __repr__ = __str__

    def __mul__(self, other: object) -> BatchExtent | int:
        if isinstance(other, int) and not isinstance(other, bool):
            return 0 if other == 0 else self
        raise ShapeError("an extent would be a product of two batch-sized extents")

    __rmul__ = __mul__

    def __add__(self, other: object) -> BatchExtent:
        if other == 0 or isinstance(other, BatchExtent):
            return self
        raise ShapeError(
            f"the sum of a batch-sized extent and {other} is not a multiple of the batch"
        )

    __radd__ = __add__

    def _unknown(self, *_: object) -> bool:
        raise ShapeError("a rule compares a batch-sized extent '?', unknown before the call")

    __lt__ = __le__ = __gt__ = __ge__ = __sub__ = __rsub__ = _unknown
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _unknown


BATCH = BatchExtent()
"""The symbolic extent the verifiers see for `?`."""


def is_dynamic(shape: Sequence[object]) -> bool:
    return any(isinstance(d, BatchExtent) for d in shape)


def fmt(shape: Sequence[int]) -> str:
    """Render a shape the way the spec writes it: `[2, 3]`, `[]` for a scalar."""
    return "[" + ", ".join(str(d) for d in shape) + "]"


def size(shape: Sequence[int]) -> int:
    """Number of elements (1 for a scalar)."""
    return math.prod(shape)


def _check_axis(name: str, axis: int, rank: int) -> None:
    if axis < 0 or axis >= rank:
        raise ShapeError(f"{name} {axis} is out of range for rank {rank}")


def same_shape(lhs: Shape, rhs: Shape) -> Shape:
    """add, sub, mul_elem, max_elem, min_elem: no implicit broadcasting
    (docs/ops.md#no-implicit-broadcasting)."""
    if lhs != rhs:
        raise ShapeError(
            f"operand shapes {fmt(lhs)} and {fmt(rhs)} differ "
            "(elementwise ops need identical shapes; use broadcast_to)"
        )
    return lhs


def scalar_operand(shape: Shape, what: str) -> None:
    """bernoulli_mask's keep probability and safe_log's epsilon are scalars."""
    if shape != ():
        raise ShapeError(f"{what} must be a scalar (shape []), got {fmt(shape)}")


def permute(shape: Shape, perm: Sequence[int]) -> Shape:
    """docs/ops.md#permute: `perm` must be a permutation of `0..rank-1`; out[i] = in[perm[i]]."""
    rank = len(shape)
    if len(perm) != rank:
        raise ShapeError(f"perm has {len(perm)} entries but the operand has rank {rank}")
    seen: set[int] = set()
    for entry in perm:
        _check_axis("perm entry", entry, rank)
        if entry in seen:
            raise ShapeError(f"perm entry {entry} is repeated")
        seen.add(entry)
    return tuple(shape[p] for p in perm)


def transpose(shape: Shape, axis1: int, axis2: int) -> Shape:
    """docs/ops.md#transpose: swap two axes, both in range."""
    _check_axis("axis1", axis1, len(shape))
    _check_axis("axis2", axis2, len(shape))
    out = list(shape)
    out[axis1], out[axis2] = out[axis2], out[axis1]
    return tuple(out)


def pool_out_dim(extent: int, kernel: int, stride: int, padding: int) -> int:
    """docs/ops.md#max_pool `poolOutDim`: a window that does not fit gives an empty axis,
    not an error."""
    if (
        extent == 0
        or kernel == 0
        or stride == 0
        or padding > kernel // 2
        or extent + 2 * padding < kernel
    ):
        return 0
    return (extent + 2 * padding - kernel) // stride + 1


def _check_lengths(spatial_rank: int, **lists: Sequence[int]) -> None:
    for name, values in lists.items():
        if len(values) != spatial_rank:
            raise ShapeError(f"{name} has {len(values)} entries but spatial_rank is {spatial_rank}")


def _check_natural(**lists: Sequence[int]) -> None:
    """Entries of Nat-valued lists (kernel, stride, padding, …): never negative
    (an i64 property from MLIR text can be; JSON input is checked on reading)."""
    for name, values in lists.items():
        for axis, value in enumerate(values):
            if value < 0:
                raise ShapeError(f"{name} is {value} at spatial axis {axis}, not a natural number")


def pool(
    shape: Shape, kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int]
) -> Shape:
    """docs/ops.md#max_pool, docs/ops.md#avg_pool `planPool`: the last `len(kernel)` axes
    are spatial."""
    spatial_rank = len(kernel)
    _check_lengths(spatial_rank, stride=stride, padding=padding)
    _check_natural(kernel=kernel, stride=stride, padding=padding)
    if spatial_rank == 0:
        raise ShapeError("spatial_rank must be positive")
    if spatial_rank > len(shape):
        raise ShapeError(f"spatial_rank {spatial_rank} exceeds the operand rank {len(shape)}")
    for axis, (k, s) in enumerate(zip(kernel, stride, strict=True)):
        if k == 0:
            raise ShapeError(f"kernel extent is 0 at spatial axis {axis}")
        if s == 0:
            raise ShapeError(f"stride is 0 at spatial axis {axis}")
    lead = shape[: len(shape) - spatial_rank]
    spatial = shape[len(shape) - spatial_rank :]
    outs = tuple(
        pool_out_dim(n, k, s, p)
        for n, k, s, p in zip(spatial, kernel, stride, padding, strict=True)
    )
    return lead + outs


def broadcast_to(source: Shape, target: Shape) -> Shape:
    """docs/ops.md#broadcast_to: NumPy's right-aligned rule; a 1 expands to anything, 0 included."""
    if len(source) > len(target):
        raise ShapeError(
            f"cannot broadcast {fmt(source)} to {fmt(target)}: source rank "
            f"{len(source)} exceeds target rank {len(target)}"
        )
    offset = len(target) - len(source)
    for axis, extent in enumerate(source):
        wanted = target[offset + axis]
        if extent != wanted and extent != 1:
            raise ShapeError(
                f"cannot broadcast {fmt(source)} to {fmt(target)}: extent {extent} "
                f"at source axis {axis} is neither 1 nor {wanted}"
            )
    return target


def reduce_axis(shape: Shape, axis: int) -> Shape:
    """docs/ops.md#reduce_sum, docs/ops.md#reduce_mean: the axis must exist and be non-empty;
    it is removed."""
    _check_axis("axis", axis, len(shape))
    if shape[axis] == 0:
        raise ShapeError(f"reduction axis {axis} has extent 0")
    return shape[:axis] + shape[axis + 1 :]


def broadcast_batch(lhs: Shape, rhs: Shape) -> Shape:
    """NumPy broadcast of two batch shapes (docs/ops.md#matmul, case 1)."""
    if lhs == rhs:
        return lhs
    rank = max(len(lhs), len(rhs))
    a = (1,) * (rank - len(lhs)) + lhs
    b = (1,) * (rank - len(rhs)) + rhs
    out = []
    for x, y in zip(a, b, strict=True):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ShapeError(f"batch shapes {fmt(lhs)} and {fmt(rhs)} do not broadcast")
    return tuple(out)


def matmul(lhs: Shape, rhs: Shape) -> Shape:
    """docs/ops.md#matmul: the four rank cases of torch.matmul, scalars rejected."""
    if not lhs or not rhs:
        raise ShapeError("matmul operands must have rank at least 1")
    if len(lhs) == 1 and len(rhs) == 1:
        _contract(lhs[0], rhs[0])
        return ()
    if len(lhs) == 1:
        _contract(lhs[0], rhs[-2])
        return rhs[:-2] + rhs[-1:]
    if len(rhs) == 1:
        _contract(lhs[-1], rhs[0])
        return lhs[:-1]
    _contract(lhs[-1], rhs[-2])
    return broadcast_batch(lhs[:-2], rhs[:-2]) + (lhs[-2], rhs[-1])


def _contract(lhs_extent: int, rhs_extent: int) -> None:
    if lhs_extent != rhs_extent:
        raise ShapeError(f"contracted extents differ: {lhs_extent} (lhs) and {rhs_extent} (rhs)")


def linear(x: Shape, weight: Shape, bias: Shape) -> Shape:
    """docs/ops.md#linear with the payload as operands: y = x W^T + b over the last axis."""
    if not x:
        raise ShapeError("the input must have rank at least 1")
    if len(weight) != 2:
        raise ShapeError(f"weight must have shape [out_dim, in_dim], got {fmt(weight)}")
    out_dim, in_dim = weight
    if x[-1] != in_dim:
        raise ShapeError(f"input last extent {x[-1]} does not match in_dim = {in_dim}")
    if bias != (out_dim,):
        raise ShapeError(f"bias shape {fmt(bias)} does not match [out_dim] = [{out_dim}]")
    return x[:-1] + (out_dim,)


def linear_declared(x: Shape, declared: Shape) -> None:
    """docs/ops.md#linear, payload-free rule: both rank >= 1 with identical leading axes."""
    if not x or not declared:
        raise ShapeError("linear input and output must have rank at least 1")
    if x[:-1] != declared[:-1]:
        raise ShapeError(f"leading axes of input {fmt(x)} and output {fmt(declared)} differ")


@dataclass(frozen=True)
class ConvConfig:
    """TorchLean's `ConvConfig` (docs/ops.md#conv); `spatial_rank` is `len(kernel)`."""

    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    padding_after: tuple[int, ...]
    dilation: tuple[int, ...]
    groups: int
    channel_axis: int
    in_channels: int
    out_channels: int

    @property
    def spatial_rank(self) -> int:
        return len(self.kernel)


def conv(shape: Shape, cfg: ConvConfig) -> Shape:
    """docs/ops.md#conv: the checks in TorchLean's order, then the output extents."""
    _check_lengths(
        cfg.spatial_rank,
        stride=cfg.stride,
        padding=cfg.padding,
        padding_after=cfg.padding_after,
        dilation=cfg.dilation,
    )
    _check_natural(
        kernel=cfg.kernel,
        stride=cfg.stride,
        padding=cfg.padding,
        padding_after=cfg.padding_after,
        dilation=cfg.dilation,
    )
    if cfg.in_channels <= 0:
        raise ShapeError("in_channels must be positive")
    if cfg.out_channels <= 0:
        raise ShapeError("out_channels must be positive")
    if cfg.groups <= 0:
        raise ShapeError("groups must be positive")
    if cfg.in_channels % cfg.groups:
        raise ShapeError(
            f"in_channels = {cfg.in_channels} is not divisible by groups = {cfg.groups}"
        )
    if cfg.out_channels % cfg.groups:
        raise ShapeError(
            f"out_channels = {cfg.out_channels} is not divisible by groups = {cfg.groups}"
        )
    _check_axis("channel_axis", cfg.channel_axis, len(shape))
    if shape[cfg.channel_axis] != cfg.in_channels:
        raise ShapeError(
            f"input channel extent {shape[cfg.channel_axis]} at axis {cfg.channel_axis} "
            f"does not match in_channels = {cfg.in_channels}"
        )
    spatial = shape[cfg.channel_axis + 1 :]
    if len(spatial) != cfg.spatial_rank:
        raise ShapeError(
            f"{len(spatial)} axes follow channel_axis {cfg.channel_axis} "
            f"but spatial_rank is {cfg.spatial_rank}"
        )
    outs = []
    for axis, extent in enumerate(spatial):
        outs.append(_conv_out_dim(cfg, axis, extent))
    return shape[: cfg.channel_axis] + (cfg.out_channels,) + tuple(outs)


def _conv_out_dim(cfg: ConvConfig, axis: int, extent: int) -> int:
    k, s, d = cfg.kernel[axis], cfg.stride[axis], cfg.dilation[axis]
    for name, value in (("kernel extent", k), ("stride", s), ("dilation", d)):
        if value == 0:
            raise ShapeError(f"{name} is 0 at spatial axis {axis}")
    padded = extent + cfg.padding[axis] + cfg.padding_after[axis]
    window = d * (k - 1) + 1
    if padded < window:
        raise ShapeError(
            f"window of extent {window} does not fit the padded input extent "
            f"{padded} at spatial axis {axis}"
        )
    return (padded - window) // s + 1


def conv_params(cfg: ConvConfig, weight: Shape, bias: Shape) -> None:
    """Dense block-diagonal weight `[outC, inC, k...]` and bias `[outC]`."""
    want = (cfg.out_channels, cfg.in_channels) + cfg.kernel
    if weight != want:
        raise ShapeError(f"weight shape {fmt(weight)} does not match {fmt(want)}")
    if bias != (cfg.out_channels,):
        raise ShapeError(
            f"bias shape {fmt(bias)} does not match [out_channels] = [{cfg.out_channels}]"
        )


def batch_norm(shape: Shape, channel_axis: int, channels: int) -> Shape:
    """docs/ops.md#batch_norm_eval: channels > 0, axis in range, extent equal to `channels`."""
    if channels == 0:
        raise ShapeError("channels must be positive")
    _check_axis("channel_axis", channel_axis, len(shape))
    if shape[channel_axis] != channels:
        raise ShapeError(
            f"channel extent {shape[channel_axis]} at axis {channel_axis} "
            f"does not match channels = {channels}"
        )
    return shape


def per_channel_param(name: str, shape: Shape, channels: int) -> None:
    if shape != (channels,):
        raise ShapeError(f"{name} shape {fmt(shape)} does not match [channels] = [{channels}]")


def softmax(shape: Shape, axis: int) -> Shape:
    """docs/ops.md#softmax: the axis must exist (so rank >= 1)."""
    _check_axis("axis", axis, len(shape))
    return shape


def hard_mask(shape: Shape, mask_shape: Shape) -> Shape:
    """docs/ops.md#hard_masked_softmax: the mask has exactly the operand's shape."""
    if mask_shape != shape:
        raise ShapeError(f"mask shape {fmt(mask_shape)} does not match operand shape {fmt(shape)}")
    return shape


def layernorm(shape: Shape, axis: int) -> Shape:
    """docs/ops.md#layernorm: axis in range and a non-empty normalized block."""
    _check_axis("axis", axis, len(shape))
    if size(shape[axis:]) == 0:
        raise ShapeError(f"normalized shape {fmt(shape[axis:])} has no elements")
    return shape


def layernorm_param(name: str, param: Shape, shape: Shape, axis: int) -> None:
    if param != shape[axis:]:
        raise ShapeError(
            f"{name} shape {fmt(param)} does not match the normalized shape {fmt(shape[axis:])}"
        )


def reshape(shape: Shape, out: Shape) -> Shape:
    """docs/ops.md#reshape: row-major reinterpretation keeping the element count."""
    if size(shape) != size(out):
        raise ShapeError(
            f"cannot reshape {fmt(shape)} ({size(shape)} elements) to "
            f"{fmt(out)} ({size(out)} elements)"
        )
    return out


def flatten(shape: Shape) -> Shape:
    """docs/ops.md#flatten: everything, batch axis included, into one axis."""
    return (size(shape),)


def concat(shapes: Sequence[Shape], axis: int) -> Shape:
    """docs/ops.md#concat: at least two parents of one rank, equal off the concat axis."""
    if len(shapes) < 2:
        raise ShapeError(f"concat needs at least 2 operands, got {len(shapes)}")
    first = shapes[0]
    _check_axis("axis", axis, len(first))
    total = 0
    for index, shape in enumerate(shapes):
        if len(shape) != len(first):
            raise ShapeError(
                f"operand {index} has rank {len(shape)} but operand 0 has rank {len(first)}"
            )
        for a, (x, y) in enumerate(zip(shape, first, strict=True)):
            if a != axis and x != y:
                raise ShapeError(
                    f"operand {index} has extent {x} at axis {a} but operand 0 has {y}"
                )
        total += shape[axis]
    return first[:axis] + (total,) + first[axis + 1 :]


def mse_loss(prediction: Shape, target: Shape) -> Shape:
    """docs/ops.md#mse_loss: identical shapes, scalar result."""
    same_shape(prediction, target)
    return ()
