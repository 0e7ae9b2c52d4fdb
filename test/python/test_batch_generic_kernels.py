"""Batch-generic contraction kernels (`passes/contraction_kernels/run_time.py`):
a kernel with `tlir.batch_axes`, generated once at a nominal batch B0, run at
B = 1, 2, 3, 7, 15, 16, 17, 100, 300 (every remainder of the row tiles and
blocks) through its `batch` argument, over all its units at once and in three
uneven ranges as threads run them, bit for bit against the reference evaluator
at that B (the `fma` numerics: against a static kernel at that B), with
nothing written past the output. Marked extents: the rows (linear, matmul),
the summed index (the VJP's dW = gᵀ·x), the number of GEMMs (conv,
conv_input_grad, batched and broadcast matmuls)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from test_contraction_kernels import (
    BACKENDS,
    TARGETS,
    _assert_bit_identical,
    _inputs,
    _module,
    _ranges,
    conv,
    linear,
    matmul,
)
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, UnitAttr, i64

import tlir
from tlir.compiler.kernel_harness import CompiledKernel
from tlir.passes.contraction_kernels import contraction_kernel
from tlir.passes.contraction_kernels.run_time import TILING_BATCH, NotBatchGeneric, units
from tlir.reference import evaluate

ALL = (1, 2, 3, 7, 15, 16, 17, 100, 300)
FEW = (1, 2, 3, 7, 17)
B0 = 4


def conv_input_grad(g, wt, x, stride, padding, dilation):
    ints = lambda values: "array<i64: " + ", ".join(map(str, values)) + ">"  # noqa: E731
    props = (f"{{stride = {ints(stride)}, padding = {ints(padding)}, "
             f"dilation = {ints(dilation)}, groups = 1 : i64, channel_axis = 1 : i64}}")  # fmt: skip
    return f"tlir_ad.conv_input_grad %a0, %a1 {props}", [g, wt], x


def conv_kernel_grad(x, g, kernel, stride, dilation):
    ints = lambda values: "array<i64: " + ", ".join(map(str, values)) + ">"  # noqa: E731
    props = f"{{stride = {ints(stride)}, dilation = {ints(dilation)}, channel_axis = 1 : i64}}"
    return f"tlir_ad.conv_kernel_grad %a0, %a1 {props}", [x, g], (x[1], *kernel, g[1])


# (name, case at batch b, marks per operand then result, target, batches)
CASES = [
    ("linear_rows", lambda b: linear((b, 20), 50), [(1, 0), (0, 0), (0,), (1, 0)], "host", ALL),
    (
        "linear_rows_blocks",
        lambda b: linear((b, 20), 50),
        [(1, 0), (0, 0), (0,), (1, 0)],
        "tiny",
        ALL,
    ),
    (
        "linear_rows_outer",
        lambda b: linear((b, 20), 50),
        [(1, 0), (0, 0), (0,), (1, 0)],
        "outer",
        ALL,
    ),
    (
        "linear_3d_partials",
        lambda b: linear((b, 3, 20), 50),
        [(1, 0, 0), (0, 0), (0,), (1, 0, 0)],
        "crowded",
        FEW,
    ),
    (
        "linear_panel",
        lambda b: linear((b, 130), 140),
        [(1, 0), (0, 0), (0,), (1, 0)],
        "panel_partials",
        FEW,
    ),
    ("matmul_rows", lambda b: matmul((2 * b, 37), (37, 70)), [(2, 0), (0, 0), (2, 0)], "tiny", ALL),
    ("matmul_k", lambda b: matmul((13, 3 * b), (3 * b, 11)), [(0, 3), (3, 0), (0, 0)], "tiny", ALL),
    (
        "matmul_k_host",
        lambda b: matmul((13, 3 * b), (3 * b, 11)),
        [(0, 3), (3, 0), (0, 0)],
        "host",
        ALL,
    ),
    (
        "matmul_k_partials",
        lambda b: matmul((37, 5 * b), (5 * b, 48)),
        [(0, 5), (5, 0), (0, 0)],
        "crowded",
        FEW,
    ),
    ("matmul_batch", lambda b: matmul((b, 3, 5, 4), (b, 3, 4, 6)), [(1, 0, 0, 0)] * 3, "host", FEW),
    (
        "matmul_broadcast",
        lambda b: matmul((b, 3, 5, 4), (4, 6)),
        [(1, 0, 0, 0), (0, 0), (1, 0, 0, 0)],
        "tiny",
        FEW,
    ),
    (
        "matmul_broadcast_one",
        lambda b: matmul((b, 1, 5, 4), (1, 3, 4, 6)),
        [(1, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)],
        "host",
        FEW,
    ),
    # the batch-sized axis inside the batch: the strides of the axes outside it
    # depend on B (an attention's in-projection: [5, B, 8, 3] · [3, 1])
    (
        "matmul_inner_batch",
        lambda b: matmul((3, b, 5, 4), (3, b, 4, 6)),
        [(0, 1, 0, 0)] * 3,
        "host",
        FEW,
    ),
    (
        "matmul_inner_projection",
        lambda b: matmul((5, b, 8, 3), (3, 1)),
        [(0, 1, 0, 0), (0, 0), (0, 1, 0, 0)],
        "tiny",
        FEW,
    ),
    (
        "matmul_inner_broadcast",
        lambda b: matmul((3, 2 * b, 5, 4), (2 * b, 4, 6)),
        [(0, 2, 0, 0), (2, 0, 0), (0, 2, 0, 0)],
        "host",
        FEW,
    ),
    (
        "matmul_inner_mat_vec",
        lambda b: matmul((2, b, 9, 6), (6,)),
        [(0, 1, 0, 0), (0,), (0, 1, 0)],
        "tiny",
        FEW,
    ),
    (
        "conv_input_grad_samples",
        lambda b: conv_input_grad((b, 4, 6, 5), (3, 4, 3, 3), (b, 3, 6, 5), (1, 1), (1, 1), (1, 1)),
        [(1, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)],
        "host",
        FEW,
    ),
    (
        "conv_input_grad_direct",
        lambda b: conv_input_grad(
            (b, 32, 16, 16), (3, 32, 3, 3), (b, 3, 16, 16), (1, 1), (1, 1), (1, 1)
        ),
        [(1, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)],
        "host",
        FEW,
    ),
    (
        "conv_input_grad_dilated",
        lambda b: conv_input_grad((b, 3, 7, 4), (2, 3, 2, 3), (b, 2, 7, 6), (1, 1), (0, 2), (2, 2)),
        [(1, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)],
        "tiny",
        FEW,
    ),
    (
        "conv_kernel_grad_squares",
        lambda b: conv_kernel_grad((b, 3, 10, 10), (b, 16, 8, 8), (3, 3), (1, 1), (1, 1)),
        [(1, 0, 0, 0), (1, 0, 0, 0), (0, 0, 0, 0)],
        "host",
        ALL,
    ),
    (
        "conv_kernel_grad_blocks",
        lambda b: conv_kernel_grad((b, 4, 18, 18), (b, 8, 16, 16), (3, 3), (1, 1), (1, 1)),
        [(1, 0, 0, 0), (1, 0, 0, 0), (0, 0, 0, 0)],
        "tiny",
        FEW,
    ),
    (
        "conv_kernel_grad_strided_odd",
        lambda b: conv_kernel_grad((b, 2, 9, 8), (b, 3, 3, 3), (2, 2), (2, 2), (2, 2)),
        [(1, 0, 0, 0), (1, 0, 0, 0), (0, 0, 0, 0)],
        "host",
        ALL,
    ),
    (
        "conv_samples",
        lambda b: conv((b, 3, 9, 11), 5, (3, 3), pad=(1, 1)),
        [(1, 0, 0, 0), (0, 0, 0, 0), (0,), (1, 0, 0, 0)],
        "host",
        FEW,
    ),
    (
        "conv_grouped_blocks",
        lambda b: conv(
            (b, 4, 9, 20), 6, (2, 3), stride=(2, 1), pad=(1, 2), dilation=(2, 3), groups=2
        ),
        [(1, 0, 0, 0), (0, 0, 0, 0), (0,), (1, 0, 0, 0)],
        "tiny",
        FEW,
    ),
]


def _op(text: str):
    ops = tlir.parse_module(text).walk()
    return next(op for op in ops if op.name.startswith(("tlir.", "tlir_ad.")))


def _run(compiled: CompiledKernel, inputs, shape, dtype, batch: int, ranges) -> np.ndarray:
    """The output at `batch`, in a buffer followed by a guard (checked untouched)."""
    size = int(np.prod(shape))
    buffer = np.full(size + 1024, 7.0, np.float32 if dtype == "f32" else np.float64)
    out = buffer[:size].reshape(shape)
    compiled([*inputs, out], ranges, batch=batch)
    assert (buffer[size:] == 7.0).all(), f"written past the output at B = {batch}"
    return out


def _check(name, make, marks, target, batches, dtype, backend, fused=False) -> None:
    op_text, shapes, out = make(B0)
    op = _op(_module(op_text, shapes, out, dtype))
    function = contraction_kernel(
        op, "kernel", TARGETS[target], fused_multiply_add=fused, batch_axes=marks
    )
    compiled = CompiledKernel(function, backend)
    assert compiled.extent == compiled.units(B0)
    for batch in batches:
        op_text, shapes, out = make(batch)
        text = _module(op_text, shapes, out, dtype)
        inputs = _inputs(shapes, dtype, special=not fused, seed=batch)
        if fused:  # the reference is the static kernel at this batch
            static = contraction_kernel(
                _op(text), "kernel", TARGETS[target], fused_multiply_add=True
            )
            ref = np.zeros(out, inputs[0].dtype)
            CompiledKernel(static, backend)([*inputs, ref])
        else:
            ref = evaluate(tlir.parse_module(text), inputs)[0]
        count = compiled.units(batch)
        for ranges in ([(0, count)], _ranges(count)):
            _assert_bit_identical(_run(compiled, inputs, out, dtype, batch, ranges), ref)


def _params():
    params = []
    for index, (name, make, marks, target, batches) in enumerate(CASES):
        for backend in BACKENDS:
            dtype = ("f64", "f32")[(index + (backend == "mlir")) % 2]
            if backend == "mlir" and index % 3:
                continue  # compile time: a third of the cases through mlir-opt
            params.append(
                pytest.param(
                    name,
                    make,
                    marks,
                    target,
                    batches,
                    dtype,
                    backend,
                    id=f"{name}-{backend}-{dtype}",
                )
            )
    return params


@pytest.mark.parametrize("name,make,marks,target,batches,dtype,backend", _params())
def test_one_kernel_serves_every_batch(name, make, marks, target, batches, dtype, backend):
    _check(name, make, marks, target, batches, dtype, backend)


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("index", [0, 6])
def test_fma_numerics_match_static_kernels(index, dtype):
    name, make, marks, target, _ = CASES[index]
    _check(name, make, marks, target, (1, 7, 17, 100), dtype, "xdsl", fused=True)


def test_rule_counts_units_of_a_static_kernel():
    """units(B) of the rule is the extent of a static kernel at B tiled as at
    `TILING_BATCH` (the rows' blocks); B = TILING_BATCH tiles the same."""
    op_text, shapes, out = linear((B0, 64), 40)
    function = contraction_kernel(
        _op(_module(op_text, shapes, out, "f64")), "kernel", TARGETS["host"], batch_axes=CASES[0][2]
    )
    rule = tuple(function.attributes["tlir.parallel_rule"].get_values())
    op_text, shapes, out = linear((TILING_BATCH, 64), 40)
    static = contraction_kernel(
        _op(_module(op_text, shapes, out, "f64")), "kernel", TARGETS["host"]
    )
    assert units(rule, TILING_BATCH) == static.attributes["tlir.parallel_extent"].value.data
    assert function.attributes["tlir.parallel_extent"].value.data == units(rule, B0)
    assert len(function.function_type.inputs.data) == len(static.function_type.inputs.data) + 1


@pytest.mark.parametrize(
    "case,marks",
    [
        (matmul((B0, 6), (6, B0)), [(1, 0), (0, 1), (1, 1)]),  # rows and columns
        (matmul((B0, B0, 5, 4), (B0, B0, 4, 6)), [(1, 1, 0, 0)] * 3),  # two batch axes
        (matmul((3, B0, 5, 4), (3, 1, 4, 6)), [(0, 1, 0, 0)] * 3),  # a broadcast axis marked
        (matmul((1, 5, 4), (1, 4, 6)), [(1, 0, 0)] * 3),  # B0 = 1: broadcast or batch?
        (linear((3, B0), 5), [(0, 1), (0, 0), (0,), (0, 1)]),  # features
    ],
)
def test_extents_not_taken_at_run_time_are_refused(case, marks):
    op_text, shapes, out = case
    op = _op(_module(op_text, shapes, out, "f64"))
    with pytest.raises(NotBatchGeneric):
        contraction_kernel(op, "kernel", TARGETS["host"], batch_axes=marks)


def _marked_kernel(text: str, marks) -> func.FuncOp:
    kernel = next(op for op in tlir.parse_module(text).ops if isinstance(op, func.FuncOp))
    kernel.attributes["tlir.kernel"] = UnitAttr()
    kernel.attributes["tlir.batch_axes"] = ArrayAttr(
        [DenseArrayBase.from_list(i64, list(m)) for m in marks]
    )
    return kernel


@pytest.mark.parametrize("backend", BACKENDS)
def test_lowered_kernel_takes_batch_after_hi(backend):
    """A marked kernel of linear + add + relu through the back end: its ABI is
    (inputs…, output, scratch…, lo, hi, batch), `hi` clamped to units(batch),
    with the rules on the function; the same bits as the reference at every B."""
    from tlir.compiler import jit
    from tlir.compiler.backend import kernel_abi, kernel_to_loops, mlir, xdsl

    epilogue = (
        "  %s = tlir.add %r, %a3 : ({out}, {out}) -> {out}\n"
        "  %e = tlir.relu %s : ({out}) -> {out}\n"
    )

    def text(b):
        op_text, shapes, out = linear((b, 20), 50)
        return _module(op_text, [*shapes, out], out, "f64", epilogue, operands=3), shapes, out

    marks = [(1, 0), (0, 0), (0,), (1, 0), (1, 0)]
    module = kernel_to_loops(_marked_kernel(text(B0)[0], marks))
    wrapper = next(op for op in module.ops if op.sym_name.data == "main")
    rule = tuple(wrapper.attributes["tlir.parallel_rule"].get_values())
    scratch_rule = tuple(wrapper.attributes["tlir.scratch_rule"].get_values())
    abi = kernel_abi(module, "main")
    lower = xdsl.kernel_llvm_ir if backend == "xdsl" else mlir.kernel_llvm_ir
    engine = jit.Engine([jit.compile_object(lower(module, "kernel"), 2, "kernel")])
    arity = abi.arity
    function = engine.function("main", None, [ctypes.c_void_p] * arity + [ctypes.c_int64] * 3)
    for batch in (1, 5, 33, 100):
        source, shapes, out = text(batch)
        inputs = _inputs([*shapes, out], "f64", special=True, seed=batch)
        ref = evaluate(tlir.parse_module(source), inputs)[0]
        result = np.full(out, 7.0)
        scratch = [
            np.zeros(max(1, s0 + s1 * units(rule, batch)), np.uint8)
            for s0, s1 in zip(scratch_rule[::2], scratch_rule[1::2], strict=True)
        ]
        pointers = [a.ctypes.data for a in [*inputs, result, *scratch]]
        function(*pointers, 0, 1 << 40, batch)  # "everything": clamped to units(batch)
        _assert_bit_identical(result, ref)


def test_unmarked_kernel_keeps_the_static_abi():
    from tlir.compiler.backend import kernel_to_loops

    op_text, shapes, out = linear((B0, 20), 50)
    kernel = _marked_kernel(_module(op_text, shapes, out, "f64"), [(1, 0)] * 4)
    del kernel.attributes["tlir.batch_axes"]
    wrapper = next(op for op in kernel_to_loops(kernel).ops if op.sym_name.data == "main")
    assert "tlir.parallel_rule" not in wrapper.attributes
    assert len(wrapper.function_type.inputs.data) == 4 + 2


def test_refused_marks_leave_the_kernel_to_the_linalg_route():
    """A marked contraction the generator cannot take at run time (here two
    batch-sized axes in a matmul's batch) is not generated: neither
    `contraction_module` nor `is_generated` (which keeps LLVM's vectorizer off)
    claims it."""
    from tlir.compiler.backend import contraction_module, is_generated

    op_text, shapes, out = matmul((B0, B0, 5, 4), (B0, B0, 4, 6))
    kernel = _marked_kernel(_module(op_text, shapes, out, "f64"), [(1, 1, 0, 0)] * 3)
    assert contraction_module(kernel) is None
    assert not is_generated(kernel)
    del kernel.attributes["tlir.batch_axes"]
    assert contraction_module(kernel) is not None and is_generated(kernel)
