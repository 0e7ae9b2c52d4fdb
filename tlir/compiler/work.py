"""How much work each op of a kernel does: a rough count of element
operations, which decides whether a kernel call is split across threads
(`tlir.compiler.plan.THREAD_WORK`). Apart from `tlir.compiler.plan`, so that a compile that
hits the cache, which only reads a stored plan, does not import the autodiff
dialect."""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as AD
from tlir.optable import OpTable

LIBRARY_CALL_COST = 20
"""An element of an op that calls the C math library (exp, tanh, …) costs
about this many simple element operations."""


def _size(value: SSAValue) -> int:
    return math.prod(value.type.get_shape())


def _outputs(op: Operation) -> int:
    return sum(_size(r) for r in op.results)


WorkModel = Callable[[Operation], int]

WORK: OpTable[WorkModel] = OpTable("work model")
"""A rough count of element operations of each op that can be in a kernel
(threading decisions: `THREAD_WORK`)."""


@WORK.register(
    T.ExpOp, T.LogOp, T.TanhOp, T.SinOp, T.CosOp, T.SigmoidOp, T.SoftplusOp, T.SafeLogOp,
    T.SoftmaxOp, T.HardMaskedSoftmaxOp,
)  # fmt: skip
def _library_calls(op: Operation) -> int:
    return _outputs(op) * LIBRARY_CALL_COST


@WORK.register(T.MatmulOp)
def _matmul(op: T.MatmulOp) -> int:
    return _outputs(op) * op.lhs.type.get_shape()[-1] * 2


@WORK.register(T.LinearOp)
def _linear(op: T.LinearOp) -> int:
    return _outputs(op) * op.weight.type.get_shape()[1] * 2


@WORK.register(T.ConvOp)
def _conv(op: T.ConvOp) -> int:
    cfg = op.config
    return _outputs(op) * (cfg.in_channels // cfg.groups) * math.prod(cfg.kernel) * 2


@WORK.register(AD.ConvInputGradOp)
def _conv_input_grad(op: AD.ConvInputGradOp) -> int:
    return _outputs(op) * math.prod(op.weight.type.get_shape()[1:]) * 2


@WORK.register(AD.ConvKernelGradOp)
def _conv_kernel_grad(op: AD.ConvKernelGradOp) -> int:
    geo = op.geometry
    return _outputs(op) * math.prod(geo.lead) * math.prod(geo.out_spatial) * 2


@WORK.register(*(c for c in T.TLIR_OPS if c not in WORK and c is not T.ConstOp))
def _elementwise(op: Operation) -> int:
    """The larger of what it reads and what it writes."""
    return max([_outputs(op), *(_size(v) for v in op.operands)])


DIRECTED_STEP_WORK = 4
"""Directed steps (`tlir_ad.next_up`/`next_down`, a handful of vector integer
ops each) per unit of work: an interval linear's term takes four, about a
nanosecond on one thread."""


@WORK.register(AD.FoldOp, AD.MapOp)
def _region(op: AD.FoldOp | AD.MapOp) -> int:
    """The interval programs' folds and maps (regions with directed steps) are
    compute-bound: their points times their steps. The derivative programs'
    count nothing (`_unthreaded`)."""
    steps = sum(
        isinstance(o, AD.NextUpOp | AD.NextDownOp | AD.StepUpOp | AD.StepDownOp)
        for o in op.body.block.ops
    )
    if not steps:
        return _unthreaded(op)
    points = math.prod(AD.ints(op.bounds)) if isinstance(op, AD.FoldOp) else _outputs(op)
    return points * steps // DIRECTED_STEP_WORK


@WORK.register(T.ConstOp, AD.PadOp)
def _unthreaded(op: Operation) -> int:
    """A constant stays outside the kernels. The derivative programs' folds,
    maps and pads count nothing, so their kernels run on one thread. Counted
    by their box (a fold's region runs once per point), the pools' winner
    folds and backward gathers were threaded, and the benchmark CNN's VJP on
    two threads took 0.74–0.83 ms against 0.74–0.84 ms unthreaded over three
    interleaved pairs of runs, and 1.4 ms against 0.85 ms in two earlier
    pairs: these memory-bound passes gain nothing from a second core that
    must first fetch what the first one wrote."""
    return 0


def op_work(op: Operation) -> int:
    return WORK[type(op)](op)


def kernel_work(kernel: func.FuncOp) -> int:
    return sum(op_work(op) for op in kernel.body.block.ops if type(op) in WORK)
