"""The JIT: LLVM IR compiled for the host CPU by llvmlite (MCJIT), called on
NumPy buffers.

Compiled modules follow one calling convention (both back ends produce it):
`@main(in0*, in1*, …, out0*, out1*, …)` with every tensor a bare pointer to a
dense row-major buffer; results are written into caller-allocated outputs.
C math functions (`exp`, `expf`, …) resolve to the C library of this process.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence

import llvmlite.binding as llvm
import numpy as np

from tlir.diagnostics import TlirError


@functools.cache
def _initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def _target_machine(opt_level: int) -> llvm.TargetMachine:
    """A new machine per engine (the engine takes ownership of it), for the host
    CPU and its features (AVX2, AVX-512, …): a generic x86-64 machine would lower
    vector code to SSE2. No fast-math options: fmul/fadd are never fused."""
    _initialize()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=opt_level,
        codemodel="jitdefault",
    )


def _optimize(module: llvm.ModuleRef, machine: llvm.TargetMachine, opt_level: int) -> None:
    if opt_level == 0:
        return
    options = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    # Full unrolling of the many small constant-trip loops costs more compile
    # time than it returns at run time (the reduction loops stay sequential).
    options.loop_unrolling = opt_level >= 3
    builder = llvm.create_pass_builder(machine, options)
    builder.getModulePassManager().run(module, builder)


class CompiledModule:
    """An LLVM module compiled in memory; keeps the engine alive."""

    def __init__(
        self,
        llvm_ir: str,
        opt_level: int = 2,
        where: str = "module",
        symbols: dict[str, np.ndarray] | None = None,
    ):
        # External symbols (constant arrays) resolve to these buffers, which
        # must live as long as the engine.
        self.symbols = dict(symbols or {})
        for name, array in self.symbols.items():
            llvm.add_symbol(name, array.ctypes.data)
        machine = _target_machine(opt_level)
        try:
            module = llvm.parse_assembly(llvm_ir)
            module.verify()
        except RuntimeError as err:
            message = " ".join(str(err).split())
            raise TlirError(where, f"LLVM rejected the generated IR: {message}") from None
        _optimize(module, machine, opt_level)
        self.engine = llvm.create_mcjit_compiler(module, machine)
        self.engine.finalize_object()
        self.engine.run_static_constructors()

    def function(self, name: str, argtypes: Sequence):
        address = self.engine.get_function_address(name)
        if not address:
            raise TlirError("jit", f"the compiled module has no function @{name}")
        return ctypes.CFUNCTYPE(None, *argtypes)(address)


class Convention:
    """How a compiled function takes its buffers."""

    BARE = "bare"  # one pointer per buffer (tlir's route; MLIR's bare-pointer convention)
    DESCRIPTOR = "descriptor"  # MLIR's default: ptr, ptr, offset, sizes..., strides...


def argtypes(shapes: Sequence[tuple[int, ...]], convention: str) -> list:
    if convention == Convention.BARE:
        return [ctypes.c_void_p] * len(shapes)
    types: list = []
    for shape in shapes:
        types += [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * len(shape))
    return types


def _arguments(buffer: np.ndarray, storage: np.ndarray, convention: str) -> list:
    """The arguments passing `buffer`, whose data pointer comes from `storage`."""
    pointer = storage.ctypes.data
    if convention == Convention.BARE:
        return [pointer]
    strides = [s // buffer.itemsize for s in buffer.strides]
    return [pointer, pointer, 0, *buffer.shape, *strides]


def call(
    function,
    inputs: Sequence[np.ndarray],
    output_specs: Sequence[tuple[tuple[int, ...], np.dtype]],
    convention: str = Convention.BARE,
) -> list[np.ndarray]:
    """Call a compiled `@main` on private copies of the inputs (a compiled
    function may reuse its argument buffers) and fresh output buffers."""
    ins = [np.array(x, copy=True, order="C") for x in inputs]
    outs = [np.empty(shape, dtype) for shape, dtype in output_specs]
    buffers = (*ins, *outs)
    # Zero-size buffers still need a valid pointer; these arrays stay alive
    # until the call returns.
    storage = [a if a.size else np.empty(1, a.dtype) for a in buffers]
    args = [
        arg for a, s in zip(buffers, storage, strict=True) for arg in _arguments(a, s, convention)
    ]
    function(*args)
    return outs
