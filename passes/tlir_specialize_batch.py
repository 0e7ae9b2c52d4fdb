"""`tlir-specialize-batch{batch=N}`: a module whose batch is `?`, at batch N.

A dynamic-batch module has one symbol, the batch B: the leading extent of each
input of a function is `?`, and so is every extent that depends on it; each
such extent is a positive multiple k·B of it, k a static integer
(docs/design.md#dynamic-batch). One op's verifier cannot know k (a
`tensor<?x64xf32>` may be reshaped to `tensor<?xf32>`, 64·B); this pass, and
`check_batch`, which runs it at two batches, can.

Specialization walks each function in order: the arguments' `?` become N,
every op's result takes the shape its rule infers from its now static
operands, and the two ops whose result shape is declared rather than inferred
solve their `?`: a `reshape`'s one `?` is the element count divided by the
static extents (refused when that does not divide: the reshape would split
the batch), a `broadcast_to`'s `?` is the source's extent where it is not 1,
else the extent of the operand an elementwise user combines it with, else N
(and so are those of the random ops, whose shape is declared too).
The result is verified as any static module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tlir.diagnostics import TlirError, describe_location, verify_module
from tlir.dialects import tlir as T
from tlir.shapes import Shape, ShapeError, fmt


def is_dynamic_type(typ: object) -> bool:
    return isinstance(typ, TensorType) and any(d < 0 for d in typ.get_shape())


def is_dynamic(module: ModuleOp) -> bool:
    """Whether any function of `module` takes or returns a `?` extent."""
    return any(
        is_dynamic_type(t)
        for op in module.ops
        if isinstance(op, func.FuncOp)
        for t in (*op.function_type.inputs.data, *op.function_type.outputs.data)
    )


def refuse_dynamic(module: ModuleOp, name: str) -> None:
    """Passes from kernel lowering on, and the derivative passes, take static
    shapes: a module whose batch is `?` is specialized first."""
    for op in module.walk():
        if isinstance(op, func.FuncOp) and any(
            is_dynamic_type(t)
            for t in (*op.function_type.inputs.data, *op.function_type.outputs.data)
        ):
            raise TlirError(
                describe_location(op.location, "module"),
                f"{name}: @{op.sym_name.data}'s batch is '?': specialize the module to a batch "
                "first (tlir-specialize-batch{batch=N})",
            )


def _retype(value: SSAValue, shape: Shape) -> None:
    """Give `value` a static type in place (the pass owns the module it rewrites)."""
    typ = value.type
    assert isinstance(typ, TensorType)
    value._type = TensorType(typ.element_type, shape)  # noqa: SLF001


def _reshape(op: T.ReshapeOp, batch: int) -> Shape:
    count = math.prod(op.input.type.get_shape())
    declared = tuple(op.result.type.get_shape())
    unknown = [axis for axis, d in enumerate(declared) if d < 0]
    if len(unknown) > 1:
        raise ShapeError("a reshape result may have one batch-sized extent '?', not several")
    static = math.prod(d for d in declared if d >= 0)
    if static == 0 or count % static:
        raise ShapeError(
            f"reshape of {count} elements to {fmt(['?' if d < 0 else d for d in declared])} "
            f"would split the batch (batch {batch})"
        )
    axis = unknown[0]
    return declared[:axis] + (count // static,) + declared[axis + 1 :]


def _broadcast_to(op: T.BroadcastToOp, batch: int) -> Shape:
    source = tuple(op.input.type.get_shape())
    declared = tuple(op.result.type.get_shape())
    offset = len(declared) - len(source)
    partner = _partner_shape(op)
    out = []
    for axis, extent in enumerate(declared):
        if extent >= 0:
            out.append(extent)
        elif axis >= offset and source[axis - offset] != 1:
            out.append(source[axis - offset])
        elif partner is not None and partner[axis] >= 0:
            out.append(partner[axis])
        else:
            out.append(batch)
    return tuple(out)


SAME_SHAPE = (T.AddOp, T.SubOp, T.MulElemOp, T.MaxElemOp, T.MinElemOp)
"""Elementwise ops whose two operands have one shape."""


def _random(op: T.RandUniformOp | T.BernoulliMaskOp, batch: int) -> Shape:
    """A random tensor's declared shape: element k's draw depends on k alone, so
    the rows of a batch-sized tensor are those of a larger batch's first rows."""
    partner = _partner_shape(op)
    return tuple(
        d if d >= 0 else partner[axis] if partner is not None and partner[axis] >= 0 else batch
        for axis, d in enumerate(op.result.type.get_shape())
    )


def _partner_shape(op: Operation) -> Shape | None:
    """The shape of the operand an elementwise user combines the broadcast with,
    when it is known (a `?` grown from an extent 1 takes its extent: a scalar
    expanded to the tensor it meets)."""
    for use in op.result.uses:
        user = use.operation
        if isinstance(user, SAME_SHAPE):
            other = user.operands[1 - use.index]
            if other is not op.result and len(other.type.get_shape()) == len(
                op.result.type.get_shape()
            ):
                return tuple(other.type.get_shape())
    return None


SOLVERS = {
    T.ReshapeOp: _reshape,
    T.BroadcastToOp: _broadcast_to,
    T.RandUniformOp: _random,
    T.BernoulliMaskOp: _random,
}
"""Ops whose result shape is declared: how their `?` is solved."""


def _result_shape(op: Operation, batch: int) -> Shape:
    solver = SOLVERS.get(type(op))
    if solver is not None:
        return solver(op, batch)
    if not isinstance(op, T.TlirOp) or len(op.results) != 1:
        raise ShapeError(f"'{op.name}' cannot have a batch-sized result")
    shape = op.infer_shape()
    if any(not isinstance(d, int) for d in shape):
        raise ShapeError(f"result shape {fmt(shape)} is not known at batch {batch}")
    return shape


def specialize_function(function: func.FuncOp, batch: int, where: str) -> None:
    block = function.body.block
    for index, arg in enumerate(block.args):
        shape = tuple(arg.type.get_shape())
        if any(d < 0 for d in shape[1:]):
            raise TlirError(
                describe_location(function.location, where),
                f"@{function.sym_name.data}: input {index} has a '?' off its leading axis "
                f"({arg.type}); only the leading axis can be the batch",
            )
        if shape and shape[0] < 0:
            _retype(arg, (batch, *shape[1:]))
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            break
        if not any(is_dynamic_type(r.type) for r in op.results):
            continue
        try:
            shape = _result_shape(op, batch)
        except ShapeError as err:
            raise TlirError(describe_location(op.location, where), f"{op.name}: {err}") from None
        _retype(op.results[0], shape)
    outputs = [v.type for v in block.last_op.operands] if block.last_op else []
    function.function_type = FunctionType.from_lists([a.type for a in block.args], outputs)


def specialize(module: ModuleOp, batch: int, where: str = "module") -> ModuleOp:
    """A copy of `module` with its batch `?` set to `batch` (≥ 1), verified."""
    if type(batch) is not int or batch < 1:
        raise TlirError(where, f"the batch must be a positive integer, got {batch!r}")
    copy = module.clone()
    for op in copy.ops:
        if isinstance(op, func.FuncOp) and op.body.blocks:
            specialize_function(op, batch, where)
    verify_module(copy, where)
    return copy


def at_batch_of(module: ModuleOp, inputs, where: str = "input") -> ModuleOp:
    """`module`, specialized to the batch of `inputs[0]` (its leading extent) if
    its batch is `?` (the reference evaluator's entry: it runs static modules)."""
    if not is_dynamic(module):
        return module
    shape = getattr(inputs[0], "shape", ()) if len(inputs) else ()
    if not shape:
        raise TlirError(where, "input 0 has no batch axis; the model's batch is '?'")
    return specialize(module, int(shape[0]), where)


def check_batch(module: ModuleOp, where: str = "module") -> None:
    """Every `?` of `module` is a positive multiple k·B of the batch, k the same
    at every batch: specialized at 1 and 2, each `?` extent is k and 2k."""
    one, two = specialize(module, 1, where), specialize(module, 2, where)
    for original, a, b in zip(module.walk(), one.walk(), two.walk(), strict=True):
        for value, x, y in zip(original.results, a.results, b.results, strict=True):
            if not is_dynamic_type(value.type):
                continue
            for axis, (d, e1, e2) in enumerate(
                zip(value.type.get_shape(), x.type.get_shape(), y.type.get_shape(), strict=True)
            ):
                if d < 0 and (e1 < 1 or e2 != 2 * e1):
                    raise TlirError(
                        describe_location(original.location, where),
                        f"{original.name}: extent '?' at axis {axis} is {e1} at batch 1 and "
                        f"{e2} at batch 2, not a multiple of the batch",
                    )


@dataclass(frozen=True)
class TlirSpecializeBatch(ModulePass):
    """The module at batch `batch`: every `?` replaced by its extent."""

    name = "tlir-specialize-batch"

    batch: int = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        specialized = specialize(op, self.batch)
        for child in list(op.ops):
            child.detach()
            child.erase()
        for child in list(specialized.ops):
            child.detach()
            op.body.block.add_op(child)
