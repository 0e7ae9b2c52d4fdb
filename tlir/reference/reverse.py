"""Reference reverse mode (docs/autodiff.md#reverse-mode; D3–D10 of
docs/autodiff.md#choices-beyond-torchlean) in NumPy.

`vjp(module, inputs, cotangents, wrt="all")` returns `[y…, dx…, dparams…]`, what
`tlir-vjp`'s `@main_vjp` returns. The forward values come from the forward
evaluators; the sweep visits ops last to first and runs a rule only for an op
whose result a cotangent reached; contributions arrive in operand order, the
first one stored as is and later ones added as existing + new (D7); leaves no
cotangent reaches get +0. The rules (here and in `vjp_rules`) restate the rules of
docs/autodiff.md#reverse-mode and
share no code with the pass's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.traits import SymbolTable

from tlir.dialects import tlir as T
from tlir.interface import check_inputs, find_function, numpy_dtype
from tlir.parameters import parameters
from tlir.reference import vjp_windows  # noqa: F401 - fills RULES
from tlir.reference.ops import evaluate_op
from tlir.reference.vjp_rules import RULES, Context, rule


def _forward(function: func.FuncOp, inputs: Sequence[np.ndarray]) -> dict[SSAValue, np.ndarray]:
    values: dict[SSAValue, np.ndarray] = dict(zip(function.body.block.args, inputs, strict=True))
    for op in function.body.block.ops:
        if isinstance(op, func.ReturnOp):
            break
        # the forward evaluator's own step (empty results included)
        (result,) = evaluate_op(op, [values[v] for v in op.operands], "input")
        values[op.results[0]] = result.reshape(op.results[0].type.get_shape())
    return values


def sweep(
    function: func.FuncOp,
    values: dict[SSAValue, np.ndarray],
    seeds: Sequence[tuple[SSAValue, np.ndarray]],
) -> dict[SSAValue, np.ndarray]:
    """The reverse sweep from `seeds`; every reached value's cotangent."""
    cotangent: dict[SSAValue, np.ndarray] = {}

    def accumulate(value: SSAValue, new: np.ndarray) -> None:
        existing = cotangent.get(value)
        cotangent[value] = new if existing is None else existing + new

    for value, seed in seeds:
        accumulate(value, seed)
    ops = [op for op in function.body.block.ops if not isinstance(op, func.ReturnOp)]
    for op in reversed(ops):
        g = cotangent.get(op.results[0])
        if g is None or g.size == 0:  # no output depends on the operands: no contribution
            continue
        ctx = Context(op, [values[v] for v in op.operands], values[op.results[0]], g)
        with np.errstate(all="ignore"):
            contributions = RULES[type(op)](ctx)
        for operand, contribution in zip(op.operands, contributions, strict=False):
            if contribution is not None:
                dtype = numpy_dtype(operand.type)
                accumulate(
                    operand, np.asarray(contribution, dtype).reshape(operand.type.get_shape())
                )
    return cotangent


@rule(T.CustomOp)
def _custom(ctx: Context) -> list:
    """The callee's VJP with respect to its arguments (+0 where none reaches)."""
    op = ctx.op
    callee = SymbolTable.lookup_symbol(op, op.callee)
    assert isinstance(callee, func.FuncOp)
    values = _forward(callee, ctx.args)
    returned = callee.body.block.last_op
    cotangent = sweep(callee, values, [(returned.arguments[0], ctx.g)])
    return [
        _or_zero(cotangent, arg, value)
        for arg, value in zip(callee.body.block.args, ctx.args, strict=True)
    ]


def _or_zero(cotangent: dict, value: SSAValue, like: np.ndarray) -> np.ndarray:
    found = cotangent.get(value)
    return found if found is not None else np.zeros_like(like)


def vjp(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    cotangents: Sequence[np.ndarray],
    wrt: str = "all",
    function: str = "main",
) -> list[np.ndarray]:
    """`[y…, dx…, dparams…]` of `@function` at `inputs` for output cotangents
    `cotangents`; `wrt` selects `inputs`, `params` or `all`."""
    if wrt not in ("inputs", "params", "all"):
        raise ValueError(f"wrt must be inputs, params or all, got {wrt!r}")
    target = find_function(module, function)
    xs = check_inputs(target, inputs, "input")
    returned = target.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    if len(cotangents) != len(returned.arguments):
        raise ValueError(f"{len(returned.arguments)} outputs, got {len(cotangents)} cotangents")
    seeds = [
        np.asarray(c, numpy_dtype(v.type))
        for c, v in zip(cotangents, returned.arguments, strict=True)
    ]
    values = _forward(target, xs)
    outputs = [values[v].copy() for v in returned.arguments]
    cotangent = sweep(target, values, list(zip(returned.arguments, seeds, strict=True)))
    leaves: list[SSAValue] = []
    if wrt != "params":
        leaves += list(target.body.block.args)
    if wrt != "inputs":
        leaves += [c.result for c in parameters(target)]
    grads = [_or_zero(cotangent, leaf, values[leaf]) for leaf in leaves]
    return [np.array(a, order="C") for a in (*outputs, *grads)]
