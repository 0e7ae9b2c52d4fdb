"""The interval rule of `max_pool`: the forward op on each end (max_pool is
exact and monotone), both ends computed in one fold where it can.

Without padding and with at most `MAX_WINDOW` cells, one `tlir_ad.fold` over
the pooled positions reads each cell of the window as operands of its own
(both ends in one kernel). It reads through what produced the ends:
* `relu` on both ends: the fold reads the relu's operands and applies relu to
  each cell;
* one `permute` of both ends (a conv's boxes go back to channels first through
  one): it reads the permute's operands in their own layout (the vector runs
  along their last axis, the channels) and permutes the pooled result, a
  quarter of the data for a 2×2 pool;
* a fold that reduces nothing and yields both ends (the conv's bias,
  `structured.add_bias`): it reads that fold's operands per cell and inlines
  its body (the same directed additions, so the same bits).
What it read through is dropped where nothing else reads it
(`table.drop_bypassed`). On bench/autodiff.py's CNN, one thread: the first
layer's permute, relu, max_pool and pad of each end (a transpose vectorised
with gathers and scatters) had cost half as much as its conv in f32, and the
two layers' bias additions were kernels of their own.

The result is the forward op's, bit for bit: relu is `x ≤ 0 ? +0 : x` (NaN
stays, −0 becomes +0: `Emitter.clamp_at_zero`, the reference's relu), and
without padding every cell is real, so `max_pool`'s rule (the first real
cell, then a later one only where strictly greater: `lower_max_pool`, the
reference's `_max_pool`) is the chain `acc = c₀; acc = c > acc ? c : acc`
(`ogt`) over the cells in row-major order, ties of ±0 and NaN included.
A permute only moves values.

The fast path's finite check of a conv's sums (`structured.fast_contraction_check`)
moves into the pool where its windows cover every sum (`taken_check`): the pooled
lower end is NaN where a window's tested values are not all finite
(`_poisoned`), and the check counts that end instead of reading the sums
again. With relu, the bias is added with the fast path's steps and the test
reads the biased values: where every stepped value `RD(s + b − m)` (upward
`RU(s + b + m)`) of a window is finite, each `s + b` is finite (an infinite
or NaN value steps to itself), so each sum `s` is, and the check's condition
holds; and for a finite `x` the fast step is `nextDown(x)` but at `x = m`
(`−0` for `+0`; upward, `x = −m`: `+0` for `−0`), a zero either way, which
relu makes `+0` as it makes TorchLean's: relu's values and their max are
TorchLean's bits. And with every value finite, relu and the window's max are
the max from `+0` (`acc = +0`, then each value where strictly greater): both
give `+0` where no value is above zero, else the largest, and equal positive
values have one bit pattern. That drops the `vfixupimm` mending `RD` at
`+inf` from each cell and relu's compare and select, which pays for the test.
Without relu the bias keeps TorchLean's steps (a zero's sign could reach the
max) and the test reads the sums.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as A
from tlir.passes.autodiff.builder import Scalar, d, shape_of
from tlir.passes.ibp import scalar as D
from tlir.passes.ibp.elementwise import forward_on_ends, zero_starts
from tlir.passes.ibp.structured import nonfinite_count
from tlir.passes.ibp.table import Bound, Context, Out, SumCheck, ibp_rule

MAX_WINDOW = 16
"""The most cells of a window read as separate operands (a larger window, or
a padded one, takes the forward op on each end)."""


def _peel(value: SSAValue, op_class) -> SSAValue | None:
    owner = value.owner
    return owner.operands[0] if isinstance(owner, op_class) else None


def _permutation(value: SSAValue) -> tuple[int, ...] | None:
    owner = value.owner
    return tuple(T._ints(owner.perm)) if isinstance(owner, T.PermuteOp) else None


def _clamp_at_zero(s: Scalar, x: SSAValue) -> SSAValue:
    """relu as the forward lowers it: `x ≤ 0 ? +0 : x` (NaN stays NaN)."""
    zero = s.const(0.0)
    return s.select(s.cmp("ole", x, zero), zero, x)


def _window_max(s: Scalar, cells: Sequence[SSAValue]) -> SSAValue:
    """The first cell, then each later one where strictly greater (`ogt`)."""
    best = cells[0]
    for cell in cells[1:]:
        best = s.select(s.cmp("ogt", cell, best), cell, best)
    return best


@ibp_rule(T.MaxPoolOp)
def _max_pool(ctx: Context, op: T.MaxPoolOp, boxes: Sequence[Bound]) -> Out:
    kernel, stride, padding = T._ints(op.kernel), T._ints(op.stride), T._ints(op.padding)
    box = boxes[0]
    if any(padding) or math.prod(kernel) > MAX_WINDOW or box.point:
        return forward_on_ends(ctx, op, boxes)
    ends = list(box.pair)
    relu = all(_peel(v, T.ReluOp) is not None for v in ends)
    if relu:
        ctx.bypassed += [v.owner for v in ends]
        ends = [_peel(v, T.ReluOp) for v in ends]
    rank = len(shape_of(ends[0]))
    perm = tuple(range(rank))
    perms = {_permutation(v) for v in ends}
    if len(perms) == 1 and None not in perms:  # read the permute's operand in its own layout
        perm = perms.pop()
        ctx.bypassed += [v.owner for v in ends]
        ends = [_peel(v, T.PermuteOp) for v in ends]
    out_shape = ctx.shape(op)
    r = rank - len(kernel)
    # the fold's dimensions are the axes of `ends` (the pool's input is
    # permute(ends, perm): its axis k is their axis perm[k])
    axis_of = {m: k for k, m in enumerate(perm)}
    fold_shape = [out_shape[axis_of[m]] for m in range(rank)]
    cells = list(itertools.product(*(range(k) for k in kernel)))

    def index(m: int, cell) -> object:
        a = axis_of[m] - r
        return d(m) if a < 0 else d(m) * stride[a] + cell[a]

    maps = [[index(m, c) for m in range(rank)] for c in cells]
    producer = _elementwise_fold(ends)
    check = taken_check(ctx, op, producer)
    if producer is None:  # each end read per cell
        sources, source_maps = ends, [[d(m) for m in range(rank)]] * 2
    else:  # the producer's operands read per cell, its body applied to them
        ctx.bypassed.append(producer)
        sources = [*producer.inputs, *producer.inits]
        source_maps = [list(m.data.results) for m in producer.maps.data]
        source_maps += [[d(m) for m in range(rank)]] * len(producer.inits)
    operands = [v for c in cells for v in sources]
    operand_maps = [
        [e.replace_dims_and_symbols(cell_map, []) for e in source_map]
        for cell_map in maps
        for source_map in source_maps
    ]

    # with relu, the bias's steps may be the fast path's (the module docstring)
    stepped = check is not None and relu and _steps_only(producer)

    def body(s: Scalar, args):
        n = len(sources)
        read = [list(args[k * n : (k + 1) * n]) for k in range(len(cells))]
        per_cell = read
        if producer is not None:
            per_cell = [_inline(s, producer, values, stepped) for values in read]
        result = []
        for end in (0, 1):
            values = [cell[end] for cell in per_cell]
            if stepped:  # finite where the result stands: relu, then the max, is the max from +0
                result.append(_window_max(s, [s.const(0.0), *values]))
                continue
            if relu:
                values = [_clamp_at_zero(s, v) for v in values]
            result.append(_window_max(s, values))
        if stepped:  # the biased sums, before relu
            result[0] = _poisoned(s, result[0], [v for cell in per_cell for v in cell[:2]])
        elif check is not None:  # the sums are the producer's starts, its last two operands
            result[0] = _poisoned(s, result[0], [v for cell in read for v in cell[-2:]])
        return result

    pooled = ctx.b.fold(operands, operand_maps, fold_shape, [], zero_starts(ctx, fold_shape), body)
    if check is not None:
        ctx.diverged[check.index] = nonfinite_count(ctx, [pooled[0]])
        ctx.bypassed += check.ops
    if perm == tuple(range(rank)):
        return Out(*pooled)
    return Out(
        *(ctx.b.tlir(T.PermuteOp, [v], out_shape, perm=T.i64_array(list(perm))) for v in pooled)
    )


def taken_check(ctx: Context, op: T.MaxPoolOp, producer: A.FoldOp | None) -> SumCheck | None:
    """The finite check of the sums the bias's fold `producer` starts from,
    which the pool takes over (removed from `Context.sum_checks`), or None:
    where every sum lies in some window (no padding, a stride at most the
    kernel and windows that reach the last cell, along every pooled axis),
    the pool reads each of them anyway. See `_poisoned`."""
    if producer is None or len(producer.inits) != 2:
        return None
    check = ctx.sum_checks.get(producer.inits[0])
    if check is None or check.hi is not producer.inits[1]:
        return None
    kernel, stride = T._ints(op.kernel), T._ints(op.stride)
    spatial = shape_of(op.operands[0])[-len(kernel) :]
    pooled = ctx.shape(op)[-len(kernel) :]
    if not all(
        s <= k and (o - 1) * s + k == n
        for k, s, n, o in zip(kernel, stride, spatial, pooled, strict=True)
    ):
        return None
    del ctx.sum_checks[producer.inits[0]]
    return check


def _poisoned(s: Scalar, low: SSAValue, sums: Sequence[SSAValue]) -> SSAValue:
    """`low`, or NaN where one of its window's `sums` is ±inf or NaN: their
    total is then ±inf or NaN too (an IEEE sum with a NaN operand is NaN, with
    an infinite one infinite or NaN), so one test covers all of them. The
    pooled lower end is what the check then counts (non-finite anywhere: the
    fast path's result does not stand; a finite sum overflowing the total
    only sends the call to the exact rule). The pooled end itself may already
    hide a sum (relu makes -inf +0, the max skips a NaN), which is why the
    test reads the sums, before the bias and relu."""
    level = list(sums)
    while len(level) > 1:  # pairwise: a short chain of dependent additions
        pairs = [s.add(a, b) for a, b in zip(level[::2], level[1::2], strict=False)]
        level = pairs + level[len(pairs) * 2 :]
    return s.select(D.finite(s, level[0]), low, s.const(math.nan))


def _elementwise_fold(ends: Sequence[SSAValue]) -> A.FoldOp | None:
    """The fold whose two results are the ends, where it reduces nothing (its
    results are in its loops' layout): `structured.add_bias`'s."""
    owner = ends[0].owner
    if not isinstance(owner, A.FoldOp) or ends[1].owner is not owner:
        return None
    if list(owner.outs) != list(ends) or A.REDUCTION in owner.kinds:
        return None
    return owner


def _inline(
    s: Scalar, fold: A.FoldOp, values: Sequence[SSAValue], stepped: bool = False
) -> list[SSAValue]:
    """The fold's body on `values` (its inputs', then its inits' elements);
    `stepped`: its `next_down`/`next_up` as `step_down`/`step_up`."""
    block = fold.body.block
    mapping = dict(zip(block.args, values, strict=True))
    for op in block.ops:
        if isinstance(op, A.YieldOp):
            return [mapping[v] for v in op.operands]
        step = STEPS.get(type(op)) if stepped else None
        if step is not None:
            clone = s.builder.insert(step(mapping[op.operands[0]]))
        else:
            clone = s.builder.insert(op.clone(value_mapper=mapping))
        mapping.update(zip(op.results, clone.results, strict=True))
    raise AssertionError("a fold body ends with its yield")


STEPS = {A.NextDownOp: A.StepDownOp, A.NextUpOp: A.StepUpOp}
"""The fast path's step for each of TorchLean's (the module docstring's
stepped bias)."""


def _steps_only(fold: A.FoldOp | None) -> bool:
    """Whether the fold's body is additions and steps (the bias's)."""
    allowed = (arith.AddfOp, A.NextDownOp, A.NextUpOp, A.YieldOp)
    return fold is not None and all(isinstance(op, allowed) for op in fold.body.block.ops)
