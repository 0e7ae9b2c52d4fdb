"""CROWN: bounds of a linear objective `C·y` of a model's output over an input
box, by pushing `C` backward through the function to the input
(docs/verification.md#crown).

`crown(module, lower, upper, objective, mode)` for a function with one input
and one output:

* `mode="torchlean"` is TorchLean's directed backward sweep bit for bit:
  interval coefficients, ops in reverse order, linear / matmul with a point
  operand / conv (its dense matrix) pushed through, structural ops moved,
  every other op discharged against its IBP box; the finish with the input
  correction, concretised on the input box. If the sweep fails (a box it needs
  is unresolved), the objective is discharged against the output's box.
* `mode="relu"` (`tlir.reference.crown_relu`) also relaxes ReLUs, with every
  ReLU's pre-activation bounds tightened by a sweep of their own, in float64
  point coefficients whose rounding errors are discharged as they happen; it
  runs TorchLean's IBP only when its bounds might leave IBP's.

Every objective row is one sweep; rows run together as the rows of the
coefficient matrices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.interface import find_function, numpy_dtype
from tlir.optable import OpTable
from tlir.reference import crown_maps as maps
from tlir.reference.ibp import boxes as ibp_boxes
from tlir.reference.interval import (
    Box,
    add_down,
    add_up,
    fold,
    interval_mul,
    max2,
    min2,
    mul_down,
    mul_up,
    sub_down,
    sub_up,
)

MODES = ("torchlean", "relu")


@dataclass
class Sweep:
    """Interval coefficients per value (rows × flat size) and the constant."""

    boxes: dict[SSAValue, Box | None]
    coeffs: dict[SSAValue, Box] = field(default_factory=dict)
    k_lo: np.ndarray | None = None
    k_hi: np.ndarray | None = None

    def add(self, value: SSAValue, lo: np.ndarray, hi: np.ndarray) -> None:
        """TorchLean's `addDirectedCoeff`: the first contribution is taken as is."""
        if value in self.coeffs:
            old_lo, old_hi = self.coeffs[value]
            lo, hi = add_down(old_lo, lo), add_up(old_hi, hi)
        self.coeffs[value] = (lo, hi)

    def constant(self, lo: np.ndarray, hi: np.ndarray) -> None:
        self.k_lo, self.k_hi = add_down(self.k_lo, lo), add_up(self.k_hi, hi)

    def box(self, value: SSAValue) -> Box:
        found = self.boxes.get(value)
        if found is None:
            raise maps.SweepFailed()
        return tuple(b.reshape(-1) for b in found)

    def discharge(self, coefficient: Box, value: SSAValue) -> None:
        lo, hi = self.box(value)
        self.constant(*directed_dot(coefficient, lo, hi))


def directed_dot(coefficient: Box, lo: np.ndarray, hi: np.ndarray) -> Box:
    """TorchLean's `directedDotBox` per row: interval products, folded from 0."""
    t_lo, t_hi = interval_mul(coefficient[0], coefficient[1], lo[np.newaxis], hi[np.newaxis])
    return fold(t_lo, t_hi, 1)


def directed_times(coefficient: Box, matrix: np.ndarray) -> Box:
    """TorchLean's `directedBackwardLinear` coefficients: for each column `j`,
    from (0, 0), `interval_mul(a_i, M[i, j])` added for `i` ascending."""
    a_lo, a_hi = coefficient
    rows = a_lo.shape[0]
    acc_lo = np.zeros((rows, matrix.shape[1]), a_lo.dtype)
    acc_hi = np.zeros_like(acc_lo)
    for i in range(matrix.shape[0]):
        w = matrix[i][np.newaxis]
        p_lo, p_hi = interval_mul(a_lo[:, i, np.newaxis], a_hi[:, i, np.newaxis], w, w)
        acc_lo, acc_hi = add_down(acc_lo, p_lo), add_up(acc_hi, p_hi)
    return acc_lo, acc_hi


# --- the torchlean rules: op, its coefficient, the sweep -------------------------------

TORCHLEAN_RULES: OpTable = OpTable("directed CROWN rule")


_discharge = maps.discharge_rule
for _op in maps.PASS_THROUGH:
    TORCHLEAN_RULES.add(_op, maps.pass_through_rule)
TORCHLEAN_RULES.add(T.AddOp, maps.add_rule)


@TORCHLEAN_RULES.register(T.SubOp)
def _sub(op, a, sweep):
    sweep.add(op.operands[0], *a)
    zero = a[0].dtype.type(0)
    sweep.add(op.operands[1], sub_down(zero, a[1]), sub_up(zero, a[0]))


def _operand_boxes(op: Operation, sweep: Sweep) -> list[Box | None]:
    return [sweep.boxes.get(v) for v in op.operands]


@TORCHLEAN_RULES.register(T.LinearOp)
def _linear(op, a, sweep):
    """Every leading row of the input is TorchLean's vector `linear`: its
    coefficients from the row's, its bias constant added row after row."""
    found = maps.linear_rows(op, _operand_boxes(op, sweep))
    if found is None:
        return _discharge(op, a, sweep)
    weight, bias = found
    rows, (m, n) = a[0].shape[0], weight.shape
    lead = a[0].shape[1] // m
    per_row = tuple(x.reshape(rows * lead, m) for x in a)
    lo, hi = directed_times(per_row, weight)
    sweep.add(op.operands[0], lo.reshape(rows, lead * n), hi.reshape(rows, lead * n))
    for r in range(lead):
        piece = tuple(x.reshape(rows, lead, m)[:, r] for x in a)
        sweep.constant(*directed_dot(piece, bias, bias))


@TORCHLEAN_RULES.register(T.MatmulOp, T.ConvOp)
def _dense(op, a, sweep):
    """A matmul with a point operand (its zero bias too), a conv with its dense
    matrix and broadcast bias; otherwise discharged."""
    found = maps.linear_map(op, _operand_boxes(op, sweep))
    if found is None:
        return _discharge(op, a, sweep)
    sweep.add(op.operands[found.operand], *directed_times(a, found.matrix))
    sweep.constant(*directed_dot(a, found.bias, found.bias))


@TORCHLEAN_RULES.register(T.SumOp)
def _sum(op, a, sweep):
    lo, hi = sweep.box(op.operands[0])
    shape = (a[0].shape[0], lo.size)
    sweep.add(op.operands[0], *(np.broadcast_to(x[:, :1], shape).copy() for x in a))


@TORCHLEAN_RULES.register(*maps.INDEX_MAPS)
def _moved(op, a, sweep):
    if isinstance(op, T.ConcatOp):
        for v in op.operands:
            sweep.box(v)  # TorchLean's layout check reads every parent's box
    for operand, (out_pos, in_pos) in zip(op.operands, maps.index_map(op), strict=True):
        n = maps.size(operand)
        sweep.add(operand, *(maps.pull_back(x, out_pos, in_pos, n) for x in a))


def run_sweep(ops: list[Operation], start: SSAValue, objective: np.ndarray, sweep: Sweep) -> None:
    """Ops in reverse order from the one defining `start`; each with a
    coefficient consumes it by its rule (discharged where it has none)."""
    sweep.coeffs[start] = (objective, objective.copy())
    maps.walk_back(ops, TORCHLEAN_RULES, sweep)


def coefficient_affine(x_lo, x_hi, a: Box) -> tuple[Box, Box]:
    """TorchLean's `directedCoeffAffine` per input cell, with the corrections
    folded from 0: ((lower row, lower correction), (upper row, upper correction))."""
    a_lo, a_hi = a
    nonnegative = ~(x_lo < 0)
    nonpositive = ~nonnegative & ~(x_hi > 0)
    lower = np.where(nonpositive, a_hi, a_lo)
    upper = np.where(nonpositive, a_lo, a_hi)
    straddles = ~nonnegative & ~nonpositive
    zero = a_lo.dtype.type(0)
    c_lo = np.where(straddles, mul_down(sub_up(a_hi, a_lo), x_lo), zero)
    c_hi = np.where(straddles, mul_up(sub_down(a_lo, a_hi), x_lo), zero)
    return (lower, fold(c_lo, c_lo, 1)[0]), (upper, fold(c_hi, c_hi, 1)[1])


def evaluate_on_box(row: np.ndarray, c: np.ndarray, x_lo, x_hi, lower: bool) -> np.ndarray:
    """TorchLean's `evalOnBox` of `row·x + c`: endpoint products folded from 0, then c."""
    if lower:
        terms = min2(mul_down(row, x_lo), mul_down(row, x_hi))
        return add_down(fold(terms, terms, 1)[0], c)
    terms = max2(mul_up(row, x_lo), mul_up(row, x_hi))
    return add_up(fold(terms, terms, 1)[1], c)


def output_box_objective(objective: np.ndarray, box: Box, n_in: int, x_lo, x_hi):
    """TorchLean's fallback: the objective against the output's box (endpoint
    by the coefficient's sign, directed products folded from 0), as a constant
    affine form evaluated on the input box."""
    lo, hi = (b.reshape(-1)[np.newaxis] for b in box)
    positive = objective > 0
    low = mul_down(objective, np.where(positive, lo, hi))
    high = mul_up(objective, np.where(positive, hi, lo))
    zeros = np.zeros((objective.shape[0], n_in), objective.dtype)
    return (
        evaluate_on_box(zeros, fold(low, low, 1)[0], x_lo, x_hi, True),
        evaluate_on_box(zeros, fold(high, high, 1)[1], x_lo, x_hi, False),
    )


def torchlean_crown(target: func.FuncOp, boxes, objective: np.ndarray):
    """TorchLean's `runCROWNBackwardObjective` (directed) and its concretisation."""
    ops = list(target.body.block.ops)
    (x,), (y,) = target.body.block.args, ops[-1].operands
    x_lo, x_hi = (b.reshape(-1) for b in boxes[x])
    rows, dtype = objective.shape[0], objective.dtype
    sweep = Sweep(boxes, k_lo=np.zeros(rows, dtype), k_hi=np.zeros(rows, dtype))
    try:
        run_sweep(ops[:-1], y, objective, sweep)
    except maps.SweepFailed:
        if boxes.get(y) is None:
            return None, None
        return output_box_objective(objective, boxes[y], x_lo.size, x_lo, x_hi)
    zeros = np.zeros((rows, x_lo.size), dtype)
    a = sweep.coeffs.get(x, (zeros, zeros))
    (low_row, low_c), (high_row, high_c) = coefficient_affine(x_lo, x_hi, a)
    k_lo, k_hi = add_down(sweep.k_lo, low_c), add_up(sweep.k_hi, high_c)
    return (
        evaluate_on_box(low_row, k_lo, x_lo, x_hi, True),
        evaluate_on_box(high_row, k_hi, x_lo, x_hi, False),
    )


# --- the entry ---------------------------------------------------------------------------


def single_input_output(target: func.FuncOp, where: str) -> None:
    ins = len(target.function_type.inputs.data)
    outs = len(target.function_type.outputs.data)
    if ins != 1 or outs != 1:
        counts = f"{ins} input{'s' * (ins != 1)} and {outs} output{'s' * (outs != 1)}"
        raise TlirError(
            where, f"CROWN needs a model with one input and one output, this one has {counts}"
        )


def checked_objective(objective, out_size: int, dtype: np.dtype, where: str) -> np.ndarray:
    """`C` as rows × output size in the carrier, exactly (an objective the carrier
    cannot hold would be a different objective)."""
    if objective is None:
        return np.eye(out_size, dtype=dtype)
    try:
        wide = np.asarray(objective, np.float64)
    except (TypeError, ValueError):
        raise TlirError(where, "the objective is not an array of numbers") from None
    if wide.ndim != 2 or wide.shape[1] != out_size:
        raise TlirError(
            where, f"the objective has shape {list(wide.shape)}, expected [rows, {out_size}]"
        )  # fmt: skip
    if not np.all(np.isfinite(wide)):
        raise TlirError(where, "the objective has a value that is not finite")
    narrow = wide.astype(dtype)
    if not np.array_equal(narrow.astype(np.float64), wide):
        raise TlirError(where, f"the objective has a value that {dtype} cannot hold exactly")
    return np.ascontiguousarray(narrow)


def check_coefficient_bytes(target: func.FuncOp, objective: np.ndarray, mode: str,
                            where: str) -> None:  # fmt: skip
    """A sweep's coefficient matrix (a row per objective row; in relu mode two
    float64 rows, lower and upper, per objective row or per ReLU operand cell
    it tightens; a column per cell of a value) must fit the tensor limit, as
    any tensor of a model must."""
    from tlir.limits import check_total_bytes

    ops = list(target.body.block.ops)
    varying = set(target.body.block.args)  # a constant's coefficient has a varying twin
    for op in ops:
        if any(v in varying for v in op.operands):
            varying.update(op.results)
    widest = max((maps.size(v) for v in varying), default=0)
    rows, itemsize = objective.shape[0], objective.itemsize
    if mode == "relu":  # a float64 row per bound, lower and upper
        relus = [maps.size(op.operands[0]) for op in ops if isinstance(op, T.ReluOp)]
        rows, itemsize = 2 * max([rows, *relus]), 8
    what = f"a CROWN coefficient matrix of {rows} rows × {widest} cells"
    check_total_bytes(rows * widest * itemsize, what, where)


def _relu_mode(module, target: func.FuncOp, lower, upper, objective, c, where: str, rules: str):
    """relu mode reads the IBP box of the output (under `rules`) only when its
    own bounds might leave it (`tlir.reference.crown_relu.within_ibp`)."""
    from tlir.reference.crown_relu import relu_crown
    from tlir.reference.ibp import checked_boxes

    ((x_lo, x_hi),) = checked_boxes(target, [lower], [upper], where)
    (y,) = list(target.body.block.ops)[-1].operands

    def reference_box():
        boxes = ibp_boxes(module, [lower], [upper], target.sym_name.data, where, rules).boxes
        return boxes.get(y)

    return relu_crown(target, (x_lo, x_hi), None if objective is None else c, reference_box)


def crown(
    module, lower, upper, objective=None, mode: str = "torchlean", function: str = "main",
    where: str = "input", rules: str = "torchlean",
) -> tuple[np.ndarray | None, np.ndarray | None]:  # fmt: skip
    """Lower and upper bounds of `C·y` (`C` rows × |y|, default the identity:
    then the bounds have y's shape) over the box `[lower, upper]` of the
    input; (None, None) where no bound can be given (an unresolved output).
    `rules`: the IBP rules ("torchlean" or "tight") of the boxes."""
    if mode not in MODES:
        raise TlirError(where, f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    target = find_function(module, function)
    single_input_output(target, where)
    out_type = target.function_type.outputs.data[0]
    dtype = numpy_dtype(out_type)
    out_shape = tuple(out_type.get_shape())
    c = checked_objective(objective, int(np.prod(out_shape, dtype=np.int64)), dtype, where)
    check_coefficient_bytes(target, c, mode, where)
    with np.errstate(all="ignore"):  # NaN and infinite ends flow as the rules say
        if mode == "torchlean":
            found = ibp_boxes(module, [lower], [upper], function, where, rules).boxes
            lo, hi = torchlean_crown(target, found, c)
        else:
            lo, hi = _relu_mode(module, target, lower, upper, objective, c, where, rules)
    if lo is None or objective is not None:
        return lo, hi
    return lo.reshape(out_shape), hi.reshape(out_shape)


__all__ = ["MODES", "crown", "directed_dot", "directed_times", "torchlean_crown"]
