"""`tlir.passes.fast_ops` builds ops through `Operation.create` with properties
taken once per class: each must give exactly the op xDSL's own constructor
gives (name, operands, result types, properties, attributes), whatever the
operand types, so that the IR (and the FileCheck dumps) cannot tell them apart."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, func, llvm, memref, vector
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import (
    AffineMapAttr,
    IndexType,
    MemRefType,
    TensorType,
    VectorType,
    f32,
    f64,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Operation, Region
from xdsl.ir.affine import AffineMap

from tlir.passes import fast_ops

V8 = VectorType(f64, [8])
BLOCK = Block(
    arg_types=[f64, f64, IndexType(), IndexType(), MemRefType(f64, [16]), V8, V8, f32, i64, i64]
)
X, Y, IX, JX, M, A, B, S, K, L = BLOCK.args


def same(built: Operation, reference: Operation, verify: bool = True) -> None:
    assert type(built) is type(reference)
    assert list(built.operands) == list(reference.operands)
    assert [r.type for r in built.results] == [r.type for r in reference.results]
    assert built.properties == reference.properties
    assert built.attributes == reference.attributes
    if verify:  # (a call verifies only inside a module that defines its callee)
        built.verify()


BINARY = [
    (arith.AddiOp, IX, JX), (arith.SubiOp, IX, JX), (arith.MuliOp, IX, JX), (arith.DivSIOp, IX, JX),
    (arith.RemSIOp, IX, JX), (arith.AndIOp, IX, JX), (arith.OrIOp, IX, JX), (arith.AddfOp, X, Y),
    (arith.MulfOp, A, B), (arith.SubfOp, A, B), (arith.AddfOp, S, S), (llvm.AddOp, K, L),
    (llvm.FMulOp, X, Y), (arith.SubfOp, X, Y), (arith.MulfOp, S, S), (arith.DivfOp, X, Y),
]  # fmt: skip


@pytest.mark.parametrize("op_class, lhs, rhs", BINARY, ids=[c[0].name for c in BINARY])
def test_binary_ops_are_the_constructors_ops(op_class, lhs, rhs):
    # twice: the second call uses the properties kept from the first
    for _ in range(2):
        same(fast_ops.binary(op_class, lhs, rhs), op_class(lhs, rhs))


def test_memory_and_vector_ops_are_the_constructors_ops():
    for _ in range(2):
        same(fast_ops.load(M, [IX]), memref.LoadOp.get(M, [IX]))
        same(fast_ops.store(X, M, [JX]), memref.StoreOp.get(X, M, [JX]))
        same(fast_ops.vector_load(M, [IX], V8), vector.LoadOp(M, [IX], V8))
        same(fast_ops.vector_store(A, M, [JX]), vector.StoreOp(A, M, [JX]))
        same(fast_ops.broadcast(X, V8), vector.BroadcastOp(X, V8))


def test_index_constants_are_the_constructors_ops():
    from xdsl.dialects.builtin import IntegerAttr

    for value in (0, 1, -3, 1 << 40):
        same(fast_ops.index_constant(value), arith.ConstantOp(IntegerAttr(value, IndexType())))


def _generic_body(arguments: int) -> Region:
    block = Block(arg_types=[f64] * arguments)
    block.add_op(YieldOp(block.args[0]))
    return Region(block)


@pytest.mark.parametrize("inputs", [1, 2], ids=["one-input", "two-inputs"])
def test_generics_are_the_constructors_ops(inputs):
    shapes = [[4, 3], [3], [4, 3]]
    tensor = test_dialect.TestOp(result_types=[TensorType(f64, s) for s in shapes]).results
    identity = AffineMapAttr(AffineMap.identity(2))
    broadcast = AffineMapAttr(AffineMap.from_callable(lambda i, j: (j,)))
    maps = [identity, broadcast][:inputs] + [identity]
    iterators = [IteratorTypeAttr(IteratorType.PARALLEL)] * 2
    ins, outs = [tensor[0], tensor[1]][:inputs], [tensor[2]]
    types = [tensor[2].type]
    for _ in range(2):  # the second time from the attributes kept
        built = fast_ops.generic(ins, outs, _generic_body(inputs + 1), maps, iterators, types)
        reference = GenericOp(ins, outs, _generic_body(inputs + 1), maps, iterators, types)
        same(built, reference)
        assert list(built.properties) == list(reference.properties)  # printed in this order


def test_calls_are_the_constructors_ops():
    for _ in range(2):
        built, reference = (
            fast_ops.call("k", [X, IX], [f64, f32]),
            func.CallOp("k", [X, IX], [f64, f32]),
        )
        same(built, reference, verify=False)
        same(fast_ops.call("other", [], []), func.CallOp("other", [], []), verify=False)
