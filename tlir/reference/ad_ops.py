"""Reference semantics of the `tlir_ad` ops: their scalar regions interpreted
on NumPy arrays in the carrier dtype, a fold one point of its reduction
dimensions at a time (vectorised over the parallel ones)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tlir.dialects import tlir_ad as A
from tlir.dialects.tlir_ad import linear_form
from tlir.reference.carrier import libm
from tlir.reference.ops import evaluates

_BINARY: dict[type[Operation], Callable] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    arith.AndIOp: np.logical_and,
    arith.OrIOp: np.logical_or,
    arith.XOrIOp: np.logical_xor,
}
_UNARY: dict[type[Operation], Callable] = {
    arith.NegfOp: np.negative,
    math.SqrtOp: np.sqrt,
    math.AbsFOp: np.abs,
    math.ExpOp: lambda x: libm("exp", x),
    math.LogOp: lambda x: libm("log", x),
    math.TanhOp: lambda x: libm("tanh", x),
    math.SinOp: lambda x: libm("sin", x),
    math.CosOp: lambda x: libm("cos", x),
    A.NextUpOp: lambda x: np.nextafter(x, x.dtype.type(np.inf)),
    A.NextDownOp: lambda x: np.nextafter(x, x.dtype.type(-np.inf)),
    A.StepUpOp: lambda x: _step(x, 1),
    A.StepDownOp: lambda x: _step(x, -1),
}
_ORDERED = {"oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal,
            "olt": np.less, "ole": np.less_equal, "one": np.not_equal}  # fmt: skip


def _step(x: np.ndarray, sign: int) -> np.ndarray:
    """`tlir_ad.step_up` (`sign` 1) / `step_down` (-1), `RU(x + m)` / `RD(x - m)`
    (`m` the smallest subnormal): the next float in that direction, except
    that the infinity on the far side stays and a step from the smallest
    subnormal of the other sign gives a zero of this direction's sign. A NaN
    stays (compiled code quiets a signalling one, as any arithmetic does)."""
    with np.errstate(over="ignore"):
        result = np.nextafter(x, x.dtype.type(sign * np.inf))
    tiny = np.finfo(x.dtype).smallest_subnormal
    result = np.where((x == -sign * np.inf) | np.isnan(x), x, result)
    zero = np.copysign(x.dtype.type(0.0), x.dtype.type(sign))
    return np.where(x == -sign * tiny, zero, result).astype(x.dtype)


def _compare(predicate: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE comparisons: ordered ones are false on NaN, unordered ones true."""
    if predicate in _ORDERED:
        result = _ORDERED[predicate](a, b)
        return result & ~np.isnan(a) & ~np.isnan(b) if predicate == "one" else result
    unordered = np.isnan(a) | np.isnan(b)
    if predicate == "uno":
        return unordered
    if predicate == "ord":
        return ~unordered
    return unordered | _ORDERED["o" + predicate[1:]](a, b)


def _as_array(value, dtype: np.dtype) -> np.ndarray:
    array = np.asarray(value)
    return array if array.dtype == bool else array.astype(dtype, copy=False)


def run_region(block: Block, args: Sequence[np.ndarray], dtype: np.dtype) -> list[np.ndarray]:
    """The region's scalar program on arrays (elementwise, broadcasting)."""
    values: dict[SSAValue, np.ndarray] = dict(zip(block.args, args, strict=True))
    with np.errstate(all="ignore"):
        for op in block.ops:
            if isinstance(op, A.YieldOp):
                return [values[v] for v in op.values]
            values[op.results[0]] = _scalar_op(op, [values[v] for v in op.operands], dtype)
    raise AssertionError("the verifier guarantees a tlir_ad.yield")


def _scalar_op(op: Operation, args: list[np.ndarray], dtype: np.dtype) -> np.ndarray:
    kind = type(op)
    if kind in _BINARY:
        return _as_array(_BINARY[kind](*args), dtype)
    if kind in _UNARY:
        return _as_array(_UNARY[kind](args[0]), dtype)
    if isinstance(op, arith.ConstantOp):
        value = op.value
        if isinstance(value, FloatAttr):
            return np.asarray(value.value.data, dtype)  # rounded once to the carrier
        assert isinstance(value, IntegerAttr)
        return np.asarray(bool(value.value.data))
    if isinstance(op, arith.CmpfOp):
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        return _compare(predicate, *args)
    if isinstance(op, arith.SelectOp):
        return _as_array(np.where(args[0], args[1], args[2]), dtype)
    raise AssertionError(f"{op.name} is not a scalar op of tlir_ad bodies")


def _dtype(op: Operation) -> np.dtype:
    width = op.results[0].type.element_type.bitwidth
    return np.dtype(np.float32 if width == 32 else np.float64)


@evaluates(A.MapOp)
def _map(op: A.MapOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    shape = tuple(op.outs[0].type.get_shape())
    results = run_region(op.body.block, list(args), _dtype(op))
    return [np.broadcast_to(r, shape).astype(_dtype(op)) for r in results]


def _index(expr: AffineExpr, dims: Sequence, num_dims: int):
    coefficients, constant = linear_form(expr, num_dims)
    total = constant
    for c, d in zip(coefficients, dims, strict=True):
        if c:
            total = total + c * d
    return total


@evaluates(A.FoldOp)
def _fold(op: A.FoldOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Vectorised over the parallel dimensions; the reduction points visited in
    row-major order, which is the order every result element sees them in."""
    bounds = A.ints(op.bounds)
    count = len(op.inputs)
    inputs, accumulators = list(args[:count]), [a.copy() for a in args[count:]]
    parallel = op.parallel_dims
    reduction = [d for d in range(len(bounds)) if d not in parallel]
    out_shape = tuple(bounds[d] for d in parallel)
    if 0 in bounds:
        return accumulators
    grids = np.indices(out_shape) if out_shape else []
    dims: list = [0] * len(bounds)
    for position, d in enumerate(parallel):
        dims[d] = grids[position]
    for point in itertools.product(*(range(bounds[d]) for d in reduction)):
        for d, i in zip(reduction, point, strict=True):
            dims[d] = i
        reads = [
            _read(value, m.data.results, dims, len(bounds), out_shape)
            for value, m in zip(inputs, op.maps.data, strict=True)
        ]
        new = run_region(op.body.block, [*reads, *accumulators], _dtype(op))
        accumulators = [np.broadcast_to(a, out_shape).astype(_dtype(op)) for a in new]
    return accumulators


def _read(value: np.ndarray, exprs, dims: list, num_dims: int, out_shape) -> np.ndarray:
    index = tuple(_index(expr, dims, num_dims) for expr in exprs)
    return np.broadcast_to(value[index] if index else value[()], out_shape)


@evaluates(A.PadOp)
def _pad(op: A.PadOp, args: Sequence[np.ndarray]) -> np.ndarray:
    x = args[0]
    low, interior = A.ints(op.low), A.ints(op.interior)
    out = np.zeros(tuple(op.result.type.get_shape()), x.dtype)
    if x.size:
        window = tuple(
            slice(lo, lo + (n - 1) * (step + 1) + 1, step + 1)
            for lo, n, step in zip(low, x.shape, interior, strict=True)
        )
        out[window] = x
    return out


@evaluates(A.ConvInputGradOp)
def _conv_input_grad(op: A.ConvInputGradOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """docs/autodiff.md#d6-conv-vjp, vectorised over the positions a kernel cell
    reaches: for each group, output channel m (ascending), then cell (row-major),
    every reached input position adds g·wt once; positions a cell misses are
    not touched, so each position sees its own terms in the fold's order."""
    g, wt = args
    geo = op.geometry
    axis = len(geo.lead)
    acc = np.zeros(tuple(op.result.type.get_shape()), _dtype(op))
    lead = (slice(None),) * axis
    cells = []
    for cell in itertools.product(*(range(k) for k in geo.kernel)):
        reach = [geo.valid(a, c) for a, c in enumerate(cell)]
        if all(ins for ins, _ in reach):
            cells.append((cell, np.ix_(*(i for i, _ in reach)), np.ix_(*(o for _, o in reach))))
    with np.errstate(all="ignore"):
        for group in range(geo.groups):
            rows = slice(group * geo.cin, (group + 1) * geo.cin)
            for m in range(geo.cout):
                for cell, into, reads in cells:
                    grad = g[(*lead, group * geo.cout + m, *reads)]
                    weight = wt[(rows, m, *cell)].reshape((geo.cin,) + (1,) * len(cell))
                    where = (*lead, rows, *into)
                    acc[where] = acc[where] + np.expand_dims(grad, axis) * weight
    return acc


@evaluates(A.ConvKernelGradOp)
def _conv_kernel_grad(op: A.ConvKernelGradOp, args: Sequence[np.ndarray]) -> np.ndarray:
    """docs/autodiff.md#d6-conv-vjp in transposed layout, vectorised over (c, k,
    oc): for each leading position, then output position (row-major), every
    element adds x_pad·g once, from +0."""
    x_pad, g = args
    geo = op.geometry
    acc = np.zeros(tuple(op.result.type.get_shape()), _dtype(op))
    rank = len(geo.kernel)
    with np.errstate(all="ignore"):
        for lead in np.ndindex(*geo.lead):
            for o in np.ndindex(*geo.out_spatial):
                taps = [
                    (o[a] * geo.stride[a] + np.arange(geo.kernel[a]) * geo.dilation[a]).reshape(
                        tuple(-1 if b == a else 1 for b in range(rank))
                    )
                    for a in range(rank)
                ]
                cells = x_pad[lead][(slice(None), *taps)]
                grads = g[lead][(slice(None), *o)]
                acc = acc + cells[..., None] * grads
    return acc
