"""Back ends: one distinct kernel at a time, from tlir to LLVM IR.

Both back ends share the way down to loops on buffers (`kernel_to_loops`:
convert-tlir-to-linalg, convert-random-to-arith, tlir-fuse-elementwise,
tlir-bufferize, tlir-linalg-to-loops); from there `tlir.compiler.backend.xdsl` takes
the kernel to LLVM IR with tlir's own passes and xDSL's LLVM translator, and
`tlir.compiler.backend.mlir` with upstream `mlir-opt` and `mlir-translate`. Every
kernel gets an `@name.entry(args, lo, hi)` wrapper that reads its buffer
pointers from an array, the form the threading runtime calls.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr, i64

from tlir.interface import numpy_dtype

PARALLEL_RULE = "tlir.parallel_rule"
SCRATCH_RULE = "tlir.scratch_rule"

BACKENDS = ("xdsl", "mlir")
"""`xdsl`: tlir's own route (no external tool); `mlir`: upstream mlir-opt/mlir-translate."""


@dataclass(frozen=True)
class KernelABI:
    """A lowered kernel's signature: `(inputs…, outputs…, scratch…, lo, hi)`."""

    num_inputs: int
    num_outputs: int
    scratch_bytes: tuple[int, ...]
    parallel_extent: int
    batch: bool = False
    """Whether the batch follows `hi` (a kernel marked with `tlir.batch_axes`)."""

    @property
    def arity(self) -> int:
        """Number of buffer arguments."""
        return self.num_inputs + self.num_outputs + len(self.scratch_bytes)


def kernel_to_loops(kernel: func.FuncOp, packed=...) -> ModuleOp:
    """A module holding the kernel, lowered to loops on buffers (public: it is
    linked across objects). A contraction with its epilogue comes from the
    vectorised kernel generator; anything else takes the linalg route.
    `packed`: the kernel's `packed_weight`, where the caller has it already
    (`...`: worked out here)."""
    from tlir.passes.tlir_to_llvm import KERNEL_LOWERING, stage_passes
    from tlir.universe import context

    generated = contraction_module(kernel, packed)
    if generated is not None:
        return generated
    from tlir.passes.directed_steps import (
        host_has_embedded_rounding,
        steps_with_embedded_rounding,
    )

    clone = kernel.clone()
    clone.sym_visibility = None
    module = ModuleOp([clone])
    ctx = context()
    with steps_with_embedded_rounding(host_has_embedded_rounding()):
        for stage in stage_passes(KERNEL_LOWERING):
            stage.apply(ctx, module)
    return module


@functools.cache
def contractions() -> tuple[type, ...]:
    """The ops the kernel generator takes (imported on first use: a compile that
    hits the cache never needs the dialects, the autodiff one costing 30 ms)."""
    from tlir.dialects import tlir as T
    from tlir.dialects import tlir_ad as A

    return (T.MatmulOp, T.LinearOp, T.ConvOp, A.ConvInputGradOp, A.ConvKernelGradOp)


_GENERATOR_MODULES = (
    "tlir.passes.contraction_kernels.generator",
    "tlir.passes.contraction_kernels.conv_fused",
    "tlir.passes.contraction_kernels.epilogue",
    "tlir.passes.contraction_kernels.conv_grad",
    "tlir.passes.contraction_kernels.linalg_ops",
    # the lowering passes' guard against a `?` batch, imported when they run
    "tlir.passes.tlir_specialize_batch",
    # every kernel's `.entry` wrapper (`with_entry`)
    "tlir.compiler.plan",
)
_LOWERING_MODULES = {
    "xdsl": (
        *_GENERATOR_MODULES,
        "tlir.compiler.backend.xdsl",
        "tlir.passes.tlir_lower_to_llvm",
        "tlir.passes.llvm_text",
    ),
    "mlir": (*_GENERATOR_MODULES, "tlir.compiler.backend.mlir"),
}


def preload(backend: str) -> None:
    """Import what lowering a kernel with `backend` imports on first use (before
    a helper process is forked: then neither process imports it again)."""
    import importlib

    from tlir.passes.tlir_to_llvm import KERNEL_LOWERING, stage_passes

    for name in _LOWERING_MODULES[backend]:
        importlib.import_module(name)
    for stage in stage_passes(KERNEL_LOWERING):
        importlib.import_module(type(stage).__module__)


def _generated(op) -> bool:
    """Whether the kernel generator takes the contraction `op`."""
    from tlir.dialects import tlir_ad as A

    if isinstance(op, A.ConvInputGradOp):
        from tlir.passes.contraction_kernels.conv_grad import supported

        return supported(op)
    return True


def _contraction_parts(kernel: func.FuncOp):
    """(contraction, epilogue chain) if the kernel is one contraction whose
    operands are kernel arguments followed by an elementwise chain on its
    result whose other operands are kernel arguments too; else None."""
    from tlir.passes.contraction_kernels.epilogue import EpiloguePlan

    ops = [op for op in kernel.body.block.ops if not isinstance(op, func.ReturnOp)]
    if not ops or not isinstance(ops[0], contractions()) or not _generated(ops[0]):
        return None
    op, chain = ops[0], ops[1:]
    arguments = set(kernel.body.block.args)
    if any(v not in arguments for v in op.operands):
        return None
    try:
        plan = EpiloguePlan.build(op, chain) if chain else None
    except ValueError:
        return None
    if plan is not None and any(v not in arguments for v in plan.extras):
        return None
    returned = kernel.body.block.last_op.operands
    if list(returned) != [(chain[-1] if chain else op).results[0]]:
        return None
    return op, chain, plan


def is_generated(kernel: func.FuncOp) -> bool:
    """Whether the kernel generator writes the kernel (`contraction_module`). Its
    code is vectorised and unrolled already, so LLVM compiles it without its loop
    vectorizer in the exact numerics (`tlir.compiler.build.vectorize_loops`): which only
    vectorised the packing loops of ragged shapes again (the MLP's 256→10 layer:
    half its LLVM time), no faster (the bench MLP ran 1-11% faster without, the
    matmul and conv the same)."""
    return _generated_parts(kernel) is not None


def _generated_parts(kernel: func.FuncOp):
    parts = _contraction_parts(kernel)
    types = (*kernel.function_type.inputs.data, *kernel.function_type.outputs.data)
    if parts is None or any(0 in t.get_shape() for t in types):
        return None  # empty buffers: the linalg route handles them on both back ends
    marks = _operand_batch_axes(kernel, parts[0])
    if marks is not None:
        from tlir.passes.contraction_kernels.run_time import NotBatchGeneric, scaling

        try:
            scaling(parts[0], marks)
        except NotBatchGeneric:
            return None  # the linalg route takes the batch at run time
    return parts


def packed_weight(kernel: func.FuncOp):
    """(argument position, `prepacked.PackedPanels`) where the generated kernel
    takes a constant weight packed ahead: a static linear marked by kernel
    formation (a frozen model's), its weight read by it alone; else None."""
    from tlir.passes.contraction_kernels.packed_weight import PACKED_WEIGHT

    first = kernel.body.block.first_op  # the contraction, if the generator takes the kernel
    if first is None or PACKED_WEIGHT not in first.attributes:
        return None  # not a frozen linear: no need to ask the generator
    return _packed_weight(kernel, _generated_parts(kernel))


def _packed_weight(kernel: func.FuncOp, parts):
    """`packed_weight`, given the kernel's `_generated_parts`."""
    from tlir.passes.contraction_kernels.packed_weight import PACKED_WEIGHT

    if parts is None:
        return None
    op = parts[0]
    if PACKED_WEIGHT not in op.attributes or _operand_batch_axes(kernel, op) is not None:
        return None
    if len(list(op.weight.uses)) != 1:
        return None
    from tlir.passes.contraction_kernels import host_target
    from tlir.passes.contraction_kernels.generator import packed_layout
    from tlir.passes.tlir_form_kernels import NUMERICS_ATTR

    fused = kernel.attributes.get(NUMERICS_ATTR) == StringAttr("fma")
    position = list(kernel.body.block.args).index(op.weight)
    return position, packed_layout(op, host_target(), fused)


def contraction_module(kernel: func.FuncOp, packed=...) -> ModuleOp | None:
    """The kernel as the generator's vectorised contraction, behind a wrapper
    with the kernel ABI `(inputs…, output, scratch…, lo, hi)` in the kernel's own
    argument order (the scratch: the generator's, if it takes one); None if the
    kernel is not a (contraction + epilogue). `packed`: as `kernel_to_loops`'s."""
    parts = _generated_parts(kernel)
    if parts is None:
        return None
    from xdsl.dialects import arith

    from tlir.passes.contraction_kernels import contraction_kernel, host_target
    from tlir.passes.tlir_form_kernels import NUMERICS_ATTR

    op, chain, plan = parts
    name = kernel.sym_name.data
    fused = kernel.attributes.get(NUMERICS_ATTR) == StringAttr("fma")
    block_args = list(kernel.body.block.args)
    marks = _operand_batch_axes(kernel, op)
    if packed is ...:
        packed = _packed_weight(kernel, parts)
    inner = contraction_kernel(
        op, f"{name}.gemm", host_target(), chain, fused, marks, packed[1] if packed else False
    )
    inner.sym_visibility = StringAttr("private")
    order = [block_args.index(v) for v in (*op.operands, *(plan.extras if plan else ()))]
    memref = [MemRefType(t.element_type, t.get_shape()) for t in kernel.function_type.inputs.data]
    if packed is not None:  # the weight's argument takes it packed
        position, layout = packed
        memref[position] = MemRefType(memref[position].element_type, [layout.size])
    result = kernel.function_type.outputs.data[0]
    out = MemRefType(result.element_type, result.get_shape())
    trailing = 2 if marks is None else 3  # lo, hi[, batch]
    scratch = list(inner.function_type.inputs.data[len(order) + 1 : -trailing])
    indices = [IndexType()] * trailing
    wrapper = func.FuncOp(name, ([*memref, out, *scratch, *indices], []))
    args = wrapper.body.block.args
    lo = args[-trailing]
    if marks is None:
        # the kernel ABI computes [lo, min(hi, N)): callers may ask for "everything"
        extent = inner.attributes["tlir.parallel_extent"]
        bound = arith.ConstantOp(IntegerAttr(extent.value.data, IndexType()))
        hi = arith.MinSIOp(args[-1], bound)
        wrapper.body.block.add_ops([bound, hi])
        hi, batch = hi.result, []
    else:  # [lo, min(hi, units(batch)))
        hi, batch = _clamp_to_units(wrapper, inner), [args[-1]]
    wrapper.body.block.add_ops(
        [
            func.CallOp(
                inner.sym_name.data,
                [*(args[i] for i in order), *args[len(memref) : -trailing], lo, hi, *batch],
                [],
            ),
            func.ReturnOp(),
        ]
    )
    wrapper.attributes.update(kernel.attributes)
    wrapper.attributes["tlir.num_inputs"] = IntegerAttr(len(memref), i64)
    wrapper.attributes["tlir.num_outputs"] = IntegerAttr(1, i64)
    wrapper.attributes["tlir.parallel_extent"] = inner.attributes["tlir.parallel_extent"]
    for rule in (PARALLEL_RULE, SCRATCH_RULE):
        if rule in inner.attributes:
            wrapper.attributes[rule] = inner.attributes[rule]
    wrapper.location = inner.location = kernel.location
    return ModuleOp([wrapper, inner])


def _operand_batch_axes(kernel: func.FuncOp, op) -> list[tuple[int, ...]] | None:
    """The `tlir.batch_axes` of the contraction's operands and result (the
    kernel's, per argument then result), or None in a static kernel."""
    from tlir.passes.contraction_kernels.run_time import BATCH_AXES

    attr = kernel.attributes.get(BATCH_AXES)
    if attr is None:
        return None
    marks = [tuple(array.get_values()) for array in attr.data]
    args = list(kernel.body.block.args)
    return [*(marks[args.index(v)] for v in op.operands), marks[len(args)]]


def _clamp_to_units(wrapper: func.FuncOp, inner: func.FuncOp):
    """`min(hi, units(batch))` in the wrapper, from the inner kernel's rule."""
    from xdsl.dialects import arith

    from tlir.passes.contraction_kernels.builder import KernelBuilder

    kb = KernelBuilder(wrapper.body.block)
    a, k, d, c = inner.attributes[PARALLEL_RULE].get_values()
    batch, hi = wrapper.body.block.args[-1], wrapper.body.block.args[-2]
    count = kb.add(kb.mul(a, kb.ceil_div(kb.mul(batch, k), d)), c)
    return kb.emit(arith.MinSIOp(hi, kb.index(count)))


def kernel_abi(module: ModuleOp, name: str) -> KernelABI:
    function = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name
    )
    attrs = function.attributes
    num_inputs = attrs["tlir.num_inputs"].value.data
    num_outputs = attrs["tlir.num_outputs"].value.data
    # after the buffers: `lo`, `hi`, and `batch` for a kernel that takes the batch
    types = function.function_type.inputs.data
    trailing = 3 if len(types) >= 3 and isinstance(types[-3], IndexType) else 2
    buffers = types[:-trailing]
    scratch = tuple(
        math.prod(t.get_shape()) * numpy_dtype(t).itemsize
        for t in buffers[num_inputs + num_outputs :]
    )
    extent = attrs["tlir.parallel_extent"].value.data
    return KernelABI(num_inputs, num_outputs, scratch, extent, trailing == 3)


def with_entry(llvm_ir: str, name: str, abi: KernelABI) -> str:
    from tlir.compiler.plan import kernel_entry_ir

    return llvm_ir + "\n" + kernel_entry_ir(name, abi.arity, abi.batch)
