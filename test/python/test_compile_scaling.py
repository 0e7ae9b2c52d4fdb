"""Parsing, kernel formation and fusion take time linear in the length of an
elementwise chain, checked by counting work (not by timing): doubling the chain
at most about doubles the IR operations built and moved by
`tlir-fuse-elementwise`, and the Python calls of the whole xDSL side of a
compile of one long kernel; the parser locates ops without counting lines from
the start of the text. A chain longer than `MAX_KERNEL_OPS` becomes several
kernels, whose results are still the reference's bits."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, Operation

import tlir
from tlir.passes.tlir_form_kernels import MAX_KERNEL_OPS, TlirFormKernels, is_kernel
from tlir.reference import evaluate
from tlir.universe import context

TYPE = "tensor<4x4xf64>"
UNARY = ("relu", "tanh", "abs", "sigmoid", "sqrt", "exp")


def chain(length: int, binary: bool = False) -> str:
    """@main: `length` elementwise ops in a row; with `binary`, every third
    one also reads the input (the fused kernel's inputs grow with the chain)."""
    lines = [f"func.func @main(%x: {TYPE}) -> {TYPE} {{"]
    previous = "%x"
    for i in range(length):
        if binary and i % 3 == 2:
            op = f"tlir.add {previous}, %x : ({TYPE}, {TYPE}) -> {TYPE}"
        else:
            op = f"tlir.{UNARY[i % len(UNARY)]} {previous} : ({TYPE}) -> {TYPE}"
        lines.append(f"  %v{i} = {op}")
        previous = f"%v{i}"
    lines.append(f"  func.return {previous} : {TYPE}\n}}")
    return "\n".join(lines)


def one_kernel(length: int, binary: bool = False) -> func.FuncOp:
    """The chain's single kernel (no cap on its length), in linalg on tensors."""
    from tlir.compiler.model import lower_to_linalg

    module = tlir.parse_module(chain(length, binary))
    TlirFormKernels(max_ops=length + 1).apply(context(), module)
    (kernel,) = [op for op in module.ops if isinstance(op, func.FuncOp) and is_kernel(op)]
    lowered = lower_to_linalg(module)
    return next(op for op in lowered.ops if op.sym_name.data == kernel.sym_name.data)


def ir_work(monkeypatch: pytest.MonkeyPatch, run: Callable[[], object]) -> int:
    """Operations created plus operations attached to a block while `run` runs."""
    count = [0]
    init, attach = Operation.__init__, Block._attach_op

    def counting_init(self, *args, **kwargs):
        count[0] += 1
        init(self, *args, **kwargs)

    def counting_attach(self, op):
        count[0] += 1
        attach(self, op)

    with monkeypatch.context() as patch:
        patch.setattr(Operation, "__init__", counting_init)
        patch.setattr(Block, "_attach_op", counting_attach)
        run()
    return count[0]


def python_calls(run: Callable[[], object]) -> int:
    """Python function calls made while `run` runs (this thread)."""
    count = [0]

    def profile(frame, event, arg):
        if event == "call":
            count[0] += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count[0]


def test_fusing_a_chain_twice_as_long_is_about_twice_the_work(monkeypatch):
    """Ops built and moved (the fused generic's operands are not counted: each
    fusion rebuilds the op with all its inputs, so a chain that reads other
    buffers as it goes costs O(inputs) a fusion; `MAX_KERNEL_OPS` bounds that)."""
    from tlir.passes.tlir_fuse_elementwise import fuse_function

    work = {}
    for length in (150, 300):
        kernel = one_kernel(length)
        counts = []
        work[length] = ir_work(monkeypatch, lambda k=kernel, c=counts: c.append(fuse_function(k)))
        generics = [op for op in kernel.walk() if isinstance(op, GenericOp)]
        assert len(generics) == 1  # the whole chain is one loop nest
        # each op fused once, into its reader, without walking the function again
        assert (counts[0].fusions, counts[0].restarts) == (length - 1, 0)
    assert work[300] / work[150] < 2.5, work


def test_the_compile_of_one_long_kernel_is_linear_in_its_length():
    """Kernel formation, deduplication, the lowering to loops and the LLVM IR
    text of one chain kernel: Python calls for 200 and 400 ops."""
    from tlir.compiler.backend import kernel_to_loops
    from tlir.compiler.backend.xdsl import kernel_llvm_ir
    from tlir.passes.tlir_dedup_kernels import dedup_kernels

    def compile_front(length: int) -> Callable[[], object]:
        module = tlir.parse_module(chain(length))

        def run() -> None:
            TlirFormKernels(max_ops=length + 1).apply(context(), module)
            dedup_kernels(module)
            (kernel,) = [op for op in module.ops if isinstance(op, func.FuncOp) and is_kernel(op)]
            kernel_llvm_ir(kernel_to_loops(kernel))

        return run

    compile_front(20)()  # first-use imports and caches out of the count
    calls = {length: python_calls(compile_front(length)) for length in (200, 400)}
    assert calls[400] / calls[200] < 2.5, calls


def test_a_chain_longer_than_the_cap_is_several_kernels_with_the_same_bits():
    length = 2 * MAX_KERNEL_OPS + 10
    module = tlir.parse_module(chain(length, binary=True))
    formed = module.clone()
    TlirFormKernels().apply(context(), formed)
    sizes = [
        len(list(op.body.block.ops)) - 1
        for op in formed.ops
        if isinstance(op, func.FuncOp) and is_kernel(op)
    ]
    assert sizes == [10, MAX_KERNEL_OPS, MAX_KERNEL_OPS]
    x = np.random.default_rng(3).normal(size=(4, 4))
    x[0, :3] = [-0.0, np.inf, np.nan]
    (want,) = evaluate(module, [x])
    (got,) = tlir.compile(module, cache=False)(x)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got.view(np.uint64)[~nan], want.view(np.uint64)[~nan])


def test_parsed_ops_are_located_without_counting_lines_from_the_start(monkeypatch):
    """Every op gets its line and column from newline offsets found once: xDSL's
    `Span.get_location` counts the newlines before the op, for every op (a
    5 MB function took 100 s to parse)."""
    from xdsl.utils.lexer import Span

    def refuse(self):
        raise AssertionError("Span.get_location counts lines from the start")

    monkeypatch.setattr(Span, "get_location", refuse)
    text = chain(300)
    module = tlir.parse_module(text, "chain.mlir")
    (main,) = module.ops
    located = [(op.location.line.data, op.location.column.data) for op in main.body.block.ops]
    # the function's first line is line 1; op i is on line i + 2, indented by 2
    assert located == [(i + 2, 3) for i in range(301)]
    assert main.location.line.data == 1


def test_parsing_regions_copies_names_in_linear_total():
    """Each region opens a scope for names; opening it copies no more than the
    names of the region's own scope (xDSL copied every name defined so far, at
    every region: quadratic in a function of n generics)."""
    from tlir.compiler.model import lower_to_linalg, to_text

    def copied(length: int) -> int:
        text = to_text(lower_to_linalg(tlir.parse_module(chain(length))))
        total = [0]

        def profile(frame, event, arg):
            owner = getattr(arg, "__self__", None)
            copy = event == "c_call" and getattr(arg, "__name__", "") == "copy"
            if copy and isinstance(owner, dict):
                total[0] += len(owner)

        sys.setprofile(profile)
        try:
            module = tlir.parse_module(text)
        finally:
            sys.setprofile(None)
        generics = [op for op in module.walk() if isinstance(op, GenericOp)]
        assert len(generics) == length
        return total[0] + length  # a region costs at least one unit

    counts = {length: copied(length) for length in (200, 400)}
    assert counts[400] / counts[200] < 2.5, counts


def test_compiling_a_chain_that_reads_the_input_is_linear_in_its_length(monkeypatch):
    """A whole compile (this thread's Python calls: kernel formation, dedup,
    lowering, plan) of chains of 600 and 1,200 ops, a third of them reading
    the input: kernels of at most `MAX_KERNEL_OPS` ops, equal ones lowered once."""
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "1")
    tlir.compile(tlir.parse_module(chain(20, binary=True)), cache=False)  # imports, caches

    def compile_chain(length: int) -> int:
        module = tlir.parse_module(chain(length, binary=True))
        return python_calls(lambda: tlir.compile(module, cache=False))

    calls = {length: compile_chain(length) for length in (600, 1200)}
    assert calls[1200] / calls[600] < 2.5, calls
