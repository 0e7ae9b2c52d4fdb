"""CROWN bounds of a compiled model (docs/verification.md#crown).

`CompiledModel.crown` and `tlir-run --crown` come here: the input box checked
and, for an f32 model given a float64 box, rounded outward, then the reference
sweeps (`tlir.reference.crown`) on the model's function with its current
parameters. The sweeps need the box of every value, which only the reference
IBP gives (the compiled `@main_ibp` returns the outputs' boxes; the two are
bit-identical).
"""

from __future__ import annotations

import numpy as np

from tlir.diagnostics import TlirError


def model_crown(
    function_op, module, lowers, uppers, objective, mode: str, where: str,
    rules: str = "torchlean",
):  # fmt: skip
    """`(lower, upper)` of `C·y` for the one input's box `[lowers[0], uppers[0]]`
    (`rules`: the IBP rules of the boxes the sweeps discharge nodes against)."""
    from tlir.reference.crown import crown, single_input_output
    from tlir.verification import input_boxes

    single_input_output(function_op, where)
    boxes = input_boxes(function_op, lowers, uppers, where)
    if np.any(boxes[1] < boxes[0]):
        raise TlirError(where, "the input box has a lower bound above its upper bound")
    name = function_op.sym_name.data
    return crown(module, boxes[0], boxes[1], objective, mode, name, where, rules)


def model_crown_ball(
    function_op, module, inputs, eps, objective, mode: str, where: str, rules: str = "torchlean"
):
    """`model_crown` on TorchLean's ℓ∞ box of radius `eps` around the input."""
    from tlir.reference.crown import single_input_output
    from tlir.tight import check_rules
    from tlir.verification import ball_boxes

    single_input_output(function_op, where)
    lows, highs = ball_boxes(function_op, inputs, eps, where, check_rules(rules, where))
    return model_crown(function_op, module, lows, highs, objective, mode, where, rules)


__all__ = ["model_crown", "model_crown_ball"]
