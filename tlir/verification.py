"""Interval bound propagation on a compiled model, and IBP certificates
(docs/verification.md).

`CompiledModel.ibp` calls the compiled `@main_ibp` (`tlir-ibp`) and turns its
statuses into None boxes and reasons; `ibp_ball` seeds it with TorchLean's ℓ∞
box. A certificate is TorchLean's IBP output certificate: the output box with
the input box it was computed from, every endpoint a decimal that reads back to
the same double.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tlir.bounds import ball, outward, unresolved_message
from tlir.diagnostics import TlirError
from tlir.interface import numpy_dtype


@dataclass
class IbpResult:
    """Per output: its lower and upper bounds (None where unresolved) and, for
    an unresolved one, why (`model.json: node 4 (tlir.exp): no interval rule …`)."""

    lowers: list[np.ndarray | None]
    uppers: list[np.ndarray | None]
    reasons: list[str | None]


def input_boxes(function_op, lowers, uppers, where: str) -> list[np.ndarray]:
    """The boxes as the compiled function takes them: one per input, of its
    shape; in the carrier exactly, or rounded outward (a float64 box of an f32
    model: lower ends down, upper ends up)."""
    types = function_op.function_type.inputs.data
    lowers, uppers = list(lowers), list(uppers)
    if len(lowers) != len(types) or len(uppers) != len(types):
        raise TlirError(
            where, f"expected {len(types)} lower and {len(types)} upper bounds (one per "
            f"input), got {len(lowers)} and {len(uppers)}"
        )  # fmt: skip
    arrays: list[list[np.ndarray]] = [[], []]
    for side, (values, lower) in enumerate(((lowers, True), (uppers, False))):
        for k, (value, typ) in enumerate(zip(values, types, strict=True)):
            arrays[side].append(_box_end(value, typ, lower, k, where))
    return arrays[0] + arrays[1]


def _box_end(value, typ, lower: bool, k: int, where: str) -> np.ndarray:
    """One end of an input box in the carrier (outward where it cannot hold it)."""
    shape, dtype = tuple(typ.get_shape()), numpy_dtype(typ)
    source = np.asarray(value)
    if source.shape != shape:
        what = "lower" if lower else "upper"
        raise TlirError(
            where, f"{what} bound {k} has shape {list(source.shape)}, expected {list(shape)}"
        )
    if source.dtype == dtype:
        return source if source.flags.c_contiguous else source.copy(order="C")
    try:
        wide = source.astype(np.float64)
    except (TypeError, ValueError):
        raise TlirError(where, f"bound {k} is not an array of numbers") from None
    return outward(wide, dtype, lower).copy(order="C")


def ball_boxes(function_op, inputs: Sequence[np.ndarray], eps, where: str, rules="torchlean"):
    types = function_op.function_type.inputs.data
    inputs = list(inputs)
    if len(inputs) != len(types):
        raise TlirError(where, f"expected {len(types)} inputs, got {len(inputs)}")
    lows, highs = [], []
    for k, (value, typ) in enumerate(zip(inputs, types, strict=True)):
        array = np.asarray(value)
        if array.shape != tuple(typ.get_shape()):
            raise TlirError(
                where, f"input {k} has shape {list(array.shape)}, expected "
                f"{list(typ.get_shape())}"
            )  # fmt: skip
        lo, hi = ball(array, eps, numpy_dtype(typ), where, rules)
        lows.append(lo)
        highs.append(hi)
    return lows, highs


def interpret(function_op, results: list[np.ndarray], rules: str = "torchlean") -> IbpResult:
    """Split `@main_ibp`'s results and replace unresolved outputs by None."""
    count = len(results) // 3
    lowers, uppers, statuses = results[:count], results[count : 2 * count], results[2 * count :]
    out = IbpResult([], [], [])
    for lo, hi, status in zip(lowers, uppers, statuses, strict=True):
        value = float(status[()])
        if math.isinf(value) and value > 0:
            out.lowers.append(lo)
            out.uppers.append(hi)
            out.reasons.append(None)
            continue
        out.lowers.append(None)
        out.uppers.append(None)
        out.reasons.append(unresolved_reason(function_op, int(value), lo.dtype, rules))
    return out


def unresolved_reason(function_op, index: int, dtype: np.dtype, rules: str = "torchlean") -> str:
    """Why an output whose status is `index` has no box: the op at `index` of
    the model's function (`tlir.bounds.unresolved_message`)."""
    op = next(op for k, op in enumerate(function_op.body.block.ops) if k == index)
    return unresolved_message(op, index, dtype, rules)


# --- certificates ---------------------------------------------------------------------

FORMAT_KEYS = ("graph", "input_box", "result")


def certificate(
    graph: str, input_lo, input_hi, output_lo, output_hi, node_id: int, input_id: int = 0
) -> dict:
    """TorchLean's IBP output certificate (`IBPCert`): the output box of node
    `node_id` and the input box, flat, every endpoint as the shortest decimal
    that reads back to the same double."""
    lo, hi = np.asarray(input_lo).reshape(-1), np.asarray(input_hi).reshape(-1)
    out_lo, out_hi = np.asarray(output_lo).reshape(-1), np.asarray(output_hi).reshape(-1)
    return {
        "graph": graph,
        "input_box": {"id": input_id, "dim": int(lo.size), "lo": _floats(lo), "hi": _floats(hi)},
        "result": {
            "node_id": node_id, "dim": int(out_lo.size), "lo": _floats(out_lo),
            "hi": _floats(out_hi),
        },
    }  # fmt: skip


def _floats(values: np.ndarray) -> list[float]:
    return [float(v) for v in values.astype(np.float64)]


def certificate_text(document: dict) -> str:
    return json.dumps(document, indent=1, allow_nan=False) + "\n"


def read_certificate(text: str, where: str) -> dict:
    """A certificate's `result` box, checked: `{"node_id", "lo", "hi"}` with the
    endpoints rounded once into binary64, lower ends toward -inf and upper
    ends toward +inf, all finite, `dim` entries each, lo ≤ hi."""
    try:
        document = json.loads(text, parse_float=_Number, parse_int=_Number)
    except json.JSONDecodeError as err:
        raise TlirError(where, f"not JSON: {err.msg} at line {err.lineno}") from None
    if not isinstance(document, dict) or not isinstance(document.get("result"), dict):
        raise TlirError(where, "a certificate is an object with a 'result' object")
    result = document["result"]
    for key in ("dim", "lo", "hi"):
        if key not in result:
            raise TlirError(where, f"result: missing field '{key}'")
    dim = _natural(result["dim"], "result.dim", where)
    node = _natural(result.get("node_id", _Number("0")), "result.node_id", where)
    lo = _endpoints(result["lo"], dim, True, "result.lo", where)
    hi = _endpoints(result["hi"], dim, False, "result.hi", where)
    if np.any(hi < lo):
        k = int(np.argmax(hi < lo))
        raise TlirError(where, f"result: coordinate {k} has lo > hi")
    return {"node_id": node, "lo": lo, "hi": hi}


class _Number(str):
    """A JSON number's text (JSON strings stay `str`, so they are told apart)."""


_DIGITS = re.compile(r"[0-9]+")
"""A natural number's text: ASCII digits (`str.isdigit` takes '²' too)."""


def _natural(value, what: str, where: str) -> int:
    if not isinstance(value, _Number) or not _DIGITS.fullmatch(value):
        raise TlirError(where, f"{what} must be a natural number, got {value!r}")
    return int(value)


def _endpoints(values, dim: int, lower: bool, what: str, where: str) -> np.ndarray:
    from fractions import Fraction

    if not isinstance(values, list) or len(values) != dim:
        raise TlirError(where, f"{what} must be a list of {dim} numbers")
    out = np.empty(dim, np.float64)
    for k, text in enumerate(values):
        if not isinstance(text, _Number):
            raise TlirError(where, f"{what}[{k}] is not a number")
        try:
            exact = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise TlirError(where, f"{what}[{k}] is not a decimal number: {text!r}") from None
        near = float(text)
        if not math.isfinite(near):
            raise TlirError(where, f"{what}[{k}] is not finite")
        if lower and Fraction(near) > exact:
            near = math.nextafter(near, -math.inf)
        elif not lower and Fraction(near) < exact:
            near = math.nextafter(near, math.inf)
        if not math.isfinite(near):
            raise TlirError(where, f"{what}[{k}] is not finite")
        out[k] = near
    return out


def check_certificate(
    claimed: dict, lo: np.ndarray | None, hi: np.ndarray | None, where: str
) -> None:
    """Accept iff the computed box exists, has the certificate's size and lies
    inside it (`claimed.lo ≤ lo`, `hi ≤ claimed.hi`); else a one-line error
    naming the first offending coordinate and its bits."""
    if lo is None or hi is None:
        raise TlirError(where, "the output has no box, so no certificate holds")
    lo, hi = np.asarray(lo, np.float64).reshape(-1), np.asarray(hi, np.float64).reshape(-1)
    if lo.size != claimed["lo"].size:
        raise TlirError(where, f"the certificate has {claimed['lo'].size} coordinates, the "
                        f"output {lo.size}")  # fmt: skip
    bad = ~((claimed["lo"] <= lo) & (hi <= claimed["hi"]))
    if np.any(bad):
        k = int(np.argmax(bad))
        raise TlirError(
            where, f"coordinate {k}: computed [{lo[k]!r}, {hi[k]!r}] ({lo[k].hex()}, "
            f"{hi[k].hex()}) is not inside [{claimed['lo'][k]!r}, {claimed['hi'][k]!r}]"
        )  # fmt: skip
