"""The rule table of `tlir-ibp`: one rule per tlir op, emitting the op's
interval program (docs/verification.md#the-rules).

A rule gets the context (builder, carrier), the op and its operands' boxes,
and returns the result's box with the failure flags of its data checks
(rank-0 tensors, nonzero where a coordinate, a channel or a row failed). It
raises `NoRule` where the carrier has no rule for the op and `NoBox` where the
rule fails for every value (a mean over nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Attribute, Operation, SSAValue

from tlir.optable import OpTable
from tlir.passes.autodiff.builder import Builder, shape_of


class NoRule(Exception):
    """The carrier has no interval rule for this op."""


class NoBox(Exception):
    """The rule gives no box, whatever the values."""


@dataclass
class Bound:
    """A value's box in the bounds function: two tensors of its type, and its
    status (`tlir.bounds.RESOLVED`, a static op index, or a rank-0 tensor)."""

    lo: SSAValue
    hi: SSAValue
    status: float | SSAValue = float("inf")

    @property
    def pair(self) -> tuple[SSAValue, SSAValue]:
        return self.lo, self.hi

    @property
    def point(self) -> bool:
        """A constant: both ends are one tensor."""
        return self.lo is self.hi

    def factor(self) -> SSAValue | tuple[SSAValue, SSAValue]:
        """What `scalar.product` takes: the value of a point, else the pair."""
        return self.lo if self.point else self.pair


@dataclass
class Out:
    lo: SSAValue
    hi: SSAValue
    flags: list[SSAValue] = field(default_factory=list)


@dataclass(frozen=True)
class Twin:
    """A box [rows, features] also held as one [2, features, rows] tensor (its
    ends stacked, transposed), the layout the signed interval `linear` reads
    (`passes/ibp/signed.py`): its fold leaves its box so, and `relu` keeps it."""

    stacked: SSAValue
    ordered: bool
    """lo ≤ hi wherever the fast path's results stand (the sums of a signed
    `linear` plus a point bias, then `relu`): no order check needed."""
    hi: SSAValue
    """The box's upper end (the twins are found by the lower one)."""


@dataclass(frozen=True)
class SumCheck:
    """The fast path's finite check of a contraction's sums (lo, hi) before
    its bias (`structured.fast_contraction_check`): which of `Context.diverged`
    it is and the ops that compute it, so that a kernel reading every sum
    anyway can take its place (`pooling._max_pool`)."""

    hi: SSAValue
    index: int
    ops: tuple[Operation, ...]


@dataclass
class Context:
    b: Builder
    element: Attribute
    fast: bool = False
    """Contractions take the fast path (`structured.fast_contraction_check`)."""
    diverged: list[SSAValue] = field(default_factory=list)
    """The fast path's checks: rank-0, nonzero where a fast result may differ."""
    twins: dict[SSAValue, Twin] = field(default_factory=dict)
    """Boxes also held in [feature, row] layout, by their lower end (`Twin`)."""
    bypassed: list[Operation] = field(default_factory=list)
    """Ops a rule read through (computing from their operands instead): erased
    at the end where nothing else reads them (`drop_bypassed`)."""
    sum_checks: dict[SSAValue, SumCheck] = field(default_factory=dict)
    """The finite checks of sums not yet read by anything else, by the lower
    sums (`SumCheck`)."""

    def twin(self, box: Bound) -> Twin | None:
        """The box's stacked layout, if it is held in one (both ends match)."""
        twin = self.twins.get(box.lo)
        return twin if twin is not None and twin.hi is box.hi else None

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float32 if self.element.bitwidth == 32 else np.float64)

    def shape(self, op: Operation) -> tuple[int, ...]:
        return shape_of(op.results[0])


@dataclass(frozen=True)
class Rule:
    emit: Callable[[Context, Operation, Sequence[Bound]], Out]
    reads_operands: bool = True


IBP_RULES: OpTable[Rule] = OpTable("interval rule")


def ibp_rule(*op_classes: type[Operation], reads_operands: bool = True) -> Callable:
    def decorate(function: Callable) -> Callable:
        for op_class in op_classes:
            IBP_RULES.add(op_class, Rule(function, reads_operands))
        return function

    return decorate


def drop_bypassed(bypassed: list[Operation]) -> None:
    """Erase the bypassed ops nothing reads, a reader before what it reads."""
    pending = list(dict.fromkeys(bypassed))
    while True:
        dead = [op for op in pending if all(not r.uses for r in op.results)]
        if not dead:
            return
        for op in dead:
            pending.remove(op)
            op.detach()
            op.erase()
