"""The lowering of a kernel is a function of the kernel: lowered again (new
objects at other addresses), its loops print the same and its LLVM IR is the
same text, so that the mlir back end's input and every cached object are
reproducible."""

from __future__ import annotations

import io

import numpy as np
import pytest
from xdsl.printer import Printer

import tlir
from tlir.compiler import backend
from tlir.compiler.backend import mlir, xdsl
from tlir.compiler.helper import ENV_PROCESSES

M, K, N = 24, 40, 32


def matmul_text() -> str:
    a, b, c = (f"tensor<{s}xf64>" for s in (f"{M}x{K}", f"{K}x{N}", f"{M}x{N}"))
    return (
        f"func.func @main(%a: {a}, %b: {b}) -> {c} {{\n"
        f"  %c = tlir.matmul %a, %b : ({a}, {b}) -> {c}\n  func.return %c : {c}\n}}"
    )


@pytest.fixture(scope="module")
def kernels():
    """The distinct kernels of a matmul's forward, JVP and VJP programs (among
    them folds over rows that `vector_row_folds` takes)."""
    found = {}
    original = backend.kernel_to_loops

    def recorded(kernel, *rest):
        found.setdefault(kernel.sym_name.data, kernel.clone())
        return original(kernel, *rest)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(backend, "kernel_to_loops", recorded)
        patch.setenv(ENV_PROCESSES, "1")  # every kernel lowered in this process
        model = tlir.compile(matmul_text(), cache=False, opt_level=0)
        rng = np.random.default_rng(0)
        a, b = rng.normal(size=(M, K)), rng.normal(size=(K, N))
        model.jvp([a, b], [a, b])
        model.vjp([a, b], [np.ones((M, N))])
    assert len(found) >= 4
    return found


def lowered(kernel) -> tuple[str, str, str]:
    loops = backend.kernel_to_loops(kernel)
    text = io.StringIO()
    Printer(stream=text).print_op(loops)
    return text.getvalue(), mlir.kernel_loops_text(loops), xdsl.kernel_llvm_ir(loops)


def test_a_kernel_lowered_again_is_the_same_text(kernels):
    for name, kernel in kernels.items():
        first = lowered(kernel)
        for _ in range(5):
            assert lowered(kernel) == first, name
