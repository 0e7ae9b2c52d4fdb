"""The copying `linalg.generic`, shared by `convert-tlir-to-linalg` (a part
written into a slice of a tensor) and `tlir-bufferize` (one buffer copied into
another): identity maps, every loop parallel, a body that yields its input.
Upstream MLIR would use `linalg.copy`; a generic keeps every later pass on the
one op it already handles."""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineMap


def copy_generic(source: SSAValue, target: SSAValue) -> GenericOp:
    """target ← source, elementwise. On tensors the op's result is the new
    value of `target` (destination-passing style); on memrefs it writes
    `target` and has no result."""
    rank = len(source.type.get_shape())
    block = Block(arg_types=[source.type.element_type, target.type.element_type])
    block.add_op(YieldOp(block.args[0]))
    identity = AffineMapAttr(AffineMap.identity(rank))
    return GenericOp(
        [source],
        [target],
        Region(block),
        [identity, identity],
        [IteratorTypeAttr(IteratorType.PARALLEL)] * rank,
        [target.type] if isinstance(target.type, TensorType) else [],
    )
