"""The execution plan of a compiled model, and its entry function as LLVM IR.

After kernel formation the graph's function holds only constants, views
(`detach`/`reshape`/`flatten`), kernel calls and its return. The plan turns
that into buffers and steps:

* a **storage** is the memory behind a value and every view of it: a model
  input, a constant, a model output, or a slice of one **workspace** that the
  caller allocates per call (no `malloc` in generated code: the caller's
  allocation either succeeds or raises);
* a kernel result is computed straight into the model output that returns it;
  a value returned twice, or an input or constant returned, is copied;
* workspace slices are reused once their value is dead (first fit, 64-byte
  aligned), never within the call that reads them;
* each step calls a kernel with `(inputs…, outputs…, scratch…, lo, hi)`; a step
  with enough work runs its kernel over `[0, N)` split across threads.

`entry_ir` emits the entry function

    i32 @tlir_main(ptr inputs, ptr outputs, ptr constants, ptr workspace, i32 threads)

(the first three are arrays of buffer pointers). A threaded step calls
`tlir_rt_parallel` (tlir's thread pool, `tlir.compiler.pool`): the calling thread and
the pool's workers claim chunks of iterations from a shared atomic counter
until none are left, each chunk max(1, ⌊R/T⌋) of the R iterations left (guided
scheduling): large chunks first, single iterations at the end, so the threads
finish together also when one starts late (a worker woken from sleep: tens of
microseconds here) or the OS delays it (it takes fewer chunks; the others do
not wait for its share, and the call does not wait for a worker that has
claimed nothing). Chunks of a fixed ⌈N/(4T)⌉ left the conv bench's 28 work
units on 2 threads at 1.72x the speed of one (7 chunks: 16 units against 12,
and the worker's late start); guided chunks: 1.96x.
Each iteration runs whole on one thread, in the same order as with one
thread, so the results do not depend on T or on who took which chunk.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.ir import SSAValue

from tlir.diagnostics import TlirError, describe_location
from tlir.dialects import tlir as T
from tlir.interface import numpy_dtype

ALIGNMENT = 64

THREAD_WORK = 50_000
"""Estimated work (roughly nanoseconds) below which a step runs on one thread:
starting a parallel region costs a few microseconds."""


@dataclass(frozen=True)
class KernelInfo:
    """What the plan needs to know of a compiled kernel."""

    name: str
    num_inputs: int
    num_outputs: int
    scratch_bytes: tuple[int, ...]
    parallel_extent: int
    work: int
    packed: tuple | None = None
    """(argument position, `prepacked.PackedPanels`): the kernel takes that
    constant argument packed (a frozen model's linear weight)."""


@dataclass
class Storage:
    kind: str  # "input", "const", "output", "workspace"
    index: int = 0  # input/const/output index, or workspace offset
    nbytes: int = 0


@dataclass
class Step:
    kernel: str
    args: list[Storage]
    extent: int
    threaded: bool


@dataclass
class Copy:
    target: Storage
    source: Storage
    nbytes: int


@dataclass
class Plan:
    inputs: list[tuple[tuple[int, ...], np.dtype]]
    outputs: list[tuple[tuple[int, ...], np.dtype]]
    constants: list[np.ndarray]
    steps: list[Step] = field(default_factory=list)
    copies: list[Copy] = field(default_factory=list)
    workspace_bytes: int = 0
    packed: list[tuple] = field(default_factory=list)
    """(constant index, `prepacked.PackedPanels`): the packed copies the model
    makes of these constants when it links, the constants after
    `constants` (a step's const storage len(constants) + i is packed[i])."""


def _nbytes(value: SSAValue) -> int:
    return math.prod(value.type.get_shape()) * numpy_dtype(value.type).itemsize


class Workspace:
    """First-fit allocation of workspace slices with reuse."""

    def __init__(self) -> None:
        self.free: list[tuple[int, int]] = []  # (offset, size), sorted by offset
        self.size = 0  # the end of the highest slice in use
        self.peak = 0  # the largest `size` ever: the workspace's byte size

    def allocate(self, nbytes: int) -> int:
        size = max(ALIGNMENT, -(-nbytes // ALIGNMENT) * ALIGNMENT)
        for index, (offset, available) in enumerate(self.free):
            if available >= size:
                rest = available - size
                self.free[index : index + 1] = [(offset + size, rest)] if rest else []
                return offset
        offset = self.size
        self.size += size
        self.peak = max(self.peak, self.size)
        return offset

    def release(self, offset: int, nbytes: int) -> None:
        size = max(ALIGNMENT, -(-nbytes // ALIGNMENT) * ALIGNMENT)
        self.free.append((offset, size))
        self.free.sort()
        merged: list[tuple[int, int]] = []
        for start, length in self.free:
            if merged and merged[-1][0] + merged[-1][1] == start:
                merged[-1] = (merged[-1][0], merged[-1][1] + length)
            else:
                merged.append((start, length))
        if merged and merged[-1][0] + merged[-1][1] == self.size:
            self.size = merged.pop()[0]
        self.free = merged


def build_plan(function: func.FuncOp, kernels: dict[str, KernelInfo], where: str = "model") -> Plan:
    """The plan of a function after kernel formation."""
    from tlir.passes.tlir_form_kernels import KernelKind, kernel_kind

    block = function.body.block
    signature = function.function_type
    plan = Plan(
        inputs=[(tuple(t.get_shape()), numpy_dtype(t)) for t in signature.inputs.data],
        outputs=[(tuple(t.get_shape()), numpy_dtype(t)) for t in signature.outputs.data],
        constants=[],
    )
    plan.constants = entry_constants(function)
    storage: dict[SSAValue, Storage] = {}
    for index, arg in enumerate(block.args):
        storage[arg] = Storage("input", index, _nbytes(arg))
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    roots, last_use = last_uses(block)
    for root, index in output_roots(ret, roots).items():
        storage[root] = Storage("output", index, _nbytes(root))
    workspace = Workspace()
    constant_numbers = itertools.count()
    for position, op in enumerate(block.ops):
        if isinstance(op, func.ReturnOp):
            break
        kind = kernel_kind(op)
        if kind is KernelKind.STAYS:
            storage[op.results[0]] = Storage(
                "const", next(constant_numbers), _nbytes(op.results[0])
            )
        elif kind is KernelKind.VIEW:
            storage[op.results[0]] = storage[op.operands[0]]
        elif isinstance(op, func.CallOp):
            _call_step(op, kernels[op.callee.root_reference.data], storage, workspace, plan)
        else:
            raise TlirError(
                describe_location(op.location, where),
                f"'{op.name}' cannot be compiled in the graph's function",
            )
        for operand in {roots.get(v, v) for v in op.operands}:
            if last_use.get(operand) == position and storage[operand].kind == "workspace":
                workspace.release(storage[operand].index, storage[operand].nbytes)
    _copy_outputs(ret, storage, plan)
    plan.workspace_bytes = workspace.peak
    return plan


def entry_constants(function: func.FuncOp) -> list[np.ndarray]:
    """The constants of a function, in op order: the plan's constant slots.
    (Kernel formation keeps constants where they are, so the order is the same
    before and after it, once custom calls are inlined.)"""
    from tlir.dense import dense_to_numpy

    return [dense_to_numpy(op.value) for op in function.body.block.ops if isinstance(op, T.ConstOp)]


def output_roots(ret: func.ReturnOp, roots: dict[SSAValue, SSAValue]) -> dict[SSAValue, int]:
    """Each kernel result returned (directly or through views: `roots`) and the
    first output returning it: it is computed in that output's buffer."""
    found: dict[SSAValue, int] = {}
    for index, value in enumerate(ret.arguments):
        root = roots.get(value, value)
        if isinstance(root.owner, func.CallOp):
            found.setdefault(root, index)
    return found


def last_uses(block) -> tuple[dict[SSAValue, SSAValue], dict[SSAValue, int]]:
    """The root of every view, and the position of the last op reading each root."""
    from tlir.passes.tlir_form_kernels import KernelKind, kernel_kind

    root: dict[SSAValue, SSAValue] = {}
    last: dict[SSAValue, int] = {}
    for position, op in enumerate(block.ops):
        if kernel_kind(op) is KernelKind.VIEW:
            root[op.results[0]] = root.get(op.operands[0], op.operands[0])
        for operand in op.operands:
            last[root.get(operand, operand)] = position
    return root, last


def _call_step(
    op: func.CallOp,
    info: KernelInfo,
    storage: dict[SSAValue, Storage],
    workspace: Workspace,
    plan: Plan,
) -> None:
    inputs = [storage[v] for v in op.arguments]
    if info.packed is not None:
        position, layout = info.packed
        inputs[position] = _packed_storage(inputs[position], layout, plan)
    outputs = []
    for result in op.results:
        if result not in storage:
            nbytes = _nbytes(result)
            storage[result] = Storage("workspace", workspace.allocate(nbytes), nbytes)
        outputs.append(storage[result])
    scratch = [Storage("workspace", workspace.allocate(n), n) for n in info.scratch_bytes]
    if any(_nbytes(r) for r in op.results):  # else there is nothing to compute
        threaded = info.parallel_extent > 1 and info.work >= THREAD_WORK
        args = [*inputs, *outputs, *scratch]
        plan.steps.append(Step(info.name, args, info.parallel_extent, threaded))
    for buffer in scratch:
        workspace.release(buffer.index, buffer.nbytes)


def _packed_storage(source: Storage, layout, plan: Plan) -> Storage:
    """The storage of constant `source` packed as `layout` (one copy per pair)."""
    assert source.kind == "const" and source.index < len(plan.constants)
    entry = (source.index, layout)
    if entry not in plan.packed:
        plan.packed.append(entry)
    itemsize = plan.constants[source.index].itemsize
    index = len(plan.constants) + plan.packed.index(entry)
    return Storage("const", index, layout.size * itemsize)


def _copy_outputs(ret: func.ReturnOp, storage: dict[SSAValue, Storage], plan: Plan) -> None:
    for index, value in enumerate(ret.arguments):
        source = storage[value]
        if source.kind == "output" and source.index == index:
            continue
        nbytes = _nbytes(value)
        if nbytes:
            plan.copies.append(Copy(Storage("output", index, nbytes), source, nbytes))


# --- the entry function as LLVM IR --------------------------------------------

ENTRY = "tlir_main"

RUNTIME = """
declare void @tlir_rt_parallel(ptr, ptr, i64, i32)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal void @tlir.parallel(ptr %f, ptr %args, i64 %n, i32 %threads) {
  %one = icmp sle i32 %threads, 1
  br i1 %one, label %serial, label %parallel
serial:
  call void %f(ptr %args, i64 0, i64 %n)
  ret void
parallel:
  call void @tlir_rt_parallel(ptr %f, ptr %args, i64 %n, i32 %threads)
  ret void
}
"""
"""A step on one thread calls its kernel directly (never the thread runtime)."""

SERIAL_RUNTIME = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal void @tlir.parallel(ptr %f, ptr %args, i64 %n, i32 %threads) {
  call void %f(ptr %args, i64 0, i64 %n)
  ret void
}
"""
"""Without POSIX threads every step runs on the calling thread."""

WHOLE_RANGE = (1 << 63) - 1


def entry_ir(plan: Plan, kernel_arity: dict[str, int], threads: bool) -> str:
    """The entry function of `plan` as LLVM IR text (with the runtime)."""
    lines: list[str] = []
    for name, arity in sorted(kernel_arity.items()):
        params = ", ".join(["ptr"] * arity + ["i64", "i64"])
        lines.append(f"declare void @{name}({params})")
        lines.append(f"declare void @{name}.entry(ptr, i64, i64)")
    lines.append(RUNTIME if threads else SERIAL_RUNTIME)
    lines.append(f"define i32 @{ENTRY}(ptr %ins, ptr %outs, ptr %consts, ptr %ws, i32 %threads) {{")
    body = _EntryBody()
    for number, step in enumerate(plan.steps):
        pointers = [body.pointer(s) for s in step.args]
        if step.threaded:
            array = f"%args{number}"
            body.allocas.append(f"  {array} = alloca [{len(pointers)} x ptr], align 8")
            for slot, pointer in enumerate(pointers):
                body.line(f"%a{number}.{slot} = getelementptr ptr, ptr {array}, i64 {slot}")
                body.line(f"store ptr {pointer}, ptr %a{number}.{slot}")
            body.line(
                f"call void @tlir.parallel(ptr @{step.kernel}.entry, ptr {array}, "
                f"i64 {step.extent}, i32 %threads)"
            )
        else:
            args = ", ".join([f"ptr {p}" for p in pointers] + ["i64 0", f"i64 {WHOLE_RANGE}"])
            body.line(f"call void @{step.kernel}({args})")
    for copy in plan.copies:
        target, source = body.pointer(copy.target), body.pointer(copy.source)
        body.line(
            f"call void @llvm.memcpy.p0.p0.i64(ptr {target}, ptr {source}, "
            f"i64 {copy.nbytes}, i1 false)"
        )
    body.line("ret i32 0")
    lines.append("entry:")
    lines.extend(body.allocas)
    lines.extend(body.lines)
    lines.append("}")
    return "\n".join(lines) + "\n"


class _EntryBody:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.allocas: list[str] = []
        self.cache: dict[tuple[str, int], str] = {}

    def line(self, text: str) -> None:
        self.lines.append("  " + text)

    def pointer(self, storage: Storage) -> str:
        key = (storage.kind, storage.index)
        if key in self.cache:
            return self.cache[key]
        name = f"%{storage.kind[0]}{storage.index}"
        if storage.kind == "workspace":
            self.line(f"{name} = getelementptr i8, ptr %ws, i64 {storage.index}")
        else:
            array = {"input": "%ins", "output": "%outs", "const": "%consts"}[storage.kind]
            self.line(f"{name}.p = getelementptr ptr, ptr {array}, i64 {storage.index}")
            self.line(f"{name} = load ptr, ptr {name}.p")
        self.cache[key] = name
        return name


def kernel_entry_ir(name: str, arity: int, batch: bool = False) -> str:
    """`@name.entry(args, lo, hi)`: the kernel with its buffer pointers read from
    an array; a kernel that takes the batch (`batch`) reads it from the slot
    after the pointers, as an address-sized integer."""
    lines = [f"define void @{name}.entry(ptr %args, i64 %lo, i64 %hi) {{"]
    for slot in range(arity + batch):
        lines.append(f"  %p{slot}.a = getelementptr ptr, ptr %args, i64 {slot}")
        lines.append(f"  %p{slot} = load ptr, ptr %p{slot}.a")
    args = [f"ptr %p{slot}" for slot in range(arity)] + ["i64 %lo", "i64 %hi"]
    if batch:
        lines.append(f"  %batch = ptrtoint ptr %p{arity} to i64")
        args.append("i64 %batch")
    lines.append(f"  call void @{name}({', '.join(args)})")
    lines.append("  ret void")
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["ENTRY", "KernelInfo", "Plan", "build_plan", "entry_ir", "kernel_entry_ir"]


# --- persistence (the compile cache stores plans as JSON) ----------------------


def _storage_list(values: list[Storage]) -> list[list]:
    return [[s.kind, s.index, s.nbytes] for s in values]


def plan_to_json(plan: Plan) -> dict:
    """Everything but the constants (the module supplies them on a cache hit)."""
    return {
        "inputs": [[list(shape), dtype.str] for shape, dtype in plan.inputs],
        "outputs": [[list(shape), dtype.str] for shape, dtype in plan.outputs],
        "constants": len(plan.constants),
        "steps": [[s.kernel, _storage_list(s.args), s.extent, s.threaded] for s in plan.steps],
        "copies": [[*_storage_list([c.target, c.source]), c.nbytes] for c in plan.copies],
        "workspace_bytes": plan.workspace_bytes,
        "packed": [[source, layout.as_list()] for source, layout in plan.packed],
    }


def plan_from_json(data: dict, constants: list[np.ndarray]) -> Plan:
    from tlir.passes.contraction_kernels.packed_weight import PackedPanels

    if len(constants) != data["constants"]:
        raise ValueError("the cached plan reads a different number of constants")
    packed = [(source, PackedPanels.from_list(layout)) for source, layout in data.get("packed", [])]
    for source, layout in packed:
        if not (type(source) is int and 0 <= source < len(constants)):
            raise ValueError("a packed constant that is not one of the plan's")
        if constants[source].shape != (layout.n, layout.k):
            raise ValueError("a packed constant whose shape is not its layout's")
    return Plan(
        inputs=[(tuple(shape), np.dtype(dtype)) for shape, dtype in data["inputs"]],
        outputs=[(tuple(shape), np.dtype(dtype)) for shape, dtype in data["outputs"]],
        constants=constants,
        steps=[
            Step(kernel, [Storage(*s) for s in args], extent, threaded)
            for kernel, args, extent, threaded in data["steps"]
        ],
        copies=[Copy(Storage(*t), Storage(*s), n) for t, s, n in data["copies"]],
        workspace_bytes=data["workspace_bytes"],
        packed=packed,
    )
