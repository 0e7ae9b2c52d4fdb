"""Compiling tlir models to machine code and calling them on NumPy arrays.

  model = tlir.compile("examples/cnn.json", dtype="f64")
  probabilities, logits = model(x)

The route: custom calls inlined, ops grouped into kernels (fused), identical
kernels merged (`tlir-inline-custom`, `tlir-form-kernels`,
`tlir-dedup-kernels`); each distinct kernel lowered once, by the chosen back
end, to an object file (or taken from the compile cache); the graph's function
becomes a plan of kernel calls over one workspace, emitted as an entry
function; the objects are linked in memory and called.
"""

from __future__ import annotations

import ctypes
import io
import math
import os

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from tlir.backend import BACKENDS, KernelABI
from tlir.diagnostics import TlirError
from tlir.interface import check_inputs, find_function

OPT_LEVELS = (0, 1, 2, 3)


def lower_to_linalg(module: ModuleOp) -> ModuleOp:
    """A copy of `module` in linalg / tensor / arith / math / func on tensors."""
    from tlir.passes.convert_random_to_arith import ConvertRandomToArith
    from tlir.passes.convert_tlir_to_linalg import ConvertTlirToLinalg
    from tlir.universe import context

    lowered = module.clone()
    ctx = context()
    for stage in (ConvertTlirToLinalg(), ConvertRandomToArith()):
        stage.apply(ctx, lowered)
    return lowered


def to_text(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def default_threads() -> int:
    """`TLIR_NUM_THREADS`, else every core this process may use."""
    value = os.environ.get("TLIR_NUM_THREADS", "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise TlirError("TLIR_NUM_THREADS", f"must be a positive integer, got '{value}'")
        return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _check_options(backend: object, opt_level: object, threads: object, where: str) -> None:
    if backend not in BACKENDS:
        raise TlirError(where, f"unknown back end {backend!r} (choose from {', '.join(BACKENDS)})")
    if isinstance(opt_level, bool) or opt_level not in OPT_LEVELS:
        raise TlirError(where, f"opt_level must be one of 0, 1, 2, 3, got {opt_level!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)):
        raise TlirError(where, f"threads must be a positive integer, got {threads!r}")
    if isinstance(threads, int) and threads < 1:
        raise TlirError(where, f"threads must be a positive integer, got {threads}")


def _entry_module(module: ModuleOp, function: str) -> tuple[ModuleOp, func.FuncOp]:
    """The functions of `module` in a module of their own, kernels formed."""
    from tlir.passes.tlir_to_llvm import KERNEL_FORMATION, stage_passes
    from tlir.universe import context

    find_function(module, function)
    work = ModuleOp([op.clone() for op in module.ops if isinstance(op, func.FuncOp)])
    ctx = context()
    for stage in stage_passes(KERNEL_FORMATION):
        stage.apply(ctx, work)
    return work, find_function(work, function)


class CompiledModel:
    """A model compiled for this CPU; call it with NumPy arrays."""

    def __init__(
        self,
        module: ModuleOp,
        backend: str = "xdsl",
        opt_level: int = 2,
        where: str = "model",
        threads: int | None = None,
        function: str = "main",
    ):
        from tlir import jit
        from tlir.passes.tlir_form_kernels import is_kernel
        from tlir.plan import ENTRY, KernelInfo, build_plan, entry_ir, kernel_work

        _check_options(backend, opt_level, threads, where)
        self.where = where
        self.threads = threads or default_threads()
        self.function_op = find_function(module, function)
        work, entry = _entry_module(module, function)
        kernels = [op for op in work.ops if isinstance(op, func.FuncOp) and is_kernel(op)]
        used = {op.callee.root_reference.data for op in entry.walk() if isinstance(op, func.CallOp)}
        objects: list[bytes] = []
        infos: dict[str, KernelInfo] = {}
        arities: dict[str, int] = {}
        for kernel in kernels:
            name = kernel.sym_name.data
            if name not in used:
                continue
            if not any(math.prod(t.get_shape()) for t in kernel.function_type.outputs.data):
                # nothing to compute: the plan never calls it
                infos[name] = KernelInfo(name, 0, 0, (), 1, 0)
                continue
            abi, data = compile_kernel(kernel, backend, opt_level, where)
            objects.append(data)
            arities[name] = abi.arity
            infos[name] = KernelInfo(
                name,
                abi.num_inputs,
                abi.num_outputs,
                abi.scratch_bytes,
                abi.parallel_extent,
                kernel_work(kernel),
            )
        self.plan = build_plan(entry, infos, where)
        main_ir = entry_ir(self.plan, arities, jit.host().openmp)
        objects.append(jit.compile_object(main_ir, min(opt_level, 1), where))
        self.engine = jit.Engine(objects)
        pointer = ctypes.c_void_p
        self._entry = self.engine.function(
            ENTRY, ctypes.c_int32, [pointer, pointer, pointer, pointer, ctypes.c_int32]
        )
        self._constants = [np.ascontiguousarray(c) for c in self.plan.constants]
        self._constant_pointers = _pointer_array(self._constants)

    def parameters(self) -> list[np.ndarray]:
        """The constant arrays the compiled code reads (writing into them changes the model)."""
        return self._constants

    def __call__(self, *inputs: np.ndarray) -> list[np.ndarray]:
        checked = check_inputs(self.function_op, inputs, self.where)
        outputs = [np.empty(shape, dtype) for shape, dtype in self.plan.outputs]
        try:
            workspace = np.empty(max(self.plan.workspace_bytes, 1), np.uint8)
        except MemoryError:
            raise TlirError(
                self.where, f"cannot allocate the {self.plan.workspace_bytes}-byte workspace"
            ) from None
        status = self._entry(
            _pointer_array(checked),
            _pointer_array(outputs),
            self._constant_pointers,
            workspace.ctypes.data,
            self.threads,
        )
        if status:
            raise TlirError(self.where, f"the compiled model failed with status {status}")
        return outputs


_EMPTY = np.empty(1, np.uint8)
"""Zero-size arrays still need a valid pointer; nothing reads or writes it."""


def _pointer_array(arrays) -> ctypes.Array:
    pointers = [a.ctypes.data if a.size else _EMPTY.ctypes.data for a in arrays]
    return (ctypes.c_void_p * max(len(pointers), 1))(*pointers)


def compile_kernel(
    kernel: func.FuncOp, backend: str, opt_level: int, where: str
) -> tuple[KernelABI, bytes]:
    """Lower one distinct kernel with `backend` and compile it for the host."""
    from tlir import backend as backends
    from tlir import jit

    loops = backends.kernel_to_loops(kernel)
    name = kernel.sym_name.data
    abi = backends.kernel_abi(loops, name)
    if backend == "xdsl":
        from tlir.backend import xdsl

        llvm_ir = xdsl.kernel_llvm_ir(loops, where)
    else:
        from tlir.backend import mlir

        llvm_ir = mlir.kernel_llvm_ir(loops, where)
    llvm_ir = backends.with_entry(llvm_ir, name, abi)
    return abi, jit.compile_object(llvm_ir, opt_level, where)


def compile(
    model,
    dtype: str | None = None,
    backend: str = "xdsl",
    opt_level: int = 2,
    threads: int | None = None,
) -> CompiledModel:
    """Compile a model: a .json/.mlir path, MLIR text, or a module."""
    from tlir.api import load_model, parse_module_checked
    from tlir.diagnostics import verify_module

    if dtype not in (None, "f32", "f64"):
        raise TlirError("tlir.compile", f"dtype must be 'f32' or 'f64', got {dtype!r}")
    if isinstance(model, ModuleOp):
        module, where = model, "module"
    elif isinstance(model, str) and model.endswith((".json", ".mlir")) and "\n" not in model:
        module, where = load_model(model, dtype), model
    elif isinstance(model, str):
        module, where = parse_module_checked(model, "<string>"), "<string>"
        verify_module(module, where)
    else:
        raise TlirError(
            "tlir.compile", f"expected a model path, MLIR text or a module, got {type(model)}"
        )
    return CompiledModel(module, backend, opt_level, where, threads)


__all__ = ["CompiledModel", "compile", "compile_kernel", "lower_to_linalg"]
