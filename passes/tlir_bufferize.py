"""`tlir-bufferize`: tensors to buffers for what `convert-tlir-to-linalg` emits.

Stands in for MLIR's `one-shot-bufferize{bufferize-function-boundaries}` +
`buffer-results-to-out-params` + `buffer-deallocation` on the subset of IR the
lowering produces (linalg on tensors, tensor.empty / extract_slice /
insert_slice / expand_shape / collapse_shape, dense constants, func.call):

* destination-passing style: a linalg op writes into the buffer of its `outs`
  tensor when nothing else can observe it (that tensor has no other use and its
  buffer is a local allocation); otherwise into a fresh copy;
* `extract_slice` is a `memref.subview`; an `insert_slice` of a value computed in
  that very subview is free; any other is a copy;
* function results become out-parameters appended to the arguments (a result
  computed in a local buffer is computed straight into the out-parameter);
  arguments are never written;
* dense constants become `memref.global` constants;
* in a kernel (`tlir.kernel`), no buffer is allocated: every remaining local
  buffer becomes a **scratch** argument after the out-parameters, which the
  caller provides, and two `index` arguments `lo`, `hi` follow: the kernel
  computes iterations `[lo, min(hi, N))` of its outermost parallel dimension
  (`tlir-linalg-to-loops` decides N). The kernel ABI is thus
  `(inputs…, outputs…, scratch…, lo, hi)`, with `tlir.num_inputs` and
  `tlir.num_outputs` recorded on the function;
* elsewhere (a function calling kernels), calls get freshly allocated results
  and scratch buffers and the whole range `[0, 2^63 - 1)`, and every remaining
  allocation is freed before the function returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from tlir.diagnostics import TlirError, describe_location
from tlir.dialects.tlir_ad import keep_row_strips
from tlir.passes.linalg_copy import copy_generic
from tlir.passes.tlir_form_kernels import is_kernel


def memref_type(typ: TensorType) -> MemRefType:
    return MemRefType(typ.element_type, typ.get_shape())


@dataclass
class Buffer:
    """The memref holding a tensor value, and what may be done with it."""

    value: SSAValue
    writable: bool  # a local allocation (not an argument, not a constant)
    alloc: Operation | None = None  # the memref.alloc this buffer is (not a view of)
    parent: Buffer | None = None  # for a subview: the buffer it views
    offsets: tuple[int, ...] = ()

    @property
    def contiguous(self) -> bool:
        return self.parent is None


BATCH_AXES = "tlir.batch_axes"
"""Per value of a kernel's signature (arguments, then results), the factor k of
each axis whose extent is k·B at run time (0: static); see docs/design.md."""

WHOLE_RANGE = (1 << 63) - 1
"""`hi` of a call that asks a kernel for all of its iterations."""


@dataclass
class FunctionBufferizer:
    function: func.FuncOp
    globals: list[memref.GlobalOp]
    callees: dict[str, func.FuncOp]
    buffers: dict[SSAValue, Buffer] = field(default_factory=dict)
    allocs: list[Operation] = field(default_factory=list)
    block: Block | None = None

    def error(self, op: Operation, message: str) -> TlirError:
        return TlirError(describe_location(op.location, "module"), f"{op.name}: {message}")

    def emit(self, op: Operation) -> Operation:
        assert self.block is not None
        self.block.add_op(op)
        return op

    # --- buffers -----------------------------------------------------------

    def allocate(self, typ: TensorType) -> Buffer:
        op = self.emit(memref.AllocOp.get(typ.element_type, 64, typ.get_shape()))
        self.allocs.append(op)
        return Buffer(op.results[0], writable=True, alloc=op)

    def copy(self, source: SSAValue, target: SSAValue) -> None:
        """target ← source, elementwise (a copying linalg.generic)."""
        self.emit(copy_generic(source, target))

    def writable_destination(self, value: SSAValue, reads_init: bool) -> Buffer:
        """The buffer an op may write `value`'s new contents into."""
        buffer = self.buffers[value]
        if buffer.writable and value.uses.get_length() == 1:
            return buffer
        fresh = self.allocate(value.type)
        if reads_init:
            self.copy(buffer.value, fresh.value)
        return fresh

    # --- ops -----------------------------------------------------------------

    def run(self) -> func.FuncOp:
        old_block = self.function.body.block
        old_type = self.function.function_type
        outputs = [memref_type(t) for t in old_type.outputs.data]
        inputs = [memref_type(t) if isinstance(t, TensorType) else t for t in old_type.inputs.data]
        self.block = Block(arg_types=[*inputs, *outputs])
        for old_arg, new_arg in zip(old_block.args, self.block.args, strict=False):
            new_arg.name_hint = old_arg.name_hint
            self.buffers[old_arg] = Buffer(new_arg, writable=False)
        out_params = list(self.block.args[len(inputs) :])
        for op in list(old_block.ops):
            self.bufferize(op, out_params)
        arg_types = [*inputs, *outputs]
        if is_kernel(self.function):
            arg_types += self.scratch_arguments()
            # A kernel whose values have batch-sized axes (`tlir.batch_axes`, the
            # marking of a dynamic model's kernels) takes the batch at run time.
            names = (
                ("lo", "hi", "batch") if BATCH_AXES in self.function.attributes else ("lo", "hi")
            )
            for name in names:
                self.block.insert_arg(IndexType(), len(self.block.args)).name_hint = name
                arg_types.append(IndexType())
        new_function = func.FuncOp(
            self.function.sym_name.data,
            FunctionType.from_lists(arg_types, []),
            Region(self.block),
            self.function.sym_visibility,
        )
        new_function.location = self.function.location
        new_function.attributes.update(self.function.attributes)
        if is_kernel(self.function):
            new_function.attributes["tlir.num_inputs"] = IntegerAttr(len(inputs), i64)
            new_function.attributes["tlir.num_outputs"] = IntegerAttr(len(outputs), i64)
        Rewriter.replace_op(self.function, new_function)
        return new_function

    def scratch_arguments(self) -> list[MemRefType]:
        """A kernel allocates nothing: each local buffer becomes an argument."""
        types = []
        for alloc in self.allocs:
            arg = self.block.insert_arg(alloc.results[0].type, len(self.block.args))
            alloc.results[0].replace_all_uses_with(arg)
            alloc.detach()
            alloc.erase()
            types.append(arg.type)
        return types

    def bufferize(self, op: Operation, out_params: list[SSAValue]) -> None:
        match op:
            case tensor.EmptyOp():
                self.buffers[op.results[0]] = self.allocate(op.results[0].type)
            case arith.ConstantOp() if isinstance(op.results[0].type, TensorType):
                self.buffers[op.results[0]] = self.constant(op)
            case FillOp():
                self.linalg(op, reads_init=False)
            case GenericOp():
                self.linalg(op, reads_init=True)
            case tensor.ExtractSliceOp():
                self.extract_slice(op)
            case tensor.InsertSliceOp():
                self.insert_slice(op)
            case tensor.ExpandShapeOp() | tensor.CollapseShapeOp():
                self.reshape(op)
            case func.CallOp():
                self.call(op)
            case func.ReturnOp():
                self.ret(op, out_params)
            case _ if any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
                raise self.error(op, "tlir-bufferize does not handle this tensor op")
            case _:
                op.detach()
                self.emit(op)
                for result in op.results:
                    self.buffers[result] = Buffer(result, writable=False)

    def constant(self, op: arith.ConstantOp) -> Buffer:
        value = op.value
        assert isinstance(value, DenseIntOrFPElementsAttr)
        typ = memref_type(op.results[0].type)
        name = f"__constant_{len(self.globals)}"
        self.globals.append(
            memref.GlobalOp.get(StringAttr(name), typ, value, constant=UnitAttr(), alignment=64)
        )
        get = self.emit(memref.GetGlobalOp(name, typ))
        return Buffer(get.results[0], writable=False)

    def operand_value(self, value: SSAValue) -> SSAValue:
        return self.buffers[value].value if isinstance(value.type, TensorType) else value

    def linalg(self, op: GenericOp | FillOp, reads_init: bool) -> None:
        outs = [self.writable_destination(v, reads_init) for v in op.outputs]
        ins = [self.operand_value(v) for v in op.inputs]
        if isinstance(op, FillOp):
            new = FillOp(ins, [b.value for b in outs], [])
        else:
            new = GenericOp(
                ins,
                [b.value for b in outs],
                op.body.clone(),
                op.indexing_maps,
                op.iterator_types,
                [],
            )
            keep_row_strips(op, new)
        new.location = op.location
        self.emit(new)
        for result, buffer in zip(op.results, outs, strict=True):
            self.buffers[result] = buffer

    def extract_slice(self, op: tensor.ExtractSliceOp) -> None:
        if _empty(op.result):
            # No subview: MLIR rejects one whose offset is not inside the source
            # even when it has no elements; an empty buffer is never read.
            self.buffers[op.result] = self.allocate(op.result.type)
            return
        source = self.buffers[op.source]
        offsets = tuple(op.static_offsets.get_values())
        sizes = tuple(op.static_sizes.get_values())
        strides = tuple(op.static_strides.get_values())
        if any(s != 1 for s in strides) or len(sizes) != len(source.value.type.get_shape()):
            raise self.error(op, "only unit-stride, rank-preserving slices are supported")
        view = self.emit(
            memref.SubviewOp.from_static_parameters(
                source.value, source.value.type, offsets, sizes, strides
            )
        )
        # Writing the view writes the source: allowed only where writing the
        # source is, and where nothing but this slice and insert_slices into
        # the source read it afterwards.
        only_slicing = all(
            use.operation is op
            or (isinstance(use.operation, tensor.InsertSliceOp) and use.operation.dest is op.source)
            for use in op.source.uses
        )
        self.buffers[op.result] = Buffer(
            view.results[0],
            writable=source.writable and only_slicing,
            parent=source,
            offsets=offsets,
        )

    def insert_slice(self, op: tensor.InsertSliceOp) -> None:
        source = self.buffers[op.source]
        offsets = tuple(op.static_offsets.get_values())
        dest = self.buffers[op.dest]
        if source.parent is dest and source.offsets == offsets:
            self.buffers[op.result] = dest  # computed in place
            return
        target = self.writable_destination(op.dest, reads_init=True)
        if _empty(op.source):  # nothing to copy (and no empty subview, see extract_slice)
            self.buffers[op.result] = target
            return
        sizes = tuple(op.static_sizes.get_values())
        view = self.emit(
            memref.SubviewOp.from_static_parameters(
                target.value, target.value.type, offsets, sizes, (1,) * len(sizes)
            )
        )
        self.copy(source.value, view.results[0])
        self.buffers[op.result] = target

    def reshape(self, op: tensor.ExpandShapeOp | tensor.CollapseShapeOp) -> None:
        source = self.buffers[op.src]
        if not source.contiguous:
            fresh = self.allocate(op.src.type)
            self.copy(source.value, fresh.value)
            source = fresh
        typ = memref_type(op.result.type)
        if isinstance(op, tensor.ExpandShapeOp):
            new = memref.ExpandShapeOp.build(
                operands=[source.value, []],
                result_types=[typ],
                properties={
                    "reassociation": op.reassociation,
                    "static_output_shape": op.static_output_shape,
                },
            )
        else:
            new = memref.CollapseShapeOp.build(
                operands=[source.value],
                result_types=[typ],
                properties={"reassociation": op.reassociation},
            )
        self.emit(new)
        # A view: writable only if the reshaped tensor is not read elsewhere.
        writable = source.writable and op.src.uses.get_length() == 1
        self.buffers[op.result] = Buffer(new.results[0], writable=writable)

    def call(self, op: func.CallOp) -> None:
        args = [self.operand_value(v) for v in op.arguments]
        results = [self.allocate(r.type) for r in op.results]
        extra: list[SSAValue] = []
        scratch: list[Operation] = []
        callee = self.callees.get(op.callee.root_reference.data)
        if callee is not None and is_kernel(callee):
            arg_types = callee.function_type.inputs.data
            for typ in arg_types[len(args) + len(results) : -2]:
                scratch.append(self.emit(memref.AllocOp.get(typ.element_type, 64, typ.shape)))
            lo = self.emit(arith.ConstantOp(IntegerAttr(0, IndexType())))
            hi = self.emit(arith.ConstantOp(IntegerAttr(WHOLE_RANGE, IndexType())))
            extra = [*(s.results[0] for s in scratch), lo.results[0], hi.results[0]]
        outs = [b.value for b in results]
        self.emit(func.CallOp(op.callee, [*args, *outs, *extra], []))
        for alloc in scratch:
            self.emit(memref.DeallocOp.get(alloc.results[0]))
        for result, buffer in zip(op.results, results, strict=True):
            self.buffers[result] = buffer

    def ret(self, op: func.ReturnOp, out_params: list[SSAValue]) -> None:
        """Each result computed in a local allocation is computed straight into
        its out-parameter (the first one, if the value is returned twice); every
        other result (an argument, a constant, a view, a value returned again)
        is copied into its out-parameter, after all the replacements, so that a
        copy never reads an allocation that has been replaced."""
        moved: dict[SSAValue, SSAValue] = {}  # an allocation → the out-parameter it became
        copies: list[tuple[Buffer, SSAValue]] = []
        for value, out in zip(op.arguments, out_params, strict=True):
            buffer = self.buffers[value]
            alloc = buffer.alloc
            if alloc is not None and buffer.value not in moved and alloc in self.allocs:
                moved[buffer.value] = out
                self.allocs.remove(alloc)
            else:
                copies.append((buffer, out))
        for local, out in moved.items():
            local.replace_all_uses_with(out)
            local.owner.detach()
        for buffer, out in copies:
            self.copy(moved.get(buffer.value, buffer.value), out)
        if not is_kernel(self.function):
            for alloc in self.allocs:
                self.emit(memref.DeallocOp.get(alloc.results[0]))
        self.emit(func.ReturnOp())


def _empty(value: SSAValue) -> bool:
    return 0 in value.type.get_shape()


def _is_bufferized(function: func.FuncOp) -> bool:
    """Already on buffers (e.g. a contraction kernel generated at that level)."""
    types = (*function.function_type.inputs.data, *function.function_type.outputs.data)
    return not any(isinstance(t, TensorType) for t in types) and not any(
        isinstance(r.type, TensorType) for op in function.walk() for r in op.results
    )


def _declarations(module: ModuleOp) -> Sequence[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp) and not op.body.blocks]


@dataclass(frozen=True)
class TlirBufferize(ModulePass):
    """Tensors to memrefs, results as out-parameters, temporaries freed."""

    name = "tlir-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        globals_: list[memref.GlobalOp] = []
        functions = [f for f in op.ops if isinstance(f, func.FuncOp) and len(f.body.blocks) == 1]
        functions = [f for f in functions if not _is_bufferized(f)]
        callees: dict[str, func.FuncOp] = {}
        # kernels first: their callers need their bufferized signatures
        for function in sorted(functions, key=lambda f: not is_kernel(f)):
            new = FunctionBufferizer(function, globals_, callees).run()
            callees[new.sym_name.data] = new
        for function in op.ops:
            if isinstance(function, func.FuncOp) and _is_bufferized(function):
                callees.setdefault(function.sym_name.data, function)
        for declaration in _declarations(op):
            _bufferize_signature(declaration)
        for global_op in globals_:
            op.body.block.insert_op_before(global_op, op.body.block.first_op)


def _bufferize_signature(declaration: func.FuncOp) -> None:
    typ = declaration.function_type
    if not any(isinstance(t, TensorType) for t in (*typ.inputs.data, *typ.outputs.data)):
        return  # a scalar function (a directed step) keeps its signature
    inputs = [memref_type(t) if isinstance(t, TensorType) else t for t in typ.inputs.data]
    outputs = [memref_type(t) for t in typ.outputs.data]
    declaration.function_type = FunctionType.from_lists([*inputs, *outputs], [])
