"""Payloads computed from constants, folded into constants before export.

A JSON node carries its weights inline, so each payload operand (a linear or
conv weight, a bias, a norm's gamma/beta/statistics) must be a `tlir.const`.
The front ends keep parameters in the source framework's layout and compute
TorchLean's inside the function with exact ops: a grouped conv's packed weight
is concatenated and masked into the dense block-diagonal one, attention's
`in_proj_weight` is sliced by a 0/1 selection matmul. When no function input
(and no random op) reaches such an operand, its sub-graph is evaluated here
with the reference evaluator, in the module's carrier, giving the bits the
compiled model computes, and the result replaces the operand; the ops left
without a use are dropped. An operand that depends on an input stays, and
the exporter refuses it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from tlir.dense import dense_to_numpy, numpy_to_dense
from tlir.dialects import tlir as T
from tlir.interface import find_function

_NOT_FOLDED = (T.RandUniformOp, T.BernoulliMaskOp, T.CustomOp)
"""Ops whose result is not a function of their operands alone (a random op's
numbers belong to its node id) or that call into the module: never folded,
nor is an op of another dialect (the exporter refuses it as it stands)."""


def fold_payloads(
    module: ModuleOp, payload_names: Callable[[Operation], tuple[str, ...]], where: str
) -> ModuleOp:
    """`module`, or a copy of it whose payload operands computed only from
    constants are constants."""
    if not _foldable_payloads(find_function(module), payload_names):
        return module
    module = module.clone()
    function = find_function(module)
    folder = _Folder(where)
    consts: dict[SSAValue, T.ConstOp] = {}  # one constant per folded value
    for consumer, name in _foldable_payloads(function, payload_names):
        value = getattr(consumer, name)
        if value not in consts:
            consts[value] = T.ConstOp.create(
                properties={"value": numpy_to_dense(folder.value(value), value.type)},
                result_types=[value.type],
            )
            consumer.parent_block().insert_op_before(consts[value], consumer)
        const = consts[value].result
        consumer.operands = [const if v is value else v for v in consumer.operands]
    _drop_dead(folder.folded)
    return module


def _foldable_payloads(
    function: func.FuncOp, payload_names: Callable[[Operation], tuple[str, ...]]
) -> list[tuple[Operation, str]]:
    """Each (op, operand name) whose operand is computed, from constants only."""
    constant: dict[SSAValue, bool] = {}
    found = []
    for op in function.body.block.ops:
        computable = isinstance(op, T.TlirOp) and not isinstance(op, _NOT_FOLDED)
        known = computable and all(constant.get(v, False) for v in op.operands)
        constant.update((result, known) for result in op.results)
        for name in payload_names(op):
            value = getattr(op, name)
            if value is not None and constant.get(value) and not isinstance(value.owner, T.ConstOp):
                found.append((op, name))
    return found


class _Folder:
    """Values of constant sub-graphs, each op evaluated once."""

    def __init__(self, where: str):
        self.where = where
        self.values: dict[SSAValue, np.ndarray] = {}
        self.folded: list[Operation] = []

    def value(self, value: SSAValue) -> np.ndarray:
        from tlir.reference.ops import evaluate_op

        if value in self.values:
            return self.values[value]
        op = value.owner
        assert isinstance(op, Operation)  # a block argument is no constant
        if isinstance(op, T.ConstOp):
            self.values[value] = dense_to_numpy(op.value)
        else:
            args = [self.value(v) for v in op.operands]
            self.values.update(zip(op.results, evaluate_op(op, args, self.where), strict=True))
            self.folded.append(op)
        return self.values[value]


def _drop_dead(folded: list[Operation]) -> None:
    """Erase the folded ops, and the constants they read, that nothing uses
    now; an op that was dead before folding stays (it is a node of the graph)."""
    pending = list(reversed(folded))  # users before what they read
    while pending:
        op = pending.pop(0)
        if op.parent is None or any(r.uses.get_length() for r in op.results):
            continue
        readers = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        op.detach()
        op.erase()
        pending.extend(r for r in readers if isinstance(r, T.ConstOp))
