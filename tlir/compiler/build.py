"""One compile of a model: from the compile cache when it holds the model, else
kernel by kernel.

Custom calls are inlined, ops grouped into kernels and identical kernels merged
(`tlir-inline-custom`, `tlir-form-kernels`, `tlir-dedup-kernels`); each
distinct kernel is lowered once by the chosen back end and compiled by LLVM to
an object of its own (or taken from the cache), LLVM compiling kernel i on a
worker thread while this thread lowers kernel i+1; what remains of the graph's
function becomes a plan and its entry function (`tlir.compiler.plan`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, SSAValue

from tlir.compiler.backend import KernelABI
from tlir.compiler.plan import Plan
from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.interface import find_function
from tlir.interpreter import collect_young_objects, quick_gil_handoff

if TYPE_CHECKING:
    from tlir.compiler.cache_entry import ModelFacts


def _entry_module(
    module: ModuleOp, function: str, fuse: bool, numerics: str = "exact", frozen: bool = False
) -> tuple[ModuleOp, func.FuncOp]:
    """The functions of `module` in a module of their own, kernels formed;
    `frozen`: each linear whose weight is a constant marked for a kernel that
    takes it packed (`prepacked.PACKED_WEIGHT`)."""
    from tlir.passes.tlir_dedup_kernels import TlirDedupKernels
    from tlir.passes.tlir_form_kernels import TlirFormKernels
    from tlir.passes.tlir_inline_custom import TlirInlineCustom
    from tlir.universe import context

    work = ModuleOp([op.clone() for op in module.ops if isinstance(op, func.FuncOp)])
    ctx = context()
    forming = TlirFormKernels(fuse=fuse, numerics=numerics, dedup=True)
    TlirInlineCustom().apply(ctx, work)
    if frozen:
        mark_constant_weights(find_function(work, function))
    for stage in (forming, TlirDedupKernels()):
        stage.apply(ctx, work)
    return work, find_function(work, function)


def mark_constant_weights(function: func.FuncOp) -> None:
    """Mark the linears of `function` whose weight is a constant: a frozen
    model's constants never change, so their kernels take them packed once."""
    from xdsl.dialects.builtin import UnitAttr

    from tlir.passes.contraction_kernels.packed_weight import PACKED_WEIGHT

    for op in function.body.block.ops:
        if isinstance(op, T.LinearOp) and isinstance(op.weight.owner, T.ConstOp):
            op.attributes[PACKED_WEIGHT] = UnitAttr()


class Build:
    """One compile: from the cache when it holds the model, else kernel by kernel."""

    def __init__(
        self,
        module: ModuleOp,
        function: str,
        backend: str,
        opt_level: int,
        where: str,
        fuse: bool,
        progress: bool,
        numerics: str = "exact",
        parameters: str = "live",
    ):
        from tlir.compiler.cache import digest, environment

        self.module, self.function = module, function
        self.backend, self.opt_level, self.where = backend, opt_level, where
        self.fuse, self.progress, self.numerics = fuse, progress, numerics
        self.frozen = parameters == "frozen"
        self.seconds: dict[str, float] = {}
        self.helper_kernels = 0
        """Distinct kernels compiled by helper processes (`tlir.compiler.helper`)."""
        self.environment = environment(backend, opt_level)
        start = time.perf_counter()
        structure = model_structure(module)
        from tlir.compiler.options import model_options

        options = model_options(fuse, numerics, parameters)
        self.model_key = digest("model", structure, function, options, self.environment)
        self.seconds["key"] = time.perf_counter() - start

    def kernel_key(self, name: str) -> str:
        from tlir.compiler.cache import digest

        return digest("kernel", name, self.environment)

    def constants(self) -> list[np.ndarray]:
        from tlir.compiler.plan import entry_constants

        module = self.module
        if any(isinstance(op, T.CustomOp) for op in module.walk()):
            from tlir.passes.tlir_inline_custom import TlirInlineCustom
            from tlir.universe import context

            module = ModuleOp([op.clone() for op in module.ops if isinstance(op, func.FuncOp)])
            TlirInlineCustom().apply(context(), module)
        return entry_constants(find_function(module, self.function))

    def facts(self) -> ModelFacts:
        """What a cached entry of this model must match (`tlir.compiler.cache_entry`)."""
        from tlir.compiler.cache_entry import ModelFacts, arrays_json
        from tlir.interface import numpy_dtype

        signature = find_function(self.module, self.function).function_type
        inputs, outputs = (
            arrays_json([(t.get_shape(), numpy_dtype(t)) for t in types.data])
            for types in (signature.inputs, signature.outputs)
        )
        return ModelFacts(self.model_key, inputs, outputs, self.constants())

    def load(self, store) -> tuple[Plan, list[bytes]] | None:
        """The plan and objects of a cached model, or None (`load_cached`)."""
        start = time.perf_counter()
        loaded = load_cached(store, self.model_key, self.facts, self.environment)
        if loaded is not None:
            self.seconds["load"] = time.perf_counter() - start
        return loaded

    def compile(self, store) -> tuple[Plan, list[bytes]]:
        from tlir.compiler import jit
        from tlir.compiler.backend import packed_weight
        from tlir.compiler.plan import KernelInfo, build_plan, entry_ir
        from tlir.compiler.work import kernel_work
        from tlir.passes.tlir_form_kernels import is_kernel

        start = time.perf_counter()
        work, entry = _entry_module(
            self.module, self.function, self.fuse, self.numerics, self.frozen
        )
        self.seconds["tlir"] = time.perf_counter() - start
        used = {op.callee.root_reference.data for op in entry.walk() if isinstance(op, func.CallOp)}
        kernels = [
            k
            for k in work.ops
            if isinstance(k, func.FuncOp) and is_kernel(k) and k.sym_name.data in used
        ]
        called = [k for k in kernels if _computes_something(k)]
        # Once per kernel, for its lowering (here or in a helper) and the plan.
        with internal_errors(self.where):
            packed = {k.sym_name.data: packed_weight(k) for k in called}
        objects: list[bytes | Future | None] = []
        keys: list[str] = []
        abis: dict[str, KernelABI] = {}
        pending: list[tuple[int, func.FuncOp]] = []  # (position, kernel) to compile
        for kernel in called:
            key = self.kernel_key(kernel.sym_name.data)
            cached = self._cached_kernel(store, key, kernel.sym_name.data)
            if cached is None:
                pending.append((len(objects), kernel))
                objects.append(None)
            else:
                abis[kernel.sym_name.data], data = cached
                objects.append(data)
            keys.append(key)
        lowering_seconds = 0.0
        finisher = Finisher(self.backend, self.opt_level, self.where)
        helpers: list = []
        bar = _NoBar()
        try:
            mine, helpers, theirs = self._start_helpers(pending, packed)
            bar = _progress(len(pending), self.progress)
            with quick_gil_handoff():
                for position, kernel in mine:
                    begin = time.perf_counter()
                    abi, finish = start_lowering(
                        kernel, self.backend, self.where, packed[kernel.sym_name.data]
                    )
                    lowering_seconds += time.perf_counter() - begin
                    objects[position] = finisher.kernel(finish, vectorize_loops(kernel))
                    abis[kernel.sym_name.data] = abi
                    bar.update()
                futures = [f for helper in helpers for f in helper.futures]
                for (position, kernel), future in zip(theirs, futures, strict=True):
                    header, data = future.result()
                    objects[position] = data
                    abis[kernel.sym_name.data] = _abi(header)
                    bar.update()
                infos = {
                    k.sym_name.data: KernelInfo(k.sym_name.data, 0, 0, (), 1, 0)  # never called
                    for k in kernels
                }
                for kernel in called:
                    name, abi = kernel.sym_name.data, abis[kernel.sym_name.data]
                    infos[name] = KernelInfo(
                        name,
                        abi.num_inputs,
                        abi.num_outputs,
                        abi.scratch_bytes,
                        abi.parallel_extent,
                        kernel_work(kernel),
                        packed[name],
                    )
                arities = {k.sym_name.data: abis[k.sym_name.data].arity for k in called}
                # The plan and the entry function's IR are built while LLVM is
                # still busy with the last kernels.
                start = time.perf_counter()
                plan = build_plan(entry, infos, self.where)
                main_ir = entry_ir(plan, arities, jit.host().threads)
                planning = time.perf_counter() - start
                kernel_symbols = frozenset(n + s for n in arities for s in ("", ".entry"))
                main_future = finisher.entry(main_ir, kernel_symbols)
                collect_young_objects()  # while LLVM finishes (tlir.interpreter)
                objects = [o.result() if isinstance(o, Future) else o for o in objects]
                main_object = main_future.result()
        finally:
            bar.close()
            finisher.shutdown()
            for helper in helpers:
                helper.close()
        if store is not None:
            self._store_kernels(store, pending, keys, abis, objects)
        self.seconds.update(
            lowering=lowering_seconds + finisher.seconds["tools"],
            llvm=finisher.seconds["kernels"],
            entry=planning + finisher.seconds["entry"],
        )
        self.helper_kernels = len(theirs)
        if store is not None:
            names = [kernel.sym_name.data for kernel in called]
            self._store_model(store, plan, list(zip(names, keys, strict=True)), main_object)
        return plan, [*objects, main_object]

    def _cached_kernel(self, store, key: str, name: str) -> tuple[KernelABI, bytes] | None:
        """A kernel's ABI and object from the cache, or None (an entry that does
        not check out is discarded)."""
        from tlir.compiler.cache_entry import read_kernel

        if store is None:
            return None
        return store.read(key, lambda entry: read_kernel(entry, key, name))

    def _store_kernels(self, store, pending, keys, abis, objects) -> None:
        from tlir.compiler import jit
        from tlir.compiler.cache_entry import kernel_entry

        for position, kernel in pending:
            name, data = kernel.sym_name.data, objects[position]
            if not jit.foreign_symbols(data):  # else a load would refuse it
                store.put(keys[position], kernel_entry(keys[position], name, abis[name], data))

    def _store_model(self, store, plan: Plan, kernels: list[tuple[str, str]], data: bytes):
        from tlir.compiler import jit
        from tlir.compiler.cache_entry import model_entry

        provided = frozenset(name + s for name, _ in kernels for s in ("", ".entry"))
        if not jit.foreign_symbols(data, provided):
            store.put(self.model_key, model_entry(self.facts(), plan, kernels, data))

    def _start_helpers(self, pending: list[tuple[int, func.FuncOp]], packed: dict):
        """(this process's share of `pending`, the helper processes compiling the
        rest (tlir.compiler.helper), their kernels in the order of their futures).
        `packed`: each kernel's `packed_weight` by name."""
        backend, opt_level, where = self.backend, self.opt_level, self.where

        # the helper's own, made on its first job (in the helper, after the fork)
        finisher = functools.cache(lambda: Finisher(backend, opt_level, where))

        def job(kernel: func.FuncOp) -> Callable[[], tuple[dict, Future]]:
            def run() -> tuple[dict, Future]:
                # As in this process: the helper lowers its next kernel while
                # LLVM (and the mlir back end's tools) finish this one.
                abi, finish = start_lowering(kernel, backend, where, packed[kernel.sym_name.data])
                return dataclasses.asdict(abi), finisher().kernel(finish, vectorize_loops(kernel))

            return run

        return share_out(pending, lambda share: [job(k) for _, k in share], backend, where)


def load_cached(
    store, key: str, facts: Callable[[], ModelFacts], environment: str
) -> tuple[Plan, list[bytes]] | None:
    """The plan and objects of the model cached under `key`, or None: its entry
    must match `facts()` (asked for only when there is an entry) and name each
    kernel with its key in `environment`. An entry that is malformed or made for
    something else is discarded: a miss."""
    from tlir.compiler.cache import digest
    from tlir.compiler.cache_entry import read_model

    def read(entry: bytes) -> tuple[Plan, list[tuple[str, str]], bytes]:
        plan, kernels, main_object = read_model(entry, facts())
        if any(k != digest("kernel", name, environment) for name, k in kernels):
            raise ValueError("the entry names kernels of another environment")
        return plan, kernels, main_object

    model = store.read(key, read)
    if model is None:
        return None
    plan, kernels, main_object = model
    readers = {k: functools.partial(_kernel_object, k, name) for name, k in kernels}
    objects = list(store.read_many(readers).values())
    if None in objects:  # evicted or discarded: the model is compiled again, the kernel with it
        return None
    return plan, [*objects, main_object]


def _kernel_object(key: str, name: str, entry: bytes) -> bytes:
    from tlir.compiler.cache_entry import read_kernel

    return read_kernel(entry, key, name)[1]


class Finisher:
    """What follows a kernel's xDSL lowering, off the lowering thread: LLVM on
    one worker thread (all llvmlite use stays on it; its calls release the GIL
    and take it back sooner with a short switch interval, tlir.interpreter),
    and with the mlir back end the tools (subprocesses) on two threads of their
    own beside it, two kernels at a time, the worker taking their IR in order.
    Executors start their threads at the first submit, after the helpers are
    forked (tlir.compiler.helper forks only a single-threaded process)."""

    def __init__(self, backend: str, opt_level: int, where: str):
        self.opt_level, self.where = opt_level, where
        self.seconds = {"kernels": 0.0, "entry": 0.0, "tools": 0.0}
        self.llvm = ThreadPoolExecutor(1, thread_name_prefix="tlir-llvm")
        self.tools = (
            ThreadPoolExecutor(2, thread_name_prefix="tlir-mlir-tools")
            if backend == "mlir"
            else None
        )

    def kernel(self, finish: Callable[[], str], vectorize: bool = True) -> Future:
        """The object of a kernel whose LLVM IR `finish` gives (`vectorize`: with
        LLVM's loop vectorizer, `vectorize_loops`)."""
        level = self.opt_level
        if self.tools is None:
            return self.llvm.submit(lambda: self._object(finish(), level, vectorize=vectorize))
        ir = self.tools.submit(self._run_tools, finish)
        return self.llvm.submit(lambda: self._object(ir.result(), level, vectorize=vectorize))

    def entry(self, llvm_ir: str, provided: frozenset[str]) -> Future:
        """The entry function's object. It only sequences kernel calls: LLVM at
        -O0 (fast instruction selection) compiles it in time linear in its
        length, about 5x faster than -O1 at 3,000 calls, and the calls run as fast."""
        return self.llvm.submit(self._object, llvm_ir, 0, provided, "entry")

    def shutdown(self) -> None:
        self.llvm.shutdown(cancel_futures=True)
        if self.tools is not None:
            self.tools.shutdown(cancel_futures=True)

    def _object(
        self, llvm_ir: str, opt_level: int, provided=frozenset(), what="kernels", vectorize=True
    ) -> bytes:
        from tlir.compiler import jit

        begin = time.perf_counter()
        data = jit.compile_object(llvm_ir, opt_level, self.where, provided, vectorize)
        self.seconds[what] += time.perf_counter() - begin
        return data

    def _run_tools(self, finish: Callable[[], str]) -> str:
        begin = time.perf_counter()
        llvm_ir = finish()
        self.seconds["tools"] += time.perf_counter() - begin  # two threads: a rough sum
        return llvm_ir


def vectorize_loops(kernel: func.FuncOp) -> bool:
    """Whether LLVM's loop vectorizer runs on the kernel: not on the kernel
    generator's code in the exact numerics, vectorised already
    (`tlir.compiler.backend.is_generated`). Its fma kernels keep it: the bench MLP's f32
    ran 0-3% slower without it."""
    from tlir.compiler.backend import is_generated
    from tlir.passes.tlir_form_kernels import NUMERICS_ATTR

    if kernel.attributes.get(NUMERICS_ATTR) == StringAttr("fma"):
        return True
    return not is_generated(kernel)


def _computes_something(kernel: func.FuncOp) -> bool:
    """Whether a kernel has an output with elements (one without is never called)."""
    return any(math.prod(t.get_shape()) for t in kernel.function_type.outputs.data)


def _abi(header: dict) -> KernelABI:
    """The ABI a helper process sends back (as a dict, `dataclasses.asdict`)."""
    return KernelABI(**{**header, "scratch_bytes": tuple(header["scratch_bytes"])})


def share_out(pending: list, jobs_of: Callable[[list], list], backend: str, where: str):
    """(this process's share of `pending`, the helper processes started for the
    other shares — each share's jobs `jobs_of(share)` —, the items they took in
    the order of their futures). One process, or too few items: all here. A
    share whose process did not fork stays here too."""
    from tlir.compiler import helper

    count = min(helper.processes(), len(pending))
    if count < 2:
        return pending, [], []
    shares = _shares(pending, count)
    from tlir.compiler.backend import preload

    preload(backend)  # imported once, before the fork, for every process
    mine, started, theirs = shares[0], [], []
    others = shares[1:]
    processes = helper.start_helpers([jobs_of(share) for share in others], where)
    for share, process in zip(others, processes, strict=True):
        if process is None:  # not forked: this process takes the share
            mine = mine + share
        else:
            started.append(process)
            theirs.extend(share)
    return mine, started, theirs


def _shares(pending: list[tuple[int, func.FuncOp]], count: int) -> list[list]:
    """`pending` dealt out to `count` processes, this one first: contractions
    (the longest to lower and compile) before other kernels and the largest
    first within each kind, round-robin, so that each gets a like share."""
    from tlir.compiler.backend import contractions

    def size(item: tuple[int, func.FuncOp]) -> tuple[bool, int]:
        ops = list(item[1].body.block.ops)
        return (bool(ops) and isinstance(ops[0], contractions()), len(ops))

    ordered = sorted(pending, key=size, reverse=True)
    return [ordered[i::count] for i in range(count)]


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool):
    """A bar on stderr, shown only if it is a terminal and the work takes > 2 s."""
    if not enabled or not total:
        return _NoBar()
    from tqdm import tqdm

    class Bar(tqdm):
        # tqdm's monitor is a Python thread that outlives the bar, and while
        # another Python thread runs, no compile may fork helper processes
        monitor_interval = 0

    return Bar(
        total=total,
        desc="tlir: compiling kernels",
        unit="kernel",
        delay=2.0,
        leave=False,
        disable=None,
    )


def model_structure(module: ModuleOp) -> str:
    """The module as text without constant values (which reach the compiled code
    as arguments): two modules with the same structure share their machine code."""
    names: dict[Attribute, str] = {}

    def text(attr: Attribute) -> str:
        if type(attr) is StringAttr:  # a parameter's name: unique, and printing it is slow
            return repr(attr.data)
        if attr not in names:
            names[attr] = str(attr)
        return names[attr]

    numbers: dict[SSAValue, int] = {}
    lines = []
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    numbers[arg] = len(numbers)
                lines.append(f"block {','.join(text(a.type) for a in block.args)}")
        props = sorted(
            (k, text(v))
            for k, v in op.properties.items()
            if not (isinstance(op, T.ConstOp) and k == "value")
        )
        attrs = sorted((k, text(v)) for k, v in op.attributes.items() if k != "sym_visibility")
        operands = ",".join(str(numbers.get(v, -1)) for v in op.operands)
        results = ",".join(text(r.type) for r in op.results)
        lines.append(f"{op.name}|{props}|{attrs}|{operands}|{results}")
        for result in op.results:
            numbers[result] = len(numbers)
    return "\n".join(lines)


def lower_kernel(kernel: func.FuncOp, backend: str, where: str) -> tuple[KernelABI, str]:
    """Lower one distinct kernel with `backend` to LLVM IR: (ABI, IR text)."""
    abi, finish = start_lowering(kernel, backend, where)
    return abi, finish()


def start_lowering(
    kernel: func.FuncOp, backend: str, where: str, packed=...
) -> tuple[KernelABI, Callable[[], str]]:
    """The xDSL part of a kernel's lowering, done here: (ABI, a function that
    finishes it and returns the LLVM IR). The mlir back end's finish runs
    mlir-opt and mlir-translate and touches no xDSL object, so it may run on
    another thread while this one lowers the next kernel. A failure of the
    lowering that is not a located error is a bug of tlir's passes: it becomes
    a one-line internal error at `where`, in this process as in a helper.
    `packed`: the kernel's `packed_weight`, if the caller has it (`...`: not)."""
    with internal_errors(where):
        return _start_lowering(kernel, backend, where, packed)


@contextlib.contextmanager
def internal_errors(where: str):
    """A failure of the lowering that is not a located error, a bug of tlir's
    passes, as a one-line internal error at `where`."""
    try:
        yield
    except (TlirError, MemoryError):
        raise
    except Exception as err:  # noqa: BLE001 - the contract is: never a bare exception
        message = " ".join(f"{type(err).__name__}: {err}".split())
        raise TlirError(where, f"internal error: {message}") from err


def _start_lowering(
    kernel: func.FuncOp, backend: str, where: str, packed=...
) -> tuple[KernelABI, Callable[[], str]]:
    from tlir.compiler import backend as backends

    loops = backends.kernel_to_loops(kernel, packed)
    name = kernel.sym_name.data
    abi = backends.kernel_abi(loops, name)
    if backend == "xdsl":
        from tlir.compiler.backend import xdsl

        llvm_ir = backends.with_entry(xdsl.kernel_llvm_ir(loops, where), name, abi)
        return abi, lambda: llvm_ir
    from tlir.compiler.backend import mlir

    text = mlir.kernel_loops_text(loops)
    return abi, lambda: backends.with_entry(mlir.loops_text_to_llvm_ir(text, where), name, abi)


def compile_kernel(
    kernel: func.FuncOp, backend: str, opt_level: int, where: str
) -> tuple[KernelABI, bytes]:
    """Lower one distinct kernel with `backend` and compile it for the host:
    (ABI, object)."""
    from tlir.compiler import jit

    abi, llvm_ir = lower_kernel(kernel, backend, where)
    return abi, jit.compile_object(
        llvm_ir, opt_level, where, vectorize_loops=vectorize_loops(kernel)
    )
