"""The linear pieces of a tlir function that CROWN pushes coefficients through
(docs/verification.md#crown): dense matrices of linear ops, index maps of
structural ops, and the point values of parameters.

Coefficients are row-major flat: an objective on a value of shape `s` is a
matrix of `rows × |s|`. A linear op `y = M·x + c` on its varying operand `x`
gives the dense `M` (`|y| × |x|`) and `c` (`|y|`); a structural op gives, per
operand, the output positions it feeds and the operand positions they read.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools

import numpy as np
from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.reference import ops as F
from tlir.reference.interval import Box
from tlir.reference.sound_linalg import signed_rows


class SweepFailed(Exception):
    """A box a sweep needs is unresolved (TorchLean's failed state)."""


def size(value: SSAValue) -> int:
    return _type_size(value.type)


@functools.lru_cache(maxsize=4096)
def _type_size(typ) -> int:
    return int(np.prod(typ.get_shape(), dtype=np.int64))


def nonempty(op: Operation) -> bool:
    """No operand and no result without elements: the rules' maps need cells
    (an op with an empty one is discharged against its box)."""
    return all(size(v) for v in (*op.operands, *op.results))


def point(box: Box | None) -> np.ndarray | None:
    """The value of a box that is one point (a constant parameter, or one moved
    by exact index ops), else None: only such operands make an op linear."""
    if box is None:
        return None
    lo, hi = box
    if not np.array_equal(lo, hi) or not np.all(np.isfinite(lo)):
        return None
    return lo


@dataclasses.dataclass(frozen=True)
class LinearMap:
    """`y = M·x + c` on operand `operand` (flat), `M` dense `|y| × |x|`."""

    operand: int
    matrix: np.ndarray
    bias: np.ndarray


def linear_rows(op: T.LinearOp, boxes: list[Box | None]) -> tuple[np.ndarray, np.ndarray] | None:
    """`linear`'s weight and bias when both are points: the op is then the
    vector map `W·x + b` on every leading row of its input."""
    weight, bias = point(boxes[1]), point(boxes[2])
    if weight is None or bias is None:
        return None
    return weight, bias


def check_dense(op: Operation, rows: int, columns: int, dtype) -> None:
    """A dense matrix of an op must fit the tensor limit."""
    from tlir.diagnostics import describe_location
    from tlir.limits import check_total_bytes

    what = f"the dense {rows} × {columns} matrix of {op.name}"
    where = describe_location(op.location, op.name)
    check_total_bytes(rows * columns * np.dtype(dtype).itemsize, what, where)


def conv_matrix(op: T.ConvOp, weight: np.ndarray) -> np.ndarray:
    """The dense matrix of a conv without bias: the conv's own fold on a batch
    of one-hot inputs (each column is one input cell's taps, exact)."""
    cfg = op.config
    in_shape = tuple(op.input.type.get_shape())
    out_shape = tuple(op.results[0].type.get_shape())
    n = int(np.prod(in_shape, dtype=np.int64))
    check_dense(op, int(np.prod(out_shape, dtype=np.int64)), n, weight.dtype)
    basis = np.eye(n, dtype=weight.dtype).reshape((n, *in_shape))
    batched = dataclasses.replace(cfg, channel_axis=cfg.channel_axis + 1)
    padded = np.pad(basis, F.conv_padding(batched))
    zeros = np.zeros(cfg.out_channels, weight.dtype)
    columns = F.conv_fold(batched, padded, weight, zeros, np.zeros((n, *out_shape), weight.dtype))
    return np.ascontiguousarray(columns.reshape(n, -1).T)


class ConvTranspose:
    """A conv's dense matrix `M` (without bias) as products `left @ M` on rows
    of output coefficients (the transposed conv: per group one BLAS product of
    the taps by every row's output cells, then a strided add per kernel
    offset) and `M @ v` on inputs (the conv), without forming `M`."""

    def __init__(self, op: T.ConvOp, weight: np.ndarray):
        cfg = op.config
        self.cfg = cfg
        self.weight, self.magnitude_weight = weight, np.abs(weight)
        self._sparse = self._magnitude = None
        self.in_shape = tuple(op.input.type.get_shape())
        self.out_shape = tuple(op.results[0].type.get_shape())
        volume = int(np.prod(cfg.kernel, dtype=np.int64))
        self.terms = cfg.out_channels // cfg.groups * volume
        self.forward_terms = cfg.in_channels // cfg.groups * volume

    def times(self, left, magnitude: bool = False):
        """`left @ M` (or `left @ |M|`): by the sparse `M` when SciPy is
        installed (faster for any `left`, and `left` may be sparse itself),
        else the transposed conv."""
        matrix = self.sparse_or_none(magnitude)
        if matrix is not None:
            picked = signed_rows(left, matrix)
            return left @ matrix if picked is None else picked
        return self.transposed_conv(left, magnitude)

    def transposed_conv(self, left: np.ndarray, magnitude: bool = False) -> np.ndarray:
        """`left @ M` (or `left @ |M|`) in NumPy."""
        cfg, axis = self.cfg, self.cfg.channel_axis
        weight = self.magnitude_weight if magnitude else self.weight
        rows = left.shape[0] * int(np.prod(self.out_shape[:axis], dtype=np.int64))
        out_spatial = self.out_shape[axis + 1 :]
        # channels first, then rows and cells: one product per group for all rows
        a = np.moveaxis(left.reshape((rows, *self.out_shape[axis:])), 1, 0)
        pad = F.conv_padding(dataclasses.replace(cfg, channel_axis=1))[2:]
        padded = tuple(n + b + e for n, (b, e) in zip(self.in_shape[axis + 1 :], pad, strict=True))
        acc = np.zeros((cfg.in_channels, rows, *padded), left.dtype)
        in_per_group = cfg.in_channels // cfg.groups
        out_per_group = cfg.out_channels // cfg.groups
        for g in range(cfg.groups):
            outs = slice(g * out_per_group, (g + 1) * out_per_group)
            ins = slice(g * in_per_group, (g + 1) * in_per_group)
            taps = np.moveaxis(weight[outs, ins], 0, -1).reshape(-1, out_per_group)
            cells = a[outs].reshape(out_per_group, -1)
            cols = (taps @ cells).reshape((in_per_group, *cfg.kernel, rows, *out_spatial))
            for offset in itertools.product(*(range(k) for k in cfg.kernel)):
                window = tuple(
                    slice(w * d, w * d + (o - 1) * s + 1, s) if o else slice(0, 0)
                    for w, d, s, o in zip(offset, cfg.dilation, cfg.stride, out_spatial,
                                          strict=True)
                )  # fmt: skip
                acc[(ins, slice(None), *window)] += cols[(slice(None), *offset)]
        inside = tuple(slice(b, b + n) for n, (b, _) in zip(self.in_shape[axis + 1 :], pad,
                                                             strict=True))  # fmt: skip
        moved = np.moveaxis(acc[(slice(None), slice(None), *inside)], 0, 1)
        return np.ascontiguousarray(moved).reshape(left.shape[0], -1)

    def sparse_or_none(self, magnitude: bool = False):
        """`sparse()` (or its magnitude), None without SciPy."""
        try:
            matrix = self.sparse()
        except ImportError:
            return None
        if not magnitude:
            return matrix
        if self._magnitude is None:
            self._magnitude = abs(matrix)
        return self._magnitude

    def sparse(self):
        """`M` as a SciPy CSR array (|y| × |x|), built from the conv's index
        arithmetic: output cell `o` of channel `oc` reads input cell
        `o·stride + k·dilation − padding` of each channel of its group through
        tap `k`, when that cell is inside the input."""
        from scipy import sparse

        if self._sparse is not None:
            return self._sparse
        cfg, axis = self.cfg, self.cfg.channel_axis
        out_sp, in_sp = self.out_shape[axis + 1 :], self.in_shape[axis + 1 :]
        rank = len(cfg.kernel)

        def per_dim(values) -> np.ndarray:
            return np.array(values).reshape(rank, 1, 1)

        outs = np.indices(out_sp).reshape(rank, -1)
        taps = np.indices(cfg.kernel).reshape(rank, -1)
        pos = (outs[:, :, None] * per_dim(cfg.stride) + taps[:, None, :] * per_dim(cfg.dilation)
               - per_dim(cfg.padding))  # fmt: skip
        inside = np.all((pos >= 0) & (pos < per_dim(in_sp)), axis=0)  # cells × taps
        cell = np.ravel_multi_index(tuple(np.clip(pos, 0, per_dim(in_sp) - 1)), in_sp)
        in_per_group = cfg.in_channels // cfg.groups
        out_per_group = cfg.out_channels // cfg.groups
        n_out, n_in = outs.shape[1], int(np.prod(in_sp, dtype=np.int64))
        oc = np.arange(cfg.out_channels)[:, None, None, None]
        ic = (oc // out_per_group) * in_per_group + np.arange(in_per_group)[None, :, None, None]
        p = np.arange(n_out)[None, None, :, None]
        flat = self.weight.reshape(cfg.out_channels, cfg.in_channels, -1)
        values = flat[np.arange(cfg.out_channels)[:, None], ic[:, :, 0, 0]][:, :, None]
        shape = (cfg.out_channels, in_per_group, n_out, taps.shape[1])
        keep = np.broadcast_to(inside[None, None], shape) & np.broadcast_to(values != 0, shape)
        rows = np.broadcast_to(oc * n_out + p, shape)[keep]
        cols = np.broadcast_to(ic * n_in + cell[None, None], shape)[keep]
        data = np.broadcast_to(values, shape)[keep]
        lead = int(np.prod(self.in_shape[:axis], dtype=np.int64))
        per_out, per_in = cfg.out_channels * n_out, cfg.in_channels * n_in
        shift = np.arange(lead)[:, None]
        where = ((rows + shift * per_out).ravel(), (cols + shift * per_in).ravel())
        matrix = sparse.csr_array(
            (np.tile(data, lead), where), shape=(lead * per_out, lead * per_in)
        )
        self._sparse = matrix
        return matrix

    def forward(self, v: np.ndarray, magnitude: bool = False) -> np.ndarray:
        """`M @ v` (or `|M| @ v`), `v` a flat input or a matrix of them as
        columns: by the sparse `M` when SciPy is installed, else the conv."""
        matrix = self.sparse_or_none(magnitude)
        if matrix is not None:
            return matrix @ v
        if v.ndim == 2:
            return np.stack([self.conv(column, magnitude) for column in v.T], axis=1)
        return self.conv(v, magnitude)

    def conv(self, v: np.ndarray, magnitude: bool = False) -> np.ndarray:
        """`M @ v` (or `|M| @ v`) in NumPy: the conv itself without bias, per
        group one BLAS product of the input's windows by the taps."""
        cfg, axis = self.cfg, self.cfg.channel_axis
        weight = self.magnitude_weight if magnitude else self.weight
        rank = len(cfg.kernel)
        lead = int(np.prod(self.in_shape[:axis], dtype=np.int64))
        x = v.reshape((lead, *self.in_shape[axis:]))
        padded = np.pad(x, F.conv_padding(dataclasses.replace(cfg, channel_axis=1)))
        span = tuple((k - 1) * d + 1 for k, d in zip(cfg.kernel, cfg.dilation, strict=True))
        windows = np.lib.stride_tricks.sliding_window_view(padded, span, axis=tuple(
            range(2, 2 + rank)))  # fmt: skip
        out_spatial = self.out_shape[axis + 1 :]
        picks = tuple(slice(0, (o - 1) * s + 1, s) if o else slice(0, 0)
                      for o, s in zip(out_spatial, cfg.stride, strict=True))  # fmt: skip
        taps = tuple(slice(None, None, d) for d in cfg.dilation)
        windows = windows[(slice(None), slice(None), *picks, *taps)]
        in_per_group = cfg.in_channels // cfg.groups
        out_per_group = cfg.out_channels // cfg.groups
        parts = []
        for g in range(cfg.groups):
            ins = windows[:, g * in_per_group : (g + 1) * in_per_group]
            w = weight[g * out_per_group : (g + 1) * out_per_group,
                       g * in_per_group : (g + 1) * in_per_group]  # fmt: skip
            axes = [1, *range(2 + rank, 2 + 2 * rank)]
            parts.append(np.tensordot(ins, w, axes=(axes, [1, *range(2, 2 + rank)])))
        out = np.concatenate(parts, axis=-1)  # lead, spatial…, out channels
        return np.moveaxis(out, -1, 1).reshape(-1)


def _matmul_matrix(op: T.MatmulOp, operand: int, fixed: np.ndarray) -> np.ndarray:
    """The dense matrix of a matmul in its varying operand: the evaluator on
    one-hot values of that operand (products with 1 and sums with 0: exact)."""
    shape = tuple(op.operands[operand].type.get_shape())
    n = int(np.prod(shape, dtype=np.int64))
    check_dense(op, size(op.results[0]), n, fixed.dtype)
    columns = []
    for j in range(n):
        basis = np.zeros(n, fixed.dtype)
        basis[j] = 1
        args = [basis.reshape(shape), fixed] if operand == 0 else [fixed, basis.reshape(shape)]
        columns.append(F.EVALUATORS[T.MatmulOp](op, args).reshape(-1))
    return np.stack(columns, axis=1) if columns else np.zeros((size(op.results[0]), 0))


def linear_map(op: Operation, boxes: list[Box | None]) -> LinearMap | None:
    """`matmul` with one point operand, or `conv` with point weight and bias,
    as a dense linear map; None for any other op or operands."""
    out = size(op.results[0])
    if isinstance(op, T.MatmulOp):
        fixed = [point(b) for b in boxes]
        if (fixed[0] is None) == (fixed[1] is None):
            return None
        operand = 0 if fixed[0] is None else 1
        known = fixed[1 - operand]
        matrix = _matmul_matrix(op, operand, known)
        return LinearMap(operand, matrix, np.zeros(out, known.dtype))
    if isinstance(op, T.ConvOp):
        weight, bias = point(boxes[1]), point(boxes[2])
        if weight is None or bias is None:
            return None
        return LinearMap(0, conv_matrix(op, weight), conv_bias(op, bias))
    return None


def conv_bias(op: T.ConvOp, bias: np.ndarray) -> np.ndarray:
    """A conv's bias broadcast to its flat output."""
    shape = op.results[0].type.get_shape()
    axis = op.config.channel_axis
    spread = (slice(None),) + (np.newaxis,) * (len(shape) - axis - 1)
    return np.broadcast_to(bias[spread], shape).reshape(-1)


def avg_pool_incidence(op: T.AvgPoolOp, dtype) -> np.ndarray:
    """`|y| × |x|`: 1 where an output's window reads an input cell (padding
    cells read nothing); avg_pool is this matrix divided by the kernel volume."""
    in_shape = tuple(op.input.type.get_shape())
    out_shape = tuple(op.results[0].type.get_shape())
    n = int(np.prod(in_shape, dtype=np.int64))
    check_dense(op, int(np.prod(out_shape, dtype=np.int64)), n, dtype)
    basis = np.eye(n, dtype=dtype).reshape((n, *in_shape))
    acc = np.zeros((n, *out_shape), dtype)
    for values, _valid in F.window_cells(basis, op, (n, *out_shape)):
        acc = acc + values
    return np.ascontiguousarray(acc.reshape(n, -1).T)


def kernel_volume(op: T.AvgPoolOp) -> int:
    return int(np.prod(T._ints(op.kernel), dtype=np.int64))


PASS_THROUGH = (T.DetachOp, T.ReshapeOp, T.FlattenOp)
"""Ops whose flat output is their operand's flat value."""


def discharge_rule(op: Operation, a: Box, sweep) -> None:
    """Both sweeps' rule for an op they do not look into: its coefficient
    discharged against its box."""
    sweep.discharge(a, op.results[0])


def walk_back(ops: list[Operation], rules, sweep) -> None:
    """Both sweeps' walk: `ops` in reverse order, each result with a coefficient
    consumed by `rules`' rule for its op (discharged where it has none, where
    the op is empty, and for every result of an op with several: no rule reads
    those)."""
    for op in reversed(ops):
        live = [r for r in op.results if r in sweep.coeffs]
        if len(op.results) != 1:
            for r in live:
                sweep.discharge(sweep.coeffs.pop(r), r)
        elif live:
            rule = (rules.lookup(op) or discharge_rule) if nonempty(op) else discharge_rule
            rule(op, sweep.coeffs.pop(live[0]), sweep)


def pass_through_rule(op: Operation, a: Box, sweep) -> None:
    """Both sweeps' rule for `PASS_THROUGH` ops: the coefficient goes to the operand."""
    sweep.add(op.operands[0], *a)


def add_rule(op: Operation, a: Box, sweep) -> None:
    """Both sweeps' rule for `add`: the coefficient goes to both operands."""
    sweep.add(op.operands[0], *a)
    sweep.add(op.operands[1], *a)


INDEX_MAPS = (T.ConcatOp, T.TransposeOp, T.PermuteOp)
"""Ops that move each operand cell to one output cell."""


def index_map(op: Operation) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per operand, (output positions, operand positions): the op's evaluator
    on consecutive integers, operand after operand (exact in float64)."""
    offsets, args = [], []
    start = 0
    for operand in op.operands:
        shape = tuple(operand.type.get_shape())
        n = int(np.prod(shape, dtype=np.int64))
        offsets.append(start)
        args.append(np.arange(start, start + n, dtype=np.float64).reshape(shape))
        start += n
    moved = F.EVALUATORS.lookup(op)(op, args).reshape(-1).astype(np.int64)
    maps = []
    for k, operand in enumerate(op.operands):
        mine = np.flatnonzero((moved >= offsets[k]) & (moved < offsets[k] + size(operand)))
        maps.append((mine, moved[mine] - offsets[k]))
    return maps


def pull_back(coefficient: np.ndarray, out_positions, in_positions, n: int) -> np.ndarray:
    """An output coefficient moved to the operand's cells (each read once)."""
    pulled = np.zeros((coefficient.shape[0], n), coefficient.dtype)
    pulled[:, in_positions] = coefficient[:, out_positions]
    return pulled


__all__ = [
    "INDEX_MAPS",
    "add_rule",
    "discharge_rule",
    "pass_through_rule",
    "walk_back",
    "PASS_THROUGH",
    "ConvTranspose",
    "LinearMap",
    "SweepFailed",
    "avg_pool_incidence",
    "conv_bias",
    "conv_matrix",
    "index_map",
    "kernel_volume",
    "linear_map",
    "linear_rows",
    "nonempty",
    "point",
    "pull_back",
    "size",
]
