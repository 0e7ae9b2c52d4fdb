"""`contraction_kernel`: one contraction op (with its epilogue) as a kernel function
(see the package docstring for the kernel's form)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    i64,
)
from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as A
from tlir.passes.contraction_kernels.builder import KernelBuilder
from tlir.passes.contraction_kernels.epilogue import BoundEpilogue, EpiloguePlan
from tlir.passes.contraction_kernels.gemm import GemmSpec
from tlir.passes.contraction_kernels.kernel_grad import (
    KernelGradSpec,
    conv_kernel_grad_spec,
)
from tlir.passes.contraction_kernels.prepacked import PackedPanels, PrepackedPacker
from tlir.passes.contraction_kernels.target import TargetInfo, host_target
from tlir.passes.contraction_kernels.tiling import (
    Tiling,
    choose_tiling,
    fused_target,
    register_tile,
    unmerged,
)

__all__ = ["contraction_kernel", "kernel_tiling", "packed_layout"]


def _spec(op: Operation, kb: KernelBuilder, buffers) -> GemmSpec:
    from tlir.passes.contraction_kernels.conv import conv_spec
    from tlir.passes.contraction_kernels.conv_grad import conv_input_grad_spec
    from tlir.passes.contraction_kernels.linalg_ops import linear_spec, matmul_spec

    builders = {
        T.MatmulOp: matmul_spec,
        T.LinearOp: linear_spec,
        T.ConvOp: conv_spec,
        A.ConvInputGradOp: conv_input_grad_spec,
        A.ConvKernelGradOp: conv_kernel_grad_spec,
    }
    if type(op) not in builders:
        raise ValueError(
            f"{op.name} is not a contraction (matmul, linear, conv, conv_input_grad, "
            "conv_kernel_grad)"
        )
    return builders[type(op)](op, kb, buffers)


def kernel_tiling(spec: GemmSpec, target: TargetInfo) -> Tiling:
    """`choose_tiling` for `spec`, with no packed copy of the tile's rows of A
    (kcp = 0) where the tiles read them in place (`_a_in_place`), and partial
    sums in a scratch buffer where C's rows crowd the L1 (`_crowded`)."""
    if isinstance(spec, KernelGradSpec) and target.tile is not None and target.tile[0] == 1:
        target = dataclasses.replace(target, tile=None)  # A is packed: several rows per tile
    target = _two_vectors_where_they_fit(spec, target)
    target = _rows_for_a_in_place(spec, target)
    tiling = choose_tiling(
        target,
        spec.element.bitwidth // 8,
        spec.m,
        spec.n,
        spec.k,
        spec.batch,
        getattr(spec.packer, "columns_multiple", 1),
        wide_panel=spec.may_widen_panel(),
    )
    if tiling.kcp and _a_in_place(spec, tiling.mr, target):
        tiling = dataclasses.replace(tiling, kcp=0)
    tiling = spec.adjust_tiling(tiling, target)
    blocks = -(-spec.k // tiling.kc)
    partials = blocks > 1 and _crowded(spec, tiling, target) and spec.takes_partials()
    if partials and tiling.merge_units:
        # P would be all N wide in every unit's slice: N / nc times C's size
        tiling = unmerged(tiling, spec.element.bitwidth // 8)
    return dataclasses.replace(tiling, partials=partials)


def _two_vectors_where_they_fit(spec: GemmSpec, target: TargetInfo) -> TargetInfo:
    """The target, without the two-vector tile of `load_broadcasts` (back to
    one vector of 16 rows) where it does not suit: N within one vector (the
    bench MLP's 256 -> 10 layer in f32 would compute 32 columns for 10), and
    the gradient kernels, whose tiling (the input gradient's direct path
    takes rows that are whole tiles wide) was tuned for one vector."""
    from tlir.passes.contraction_kernels.conv import ConvSpec

    if not target.load_broadcasts:
        return target
    narrow = spec.n <= target.lanes(spec.element.bitwidth // 8)
    if narrow or type(spec) not in (GemmSpec, ConvSpec):
        return dataclasses.replace(target, load_broadcasts=False)
    return target


def _crowded(spec: GemmSpec, tiling: Tiling, target: TargetInfo) -> bool:
    """Whether the partial sums are better off in a scratch buffer than in C: a
    tile's rows of C crowd one L1 set (N = 512 or 1024 in f64: 5-12 % faster),
    or fill one set's ways and every unit's slice fits half of L2 together (the
    MLP's N = 256: 2-4 %). With fewer rows per set (N = 640), or with full sets
    but slices that stream from L3 (N = 768 over 384 rows), the second buffer's
    traffic cost 2-6 % (same-process A/B, measured)."""
    rows_per_set = _rows_per_set(spec.c_si, spec.element, tiling.mr, target)
    if rows_per_set > target.l1_ways:
        return True
    slices = tiling.units(spec.batch, spec.m, spec.n) * tiling.mc * tiling.ldp
    fits = slices * spec.element.bitwidth // 8 <= target.l2_bytes // 2
    return rows_per_set == target.l1_ways and fits


def _a_in_place(spec: GemmSpec, rows: int, target: TargetInfo) -> bool:
    """Whether a register tile of `rows` rows reads them in A where they are: the
    GEMM allows it, they are contiguous along k, and no more of them share an L1
    set than it has ways.
    Then no unit copies them again (`pack_a`, once per unit, k block and row
    tile): 7-15 % faster on f64 matmuls with k = 256, 576, 640, 768, 1000, and
    f32 with k = 640, 768. Rows 4 KiB apart (k = 512 in f64, 1024 in f32)
    thrash one set: read in place they ran at half the speed (same-process
    A/B, measured)."""
    if not spec.may_read_a_in_place() or spec.a_sk != 1:
        return False
    return _rows_per_set(spec.a_si, spec.element, rows, target) <= target.l1_ways


def _rows_for_a_in_place(spec: GemmSpec, target: TargetInfo) -> TargetInfo:
    """The target with a register tile of half the rows where a one-vector
    tile's rows of A fill or overflow one L1 set and half of them do not
    overflow it. The 8-row tile keeps the multiply pipe as busy (8 independent
    sums per vector of B), and reads A in place.
    - 16 rows in one set (rows 4 KiB apart) were copied per unit and k block.
      Same-process A/B against the copy, f64: the bench MLP's first layer
      (128×1024 → 256) +5-14 %, 128×512×512 +5 %, 2048×512×512 +4.5 %,
      1024³ linear +4 %, 384×512×640 +3-5 %, 1024³ matmul -2 %; f32: that
      layer +5 %, 384×1024×512 ±0, 256×1024×2048 -5 %.
    - 8 rows in one set (rows 2 KiB apart) fill its ways, and every other line
      of that set evicts one. Against 16 rows in place, f64: the MLP's second
      layer (128×256 → 256) +5-8 %, 128×256×256 +9 %, 384×256×512 +11 %,
      256×768 → 768 +8 %, 384×768×512 +2 %; f32: 384×512×512 +8 %,
      128×512 → 256 -3.5 %."""
    mr, nv = register_tile(target)
    if target.tile is not None or nv != 1 or mr % 2:
        return target
    if _rows_per_set(spec.a_si, spec.element, mr, target) < target.l1_ways:
        return target
    if not _a_in_place(spec, mr // 2, target):
        return target
    return dataclasses.replace(target, tile=(mr // 2, 1))


def _rows_per_set(stride: int, element, rows: int, target: TargetInfo) -> int:
    """The most of `rows` rows `stride` elements apart (a tile's first
    elements) that fall into one L1 set. (This Xeon's 48 KiB L1 has 12 ways
    and 64 sets; taken as 8 ways, 96 sets, it spread rows 4 KiB apart over 3
    sets and read 16 of them in place: the real geometry halves that tile, and
    the bench's first MLP layer ran 1-9 % faster, f32 5 %.)"""
    sets = max(1, target.l1_bytes // 64 // target.l1_ways)
    row_bytes = stride * element.bitwidth // 8
    counts = Counter(r * row_bytes // 64 % sets for r in range(rows))
    return max(counts.values())


def contraction_kernel(
    op: Operation,
    name: str,
    target: TargetInfo | None = None,
    epilogue: Sequence[Operation] = (),
    fused_multiply_add: bool = False,
    batch_axes: Sequence[Sequence[int]] | None = None,
    packed_weight: bool | PackedPanels = False,
) -> func.FuncOp:
    """The kernel of `op` (MatmulOp, LinearOp, ConvOp or, with stride 1,
    ConvInputGradOp), with the elementwise ops
    `epilogue` (a chain: each uses the previous result) applied to each output
    tile right after it is computed. Where the tiling keeps the partial sums or
    the packed block of B there, the kernel takes a scratch buffer after the
    result. `fused_multiply_add`: each term of the fold is one `math.fma` (the
    opt-in `fma` numerics) instead of `mulf` then `addf`.

    `batch_axes` (per operand of `op`, then its result: `run_time.py`) makes
    the kernel batch-generic: it takes `batch` after `hi` and carries
    `tlir.parallel_rule` and `tlir.scratch_rule`; `NotBatchGeneric` where the
    generator cannot take the marked extents at run time.

    `packed_weight` (a static `tlir.linear`): the kernel takes its weight
    packed ahead (`prepacked.PackedPanels`, `packed_layout`: a flat buffer in
    the weight's place) and packs nothing; the kernel carries the layout in
    `tlir.packed_weight`. True works the layout out (`packed_layout`); a
    caller that has it already (for this op, target and numerics) passes it."""
    from tlir.passes.contraction_kernels import run_time
    from tlir.passes.contraction_kernels.packed_weight import PACKED_WEIGHT

    scaling = None if batch_axes is None else run_time.scaling(op, batch_axes)
    target = target or host_target()
    layout = None
    if packed_weight:
        assert isinstance(op, T.LinearOp) and scaling is None
        layout = (
            packed_weight
            if isinstance(packed_weight, PackedPanels)
            else packed_layout(op, target, fused_multiply_add)
        )
    if fused_multiply_add:
        target = fused_target(target, op.results[0].type.element_type.bitwidth // 8)
    plan = EpiloguePlan.build(op, epilogue) if epilogue else None
    values: list[SSAValue] = [*op.operands, *(plan.extras if plan else ())]
    result = plan.result if plan else op.results[0]
    memrefs = [MemRefType(v.type.element_type, v.type.get_shape()) for v in (*values, result)]
    if layout is not None:
        memrefs[1] = MemRefType(memrefs[1].element_type, [layout.size])
    trailing = 2 if scaling is None else 3  # lo, hi[, batch]
    inputs = [*memrefs, *[IndexType()] * trailing]
    noalias = DictionaryAttr({"llvm.noalias": UnitAttr()})
    arg_attrs = ArrayAttr([noalias] * len(memrefs) + [DictionaryAttr({})] * trailing)
    function = func.FuncOp(name, (inputs, []), arg_attrs=arg_attrs)
    block = function.body.block
    kb = KernelBuilder(block, fused_multiply_add)
    flat = [kb.flat(arg) for arg in block.args[: len(memrefs)]]
    lo, hi = block.args[len(memrefs)], block.args[len(memrefs) + 1]
    count = len(op.operands)
    spec = _spec(op, kb, [*flat[:count], flat[-1]])
    if plan is not None:
        spec.epilogue = BoundEpilogue(plan, flat[count:-1])
    if scaling is not None:
        scaling.nominal(spec)
        spec.run_time = scaling.bind(kb, block.args[-1], spec)
    tiling = kernel_tiling(spec, target)
    if layout is not None:  # B read where it was packed: no panel of its own
        assert PackedPanels.for_tiling(tiling, spec.k, spec.n) == layout
        spec.packer = PrepackedPacker(flat[1], layout)
        spec.packed_b = flat[1]
        tiling = dataclasses.replace(tiling, panel_in_scratch=False)
        function.attributes[PACKED_WEIGHT] = DenseArrayBase.from_list(i64, layout.as_list())
    empty = spec.batch == 0 or spec.m == 0 or spec.n == 0
    rule = None if scaling is None or empty else scaling.rule(spec, tiling)
    if rule is None:
        extent = 0 if empty else tiling.units(spec.batch, spec.m, spec.n)
    else:
        extent = run_time.units(rule, scaling.nominal_batch)
    scratch = 0 if empty else extent * tiling.unit_scratch
    if scratch:
        typ = MemRefType(spec.element, [scratch])
        spec.scratch = _add_scratch(function, typ, trailing)
    _emitter(spec)(kb, spec, tiling).emit(lo, hi)
    kb.emit(func.ReturnOp())
    if scaling is not None:
        unit_bytes = tiling.unit_scratch * spec.element.bitwidth // 8
        rule = rule or (0, 0, 1, 0)
        scratch_rule = [0, unit_bytes] if scratch else []
        function.attributes[run_time.PARALLEL_RULE] = DenseArrayBase.from_list(i64, rule)
        function.attributes[run_time.SCRATCH_RULE] = DenseArrayBase.from_list(i64, scratch_rule)
    function.attributes["tlir.parallel_extent"] = IntegerAttr(extent, i64)
    function.attributes["tlir.num_inputs"] = IntegerAttr(len(values), i64)
    function.attributes["tlir.num_outputs"] = IntegerAttr(1, i64)
    return function


def _emitter(spec: GemmSpec) -> type:
    """The emitter of `spec`: a conv's packs per column tile where it can
    (`conv_fused`), else the spec's own."""
    from tlir.passes.contraction_kernels.conv import ConvSpec

    if type(spec) is ConvSpec:
        from tlir.passes.contraction_kernels.conv_fused import FusedConvEmitter

        return FusedConvEmitter
    return spec.emitter()


def packed_layout(
    op: T.LinearOp, target: TargetInfo | None = None, fused_multiply_add: bool = False
) -> PackedPanels:
    """Where `contraction_kernel(op, target, …, packed_weight=True)` reads the
    packed weight: the panels of the tiling its kernel takes."""
    target = target or host_target()
    if fused_multiply_add:
        target = fused_target(target, op.results[0].type.element_type.bitwidth // 8)
    function = func.FuncOp("layout", ([], []))
    kb = KernelBuilder(function.body.block)
    values = [*op.operands, op.results[0]]
    buffers = []
    for value in values:
        typ = MemRefType(value.type.element_type, value.type.get_shape())
        buffers.append(kb.flat(function.body.block.insert_arg(typ, len(buffers))))
    spec = _spec(op, kb, buffers)
    return PackedPanels.for_tiling(kernel_tiling(spec, target), spec.k, spec.n)


def _add_scratch(function: func.FuncOp, typ: MemRefType, trailing: int = 2) -> SSAValue:
    """A scratch buffer argument of `typ` before the `trailing` index arguments
    (`lo, hi[, batch]`; the kernel ABI's place for scratch: after the outputs),
    not aliasing any other."""
    block = function.body.block
    position = len(block.args) - trailing
    argument = block.insert_arg(typ, position)
    attrs = list(function.arg_attrs.data)
    attrs.insert(position, attrs[0])
    function.arg_attrs = ArrayAttr(attrs)
    function.update_function_type()
    return argument
