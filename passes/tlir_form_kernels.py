"""`tlir-form-kernels`: the tlir ops of a function become calls of kernel functions.

A **kernel** is the unit of fusion, deduplication, caching and threading: a
private `func.func` marked `tlir.kernel` that holds one op or one fused group,
called from where the group was. What stays in the calling function is what
costs nothing at run time: `tlir.const` (parameters reach kernels as
arguments, never as code) and the views `detach`, `reshape` and `flatten`
(a row-major reinterpretation of the same buffer).

With `fuse=true` (the default) ops are grouped consumer-first, as MLIR's
elementwise fusion does on linalg, but at the tlir level so that every later
pass runs once per distinct kernel:

* an elementwise op (the scalar-body ops, `broadcast_to`, `transpose`,
  `permute`, `batch_norm_eval`, the random ops) joins the kernel of its users
  when all of them are in one kernel: chains of elementwise ops become one loop
  nest, and producers join the reductions (softmax, layernorm, pooling, sums)
  that consume them;
* a contraction (`matmul`, `linear`, `conv`, `tlir_ad.conv_input_grad`) or a
  reduction joins an elementwise kernel that consumes it (its epilogue: bias, activation,
  residual) when all its users are there; a kernel holds at most one such
  anchor, and a contraction's own operands are never fused into it;
* an elementwise producer is not fused into a `broadcast_to` that expands it
  (that would recompute it once per copy), nor into a reduction whose result
  leads with another extent, or a fold that reads it along another dimension
  than its first (the kernel could not be split across threads).

Fusion never changes a result: each op keeps its own scalar program and fold
order; only intermediate buffers disappear.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.passes import ModulePass

from tlir.diagnostics import TlirError, describe_location
from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as AD
from tlir.interface import NUMERICS
from tlir.optable import OpTable
from tlir.passes import fast_ops

KERNEL_ATTR = "tlir.kernel"
"""Marks a kernel function (a unit attribute)."""

NUMERICS_ATTR = "tlir.numerics"
"""On the kernels of a compile in the opt-in `fma` numerics (`NUMERICS`): the
contraction kernels fuse each multiply-add of their folds. Absent: exact."""


class KernelKind(Enum):
    """How an op takes part in kernel formation."""

    STAYS = "stays"  # a constant: an argument of the kernels that read it
    VIEW = "view"  # the same buffer, reinterpreted: no kernel
    INLINED = "inlined"  # `custom`: its callee is inlined first (tlir-inline-custom)
    ELEMENTWISE = "elementwise"  # fuses into its consumers' kernel
    CONTRACTION = "contraction"  # an anchor that takes elementwise epilogues
    REDUCTION = "reduction"  # an anchor that takes producers and epilogues
    OPAQUE = "opaque"  # a kernel of its own


KERNEL_KINDS: OpTable[KernelKind] = OpTable("kernel kind")
"""The kernel kind of every tlir op and every `tlir_ad` op."""


SCALAR_OPS = (
    T.AddOp, T.SubOp, T.MulElemOp, T.MaxElemOp, T.MinElemOp, T.AbsOp, T.SqrtOp, T.InvOp,
    T.ReluOp, T.TanhOp, T.SigmoidOp, T.ExpOp, T.LogOp, T.SinOp, T.CosOp, T.SoftplusOp,
    T.SafeLogOp,
)  # fmt: skip
"""The ops with a scalar body (the lowering's `SCALAR_BODIES`; a test checks
they agree): the elementwise ops a contraction's epilogue may hold."""


def _register_kinds() -> None:
    kinds = {
        KernelKind.STAYS: (T.ConstOp,),
        KernelKind.VIEW: (T.DetachOp, T.ReshapeOp, T.FlattenOp),
        KernelKind.INLINED: (T.CustomOp,),
        KernelKind.ELEMENTWISE: (
            *SCALAR_OPS, T.BroadcastToOp, T.TransposeOp, T.PermuteOp, T.RandUniformOp,
            T.BernoulliMaskOp, T.BatchNormEvalOp,
        ),
        KernelKind.CONTRACTION: (T.MatmulOp, T.LinearOp, T.ConvOp),
        KernelKind.REDUCTION: (
            T.ReduceSumOp, T.ReduceMeanOp, T.SumOp, T.MseLossOp, T.SoftmaxOp,
            T.HardMaskedSoftmaxOp, T.LayerNormOp, T.MaxPoolOp, T.AvgPoolOp,
        ),
        KernelKind.OPAQUE: (T.ConcatOp,),
    }  # fmt: skip
    # the auxiliary ops of derivative programs
    kinds[KernelKind.ELEMENTWISE] += (AD.MapOp,)
    kinds[KernelKind.REDUCTION] += (AD.FoldOp,)
    kinds[KernelKind.CONTRACTION] += (AD.ConvInputGradOp, AD.ConvKernelGradOp)
    kinds[KernelKind.OPAQUE] += (AD.PadOp,)
    for kind, op_classes in kinds.items():
        for op_class in op_classes:
            KERNEL_KINDS.add(op_class, kind)


_register_kinds()

ANCHORS = (KernelKind.CONTRACTION, KernelKind.REDUCTION)

MAX_KERNEL_OPS = 256
"""The most ops one fused kernel holds. A longer elementwise chain becomes
kernels of this many ops, each reading its predecessor's result: LLVM's time
grows with a kernel's length, whereas identical kernels of a repeating chain
are lowered and compiled once (tlir-dedup-kernels), and a kernel boundary
costs one store and load per element every MAX_KERNEL_OPS ops."""


def kernel_kind(op: Operation) -> KernelKind | None:
    return KERNEL_KINDS.lookup(op)


def is_kernel(function: func.FuncOp) -> bool:
    return KERNEL_ATTR in function.attributes


@dataclass(eq=False)
class Group:
    """The ops of one kernel; `anchor` is its contraction or reduction, if any."""

    ops: list[Operation]
    anchor: Operation | None = None
    members: set[int] = field(default_factory=set)

    def add(self, op: Operation) -> None:
        self.ops.append(op)
        self.members.add(id(op))

    def __contains__(self, op: Operation) -> bool:
        return id(op) in self.members


def _users(op: Operation) -> list[Operation]:
    return [use.operation for result in op.results for use in result.uses]


def _size(value: SSAValue) -> int:
    return math.prod(value.type.get_shape())


def _expands(user: Operation) -> bool:
    return isinstance(user, T.BroadcastToOp) and _size(user.result) > _size(user.input)


def _leading_extent(value: SSAValue) -> int:
    shape = value.type.get_shape()
    return shape[0] if shape else 1


def _splits_alike(producer: Operation, anchor: Operation) -> bool:
    """Whether a producer may join a reduction without making its kernel
    serial: a kernel is split across threads along one leading dimension that
    all its loop nests share (tlir-linalg-to-loops), so a producer whose
    result leads with another extent, or that a fold reads along another
    dimension (a weight transposed or permuted for a fold, read whole by every
    output row), gets a kernel of its own instead."""
    extent = _leading_extent(anchor.results[0])
    if extent == 1:
        return True
    if any(_leading_extent(r) != extent for r in producer.results):
        return False
    if not isinstance(anchor, AD.FoldOp):
        return True
    results = set(producer.results)
    for value, map_attr in zip(anchor.inputs, anchor.maps.data, strict=True):
        first = map_attr.data.results[:1]
        if value in results and not (
            first and isinstance(first[0], AffineDimExpr) and first[0].position == 0
        ):
            return False
    return True


def _same_shape_epilogue(anchor: Operation, group: Group) -> bool:
    """A contraction's epilogue: every op on a path from the contraction result
    is a same-shaped scalar-body op (no broadcast or transpose of the result)."""
    shape = anchor.results[0].type.get_shape()
    work = [anchor]
    while work:
        for user in _users(work.pop()):
            if user not in group:
                continue  # read after the kernel
            if type(user) not in SCALAR_OPS or user.results[0].type.get_shape() != shape:
                return False
            work.append(user)
    return True


def _fusion_target(op: Operation, group_of: dict[int, Group], max_ops: int) -> Group | None:
    """The group `op` joins, or None (a kernel of its own)."""
    users = _users(op)
    if not users or any(id(u) not in group_of for u in users):
        return None  # returned, viewed, or read by no one
    target = group_of[id(users[0])]
    if any(group_of[id(u)] is not target for u in users) or len(target.ops) >= max_ops:
        return None
    kind = kernel_kind(op)
    if kind is KernelKind.ELEMENTWISE:
        if any(_expands(u) for u in users):
            return None
        anchor = target.anchor
        if anchor is None:
            return target
        if kernel_kind(anchor) is KernelKind.REDUCTION:
            return target if _splits_alike(op, anchor) else None
        return None if any(u is anchor for u in users) else target
    if kind in ANCHORS and target.anchor is None:
        if kind is KernelKind.CONTRACTION and not _same_shape_epilogue(op, target):
            return None
        target.anchor = op
        return target
    return None


def group_ops(block: Block, fuse: bool, max_ops: int = MAX_KERNEL_OPS) -> list[Group]:
    """The kernels of a block, in the order of their last op; a kernel that
    holds `max_ops` ops takes no more."""
    group_of: dict[int, Group] = {}
    groups: list[Group] = []
    for op in reversed(list(block.ops)):
        kind = kernel_kind(op)
        if kind in (None, KernelKind.STAYS, KernelKind.VIEW):
            continue
        if kind is KernelKind.INLINED:
            raise TlirError(
                describe_location(op.location, "module"),
                f"{op.name}: inline custom calls first (tlir-inline-custom)",
            )
        target = _fusion_target(op, group_of, max_ops) if fuse else None
        if target is None:
            target = Group([], anchor=op if kind in ANCHORS else None)
            groups.append(target)
        target.add(op)
        group_of[id(op)] = target
    groups.reverse()
    return groups


def _group_values(group: Group, position: dict[int, int]):
    """(the group's ops in block order, the values it reads from outside, the
    results used outside it): the kernel's body, arguments and results."""
    ops = sorted(group.ops, key=lambda op: position[id(op)])
    inputs: dict[SSAValue, None] = {}
    for op in ops:
        for operand in op.operands:
            owner = operand.owner
            if not (isinstance(owner, Operation) and owner in group):
                inputs.setdefault(operand)
    outputs = [
        result
        for op in ops
        for result in op.results
        if any(use.operation not in group for use in result.uses)
    ]
    return ops, list(inputs), outputs


def outline(
    group: Group, block: Block, name: str, position: dict[int, int], shared: dict | None = None
) -> func.FuncOp | None:
    """Move the group's ops into a kernel function called where its last op was.
    With `shared` (kernels by `group_key`): a group identical to an earlier one
    calls that one's kernel and makes none (None), as `tlir-dedup-kernels` would
    have merged them; `shared` learns each new kernel."""
    ops, inputs, outputs = _group_values(group, position)
    key = None
    if shared is not None:
        key = group_key(ops, inputs, outputs)
        kernel = shared.get(key)
        if kernel is not None:
            _replace_by_call(ops, inputs, outputs, kernel.sym_name.data, block)
            return None
    body = Block(arg_types=[v.type for v in inputs])
    mapping = dict(zip(inputs, body.args, strict=True))
    for op in ops:
        clone = op.clone(value_mapper=mapping)
        for result in clone.results:
            result.name_hint = None
        body.add_op(clone)
    ret = func.ReturnOp(*[mapping[v] for v in outputs])
    body.add_op(ret)
    root = ops[-1]
    typ = FunctionType.from_lists([v.type for v in inputs], [v.type for v in outputs])
    kernel = func.FuncOp(name, typ, Region(body), visibility="private")
    kernel.attributes[KERNEL_ATTR] = UnitAttr()
    kernel.location = ret.location = root.location
    _replace_by_call(ops, inputs, outputs, name, block)
    if shared is not None:
        shared[key] = kernel
    return kernel


def group_key(ops: list[Operation], inputs: list[SSAValue], outputs: list[SSAValue]) -> tuple:
    """Equal for two groups exactly when their kernels would be merged by
    `tlir-dedup-kernels` (`tlir_dedup_kernels.structure`, which it mirrors)."""
    types = (tuple(v.type for v in inputs), tuple(v.type for v in outputs))
    return (types, *body_structure(inputs, ops, outputs))


def body_structure(args, ops, returned=None) -> list:
    """The items of `structure` for `ops` (walked, regions included) taking the
    values `args` as their arguments, then the positions of the `returned`
    values if given: equal for two bodies exactly when their canonical texts
    are, given the same argument types."""
    numbering: dict[SSAValue, int] = {a: i for i, a in enumerate(args)}
    items: list = []
    for top in ops:
        for op in top.walk():
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        numbering[arg] = len(numbering)
            items.append(
                (
                    op.name,
                    tuple(sorted(op.properties.items())),
                    tuple(sorted((k, v) for k, v in op.attributes.items())),
                    tuple(numbering.get(v, -1) for v in op.operands),
                    tuple(r.type for r in op.results),
                    len(op.regions),
                )
            )
            for result in op.results:
                numbering[result] = len(numbering)
    if returned is not None:
        items.append(tuple(numbering[v] for v in returned))
    return items


def _replace_by_call(ops, inputs, outputs, name: str, block: Block) -> None:
    """The group's ops replaced by a call of kernel `name` where the last one was."""
    root = ops[-1]
    call = fast_ops.call(name, inputs, [v.type for v in outputs])
    call.location = root.location
    block.insert_op_before(call, root)
    for old, new in zip(outputs, call.results, strict=True):
        old.replace_all_uses_with(new)
    for op in reversed(ops):
        op.detach()
        op.erase()


def form_kernels(
    module: ModuleOp,
    function: func.FuncOp,
    fuse: bool,
    max_ops: int = MAX_KERNEL_OPS,
    shared: dict | None = None,
) -> list[func.FuncOp]:
    block = function.body.block
    taken = {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)}
    position = {id(op): index for index, op in enumerate(block.ops)}
    kernels = []
    for index, group in enumerate(group_ops(block, fuse, max_ops)):
        name = f"{function.sym_name.data}_k{index}"
        while name in taken:
            name += "_"
        taken.add(name)
        kernel = outline(group, block, name, position, shared)
        if kernel is not None:
            kernels.append(kernel)
    return kernels


@dataclass(frozen=True)
class TlirFormKernels(ModulePass):
    """Group the tlir ops of every function into kernel functions (fused with
    `fuse=true`), each called from where its group was."""

    name = "tlir-form-kernels"

    fuse: bool = True
    max_ops: int = MAX_KERNEL_OPS
    numerics: str = "exact"
    """`fma`: the kernels are marked `tlir.numerics = "fma"`."""
    dedup: bool = False
    """Identical groups call one kernel, the first one's: the kernels that
    `tlir-dedup-kernels` would merge are never made (a model of 1,000 layers
    of a few shapes makes a few kernels, not 1,000)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.numerics not in NUMERICS:
            choices = ", ".join(NUMERICS)
            raise TlirError(self.name, f"numerics must be one of {choices}, got {self.numerics!r}")
        functions = [
            f
            for f in op.ops
            if isinstance(f, func.FuncOp) and len(f.body.blocks) == 1 and not is_kernel(f)
        ]
        shared = {} if self.dedup else None
        kernels = [
            k for f in functions for k in form_kernels(op, f, self.fuse, self.max_ops, shared)
        ]
        for kernel in kernels:
            if self.numerics != "exact":
                kernel.attributes[NUMERICS_ATTR] = StringAttr(self.numerics)
            op.body.block.add_op(kernel)
