"""Elementwise ops fused after a contraction: applied to each output tile right
after its last block of the fold, with the scalar bodies of the linalg lowering
(`SCALAR_BODIES`), so the semantics are the same code.

A step whose body is plain float arithmetic (`add`, `sub`, `mul_elem`, `inv`,
`abs`) runs on the accumulator vectors in registers. xDSL 0.74's `arith.cmpf` and
`arith.select` only take scalars (their result / condition is `i1`), so a body
with a comparison (relu, max, min, sqrt's clamp, sigmoid, …) cannot be built on
vectors; those steps, and every step after them, run element by element on the
tile just stored (in L1), as do calls of the C library (`exp`, `log`, `tanh`,
`sin`, `cos`), which stay one call per element. LLVM's loop vectorizer may turn
the compare/select loops into vector code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float64Type, VectorType
from xdsl.ir import Block, Operation, SSAValue

from tlir.passes.contraction_kernels.builder import Index, KernelBuilder
from tlir.passes.convert_tlir_to_linalg.elementwise import SCALAR_BODIES
from tlir.passes.convert_tlir_to_linalg.emit import Body

VECTOR_SAFE = (
    arith.AddfOp,
    arith.SubfOp,
    arith.MulfOp,
    arith.DivfOp,
    arith.NegfOp,
    arith.ConstantOp,
    math.AbsFOp,
)


class VectorBody(Body):
    """`Body` on vectors: constants are splats."""

    def __init__(self, block: Block, typ: VectorType):
        super().__init__(block, typ.element_type)
        self.block = block
        self.vector_type = typ

    def const(self, value: float) -> SSAValue:
        return KernelBuilder(self.block).constant(value, self.vector_type)


@dataclass(frozen=True)
class Step:
    """One elementwise op: its class and, per operand, None for the running value
    or the position of a kernel argument (same shape as the output, or rank 0)."""

    op_class: type
    operands: tuple[int | None, ...]


def _vector_safe(op_class: type, arity: int) -> bool:
    block = Block(arg_types=[Float64Type()] * arity)
    SCALAR_BODIES[op_class](Body(block, Float64Type()), *block.args)
    return all(isinstance(op, VECTOR_SAFE) for op in block.ops)


@dataclass(frozen=True)
class EpiloguePlan:
    """The fused ops of `contraction_kernel(..., epilogue=ops)`, at the tlir level."""

    steps: tuple[Step, ...]
    extras: tuple[SSAValue, ...]
    """Values read by the steps besides the running value: extra kernel arguments."""
    result: SSAValue
    """The last op's result: the kernel's output."""
    vector_steps: int
    """How many leading steps run on vectors in registers."""

    @staticmethod
    def build(contraction: Operation, ops: Sequence[Operation]) -> EpiloguePlan:
        current = contraction.results[0]
        shape = tuple(current.type.get_shape())
        steps: list[Step] = []
        extras: list[SSAValue] = []
        for op in ops:
            if type(op) not in SCALAR_BODIES:
                raise ValueError(f"{op.name} is not an elementwise op")
            if current not in op.operands:
                raise ValueError(f"{op.name} does not use the previous result")
            operands: list[int | None] = []
            for value in op.operands:
                if value == current:
                    operands.append(None)
                    continue
                other = tuple(value.type.get_shape())
                if other not in (shape, ()):
                    raise ValueError(f"{op.name}: operand shape {other} is not {shape} or ()")
                if value not in extras:
                    extras.append(value)
                operands.append(extras.index(value))
            if tuple(op.results[0].type.get_shape()) != shape:
                raise ValueError(f"{op.name} changes the shape")
            steps.append(Step(type(op), tuple(operands)))
            current = op.results[0]
        vector_steps = 0
        for step in steps:
            if not _vector_safe(step.op_class, len(step.operands)):
                break
            vector_steps += 1
        return EpiloguePlan(tuple(steps), tuple(extras), current, vector_steps)


@dataclass
class BoundEpilogue:
    """The plan with its extra operands bound to flat kernel buffers."""

    plan: EpiloguePlan
    buffers: list[SSAValue]

    def _operand(self, kb: KernelBuilder, step: Step, running, at: Index, typ) -> list:
        values = []
        for position in step.operands:
            if position is None:
                values.append(running)
                continue
            buffer = self.buffers[position]
            scalar = not buffer.type.get_shape()
            if isinstance(typ, VectorType):
                if scalar:
                    values.append(kb.broadcast(kb.load(buffer, 0), typ))
                else:
                    values.append(kb.vload(buffer, at, typ))
            else:
                values.append(kb.load(buffer, 0 if scalar else at))
        return values

    def apply_vector(self, kb: KernelBuilder, value: SSAValue, at: Index) -> SSAValue:
        """The leading vector-safe steps on one accumulator vector (lane 0 at flat `at`)."""
        for step in self.plan.steps[: self.plan.vector_steps]:
            args = self._operand(kb, step, value, at, value.type)
            value = SCALAR_BODIES[step.op_class](VectorBody(kb.block, value.type), *args)
        return value

    def apply_scalar(
        self, kb: KernelBuilder, value: SSAValue, at: Index, first_step: int
    ) -> SSAValue:
        for step in self.plan.steps[first_step:]:
            args = self._operand(kb, step, value, at, value.type)
            value = SCALAR_BODIES[step.op_class](Body(kb.block, value.type), *args)
        return value
