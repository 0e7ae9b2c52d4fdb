"""Interval bound propagation, TorchLean's rules bit for bit (docs/verification.md).

`boxes(module, lowers, uppers)` runs `@main` op by op on boxes: every value of
the function gets its box (`(lo, hi)` arrays of its shape and the carrier's
dtype) or None, TorchLean's unresolved node, with the first op on its path that
gave no box and why. `ibp` returns the outputs' boxes. The rules are in
`tlir.reference.ibp_rules`; parameters (a `linear`'s weight, a `batch_norm`'s
statistics, ...) are operands like any other, so a constant one is a point box
and its rule computes TorchLean's bits. `rules="tight"` runs the tight rules
(`tlir.tight`, `tlir.reference.ibp_tight`) instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from tlir.bounds import reason, unresolved_message
from tlir.diagnostics import TlirError
from tlir.interface import find_function, numpy_dtype
from tlir.reference.ibp_rules import IBP_RULES, NoRule
from tlir.reference.ibp_tight import TIGHT_RULES
from tlir.reference.interval import Box, NoBox
from tlir.tight import check_rules, rules_mode, tight


@dataclass(frozen=True)
class Cause:
    """The first op on a value's path whose rule gave no box."""

    index: int
    op: Operation
    reason: str
    rules: str = "torchlean"

    def message(self) -> str:
        dtype = numpy_dtype(self.op.results[0].type)
        return unresolved_message(self.op, self.index, dtype, self.rules)


@dataclass
class Bounds:
    """Every value's box (None: unresolved) and, for unresolved ones, the cause."""

    boxes: dict[SSAValue, Box | None] = field(default_factory=dict)
    causes: dict[SSAValue, Cause] = field(default_factory=dict)
    outputs: list[SSAValue] = field(default_factory=list)

    def output_boxes(self) -> list[Box | None]:
        return [self.boxes[v] for v in self.outputs]

    def output_causes(self) -> list[Cause | None]:
        return [self.causes.get(v) for v in self.outputs]


def checked_boxes(function: func.FuncOp, lowers, uppers, where: str) -> list[Box]:
    types = function.function_type.inputs.data
    lowers, uppers = list(lowers), list(uppers)
    if len(lowers) != len(types) or len(uppers) != len(types):
        raise TlirError(
            where, f"expected {len(types)} lower and upper bounds, got {len(lowers)} and "
            f"{len(uppers)}"
        )  # fmt: skip
    out = []
    for k, (typ, lo, hi) in enumerate(zip(types, lowers, uppers, strict=True)):
        shape, dtype = tuple(typ.get_shape()), numpy_dtype(typ)
        pair = []
        for what, value in (("lower", lo), ("upper", hi)):
            array = np.asarray(value)
            if array.shape != shape or array.dtype != dtype:
                raise TlirError(
                    where, f"{what} bound {k} has shape {list(array.shape)} and dtype "
                    f"{array.dtype}, expected shape {list(shape)} and dtype {dtype}"
                )  # fmt: skip
            pair.append(array.copy(order="C"))
        out.append((pair[0], pair[1]))
    return out


def boxes(
    module: ModuleOp, lowers, uppers, function: str = "main", where: str = "input",
    rules: str = "torchlean",
) -> Bounds:  # fmt: skip
    """Every value's box: TorchLean's `runIBP` over the function's ops in order
    (`rules`: "torchlean", or "tight" for the tight rules)."""
    with rules_mode(check_rules(rules, where)):
        return _boxes(module, lowers, uppers, function, where)


def _boxes(module: ModuleOp, lowers, uppers, function: str, where: str) -> Bounds:
    target = find_function(module, function)
    result = Bounds()
    for arg, box in zip(target.body.block.args, checked_boxes(target, lowers, uppers, where),
                        strict=True):  # fmt: skip
        result.boxes[arg] = box
    for index, op in enumerate(target.body.block.ops):
        if isinstance(op, func.ReturnOp):
            result.outputs = list(op.arguments)
            return result
        box, cause = _step(op, index, result)
        for value in op.results:  # an op without a rule may have several results
            result.boxes[value] = box if len(op.results) == 1 else None
            if cause is not None:
                result.causes[value] = cause
    raise TlirError(where, f"@{function} has no func.return")


def _step(op: Operation, index: int, state: Bounds) -> tuple[Box | None, Cause | None]:
    result = op.results[0]
    shape, dtype = tuple(result.type.get_shape()), numpy_dtype(result.type)
    if 0 in shape:
        empty = np.zeros(shape, dtype)
        return (empty, empty.copy()), None  # nothing can fail on no elements
    rules = "tight" if tight() else "torchlean"
    rule = (TIGHT_RULES.lookup(op) if tight() else None) or IBP_RULES.lookup(op)
    reads = rule is None or rule.reads_operands
    parents = [state.boxes[v] for v in op.operands] if reads else []
    missing = [state.causes[v] for v, b in zip(op.operands, parents, strict=False) if b is None]
    if missing:
        return None, min(missing, key=lambda c: c.index)
    if rule is None:
        return None, Cause(index, op, reason(op.name, dtype, rules), rules)
    try:
        with np.errstate(all="ignore"):
            lo, hi = rule(op, parents, dtype)
    except (NoRule, NoBox):
        return None, Cause(index, op, reason(op.name, dtype, rules), rules)
    lo, hi = np.asarray(lo, dtype).reshape(shape), np.asarray(hi, dtype).reshape(shape)
    return (lo.copy(order="C"), hi.copy(order="C")), None


def ibp(
    module: ModuleOp, lowers: Sequence[np.ndarray], uppers: Sequence[np.ndarray],
    function: str = "main", rules: str = "torchlean",
) -> tuple[list[np.ndarray | None], list[np.ndarray | None]]:  # fmt: skip
    """The outputs' lower and upper bounds (None where unresolved)."""
    found = boxes(module, lowers, uppers, function, rules=rules).output_boxes()
    return [b and b[0] for b in found], [b and b[1] for b in found]


__all__ = ["Bounds", "Cause", "boxes", "checked_boxes", "ibp"]
