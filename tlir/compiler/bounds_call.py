"""`CompiledModel.bounds` with as little Python per call as `__call__`: for a
small model the compiled bounds take a few microseconds, and the checks and
conversions around them were most of what a caller waited.

What a call does, in order (each as before, each cheaper):

* the rules checked (`tlir.tight.check_rules`; the default without a call);
* the boxes checked against the inputs' shapes and dtypes, precomputed once:
  an ndarray of the exact shape and dtype, C-contiguous, goes in as it is (no
  copy); anything else takes `tlir.verification.input_boxes` (a copy in C
  order, a box of another dtype rounded outward, or a one-line error);
* on a host with AVX-512 (`host_has_embedded_rounding`, asked at every call),
  the fast program; its statuses and checks come back as numbers read at once
  from its output buffer (`CompiledModel.run_split`), not as arrays; where a check
  is set, the exact program, as before;
* an output whose status is not +inf becomes None with its reason
  (`tlir.verification.unresolved_reason`, looked up once per op); the boxes
  are fresh arrays of this call.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

    from tlir.verification import IbpResult


class BoundsCall:
    """One model's `bounds`, its lookups done once (`CompiledModel.bounds`; a
    dynamic-batch model's at each batch, `tlir.compiler.dynamic`).

    `program(option)` is the compiled bounds function for `option` ("fast", or
    the rules): an object with `run_split` and `run_checked`, as a derived
    `CompiledModel`. `specs` are the inputs' (shape, dtype); `signature`, the
    function the slow checks read (`input_boxes`, `ball_boxes`: one-line
    errors), `function_op` by default; the statuses index `function_op`'s ops."""

    def __init__(
        self,
        where: str,
        function_op,
        specs: list[tuple[tuple[int, ...], np.dtype]],
        program: Callable[[str], object],
        signature: object = None,
    ) -> None:
        from tlir.bounds import ball
        from tlir.passes.directed_steps import host_has_embedded_rounding
        from tlir.tight import check_rules
        from tlir.verification import (
            IbpResult,
            ball_boxes,
            input_boxes,
            interpret,
            unresolved_reason,
        )

        self.where = where
        self.function_op = function_op
        self._signature = function_op if signature is None else signature
        self._specs = specs  # a box's ends have their input's type
        self._program = program
        self._outputs = len(function_op.function_type.outputs.data)
        self._check_rules = check_rules
        self._embedded_rounding = host_has_embedded_rounding
        self._input_boxes, self._interpret, self._result = input_boxes, interpret, IbpResult
        self._ball, self._ball_boxes = ball, ball_boxes
        self._unresolved_reason = unresolved_reason
        self._reasons: dict[tuple[int, np.dtype, str], str] = {}

    def __call__(self, lowers, uppers, rules: str) -> IbpResult:
        if type(rules) is not str or rules != "torchlean":
            rules = self._check_rules(rules, self.where)
        boxes = self._boxes(lowers, uppers)
        if rules == "torchlean" and self._embedded_rounding():
            # the fast path's bounds are the exact rule's wherever its checks
            # (after the statuses) are all zero, the usual case; else the exact
            # program computes them (docs/verification.md#performance)
            fast = self._program("fast")
            count = 2 * self._outputs
            arrays, numbers = fast.run_split(boxes, count)
            if not any(numbers[self._outputs :]):
                return self._split(arrays, numbers[: self._outputs], rules)
        results = self._program(rules).run_checked(boxes)
        return self._interpret(self.function_op, results, rules)

    def ball(self, inputs, eps, rules: str) -> IbpResult:
        """`ibp_ball`: TorchLean's ℓ∞ box around `inputs` (`tlir.bounds.ball`),
        the inputs' shapes checked against the precomputed ones."""
        if type(rules) is not str or rules != "torchlean":
            rules = self._check_rules(rules, self.where)
        specs = self._specs
        inputs = inputs if type(inputs) is list else list(inputs)
        if len(inputs) == len(specs) and all(
            type(x) is np.ndarray and x.shape == shape
            for x, (shape, _) in zip(inputs, specs, strict=True)
        ):
            ends = [
                self._ball(x, eps, dtype, self.where, rules)
                for x, (_, dtype) in zip(inputs, specs, strict=True)
            ]
            lows, highs = [low for low, _ in ends], [high for _, high in ends]
        else:
            lows, highs = self._ball_boxes(self._signature, inputs, eps, self.where, rules)
        return self(lows, highs, rules)

    def _boxes(self, lowers, uppers) -> list[np.ndarray]:
        """The boxes as the compiled function takes them: the arrays given when
        each has its input's exact shape and dtype and is C-contiguous."""
        specs = self._specs
        lowers = lowers if type(lowers) is list else list(lowers)
        uppers = uppers if type(uppers) is list else list(uppers)
        if len(lowers) == len(specs) == len(uppers):
            boxes = [*lowers, *uppers]
            if all(
                type(value) is np.ndarray
                and value.shape == shape
                and value.dtype == dtype
                and value.flags.c_contiguous
                for value, (shape, dtype) in zip(boxes, specs + specs, strict=True)
            ):
                return boxes
        return self._input_boxes(self._signature, lowers, uppers, self.where)

    def _split(self, arrays: list[np.ndarray], statuses: list[float], rules: str) -> IbpResult:
        """The result of the bounds function's arrays and statuses (+inf:
        resolved, else the index of the op that gave no box), as `interpret`."""
        count = self._outputs
        lowers, uppers = arrays[:count], arrays[count:]
        if statuses.count(math.inf) == count:
            return self._result(lowers, uppers, [None] * count)
        out = self._result([], [], [])
        for low, high, status in zip(lowers, uppers, statuses, strict=True):
            resolved = status == math.inf
            out.lowers.append(low if resolved else None)
            out.uppers.append(high if resolved else None)
            out.reasons.append(None if resolved else self._reason(int(status), low.dtype, rules))
        return out

    def _reason(self, index: int, dtype: np.dtype, rules: str) -> str:
        """`unresolved_reason`, once per op, dtype and rules: a model whose output
        is always unresolved (an op without a rule) would look it up at every call."""
        key = (index, dtype, rules)
        reason = self._reasons.get(key)
        if reason is None:
            reason = self._unresolved_reason(self.function_op, index, dtype, rules)
            self._reasons[key] = reason
        return reason


__all__ = ["BoundsCall"]
