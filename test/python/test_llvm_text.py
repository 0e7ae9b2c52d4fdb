"""The compile path writes a kernel's LLVM IR text directly (`TextEmitter`)
instead of building LLVM dialect ops and translating them with xDSL's
translator (`DialectEmitter` + `llvm_dialect_to_ir`). Both must give LLVM the
same program: here every kernel of every op case (both precisions), of
contractions with epilogues, and of vector row folds with their alignment peel
compiles to the same machine code byte for byte on both routes; a whole
module with malloc, free, a constant global and the out-of-memory branch runs
with the same results on both."""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest
from op_cases import CASES
from xdsl.dialects import func

import tlir
from tlir.compiler import jit
from tlir.compiler.backend import kernel_to_loops
from tlir.compiler.backend.xdsl import kernel_llvm_ir, llvm_dialect_to_ir
from tlir.compiler.build import _entry_module
from tlir.passes.llvm_text import float_literal
from tlir.passes.tlir_form_kernels import is_kernel
from tlir.passes.tlir_to_llvm import TO_LLVM, stage_passes
from tlir.universe import context


def _dialect_route(loops) -> str:
    for stage in stage_passes(TO_LLVM):
        stage.apply(context(), loops)
    return llvm_dialect_to_ir(loops)


def _kernels(text: str) -> list[func.FuncOp]:
    work, _ = _entry_module(tlir.parse_module(text), "main", True)
    return [
        k
        for k in work.ops
        if isinstance(k, func.FuncOp)
        and is_kernel(k)
        and all(math.prod(t.get_shape()) for t in k.function_type.outputs.data)
    ]


def _assert_same_machine_code(text: str) -> int:
    kernels = _kernels(text)
    for kernel in kernels:
        loops = kernel_to_loops(kernel)
        direct = kernel_llvm_ir(loops.clone())
        translated = _dialect_route(loops)
        assert direct != translated  # two different texts ...
        # ... for one program
        assert jit.compile_object(direct, 2) == jit.compile_object(translated, 2), (
            kernel.sym_name.data
        )
    return len(kernels)


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_every_op_case_compiles_to_the_same_code(dtype):
    compiled = sum(_assert_same_machine_code(case.text(dtype)) for case in CASES)
    # cases that only move data (reshape, a view …) become copies in the plan, not kernels
    assert compiled > len(CASES) * 3 // 4


LINEAR_RELU = """func.func @main(%x: tensor<20x37x{t}>, %w: tensor<45x37x{t}>, %b: tensor<45x{t}>)
    -> tensor<20x45x{t}> {{
  %y = tlir.linear %x, %w, %b : (tensor<20x37x{t}>, tensor<45x37x{t}>, tensor<45x{t}>)
    -> tensor<20x45x{t}>
  %r = tlir.relu %y : (tensor<20x45x{t}>) -> tensor<20x45x{t}>
  func.return %r : tensor<20x45x{t}>
}}"""
ROW_FOLDS = """func.func @main(%x: tensor<37x243x{t}>) -> tensor<37x243x{t}> {{
  %y = tlir.layernorm %x {{axis = 1 : i64, eps = 1.0e-05 : f64}}
    : (tensor<37x243x{t}>) -> tensor<37x243x{t}>
  %s = tlir.softmax %y axis = 1 : (tensor<37x243x{t}>) -> tensor<37x243x{t}>
  func.return %s : tensor<37x243x{t}>
}}"""


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("text", [LINEAR_RELU, ROW_FOLDS], ids=["linear-relu", "row-folds"])
def test_vector_kernels_compile_to_the_same_code(text, dtype):
    """Vector loads, stores, broadcasts, shuffles, lane-wise compare/select,
    allocas (gemm packing) and the row folds' pointer-to-integer peel."""
    assert _assert_same_machine_code(text.format(t=dtype)) >= 1


WHOLE = """func.func @main(%x: tensor<2x3xf64>) -> tensor<2x2xf64> {
  %c = tlir.const {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf64>}
    : tensor<3x2xf64>
  %m = tlir.matmul %x, %c : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  %e = tlir.exp %m : (tensor<2x2xf64>) -> tensor<2x2xf64>
  %s = tlir.sqrt %e : (tensor<2x2xf64>) -> tensor<2x2xf64>
  func.return %s : tensor<2x2xf64>
}"""


def _run_main(llvm_ir: str, x: np.ndarray) -> np.ndarray:
    engine = jit.Engine([jit.compile_object(llvm_ir, 2, provided=frozenset({"malloc", "free"}))])
    main = engine.function("main", ctypes.c_int32, [ctypes.c_void_p, ctypes.c_void_p])
    out = np.zeros((2, 2))
    assert main(x.ctypes.data, out.ctypes.data) == 0  # status 0: malloc succeeded
    return out


def test_a_whole_module_runs_the_same_on_both_routes():
    """The graph's own function: a checked malloc (its out-of-memory block), free,
    a constant global and its address, calls of kernels and of exp and sqrt."""
    from tlir.passes.llvm_text import TextEmitter
    from tlir.passes.tlir_lower_to_llvm import ModuleLowering

    module = tlir.parse_module(WHOLE)
    stages = stage_passes()
    for stage in stages[:-1]:  # everything but tlir-lower-to-llvm
        stage.apply(context(), module)
    direct = ModuleLowering(module.clone(), TextEmitter()).run()
    assert "malloc" in direct and "internal constant [6 x double]" in direct
    stages[-1].apply(context(), module)
    translated = llvm_dialect_to_ir(module)
    x = np.array([[0.5, -1.0, 0.25], [2.0, 0.0, -0.5]])
    expected = np.sqrt(np.exp(x @ np.arange(1.0, 7.0).reshape(3, 2)))
    np.testing.assert_allclose(_run_main(direct, x), expected, rtol=1e-15)
    assert _run_main(direct, x).tobytes() == _run_main(translated, x).tobytes()


@pytest.mark.parametrize(
    "value, dtype, literal",
    [
        (1.0, "f64", "0x3FF0000000000000"),
        (-0.0, "f64", "0x8000000000000000"),
        (0.1, "f32", "0x3FB99999A0000000"),  # 0.1 rounded to single precision, as a double
        (float("inf"), "f32", "0x7FF0000000000000"),
    ],
)
def test_float_literals_are_the_bits_llvm_expects(value, dtype, literal):
    from xdsl.dialects.builtin import f32, f64

    assert float_literal(value, f32 if dtype == "f32" else f64) == literal


BRANCHES = """func.func @k(%a: memref<8xf64>, %o: memref<8xf64>, %s: memref<f64>, %lo: index,
                 %hi: index) {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1 : index
  %sum = scf.for %i = %lo to %hi step %one iter_args(%acc = %zero) -> (f64) {
    %x = memref.load %a[%i] : memref<8xf64>
    %positive = arith.cmpf ogt, %x, %zero : f64
    %r = scf.if %positive -> (f64) {
      %square = arith.mulf %x, %x : f64
      scf.yield %square : f64
    } else {
      %minus = arith.negf %x : f64
      scf.yield %minus : f64
    }
    memref.store %r, %o[%i] : memref<8xf64>
    %next = arith.addf %acc, %r : f64
    scf.yield %next : f64
  }
  %big = arith.cmpf ogt, %sum, %zero : f64
  scf.if %big {
    memref.store %sum, %s[] : memref<f64>
  }
  func.return
}"""


def test_ifs_with_results_and_else_arms_compile_to_the_same_code():
    """Loops carrying values, an if yielding a value from two arms, an if
    without else (kernels rarely have the first two: written by hand here)."""
    from tlir.passes.llvm_text import TextEmitter
    from tlir.passes.tlir_lower_to_llvm import ModuleLowering

    module = tlir.parse_module(BRANCHES)
    direct = ModuleLowering(module.clone(), TextEmitter()).run()
    translated = _dialect_route(module)
    assert jit.compile_object(direct, 2) == jit.compile_object(translated, 2)
    engine = jit.Engine([jit.compile_object(direct, 2)])
    pointer, index = ctypes.c_void_p, ctypes.c_int64
    kernel = engine.function("k", None, [pointer, pointer, pointer, index, index])
    a = np.array([1.5, -2.0, 0.0, 3.0, -0.5, 2.0, -1.0, 0.25])
    out, total = np.zeros(8), np.zeros(())
    kernel(a.ctypes.data, out.ctypes.data, total.ctypes.data, 1, 7)
    expected = np.where(a > 0, a * a, -a)
    assert out[1:7].tobytes() == expected[1:7].tobytes() and out[0] == out[7] == 0
    partial = 0.0
    for value in expected[1:7]:
        partial += value
    assert total[()] == partial
