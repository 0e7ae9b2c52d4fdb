"""The JIT: LLVM IR compiled for the host CPU into object code, linked by MCJIT.

Each kernel and the entry function are compiled to an object of their own (the
unit the compile cache stores); an `Engine` links a model's objects and hands
out function pointers. Code is generated for the host CPU (its name and
features: AVX2, AVX-512, … as available; 512-bit vectors preferred with
AVX-512), with LLVM's default floating-point
contraction, which never fuses a separate `fmul` and `fadd` into an FMA: no
fast-math flag is ever set, so nothing is reassociated or contracted.

C math functions (`exp`, `expf`, …) resolve to the C library of this process;
threaded steps call tlir's own thread runtime (`tlir.compiler.pool`) through a stub
that the compiled model links first (`tlir.compiler.pool.stub`); the runtime itself is loaded
(from the compile cache, else compiled once per process) at the first call with more than one
thread.
"""

from __future__ import annotations

import collections
import ctypes
import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import llvmlite
import llvmlite.binding as llvm

from tlir.diagnostics import TlirError


@dataclass(frozen=True)
class Host:
    triple: str
    cpu: str
    features: str
    threads: bool

    def describe(self) -> str:
        """Everything about the host that changes generated code (cache keys)."""
        version = ".".join(map(str, llvm.llvm_version_info))
        return (
            f"llvmlite {llvmlite.__version__}; LLVM {version}; {self.triple}; "
            f"{self.cpu}; {self.features}; threads {self.threads}"
        )


@functools.cache
def host() -> Host:
    from tlir.compiler.threads import available

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return Host(
        triple=llvm.get_process_triple(),
        cpu=llvm.get_host_cpu_name(),
        features=_features(),
        threads=available(),
    )


def _features() -> str:
    """The host's CPU features, with AVX-512 the loop vectoriser's preference for
    256-bit vectors turned off: LLVM's tuning for most AVX-512 CPUs prefers them,
    and the interval programs' vectorised folds run 1.3-1.5x faster in 512-bit
    vectors here (the derivative programs, a few percent). The contraction
    kernels choose their own width, and no vector width changes a result
    (nothing is reassociated)."""
    features = llvm.get_host_cpu_features()
    text = features.flatten()
    return text + ",-prefer-256-bit" if features.get("avx512f") else text


def target_machine(opt_level: int) -> llvm.TargetMachine:
    """A new machine for the host CPU (an engine takes ownership of its own)."""
    info = host()
    target = llvm.Target.from_triple(info.triple)
    return target.create_target_machine(
        cpu=info.cpu, features=info.features, opt=opt_level, codemodel="jitdefault"
    )


def _optimize(
    module: llvm.ModuleRef, machine: llvm.TargetMachine, opt_level: int, vectorize_loops=True
) -> None:
    if opt_level == 0:
        return
    options = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    options.loop_vectorization = vectorize_loops
    builder = llvm.create_pass_builder(machine, options)
    builder.getModulePassManager().run(module, builder)


LIBRARY_FUNCTIONS = frozenset(
    name + suffix
    for name in ("exp", "log", "tanh", "sin", "cos", "sqrt", "fabs")
    for suffix in ("", "f")
)
"""The C math functions compiled code may call (both back ends lower `math` ops to them)."""

RUNTIME_FUNCTIONS = frozenset({"tlir_rt_parallel"})
"""The thread runtime's entry (`tlir.compiler.pool`), called by entry functions. Not
`malloc`: compiled code never allocates (the caller passes one checked
workspace), so an allocation that slipped into a kernel — which MLIR's lowering
would not check for failure — is refused, not run."""


def check_external_symbols(
    module: llvm.ModuleRef, where: str, provided: frozenset[str] = frozenset()
) -> None:
    """Compiled code calls only what tlir emits: its kernels (`provided`), LLVM
    intrinsics, the C math functions and the runtime above. Anything else (a
    model declaring `@exit`, `@system`, an external global, ...) is refused."""
    allowed = LIBRARY_FUNCTIONS | RUNTIME_FUNCTIONS | provided
    for function in module.functions:
        name = function.name
        if function.is_declaration and not name.startswith("llvm.") and name not in allowed:
            raise TlirError(
                where,
                f"the compiled code would call the external function @{name}; a model may "
                "call only functions it defines",
            )
    for variable in module.global_variables:
        if variable.is_declaration:
            raise TlirError(
                where, f"the compiled code would read the external variable @{variable.name}"
            )


CODEGEN_FUNCTIONS = frozenset({"memcpy", "memset", "memmove"})
"""What LLVM's code generator itself may call in an object: the C functions behind
`llvm.memcpy`/`llvm.memset`/`llvm.memmove` (the entry function's copies, loops LLVM
recognises as a fill or a copy). In IR these are intrinsics, allowed by their `llvm.`
prefix; in an object they are plain external symbols."""


def foreign_symbols(data: bytes, provided: frozenset[str] = frozenset()) -> set[str]:
    """What an object (from the compile cache) would call or read beyond what
    `check_external_symbols` lets compiled code reach: the empty set for an
    object tlir compiled; `ValueError` if it is not a readable ELF object."""
    from tlir.compiler.elf import undefined_symbols

    allowed = LIBRARY_FUNCTIONS | RUNTIME_FUNCTIONS | CODEGEN_FUNCTIONS | provided
    return undefined_symbols(data) - allowed


_OBJECTS: collections.OrderedDict[tuple[str, int, frozenset[str], bool], bytes] = (
    collections.OrderedDict()
)
"""The last `_OBJECTS_KEPT` objects compiled in this process, by (IR digest, level,
provided, loop vectorizer). Running LLVM's optimizer through llvmlite 0.50 leaks about 100 KB per
run — `LLVMPY_CreatePassBuilder` allocates a `PassInstrumentationCallbacks` that
nothing frees, and every run registers more callbacks in it — so a process that
compiles the same kernels again (a model recompiled with `cache=False`, a test
suite) takes them from here instead of leaking again. Compilation is a pure
function of the key (the host is fixed for the process), so this changes no bits."""

_OBJECTS_KEPT = 256


def compile_object(
    llvm_ir: str,
    opt_level: int,
    where: str = "module",
    provided: frozenset[str] = frozenset(),
    vectorize_loops: bool = True,
) -> bytes:
    """Object code for the host CPU from LLVM IR text; `provided`: the functions
    it may call that other objects of the model define (see `check_external_symbols`);
    `vectorize_loops=False`: without LLVM's loop vectorizer (code that is vectorised
    already, `tlir.compiler.backend.is_generated`)."""
    key = (hashlib.sha256(llvm_ir.encode()).hexdigest(), opt_level, provided, vectorize_loops)
    if key in _OBJECTS:
        _OBJECTS.move_to_end(key)
        return _OBJECTS[key]
    data = _compile_object(llvm_ir, opt_level, where, provided, vectorize_loops)
    _OBJECTS[key] = data
    if len(_OBJECTS) > _OBJECTS_KEPT:
        _OBJECTS.popitem(last=False)
    return data


def _compile_object(
    llvm_ir: str, opt_level: int, where: str, provided: frozenset[str], vectorize_loops: bool = True
) -> bytes:
    from tlir.passes import directed_steps

    machine = target_machine(opt_level)
    try:
        module = llvm.parse_assembly(directed_steps.prepare_ir(llvm_ir))
        module.verify()
    except RuntimeError as err:
        message = " ".join(str(err).split())
        raise TlirError(where, f"LLVM rejected the generated IR: {message}") from None
    check_external_symbols(module, where, provided | directed_steps.DEFINED)
    _optimize(module, machine, opt_level, vectorize_loops)
    module = directed_steps.finish(module, machine)
    return machine.emit_object(module)


def assembly(llvm_ir: str, opt_level: int = 2) -> str:
    """The host assembly of LLVM IR text, optimized as the JIT does it."""
    from tlir.passes import directed_steps

    machine = target_machine(opt_level)
    module = llvm.parse_assembly(directed_steps.prepare_ir(llvm_ir))
    _optimize(module, machine, opt_level)
    module = directed_steps.finish(module, machine)
    return machine.emit_assembly(module)


class Engine:
    """Object files linked in memory; keeps the code alive. Code calling the
    thread runtime's `tlir_rt_parallel` (entry functions) is linked once
    `tlir.compiler.pool.stub()` has defined that symbol."""

    def __init__(self, objects: Sequence[bytes]):
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target_machine(0))
        for data in objects:
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(data))
        self.engine.finalize_object()

    def function(self, name: str, restype, argtypes: Sequence):
        address = self.engine.get_function_address(name)
        if not address:
            raise TlirError("jit", f"the compiled code has no function @{name}")
        return ctypes.CFUNCTYPE(restype, *argtypes)(address)
