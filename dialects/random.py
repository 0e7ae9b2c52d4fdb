"""The `random` dialect: TorchLean's counter-based random numbers (docs/random.md).

Four small ops that compose inside a `linalg.generic` body:

  %key  = random.key {seed = 7 : i64, node_id = 3 : i64} : i64
  %draw = random.draw %key, %index : i32                  // mix(key + index), low 32 bits
  %u    = random.uniform %draw : f32                      // (draw as carrier) / 2^32
  %bit  = random.bernoulli %p, %u : f32                   // TorchLean's keep test, as 0.0/1.0

`convert-random-to-arith` expands them into SplitMix64 in `i64` arith.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

_FLOAT = Float32Type | Float64Type


def _check_float(op: IRDLOperation, *types) -> None:
    for typ in types:
        if not isinstance(typ, _FLOAT):
            raise VerifyException(f"{op.name}: expected f32 or f64, got {typ}")


@irdl_op_definition
class KeyOp(IRDLOperation):
    """docs/random.md#key: the per-node key `mix(seed + node_id)` (both modulo 2^64)."""

    name = "random.key"
    seed = prop_def(IntegerAttr[I64])
    node_id = prop_def(IntegerAttr[I64])
    result = result_def(IntegerType(64))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, seed: int, node_id: int):
        from tlir.dialects.tlir import i64_attr, seed_attr

        super().__init__(
            properties={"seed": seed_attr(seed), "node_id": i64_attr(node_id)},
            result_types=[IntegerType(64)],
        )


@irdl_op_definition
class DrawOp(IRDLOperation):
    """docs/random.md#draws: the 32-bit draw of element `index` (row-major): low bits of
    mix(key + index)."""

    name = "random.draw"
    key = operand_def(IntegerType(64))
    index = operand_def(IndexType)
    result = result_def(IntegerType(32))
    traits = traits_def(Pure())
    assembly_format = "$key `,` $index attr-dict `:` type($result)"

    def __init__(self, key, index):
        super().__init__(operands=[key, index], result_types=[IntegerType(32)])


@irdl_op_definition
class UniformOp(IRDLOperation):
    """docs/random.md#uniform-values: the draw as an unsigned integer in the carrier, divided by
    2^32."""

    name = "random.uniform"
    draw = operand_def(IntegerType(32))
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$draw attr-dict `:` type($result)"

    def __init__(self, draw, result_type):
        super().__init__(operands=[draw], result_types=[result_type])

    def verify_(self) -> None:
        _check_float(self, self.result.type)


@irdl_op_definition
class BernoulliOp(IRDLOperation):
    """docs/random.md#bernoulli-keep-rule: 0 unless p > 0; 1 if p >= 1; else 1 where p > uniform."""

    name = "random.bernoulli"
    T: ClassVar = VarConstraint("T", base(Float32Type) | base(Float64Type))
    probability = operand_def(T)
    uniform = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$probability `,` $uniform attr-dict `:` type($result)"

    def __init__(self, probability, uniform):
        super().__init__(operands=[probability, uniform], result_types=[probability.type])


Random = Dialect("random", [KeyOp, DrawOp, UniformOp, BernoulliOp], [])
