"""Whether a kernel's loops at two batches are the same code for every batch.

`same_code` walks the two loop modules side by side (printing them cost more
than lowering them) and asks that they differ only where the code cannot
depend on the batch:

* the leading extent of a buffer type (a row-major buffer's strides do not
  depend on it) and of a view's sizes (its offset and strides locate it);
* every extent of an argument buffer the code reads and writes only through a
  flat view (`tlir-linalg-to-loops`: a buffer with a batch-sized axis past its
  leading one, addressed with strides computed from the batch), and of every
  buffer of the contraction generator's code (`generated`: it addresses its
  buffers flat, with the strides that depend on the batch computed from it);
* the recorded `tlir.parallel_extent` (the units at that batch).

Everything else — ops, operands, constants, attributes, loop bounds — must be
equal, so any dependence on the batch the lowering has shows as a difference.
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import FunctionType, MemRefType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

_IGNORED = frozenset({"tlir.parallel_extent"})


class _Side:
    """One module's values, numbered in walk order."""

    def __init__(self, module: ModuleOp):
        self.numbers: dict[SSAValue, int] = {}
        self.flat = _flat_arguments(module)

    def number(self, values) -> None:
        for value in values:
            self.numbers[value] = len(self.numbers)


def _flat_arguments(module: ModuleOp) -> set[SSAValue]:
    flat = set()
    for function in module.ops:
        if isinstance(function, func.FuncOp) and function.body.blocks:
            for arg in function.body.block.args:
                uses = [use.operation for use in arg.uses]
                if uses and all(isinstance(op, memref.CollapseShapeOp) for op in uses):
                    flat.add(arg)
    return flat


def _same_type(a: Attribute, b: Attribute, every_extent: bool) -> bool:
    if isinstance(a, MemRefType) and isinstance(b, MemRefType):
        s0, s1 = a.get_shape(), b.get_shape()
        if a.element_type != b.element_type or a.layout != b.layout or len(s0) != len(s1):
            return False
        return every_extent or s0[1:] == s1[1:]
    return a == b


def _same_function_type(a: FunctionType, b: FunctionType, flat: list[bool], generated: bool):
    if len(a.inputs.data) != len(b.inputs.data) or a.outputs != b.outputs:
        return False
    flat = flat or [False] * len(a.inputs.data)  # a declaration (a libm function's) has no body
    return all(
        _same_type(x, y, generated or f)
        for x, y, f in zip(a.inputs.data, b.inputs.data, flat, strict=True)
    )


def _same_attribute(op: Operation, key: str, a: Attribute, b: Attribute, args, generated) -> bool:
    if key in _IGNORED:
        return True
    if isinstance(a, FunctionType) and isinstance(b, FunctionType):
        return _same_function_type(a, b, args, generated)
    if isinstance(op, memref.SubviewOp) and key == "static_sizes":
        return a.get_values()[1:] == b.get_values()[1:]  # type: ignore[attr-defined]
    return a == b


def _same_op(a: Operation, b: Operation, left: _Side, right: _Side, generated: bool) -> bool:
    if (a.name, len(a.operands), len(a.results), len(a.regions)) != (
        b.name,
        len(b.operands),
        len(b.results),
        len(b.regions),
    ):
        return False
    if [left.numbers.get(v) for v in a.operands] != [right.numbers.get(v) for v in b.operands]:
        return False
    for x, y in zip(a.results, b.results, strict=True):
        if not _same_type(x.type, y.type, generated):
            return False
    args: list[bool] = []
    if isinstance(a, func.FuncOp) and a.body.blocks:
        args = [v in left.flat for v in a.body.block.args]
        if args != [v in right.flat for v in b.body.block.args]:
            return False
    for mine, theirs in ((a.properties, b.properties), (a.attributes, b.attributes)):
        if mine.keys() != theirs.keys():
            return False
        for key, value in mine.items():
            if not _same_attribute(a, key, value, theirs[key], args, generated):
                return False
    for r0, r1 in zip(a.regions, b.regions, strict=True):
        if len(r0.blocks) != len(r1.blocks):
            return False
        for b0, b1 in zip(r0.blocks, r1.blocks, strict=True):
            if len(b0.args) != len(b1.args):
                return False
            for x, y in zip(b0.args, b1.args, strict=True):
                if not _same_type(x.type, y.type, generated or x in left.flat):
                    return False
            left.number(b0.args)
            right.number(b1.args)
    left.number(a.results)
    right.number(b.results)
    return True


def same_code(m0: ModuleOp, m1: ModuleOp, generated: bool = False) -> bool:
    """Whether the loops `m0` and `m1` of one kernel at two batches are the same
    code but for what cannot depend on the batch (see the module's docstring)."""
    left, right = _Side(m0), _Side(m1)
    ops0, ops1 = list(m0.walk()), list(m1.walk())
    if len(ops0) != len(ops1):
        return False
    return all(_same_op(a, b, left, right, generated) for a, b in zip(ops0, ops1, strict=True))


__all__ = ["same_code"]
