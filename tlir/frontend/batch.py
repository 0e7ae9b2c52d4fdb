"""A dynamic-batch module from two imports of one model at two batch sizes.

A front end traces a model at fixed extents (torch.export fixes the batch in
every reshape; an ONNX graph's shape arithmetic is folded at import). Traced
at two batches b1 < b2, a graph that does not depend on the batch gives two
modules of the same ops, attributes and constants, whose types differ only in
extents that are multiples of the batch: k·b1 and k·b2 with one integer k.
Those extents become `?`; anything else that differs means the graph depends
on the batch size in a way `?` cannot say (a reshape to a literal batch, a
constant of the batch's extent, an extent such as B + 1), and is refused.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.passes.tlir_specialize_batch import check_batch, specialize

BATCHES = (2, 3)
"""The batches a model is traced at when its example's batch is 1 (a batch of
1 may be traced as a special case: a squeezed axis, a broadcast)."""


def trace_batches(example_batch: int) -> tuple[int, int]:
    """The two batches to trace at: the example's and the next one (2 and 3 for 1)."""
    return BATCHES if example_batch < 2 else (example_batch, example_batch + 1)


def _dynamic_type(typ: TensorType, other: TensorType, batches: tuple[int, int]) -> TensorType:
    b1, b2 = batches
    shape = []
    for e1, e2 in zip(typ.get_shape(), other.get_shape(), strict=True):
        if e1 == e2:
            shape.append(e1)
        elif e1 % b1 == 0 and e2 % b2 == 0 and e1 // b1 == e2 // b2:
            shape.append(-1)
        else:
            raise ValueError(f"an extent is {e1} at batch {b1} and {e2} at batch {b2}")
    return TensorType(typ.element_type, [DYNAMIC_INDEX if d < 0 else d for d in shape])


IMPORT_HINT = "import it with dynamic_batch=False to compile it for the example's batch"
"""What a front end's refusal suggests."""


def _refuse(where: str, op: Operation, why: str, hint: str) -> TlirError:
    return TlirError(where, f"the graph depends on the batch size ({op.name}: {why}); {hint}")


def _same_op(a: Operation, b: Operation) -> str | None:
    """Why two ops of the two traces are not the same op (None if they are)."""
    if a.name != b.name or len(a.operands) != len(b.operands) or len(a.results) != len(b.results):
        return f"'{a.name}' at one batch, '{b.name}' at the other"
    for kind in ("properties", "attributes"):
        if _untyped(getattr(a, kind)) != _untyped(getattr(b, kind)):
            return f"its {kind} differ between batches"
    return None


def _untyped(attributes: dict) -> dict:
    """An op's attributes but a function's type (compared through its values)."""
    return {k: v for k, v in attributes.items() if k != "function_type"}


def _splat_constant(a: Operation, b: Operation) -> bool:
    """Two `tlir.const` splats of one value (a scalar the front end expanded to
    the shape of the tensor it meets), of different shapes."""
    if not (isinstance(a, T.ConstOp) and isinstance(b, T.ConstOp)):
        return False
    data_a, data_b = a.value.data, b.value.data
    one = a.result.type.element_type.bitwidth // 8
    return (
        data_a == data_b
        and len(data_a.data) == one
        and _untyped(a.attributes) == _untyped(b.attributes)
    )


def _broadcast_splat(const: T.ConstOp, typ: TensorType) -> None:
    """A batch-sized splat becomes a splat with 1 on the batch-sized axes,
    broadcast to `typ` before its first user (where the combined operand is typed)."""
    shape = [1 if d < 0 else d for d in typ.get_shape()]
    small = TensorType(typ.element_type, shape)
    dense = DenseIntOrFPElementsAttr(small, const.value.data)
    new = T.ConstOp.create(properties={"value": dense}, result_types=[small])
    new.attributes.update(const.attributes)
    new.location = const.location
    first = min(const.result.uses, key=lambda use: _position(use.operation)).operation
    broadcast = T.BroadcastToOp.create(operands=[new.result], result_types=[typ])
    broadcast.location = const.location
    block = const.parent_block()
    block.insert_op_before(new, const)
    block.insert_op_before(broadcast, first)
    const.result.replace_all_uses_with(broadcast.result)
    const.detach()
    const.erase()


def _position(op: Operation) -> int:
    return list(op.parent_block().ops).index(op)


def generalize(
    first: ModuleOp,
    second: ModuleOp,
    batches: tuple[int, int],
    where: str,
    hint: str = IMPORT_HINT,
) -> ModuleOp:
    """The dynamic-batch module of `first` (traced at `batches[0]`) and `second`
    (at `batches[1]`): `first` with every batch-dependent extent `?`. `hint`
    ends a refusal (a `.tlz` reader's differs from a front end's)."""
    result = first.clone()
    retype: list[tuple[SSAValue, TensorType]] = []
    splats: list[tuple[T.ConstOp, TensorType]] = []
    ops = zip(result.walk(), second.walk(), strict=False)
    count = -1
    for count, (a, b) in enumerate(ops):  # noqa: B007 - counted
        why = _same_op(a, b)
        if why is not None and _splat_constant(a, b):
            try:
                splats.append((a, _dynamic_type(a.result.type, b.result.type, batches)))
                continue
            except ValueError as err:
                why = str(err)
        if why is None:
            values = [*a.results, *(arg for r in a.regions for blk in r.blocks for arg in blk.args)]
            others = [*b.results, *(arg for r in b.regions for blk in r.blocks for arg in blk.args)]
            if len(values) != len(others):
                why = "its regions differ between batches"
            for x, y in zip(values, others, strict=False):
                if isinstance(x.type, TensorType) and x.type != y.type:
                    try:
                        retype.append((x, _dynamic_type(x.type, y.type, batches)))
                    except ValueError as err:
                        why = str(err)
                        break
        if why is not None:
            raise _refuse(where, a, why, hint)
    if count + 1 != len(list(second.walk())) or len(list(result.walk())) != count + 1:
        raise TlirError(
            where, f"the graph depends on the batch size (its op counts differ); {hint}"
        )
    for value, typ in retype:
        value._type = typ  # noqa: SLF001 - the clone is this function's own
    for const, typ in splats:
        _broadcast_splat(const, typ)
    _fix_signatures(result)
    check_batch(result, where)
    for batch, trace in zip(batches, (first, second), strict=True):
        if _signatures(specialize(result, batch, where)) != _signatures(trace):
            raise TlirError(
                where, f"the graph depends on the batch size (it differs at batch {batch}); {hint}"
            )
    return result


def _signatures(module: ModuleOp) -> list[str]:
    return [str(op.function_type) for op in module.ops if hasattr(op, "function_type")]


def _fix_signatures(module: ModuleOp) -> None:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import FunctionType

    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.body.blocks:
            block = op.body.block
            outputs = [v.type for v in block.last_op.operands]
            op.function_type = FunctionType.from_lists([a.type for a in block.args], outputs)
