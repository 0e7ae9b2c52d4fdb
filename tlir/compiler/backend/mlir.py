"""The MLIR back end: upstream `mlir-opt`/`mlir-translate` (Debian's
`mlir-*-tools`) take a kernel from loops on buffers to LLVM IR.

The kernel is handed over after `tlir-linalg-to-loops` (structured loops,
`memref` loads and stores, arith and math), so that both back ends run the
same loops — threads included — and differ in everything below: control flow,
the LLVM dialect conversion, the C-library lowering of math, and the LLVM IR
translation. Used by `tlir-run --backend mlir` and, in the tests, as an
independent cross-check of tlir's own route; `verify` checks that the output
of `convert-tlir-to-linalg` is valid upstream MLIR.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
import tempfile

from xdsl.dialects import func, llvm, math
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    MemRefType,
    ModuleOp,
    UnitAttr,
)
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter

from tlir.diagnostics import TlirError

VERSIONS = (19, 20, 21, 22)

PIPELINE = (
    "--convert-scf-to-cf",
    # before the vector lowering: on a vector operand (a contraction epilogue's
    # `math.absf`) it calls the C function lane by lane through vector.extract
    # and vector.insert, which only --convert-vector-to-llvm lowers
    "--convert-math-to-libm",
    "--convert-vector-to-llvm",
    "--expand-strided-metadata",
    "--finalize-memref-to-llvm",
    "--convert-math-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-index-to-llvm",
    "--convert-func-to-llvm=use-bare-ptr-memref-call-conv=1",
    "--convert-cf-to-llvm",
    "--reconcile-unrealized-casts",
)
"""Loops (and the contraction kernels' vector ops) to LLVM; transcendentals
become calls of the C math library; memrefs are bare pointers (MLIR's
bare-pointer calling convention), as in tlir's route."""


@functools.cache
def find_tool(name: str) -> str | None:
    """`mlir-opt-22` … `mlir-opt-19` or a plain `mlir-opt`, newest first."""
    for version in reversed(VERSIONS):
        path = shutil.which(f"{name}-{version}")
        if path:
            return path
    return shutil.which(name)


def _tool_path(tool: str, where: str) -> str:
    path = find_tool(tool)
    if path is None:
        raise TlirError(
            where, f"{tool} not found: install Debian's mlir-22-tools for --backend mlir"
        )
    return path


def _first_error(stderr: str) -> str:
    return next((line for line in stderr.splitlines() if "error" in line), stderr).strip()


def _run(tool: str, args: list[str], text: str, where: str) -> str:
    proc = subprocess.run(
        [_tool_path(tool, where), *args], input=text, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise TlirError(where, f"{tool} failed: {_first_error(proc.stderr)}")
    return proc.stdout


def verify(linalg_text: str, where: str = "module") -> None:
    """Parse and verify with upstream MLIR."""
    _run("mlir-opt", ["--verify-each"], linalg_text, where)


def _mark_noalias(module: ModuleOp) -> None:
    """Kernel buffers never alias: say so, as tlir's route does."""
    for function in module.ops:
        if isinstance(function, func.FuncOp):
            types = function.function_type.inputs.data
            function.arg_attrs = ArrayAttr(
                [
                    DictionaryAttr(
                        {"llvm.noalias": UnitAttr()} if isinstance(t, MemRefType) else {}
                    )
                    for t in types
                ]
            )


def _widen_empty_arguments(module: ModuleOp) -> None:
    """MLIR's bare-pointer convention leaves a function with a zero-size memref
    argument unconverted; such a buffer is never read (its loops have no
    iterations), so it is passed as a one-element memref instead."""
    for function in module.ops:
        if not isinstance(function, func.FuncOp) or not function.body.blocks:
            continue  # a declaration (a directed step) has no arguments to widen
        block = function.body.block
        for index, arg in enumerate(list(block.args)):
            typ = arg.type
            if isinstance(typ, MemRefType) and 0 in typ.get_shape() and not arg.uses:
                block.insert_arg(MemRefType(typ.element_type, [1]), index)
                block.erase_arg(arg)
        function.function_type = FunctionType.from_lists(
            [a.type for a in block.args], function.function_type.outputs.data
        )


def kernel_llvm_ir(loops: ModuleOp, where: str = "module") -> str:
    """LLVM IR of a kernel module already lowered to loops on buffers."""
    return loops_text_to_llvm_ir(kernel_loops_text(loops), where)


def _fma_to_llvm_intrinsic(module: ModuleOp) -> None:
    """`math.fma` (kernels in the opt-in `fma` numerics; the tight interval rules'
    exact error of a product) as `llvm.intr.fma`: what
    convert-math-to-llvm makes of it, done ahead of the pipeline because
    convert-math-to-libm, which runs first there, would make every lane a call
    of the C library's `fma`."""
    for op in list(module.walk()):
        if isinstance(op, math.FmaOp):
            fused = llvm.FMAOp(op.a, op.b, op.c)
            fused.res.name_hint = op.result.name_hint
            Rewriter.replace_op(op, fused)


def kernel_loops_text(loops: ModuleOp) -> str:
    """The kernel module as MLIR's tools read it (generic form)."""
    _widen_empty_arguments(loops)
    _mark_noalias(loops)
    _fma_to_llvm_intrinsic(loops)
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(loops)
    return out.getvalue()


def loops_text_to_llvm_ir(text: str, where: str = "module") -> str:
    """mlir-opt's pipeline piped into mlir-translate: touches no xDSL object,
    so it can run on another thread while the next kernel is lowered. Both
    tools start at once (each spends about 35 ms starting up), which made a
    kernel's tools a quarter to a third faster than running them in turn."""
    opt, translate = _tool_path("mlir-opt", where), _tool_path("mlir-translate", where)
    with tempfile.TemporaryFile("w+") as source, tempfile.TemporaryFile("w+") as opt_errors:
        source.write(text)
        source.seek(0)
        # files, not pipes, for mlir-opt's input and errors: nothing here can
        # block on a full pipe while this thread reads mlir-translate's output
        first = subprocess.Popen(
            [opt, *PIPELINE], stdin=source, stdout=subprocess.PIPE, stderr=opt_errors
        )
        second = subprocess.Popen(
            [translate, "--mlir-to-llvmir"],
            stdin=first.stdout,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first.stdout.close()  # mlir-translate holds the pipe's only reading end
        llvm_ir, translate_errors = second.communicate()
        first.wait()
        # mlir-opt's own failure (an exit code), or a signal that mlir-translate
        # did not cause (when it fails first, mlir-opt dies writing to it)
        if first.returncode > 0 or (first.returncode < 0 and second.returncode == 0):
            opt_errors.seek(0)
            raise TlirError(where, f"mlir-opt failed: {_first_error(opt_errors.read())}")
    if second.returncode != 0:
        raise TlirError(where, f"mlir-translate failed: {_first_error(translate_errors)}")
    return llvm_ir
