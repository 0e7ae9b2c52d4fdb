"""The plan of a model compiled once for every batch, and its entry function.

As `tlir.compiler.plan`, with every size an affine function `s0 + s1·B` of the
call's batch B (an `Affine`): buffer sizes, workspace offsets, the byte counts
of copies, and each step's work units (`tlir.parallel_rule`). The workspace is
laid out once, first fit over pairs: a free slice fits a request when both of
its coefficients are at least the request's, and each coefficient is rounded
up to the 64-byte alignment on its own, so every offset is aligned at every
batch and two slices that do not overlap at one batch overlap at none.

The entry function

    i32 @tlir_main(ptr inputs, ptr outputs, ptr constants, ptr workspace, i32 threads, i64 batch)

computes offsets, units and the thread decision from `batch`. A step's kernel
is either compiled once (it takes `batch` after `hi`; its `.entry` wrapper
reads it from the slot after the buffer pointers of its argument array) or
compiled at each batch (a kernel that is not batch-generic): then its
`.entry` address, its units and the workspace offsets of its scratch are read
from the constants array, after the model's constants (a table the caller
fills per batch: `PerBatchSlots`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.ir import SSAValue

from tlir.compiler.plan import (
    ALIGNMENT,
    RUNTIME,
    SERIAL_RUNTIME,
    THREAD_WORK,
    last_uses,
    output_roots,
)
from tlir.diagnostics import TlirError, describe_location
from tlir.interface import numpy_dtype


@dataclass(frozen=True)
class Affine:
    """`s0 + s1·B`."""

    s0: int
    s1: int = 0

    def at(self, batch: int) -> int:
        return self.s0 + self.s1 * batch

    def __add__(self, other: Affine) -> Affine:
        return Affine(self.s0 + other.s0, self.s1 + other.s1)

    def __sub__(self, other: Affine) -> Affine:
        return Affine(self.s0 - other.s0, self.s1 - other.s1)

    def covers(self, other: Affine) -> bool:
        return self.s0 >= other.s0 and self.s1 >= other.s1

    def aligned(self) -> Affine:
        """Each coefficient rounded up to the alignment (at least one line)."""
        s0 = -(-self.s0 // ALIGNMENT) * ALIGNMENT
        s1 = -(-self.s1 // ALIGNMENT) * ALIGNMENT
        return Affine(max(s0, ALIGNMENT) if not s1 else s0, s1)

    @staticmethod
    def through(b0: int, x0: int, b1: int, x1: int) -> Affine | None:
        """The affine function with x0 at b0 and x1 at b1 (integer coefficients), or None."""
        s1, rest = divmod(x1 - x0, b1 - b0)
        s0 = x0 - s1 * b0
        return Affine(s0, s1) if not rest and s0 >= 0 and s1 >= 0 else None


class AffineWorkspace:
    """First-fit slices with reuse, sizes affine in B (see the module's docstring)."""

    def __init__(self) -> None:
        self.free: list[tuple[Affine, Affine]] = []  # (offset, size), in allocation order
        self.size = Affine(0)
        self.peak = Affine(0)

    def allocate(self, nbytes: Affine) -> Affine:
        size = nbytes.aligned()
        for index, (offset, available) in enumerate(self.free):
            if available.covers(size):
                rest = available - size
                self.free[index : index + 1] = [(offset + size, rest)] if rest.s0 or rest.s1 else []
                return offset
        offset = self.size
        self.size = self.size + size
        self.peak = Affine(max(self.peak.s0, self.size.s0), max(self.peak.s1, self.size.s1))
        return offset

    def release(self, offset: Affine, nbytes: Affine) -> None:
        size = nbytes.aligned()
        if offset + size == self.size:
            self.size = offset
            while self.free and self.free[-1][0] + self.free[-1][1] == self.size:
                self.size = self.free.pop()[0]
            return
        self.free.append((offset, size))
        self.free.sort(key=lambda slot: (slot[0].s1, slot[0].s0))


@dataclass(frozen=True)
class BatchKernel:
    """What the plan needs of a kernel: compiled once (`rule`, `scratch`) or per batch."""

    name: str
    num_inputs: int
    num_outputs: int
    scratch: tuple[Affine, ...]  # once: the bytes of each scratch buffer
    rule: tuple[int, int, int, int] | None  # once: units(B) = a·⌈k·B/d⌉ + c; None: per batch
    work: Affine
    table: int = -1  # per batch: its first slot in the table after the constants
    scratch_count: int = 0  # per batch: its scratch buffers (offsets in the table)


@dataclass(frozen=True)
class Where:
    kind: str  # "input", "const", "output", "workspace", "table" (per-batch scratch)
    index: int = 0
    offset: Affine = Affine(0)


@dataclass
class BatchStep:
    kernel: BatchKernel
    args: list[Where]


@dataclass
class BatchPlan:
    outputs: list[tuple[tuple[Affine, ...], np.dtype]]
    constants: int
    steps: list[BatchStep] = field(default_factory=list)
    copies: list[tuple[Where, Where, Affine]] = field(default_factory=list)
    workspace: Affine = Affine(0)
    table: int = 0  # slots of the per-batch table


def _affine_type(v0: SSAValue, v1: SSAValue, b0: int, b1: int) -> tuple[Affine, ...]:
    shape = []
    for e0, e1 in zip(v0.type.get_shape(), v1.type.get_shape(), strict=True):
        extent = Affine.through(b0, e0, b1, e1)
        if extent is None or (extent.s1 and extent.s0):
            raise ValueError("an extent is not a multiple of the batch")
        shape.append(extent)
    return tuple(shape)


def affine_bytes(v0: SSAValue, v1: SSAValue, b0: int, b1: int) -> Affine:
    size0 = np.prod(v0.type.get_shape(), dtype=np.int64) * numpy_dtype(v0.type).itemsize
    size1 = np.prod(v1.type.get_shape(), dtype=np.int64) * numpy_dtype(v1.type).itemsize
    nbytes = Affine.through(b0, int(size0), b1, int(size1))
    if nbytes is None or (nbytes.s1 and nbytes.s0):
        raise ValueError("a buffer's size is not a multiple of the batch")
    return nbytes


def build_batch_plan(
    entries: tuple[func.FuncOp, func.FuncOp],
    batches: tuple[int, int],
    kernels: dict[str, BatchKernel],
    where: str,
) -> BatchPlan:
    """The plan of the entry function formed at two batches (the same ops, in
    order); `kernels` by the name of the first's callees. ValueError: the
    two do not pair up as one plan affine in the batch."""
    from tlir.passes.tlir_form_kernels import KernelKind, kernel_kind

    b0, b1 = batches
    block0, block1 = (e.body.block for e in entries)
    ops0, ops1 = list(block0.ops), list(block1.ops)
    if len(ops0) != len(ops1) or any(a.name != b.name for a, b in zip(ops0, ops1, strict=True)):
        raise ValueError("the graph's functions differ")
    pair: dict[SSAValue, SSAValue] = dict(zip(block0.args, block1.args, strict=True))
    for a, b in zip(ops0, ops1, strict=True):
        pair.update(zip(a.results, b.results, strict=True))

    def nbytes(value: SSAValue) -> Affine:
        return affine_bytes(value, pair[value], b0, b1)

    ret = block0.last_op
    assert isinstance(ret, func.ReturnOp)
    plan = BatchPlan(
        outputs=[(_affine_type(v, pair[v], b0, b1), numpy_dtype(v.type)) for v in ret.arguments],
        constants=0,
    )
    storage: dict[SSAValue, Where] = {}
    for index, arg in enumerate(block0.args):
        storage[arg] = Where("input", index)
    views, last = last_uses(block0)
    for root, index in output_roots(ret, views).items():
        storage[root] = Where("output", index)
    workspace = AffineWorkspace()
    sizes: dict[SSAValue, Affine] = {}
    for position, op in enumerate(ops0):
        if isinstance(op, func.ReturnOp):
            break
        kind = kernel_kind(op)
        if kind is KernelKind.STAYS:
            storage[op.results[0]] = Where("const", plan.constants)
            plan.constants += 1
        elif kind is KernelKind.VIEW:
            storage[op.results[0]] = storage[op.operands[0]]
        elif isinstance(op, func.CallOp):
            kernel = kernels[op.callee.root_reference.data]
            outputs = []
            for result in op.results:
                if result not in storage:
                    sizes[result] = nbytes(result)
                    storage[result] = Where("workspace", 0, workspace.allocate(sizes[result]))
                outputs.append(storage[result])
            if not any(sizes.get(r, nbytes(r)) != Affine(0) for r in op.results):
                continue  # nothing to compute (a static compile calls no such kernel)
            scratch = [Where("workspace", 0, workspace.allocate(s)) for s in kernel.scratch]
            table = [Where("table", kernel.table + 2 + i) for i in range(kernel.scratch_count)]
            args = [*(storage[v] for v in op.arguments), *outputs, *scratch, *table]
            plan.steps.append(BatchStep(kernel, args))
            for buffer, size in zip(scratch, kernel.scratch, strict=True):
                workspace.release(buffer.offset, size)
        else:
            raise TlirError(
                describe_location(op.location, where),
                f"'{op.name}' cannot be compiled in the graph's function",
            )
        for operand in {views.get(v, v) for v in op.operands}:
            if last.get(operand) == position and storage[operand].kind == "workspace":
                workspace.release(storage[operand].offset, sizes[operand])
    for index, value in enumerate(ret.arguments):
        source = storage[views.get(value, value)]
        if not (source.kind == "output" and source.index == index):
            plan.copies.append((Where("output", index), source, nbytes(value)))
    plan.workspace = workspace.peak
    per_batch = [k for k in kernels.values() if k.rule is None]
    plan.table = max((k.table + 2 + k.scratch_count for k in per_batch), default=0)
    return plan


# --- the entry function --------------------------------------------------------


class _Body:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.allocas: list[str] = []
        self.cache: dict[object, str] = {}
        self.count = 0

    def fresh(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def line(self, text: str) -> None:
        self.lines.append("  " + text)

    def affine(self, value: Affine) -> str:
        """An i64 operand holding `value` at the call's batch."""
        if not value.s1:
            return str(value.s0)
        key = ("affine", value)
        if key not in self.cache:
            product = self.fresh()
            self.line(f"{product} = mul i64 %batch, {value.s1}")
            total = self.fresh()
            self.line(f"{total} = add i64 {product}, {value.s0}")
            self.cache[key] = total
        return self.cache[key]

    def table(self, slot: int) -> str:
        """The per-batch table's slot `slot` (after the constants), as i64."""
        key = ("table", slot)
        if key not in self.cache:
            address = self.fresh()
            self.line(f"{address} = getelementptr ptr, ptr %consts, i64 {slot}")
            pointer = self.fresh()
            self.line(f"{pointer} = load ptr, ptr {address}")
            value = self.fresh()
            self.line(f"{value} = ptrtoint ptr {pointer} to i64")
            self.cache[key] = value
        return self.cache[key]

    def pointer(self, where: Where, constants: int) -> str:
        key = (where.kind, where.index, where.offset)
        if key in self.cache:
            return self.cache[key]
        name = self.fresh()
        if where.kind == "workspace":
            self.line(f"{name} = getelementptr i8, ptr %ws, i64 {self.affine(where.offset)}")
        elif where.kind == "table":
            offset = self.table(constants + where.index)
            self.line(f"{name} = getelementptr i8, ptr %ws, i64 {offset}")
        else:
            array = {"input": "%ins", "output": "%outs", "const": "%consts"}[where.kind]
            slot = self.fresh()
            self.line(f"{slot} = getelementptr ptr, ptr {array}, i64 {where.index}")
            self.line(f"{name} = load ptr, ptr {slot}")
        self.cache[key] = name
        return name

    def units(self, rule: tuple[int, int, int, int]) -> str:
        a, k, d, c = rule
        if not a:
            return str(c)
        product = self.fresh()
        self.line(f"{product} = mul i64 %batch, {k}")
        blocks = product
        if d != 1:
            bumped = self.fresh()
            self.line(f"{bumped} = add i64 {product}, {d - 1}")
            blocks = self.fresh()
            self.line(f"{blocks} = udiv i64 {bumped}, {d}")
        scaled = self.fresh()
        self.line(f"{scaled} = mul i64 {blocks}, {a}")
        units = self.fresh()
        self.line(f"{units} = add i64 {scaled}, {c}")
        return units


def _least_batch(work: Affine) -> int:
    """The least batch at which a step's estimated work reaches THREAD_WORK."""
    if work.s0 >= THREAD_WORK:
        return 1
    if not work.s1:
        return 1 << 62
    return max(1, -(-(THREAD_WORK - work.s0) // work.s1))


def batch_entry_ir(plan: BatchPlan, arities: dict[str, int], threads: bool) -> str:
    """The entry function of `plan` as LLVM IR text (with the runtime)."""
    from tlir.compiler.plan import ENTRY

    lines: list[str] = []
    for name in sorted({s.kernel.name for s in plan.steps if s.kernel.rule is not None}):
        lines.append(f"declare void @{name}.entry(ptr, i64, i64)")
    lines.append(RUNTIME if threads else SERIAL_RUNTIME)
    lines.append(
        f"define i32 @{ENTRY}(ptr %ins, ptr %outs, ptr %consts, ptr %ws, i32 %threads, "
        "i64 %batch) {"
    )
    body = _Body()
    for number, step in enumerate(plan.steps):
        kernel = step.kernel
        pointers = [body.pointer(w, plan.constants) for w in step.args]
        array = f"%args{number}"
        body.allocas.append(f"  {array} = alloca [{len(pointers) + 1} x ptr], align 8")
        batch = body.fresh()
        body.line(f"{batch} = inttoptr i64 %batch to ptr")
        for slot, pointer in enumerate([*pointers, batch]):
            address = body.fresh()
            body.line(f"{address} = getelementptr ptr, ptr {array}, i64 {slot}")
            body.line(f"store ptr {pointer}, ptr {address}")
        if kernel.rule is not None:
            function, units = f"@{kernel.name}.entry", body.units(kernel.rule)
        else:
            function = body.fresh()
            body.line(
                f"{function} = inttoptr i64 {body.table(plan.constants + kernel.table)} to ptr"
            )
            units = body.table(plan.constants + kernel.table + 1)
        many = body.fresh()
        body.line(f"{many} = icmp sgt i64 {units}, 1")
        large = body.fresh()
        body.line(f"{large} = icmp sge i64 %batch, {_least_batch(kernel.work)}")
        both = body.fresh()
        body.line(f"{both} = and i1 {many}, {large}")
        count = body.fresh()
        body.line(f"{count} = select i1 {both}, i32 %threads, i32 1")
        body.line(
            f"call void @tlir.parallel(ptr {function}, ptr {array}, i64 {units}, i32 {count})"
        )
    for target, source, nbytes in plan.copies:
        to, of = body.pointer(target, plan.constants), body.pointer(source, plan.constants)
        body.line(
            f"call void @llvm.memcpy.p0.p0.i64(ptr {to}, ptr {of}, i64 {body.affine(nbytes)}, "
            "i1 false)"
        )
    body.line("ret i32 0")
    lines.append("entry:")
    lines.extend(body.allocas)
    lines.extend(body.lines)
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["Affine", "BatchKernel", "BatchPlan", "batch_entry_ir", "build_batch_plan"]
