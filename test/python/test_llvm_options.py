"""LLVM's options per kernel kind: the kernel generator's contractions (vectorised
and unrolled already) compile without LLVM's loop vectorizer in the exact
numerics, every other kernel (and the fma numerics' contractions) with it. Checked on the objects a compile links, and on the results
against the reference evaluator."""

from __future__ import annotations

import hashlib

import numpy as np

import tlir
from tlir.compiler import build, jit
from tlir.passes.tlir_form_kernels import is_kernel
from tlir.reference import evaluate

X, W, B, Y = "tensor<32x256xf64>", "tensor<10x256xf64>", "tensor<10xf64>", "tensor<32x10xf64>"
MODEL = f"""func.func @main(%x: {X}, %w: {W}, %b: {B}) -> {Y} {{
  %0 = tlir.linear %x, %w, %b : ({X}, {W}, {B}) -> {Y}
  %1 = tlir.softmax %0 axis = 1 : ({Y}) -> {Y}
  func.return %1 : {Y}
}}"""


def _kernels(numerics: str = "exact"):
    work, _ = build._entry_module(tlir.parse_module(MODEL), "main", True, numerics)
    return [k for k in work.ops if is_kernel(k)]


def test_only_generated_kernels_compile_without_the_loop_vectorizer():
    kernels = _kernels()
    flags = {k.body.block.first_op.name: build.vectorize_loops(k) for k in kernels}
    assert flags == {"tlir.linear": False, "tlir.softmax": True}
    rng = np.random.default_rng(0)
    inputs = [rng.normal(size=s) for s in ((32, 256), (10, 256), (10,))]
    compiled = tlir.compile(MODEL, threads=1, cache=False)
    for kernel in kernels:
        _, llvm_ir = build.lower_kernel(kernel, "xdsl", "test")
        chosen = jit.compile_object(
            llvm_ir, 2, "test", vectorize_loops=build.vectorize_loops(kernel)
        )
        assert hashlib.sha256(chosen).hexdigest() in compiled.object_digests
    expected = evaluate(tlir.parse_module(MODEL), inputs)
    assert compiled(*inputs)[0].tobytes() == np.asarray(expected[0]).tobytes()


def test_the_option_reaches_llvm():
    """A 256→10 linear's packing loops of 10 columns: LLVM's loop vectorizer
    rewrites them, so the objects differ."""
    (linear,) = [k for k in _kernels() if not build.vectorize_loops(k)]
    _, llvm_ir = build.lower_kernel(linear, "xdsl", "test")
    without = jit.compile_object(llvm_ir, 2, "test", vectorize_loops=False)
    with_it = jit.compile_object(llvm_ir, 2, "test", vectorize_loops=True)
    assert without != with_it


def test_fma_contractions_keep_the_loop_vectorizer():
    flags = {k.body.block.first_op.name: build.vectorize_loops(k) for k in _kernels("fma")}
    assert flags == {"tlir.linear": True, "tlir.softmax": True}
