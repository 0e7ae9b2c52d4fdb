"""Vector comparisons for the LLVM dialect, which xDSL 0.74 lacks.

xDSL's `llvm.fcmp` only takes scalars (its result is `i1`) and `llvm.select` only
takes an `i1` condition, so a vectorised `x ≤ 0 ? 0 : x` (Lean's relu, max, min,
clamp) cannot be written in its LLVM dialect. The `tlir_llvm` dialect adds the
two missing forms:

* `tlir_llvm.fcmp "ole" %a, %b : vector<4xf64>` → `fcmp ole <4 x double>` (result `vector<4xi1>`),
* `tlir_llvm.select %c, %a, %b : vector<4xi1>, vector<4xf64>` → `select <4 x i1> …`,

and `install()` teaches xDSL's LLVM IR translator (`xdsl.backend.llvm.convert`)
to translate them, by wrapping the translator's per-op dispatch from tlir's
code (site-packages stay untouched). Everything else goes to xDSL's own
translation.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import AnyFloatConstr, IntegerType, StringAttr, VectorType
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

FCMP_PREDICATES = ("oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
                   "ule", "une", "uno")  # fmt: skip

FloatVector = VectorType.constr(AnyFloatConstr)


@irdl_op_definition
class VectorFCmpOp(IRDLOperation):
    """`fcmp <pred> <N x float>`: one i1 per lane."""

    name = "tlir_llvm.fcmp"
    T: ClassVar = VarConstraint("T", FloatVector)
    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(VectorType)
    predicate = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = "$predicate $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($res)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, predicate: str):
        typ = lhs.type
        assert isinstance(typ, VectorType)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[VectorType(IntegerType(1), typ.get_shape())],
            properties={"predicate": StringAttr(predicate)},
        )

    def verify_(self) -> None:
        if self.predicate.data not in FCMP_PREDICATES:
            raise VerifyException(f"unknown fcmp predicate {self.predicate.data}")
        if self.res.type != VectorType(IntegerType(1), self.lhs.type.get_shape()):
            raise VerifyException("result must be a vector of i1 of the operands' length")


@irdl_op_definition
class VectorSelectOp(IRDLOperation):
    """`select <N x i1>, <N x T>, <N x T>`: lane-wise choice."""

    name = "tlir_llvm.select"
    T: ClassVar = VarConstraint("T", VectorType.constr())
    cond = operand_def(VectorType)
    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($lhs)"

    def __init__(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[cond, lhs, rhs], result_types=[lhs.type])


TlirLLVM = Dialect("tlir_llvm", [VectorFCmpOp, VectorSelectOp])


def _translate(op: Operation, builder, val_map) -> bool:
    """Translate one of this dialect's ops with llvmlite; False for any other op."""
    if isinstance(op, VectorFCmpOp):
        from llvmlite.ir import instructions

        instr = instructions.FCMPInstr(
            builder.block, op.predicate.data, val_map[op.lhs], val_map[op.rhs]
        )
        builder._insert(instr)  # noqa: SLF001 - llvmlite's own way to add an instruction
        val_map[op.res] = instr
        return True
    if isinstance(op, VectorSelectOp):
        val_map[op.res] = builder.select(val_map[op.cond], val_map[op.lhs], val_map[op.rhs])
        return True
    return False


def install() -> None:
    """Make `xdsl.backend.llvm.convert.convert_module` translate tlir_llvm ops (idempotent)."""
    from xdsl.backend.llvm import convert

    original = convert.convert_op
    if getattr(original, "_tlir_llvm", False):
        return

    def convert_op(op, builder, val_map, block_map=None):
        if not _translate(op, builder, val_map):
            original(op, builder, val_map, block_map)

    convert_op._tlir_llvm = True  # type: ignore[attr-defined]
    convert.convert_op = convert_op
