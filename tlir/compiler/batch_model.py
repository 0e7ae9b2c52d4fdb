"""A dynamic-batch model compiled once for every batch.

The module is specialized at two nominal batches (`NOMINAL`) and its kernels
formed at each; the two kernel lists pair up by call order (a graph whose
kernels or plan do not pair up is compiled per batch, as a static model at
each). Each kernel is marked with `tlir.batch_axes` (per value of its
signature, the factor k of each axis whose extent is k·B) and lowered to loops
at both batches: the marked kernel takes the batch after `hi`
(`tlir-bufferize`), its parallel loop runs to `min(hi, k·batch)`
(`tlir-linalg-to-loops`), and when the two loop modules are the same code but
for the leading extents of buffer types (row-major strides do not depend on
the leading extent) the code at the first batch is the code at every batch:
the kernel is compiled once. A kernel whose code depends on the batch in any
other way (a stride, a reduction over the batch, a contraction whose tiles
are fixed at compile time) is compiled at each batch met, alone, and called
through a table the caller fills per batch (`tlir.compiler.batch_plan`).
The plan, workspace and entry function are affine in the batch and compiled
once.
"""

from __future__ import annotations

import ctypes
import functools
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IndexType, ModuleOp, i64

from tlir.compiler.batch_compare import same_code
from tlir.compiler.batch_plan import (
    Affine,
    BatchKernel,
    BatchPlan,
    batch_entry_ir,
    build_batch_plan,
)
from tlir.compiler.cache_entry import read_batch_entry, read_batch_kernel
from tlir.compiler.calling import ArraySpecs, EntryCall, address, check_to_specs
from tlir.compiler.plan import ALIGNMENT
from tlir.diagnostics import TlirError
from tlir.interpreter import quick_gil_handoff

NOMINAL = (61, 67)
"""The batches a dynamic model's kernels are formed at: primes unlike the
static extents of common models (a coincidence can only make kernels differ,
never wrong), and large enough that the lowering's choices made on an
extent (interleaved folds from 8 outputs, vector strips from a vector's
lanes) are those a static compile makes at a large batch: they hold at any
batch, whose bounds are run-time values."""

SMALL_NOMINAL = (5, 7)
"""The batches a dynamic model's second IBP program is formed at, for calls
at batches below two vectors of rows: there a static compile's signed
interval linear vectorises over the outputs (`tlir.passes.ibp.signed`), as
the program formed at these batches does, while the one formed at `NOMINAL`
runs such rows one by one in its strips."""

BATCH_AXES = "tlir.batch_axes"


def _computes_something(kernel: func.FuncOp) -> bool:
    from tlir.compiler.build import _computes_something

    return _computes_something(kernel)


class NotGeneric(Exception):
    """The model cannot be compiled once for every batch."""


def _calls(entry: func.FuncOp) -> list[func.CallOp]:
    return [op for op in entry.body.block.ops if isinstance(op, func.CallOp)]


def batch_axes(k0: func.FuncOp, k1: func.FuncOp, b0: int, b1: int) -> ArrayAttr:
    """`tlir.batch_axes` of a kernel formed at batches b0 and b1."""
    t0, t1 = k0.function_type, k1.function_type
    marks = []
    for a, b in zip(
        (*t0.inputs.data, *t0.outputs.data), (*t1.inputs.data, *t1.outputs.data), strict=True
    ):
        shape0 = a.get_shape() if hasattr(a, "get_shape") else ()
        shape1 = b.get_shape() if hasattr(b, "get_shape") else ()
        if len(shape0) != len(shape1):
            raise NotGeneric("a kernel's ranks differ")
        axis = []
        for e0, e1 in zip(shape0, shape1, strict=True):
            extent = Affine.through(b0, e0, b1, e1)
            if extent is None or (extent.s1 and extent.s0):
                raise NotGeneric("an extent is not a multiple of the batch")
            axis.append(extent.s1)
        marks.append(DenseArrayBase.from_list(i64, axis))
    return ArrayAttr(marks)


def _marked(kernel: func.FuncOp, axes: ArrayAttr, name: str) -> func.FuncOp:
    clone = kernel.clone()
    clone.sym_name = type(kernel.sym_name)(name)
    clone.attributes[BATCH_AXES] = axes
    return clone


def _takes_batch(loops: ModuleOp, name: str) -> func.FuncOp | None:
    function = next(f for f in loops.ops if isinstance(f, func.FuncOp) and f.sym_name.data == name)
    types = function.function_type.inputs.data
    return function if len(types) >= 3 and isinstance(types[-3], IndexType) else None


def _rule(function: func.FuncOp) -> tuple[int, int, int, int] | None:
    rule = function.attributes.get("tlir.parallel_rule")
    return tuple(rule.get_values()) if rule is not None else None  # type: ignore[return-value]


def _scratch(loops: tuple[ModuleOp, ModuleOp], name: str, batches, rule) -> tuple[Affine, ...]:
    """Each scratch buffer's bytes, affine in B: `tlir.scratch_rule` bounded
    above (⌈k·B/d⌉ ≤ k·B), or else the two batches' sizes."""
    from tlir.compiler.backend import kernel_abi

    function = _takes_batch(loops[0], name)
    declared = function.attributes.get("tlir.scratch_rule") if function else None
    abis = [kernel_abi(m, name) for m in loops]
    if len(abis[0].scratch_bytes) != len(abis[1].scratch_bytes):
        raise NotGeneric("a kernel's scratch buffers differ")
    if declared is not None:
        # s0 + s1·units(B) with units(B) = a·⌈k·B/d⌉ + c ≤ a·(k·B + d − 1)/d + c,
        # each coefficient rounded up
        a, k, d, c = rule
        values = declared.get_values()
        return tuple(
            Affine(s0 + s1 * c + -(-s1 * a * (d - 1) // d), -(-s1 * a * k // d))
            for s0, s1 in zip(values[::2], values[1::2], strict=True)
        )
    sizes = []
    for x0, x1 in zip(abis[0].scratch_bytes, abis[1].scratch_bytes, strict=True):
        size = Affine.through(batches[0], x0, batches[1], x1)
        if size is None:
            raise NotGeneric("a scratch buffer is not affine in the batch")
        sizes.append(size)
    return tuple(sizes)


@dataclass
class _Formed:
    work: ModuleOp
    entry: func.FuncOp


def form(module: ModuleOp, function: str, fuse: bool, numerics: str) -> _Formed:
    from tlir.compiler.build import _entry_module

    work, entry = _entry_module(module, function, fuse, numerics)
    return _Formed(work, entry)


def _kernels_of(formed: _Formed) -> dict[str, func.FuncOp]:
    return {k.sym_name.data: k for k in formed.work.ops if isinstance(k, func.FuncOp)}


class BatchCompile:
    """The model `module_at(B)` compiled once for every B ≥ 1 (see the module's
    docstring); NotGeneric if its graph does not pair up across batches."""

    def __init__(
        self,
        module_at: Callable[[int], ModuleOp],
        function: str,
        backend: str,
        opt_level: int,
        where: str,
        fuse: bool = True,
        numerics: str = "exact",
        store=None,
        nominal: tuple[int, int] = NOMINAL,
    ):
        from tlir.compiler import jit
        from tlir.compiler.build import Finisher, share_out
        from tlir.compiler.cache import digest, environment
        from tlir.compiler.cache_entry import batch_entry, batch_kernel_entry

        self.module_at, self.function = module_at, function
        self.backend, self.opt_level, self.where = backend, opt_level, where
        self.fuse, self.numerics = fuse, numerics
        self.environment = environment(backend, opt_level)
        self.store = store
        self.nominal = nominal
        """The batches the kernels are formed at (`NOMINAL` unless a program is
        formed for small batches: the lowering's choices made on an extent are
        those a static compile makes at such a batch)."""
        start = time.perf_counter()
        formed = [form(module_at(b), function, fuse, numerics) for b in nominal]
        self.first = formed[0]
        calls = [_calls(f.entry) for f in formed]
        if len(calls[0]) != len(calls[1]):
            raise NotGeneric("the kernels differ in number")
        from tlir.compiler.plan import entry_constants

        self.batch_constants = _batch_constants(
            nominal, *(entry_constants(f.entry) for f in formed)
        )
        self.inputs = _affine_specs(nominal, formed[0].entry, formed[1].entry)
        kernels = [_kernels_of(f) for f in formed]
        partner: dict[str, str] = {}
        for c0, c1 in zip(*calls, strict=True):
            n0, n1 = (c.callee.root_reference.data for c in (c0, c1))
            if partner.setdefault(n0, n1) != n1:
                raise NotGeneric("one kernel at one batch is two at another")
        self.infos: dict[str, BatchKernel] = {}
        self.per_batch: list[str] = []
        self.cache_hits = 0
        self.entry_hit = False
        """Whether the entry function's object came from the compile cache."""
        objects: dict[str, object] = {}
        arities: dict[str, int] = {}
        fresh: dict[str, tuple[str, dict]] = {}  # name → (key, info) to store
        finisher = Finisher(backend, opt_level, where)
        table = 0
        helpers: list = []
        try:
            found: dict[str, tuple[dict, object]] = {}  # name → (info, object or Future)
            pending: list[tuple[str, func.FuncOp]] = []  # (name, kernel at the first batch)
            for name, other in partner.items():
                k0 = kernels[0][name]
                if not _computes_something(k0):  # never called (as in a static compile)
                    continue
                key = digest("batch kernel", name, other, self.environment)
                cached = self._cached(store, key, name)
                if cached is not None:
                    found[name] = cached
                    self.cache_hits += 1
                else:
                    fresh[name] = (key, {})
                    pending.append((name, k0))
            # the helper's own finisher, made on its first job (after the fork)
            theirs_finisher = functools.cache(lambda: Finisher(backend, opt_level, where))
            job = functools.partial(self._job, kernels[1], partner, theirs_finisher)
            mine, helpers, theirs = share_out(
                pending, lambda share: [job(*item) for item in share], backend, where
            )
            with quick_gil_handoff():
                for name, k0 in mine:
                    k1 = kernels[1][partner[name]]
                    found[name] = self._compile_kernel(name, k0, k1, finisher)
                futures = [f for helper in helpers for f in helper.futures]
                for (name, _), future in zip(theirs, futures, strict=True):
                    found[name] = future.result()
            for name in partner:
                if name not in found:
                    self.infos[name] = BatchKernel(name, 0, 0, (), (0, 0, 1, 1), Affine(0))
                    continue
                info, data = found[name]
                if name in fresh:
                    fresh[name] = (fresh[name][0], info)
                kernel = BatchKernel(
                    name,
                    info["num_inputs"],
                    info["num_outputs"],
                    tuple(Affine(*pair) for pair in info["scratch"]),
                    None if info["rule"] is None else tuple(info["rule"]),
                    Affine(*info["work"]),
                    table if info["rule"] is None else -1,
                    info["scratch_count"] if info["rule"] is None else 0,
                )
                self.infos[name] = kernel
                if kernel.rule is None:
                    self.per_batch.append(name)
                    table += 2 + kernel.scratch_count
                else:
                    arities[name] = kernel.num_inputs + kernel.num_outputs + len(kernel.scratch)
                    objects[name] = data
            try:
                plan = build_batch_plan(
                    (formed[0].entry, formed[1].entry), nominal, self.infos, where
                )
            except ValueError as err:
                raise NotGeneric(str(err)) from None
            self.plan: BatchPlan = plan
            main_ir = batch_entry_ir(plan, arities, jit.host().threads)
            provided = frozenset(n + ".entry" for n in objects)
            entry_key = digest("batch entry", self.environment, main_ir)
            main = self._cached_entry(store, entry_key, provided)
            self.entry_hit = main is not None
            if main is None:
                main = finisher.entry(main_ir, provided)
            done = {n: o.result() if isinstance(o, Future) else o for n, o in objects.items()}
            main = main.result() if isinstance(main, Future) else main
            self.objects = [*done.values(), main]
        finally:
            finisher.shutdown()
            for helper in helpers:
                helper.close()
        if store is not None:
            for name, (key, info) in fresh.items():
                data = done.get(name, b"")
                if not data or not jit.foreign_symbols(data):  # else a load would refuse it
                    store.put(key, batch_kernel_entry(key, name, info, data))
            if not self.entry_hit and not jit.foreign_symbols(main, provided):
                store.put(entry_key, batch_entry(entry_key, main))
        self.seconds = time.perf_counter() - start

    def _compile_kernel(self, name, k0, k1, finisher) -> tuple[dict, object]:
        """(the kernel's info, its object or a Future of it; None if compiled per batch)."""
        from tlir.compiler.build import vectorize_loops

        info, loops = self._classify(name, k0, k1)
        if info["rule"] is None:
            return info, None
        return info, finisher.kernel(self._finish(loops, name), vectorize_loops(k0))

    def _job(self, second: dict, partner: dict, finisher, name: str, k0: func.FuncOp):
        """A helper process's job for one kernel (`tlir.compiler.helper`): as in
        this process, it lowers its next kernel while LLVM finishes this one."""

        def run() -> tuple[dict, object]:
            info, data = self._compile_kernel(name, k0, second[partner[name]], finisher())
            return info, b"" if data is None else data

        return run

    def _cached(self, store, key: str, name: str) -> tuple[dict, bytes] | None:
        if store is None:
            return None
        return store.read(key, lambda entry: read_batch_kernel(entry, key, name))

    @staticmethod
    def _cached_entry(store, key: str, provided: frozenset[str]) -> bytes | None:
        """The entry function's object from the cache (keyed by its IR and the
        environment), or None. Without it LLVM would compile it, at -O0, in every
        new process: about 3 % of a warm first call (`bench/dynamic_compile.py --warm`)."""
        if store is None:
            return None
        return store.read(key, lambda entry: read_batch_entry(entry, key, provided))

    def _classify(self, name: str, k0: func.FuncOp, k1: func.FuncOp) -> tuple[dict, ModuleOp]:
        """(the kernel's info as the cache stores it, its loops at the first batch)."""
        from tlir.compiler.backend import kernel_abi, kernel_to_loops
        from tlir.compiler.work import kernel_work

        b0, b1 = self.nominal
        work = Affine.through(b0, kernel_work(k0), b1, kernel_work(k1))
        work = work or Affine(max(kernel_work(k0), kernel_work(k1)))
        generic = self._generic(name, k0, k1, batch_axes(k0, k1, b0, b1), work)
        if generic is not None:
            kernel, loops = generic
            scratch = [[a.s0, a.s1] for a in kernel.scratch]
            rule = list(kernel.rule)
            count = len(scratch)
        else:
            loops = kernel_to_loops(k0)
            abi = kernel_abi(loops, name)
            scratch, rule, count = [], None, len(abi.scratch_bytes)
            kernel = abi
        info = {
            "num_inputs": kernel.num_inputs,
            "num_outputs": kernel.num_outputs,
            "scratch_count": count,
            "scratch": scratch,
            "rule": rule,
            "work": [work.s0, work.s1],
        }
        return info, loops

    def _generic(self, name, k0, k1, axes, work):
        """(the kernel's info, its loops at the first batch) if its code serves every batch."""
        from tlir.compiler.backend import kernel_abi, kernel_to_loops

        try:
            loops0 = kernel_to_loops(_marked(k0, axes, name))
            function = _takes_batch(loops0, name)
            rule = _rule(function) if function is not None else None
            if rule is None:
                return None
            loops1 = kernel_to_loops(_marked(k1, axes, name))
        except MemoryError:
            raise
        except Exception:  # noqa: BLE001 - a marked lowering that fails: the static route per batch
            return None
        generated = any(f.sym_name.data != name for f in loops0.ops if isinstance(f, func.FuncOp))
        if not same_code(loops0, loops1, generated):
            return None
        try:
            scratch = _scratch((loops0, loops1), name, self.nominal, rule)
        except NotGeneric:
            return None
        abi = kernel_abi(loops0, name)
        return BatchKernel(name, abi.num_inputs, abi.num_outputs, scratch, rule, work), loops0

    def _finish(self, loops: ModuleOp, name: str) -> Callable[[], str]:
        from tlir.compiler.backend import kernel_abi, with_entry

        abi = kernel_abi(loops, name)
        if self.backend == "xdsl":
            from tlir.compiler.backend import xdsl

            llvm_ir = with_entry(xdsl.kernel_llvm_ir(loops, self.where), name, abi)
            return lambda: llvm_ir
        from tlir.compiler.backend import mlir

        text = mlir.kernel_loops_text(loops)
        return lambda: with_entry(mlir.loops_text_to_llvm_ir(text, self.where), name, abi)


class PerBatch:
    """What a batch needs besides the once-compiled code: the kernels compiled at
    that batch (their engine), the table after the constants, the workspace size."""

    def __init__(self, compile_: BatchCompile, batch: int, constants: list[np.ndarray]):
        from tlir.compiler import jit

        plan = compile_.plan
        workspace = plan.workspace.at(batch)
        table: list[int] = [0] * plan.table
        self.engine = None
        self.call: EntryCall | None = None  # set by `BatchModelCode.at`
        self.specs: ArraySpecs | None = None  # the inputs at this batch
        self.kernels = 0  # compiled here (not from the compile cache)
        self.hits = 0
        if compile_.per_batch:
            formed = form(
                compile_.module_at(batch), compile_.function, compile_.fuse, compile_.numerics
            )
            calls = _calls(formed.entry)
            first = _calls(compile_.first.entry)
            if len(calls) != len(first):
                raise NotGeneric("the kernels differ in number")
            kernels = _kernels_of(formed)
            names = {}
            for c0, c in zip(first, calls, strict=True):
                n0, n = c0.callee.root_reference.data, c.callee.root_reference.data
                if names.setdefault(n0, n) != n:
                    raise NotGeneric("one kernel at one batch is two at another")
            objects, abis = [], {}
            for name in compile_.per_batch:
                abi, data = self._kernel(compile_, kernels[names[name]])
                info = compile_.infos[name]
                if (abi.num_inputs, abi.num_outputs, len(abi.scratch_bytes)) != (
                    info.num_inputs,
                    info.num_outputs,
                    info.scratch_count,
                ):
                    raise NotGeneric("a kernel's buffers differ")
                objects.append(data)
                abis[name] = abi
            self.engine = jit.Engine(objects)
            for name in compile_.per_batch:
                info, abi = compile_.infos[name], abis[name]
                table[info.table] = self.engine.engine.get_function_address(f"{names[name]}.entry")
                table[info.table + 1] = abi.parallel_extent
                for i, size in enumerate(abi.scratch_bytes):
                    workspace = -(-workspace // ALIGNMENT) * ALIGNMENT
                    table[info.table + 2 + i] = workspace
                    workspace += size
        self.workspace = max(workspace, 1)
        constants = list(constants)
        for index, (s0, s1, value) in compile_.batch_constants.items():
            shape = tuple(a + b * batch for a, b in zip(s0, s1, strict=True))
            constants[index] = np.full(shape, value[0], value.dtype)
        self.arrays = constants  # kept alive with their addresses
        pointers = [address(c) for c in constants] + table
        self.constants = (ctypes.c_void_p * max(len(pointers), 1))(*pointers)
        self.outputs = [(tuple(e.at(batch) for e in shape), dtype) for shape, dtype in plan.outputs]

    def _kernel(self, compile_: BatchCompile, kernel: func.FuncOp):
        """A static kernel at this batch: (ABI, object), from the compile cache
        when a static compile (or another process) made it."""
        from tlir.compiler import jit
        from tlir.compiler.build import compile_kernel
        from tlir.compiler.cache import digest
        from tlir.compiler.cache_entry import kernel_entry, read_kernel

        store, name = compile_.store, kernel.sym_name.data
        key = digest("kernel", name, compile_.environment)
        found = None
        if store is not None:
            found = store.read(key, lambda entry: read_kernel(entry, key, name))
        if found is not None:
            self.hits += 1
            return found
        abi, data = compile_kernel(kernel, compile_.backend, compile_.opt_level, compile_.where)
        self.kernels += 1
        if store is not None and not jit.foreign_symbols(data):
            store.put(key, kernel_entry(key, name, abi, data))
        return abi, data


class BatchModelCode:
    """The once-compiled code of a dynamic model and its calls at any batch."""

    def __init__(self, compile_: BatchCompile, constants: list[np.ndarray], cache: bool = True):
        from tlir.compiler import jit
        from tlir.compiler.plan import ENTRY

        if jit.host().threads:
            from tlir.compiler.pool import stub

            stub(cache)
        self.compile = compile_
        self.engine = jit.Engine(compile_.objects)
        pointer = ctypes.c_void_p
        self._entry = self.engine.function(
            ENTRY,
            ctypes.c_int32,
            [pointer, pointer, pointer, pointer, ctypes.c_int32, ctypes.c_int64],
        )
        self._constants = constants
        self._cache = cache
        self.batches: dict[int, PerBatch] = {}
        self.not_generic: set[int] = set()
        """Batches whose kernels did not pair up with the first's (NotGeneric):
        their calls go to a static compile without forming the kernels again."""
        self._lock = threading.Lock()
        self.where = compile_.where

    def _entry_call(self, state: PerBatch, batch: int) -> EntryCall:
        """A static model's caller (its pool of workspaces, one buffer for the
        outputs) on the entry function with the batch bound."""
        specs = ArraySpecs([])
        specs.specs = [(tuple(e.at(batch) for e in s), d) for s, d in self.compile.inputs]
        state.specs = specs
        return EntryCall(
            self._entry,
            specs,
            state.outputs,
            state.workspace,
            state.constants,
            self.where,
            self._cache,
            batch,
        )

    def at(self, batch: int) -> PerBatch:
        if batch in self.not_generic:
            raise NotGeneric("this batch's kernels do not pair up with the first's")
        found = self.batches.get(batch)
        if found is None:
            with self._lock:
                found = self.batches.get(batch)
                if found is None:
                    try:
                        found = PerBatch(self.compile, batch, self._constants)
                    except NotGeneric:
                        self.not_generic.add(batch)
                        raise
                    found.call = self._entry_call(found, batch)
                    self.batches[batch] = found
        return found

    def run(self, arrays: list[np.ndarray], batch: int, threads: int) -> list[np.ndarray]:
        """The call at `batch` on arrays checked against the inputs at that batch."""
        return self.at(batch).call.run(arrays, threads)


def _batch_constants(
    nominal: tuple[int, int], c0: list[np.ndarray], c1: list[np.ndarray]
) -> dict[int, tuple[tuple[int, ...], tuple[int, ...], np.ndarray]]:
    """The constants whose shape depends on the batch (a derivative's seed of
    ones, say): position → (shape at 0 and per unit of the batch, one element),
    each filled with its one value at the call's batch. NotGeneric unless
    each is one value repeated."""
    if len(c0) != len(c1):
        raise NotGeneric("the constants differ in number")
    found = {}
    for index, (a, b) in enumerate(zip(c0, c1, strict=True)):
        if a.shape == b.shape:
            continue
        if a.ndim != b.ndim or not a.size or not b.size:
            raise NotGeneric("a constant's rank depends on the batch")
        value = a.reshape(-1)[:1]
        if not (
            np.array_equal(a, np.broadcast_to(value, a.shape), equal_nan=True)
            and np.array_equal(b, np.broadcast_to(value, b.shape), equal_nan=True)
        ):
            raise NotGeneric("a batch-sized constant that is not one value repeated")
        extents = [
            Affine.through(nominal[0], e0, nominal[1], e1)
            for e0, e1 in zip(a.shape, b.shape, strict=True)
        ]
        if any(e is None for e in extents):
            raise NotGeneric("a constant's extent is not affine in the batch")
        found[index] = (tuple(e.s0 for e in extents), tuple(e.s1 for e in extents), value)
    return found


def _affine_specs(
    nominal: tuple[int, int], f0: func.FuncOp, f1: func.FuncOp
) -> list[tuple[tuple[Affine, ...], np.dtype]]:
    """The shapes (affine in the batch) and dtypes of a function's arguments."""
    from tlir.interface import numpy_dtype

    specs = []
    for a, b in zip(f0.body.block.args, f1.body.block.args, strict=True):
        shape = []
        for e0, e1 in zip(a.type.get_shape(), b.type.get_shape(), strict=True):
            extent = Affine.through(nominal[0], e0, nominal[1], e1)
            if extent is None:
                raise NotGeneric("an input extent is not affine in the batch")
            shape.append(extent)
        specs.append((tuple(shape), numpy_dtype(a.type)))
    return specs


def check_arrays(specs, arrays, batch: int, what: str, where: str) -> list[np.ndarray]:
    """Each array of its spec's shape at `batch` and dtype (C-contiguous); one-line errors."""
    if len(arrays) != len(specs):
        raise TlirError(where, f"expected {len(specs)} {what}s, got {len(arrays)}")
    at_batch = [(tuple(e.at(batch) for e in shape), dtype) for shape, dtype in specs]
    return check_to_specs(arrays, at_batch, what, where)


__all__ = ["NOMINAL", "SMALL_NOMINAL", "BatchCompile", "BatchModelCode", "NotGeneric"]
