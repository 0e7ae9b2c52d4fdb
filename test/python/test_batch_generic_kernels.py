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
import dataclasses

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

# One-row register tiles (AMD Zen 1's 1x12; here 1x3 with a small L2, so that
# units hold few rows), beside the test targets of the static kernels.
ONE_ROW = dataclasses.replace(TARGETS["host"], tile=(1, 3), l2_bytes=16384)
TARGETS = {**TARGETS, "one_row": ONE_ROW}

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
    (
        "linear_rows_one_row",
        lambda b: linear((b, 20), 50),
        [(1, 0), (0, 0), (0,), (1, 0)],
        "one_row",
        ALL,
    ),
    (
        "matmul_k_one_row",
        lambda b: matmul((13, 3 * b), (3 * b, 11)),
        [(0, 3), (3, 0), (0, 0)],
        "one_row",
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
    # rows and summed index of batched matmuls (a sequence-first attention and its VJP)
    (
        "matmul_batched_rows",
        lambda b: matmul((3, 2 * b, 5), (3, 5, 6)),
        [(0, 2, 0), (0, 0, 0), (0, 2, 0)],
        "tiny",
        ALL,
    ),
    (
        "matmul_broadcast_rows",
        lambda b: matmul((2, 3, b, 20), (20, 50)),
        [(0, 0, 1, 0), (0, 0), (0, 0, 1, 0)],
        "host",
        FEW,
    ),
    (
        "matmul_batched_k",
        lambda b: matmul((3, 5, 2 * b), (3, 2 * b, 6)),
        [(0, 0, 2), (0, 2, 0), (0, 0, 0)],
        "tiny",
        ALL,
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


def _named(name: str):
    return next(case for case in CASES if case[0] == name)


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
@pytest.mark.parametrize("case", ["linear_rows", "matmul_k"])
def test_fma_numerics_match_static_kernels(case, dtype):
    name, make, marks, target, _ = _named(case)
    _check(name, make, marks, target, (1, 7, 100), dtype, "xdsl", fused=True)


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


# --- every contraction kernel of the test models, forward, JVP and VJP ----------


def _formed_kernels(module, batch: int) -> list[func.FuncOp]:
    """The kernels of `module` (with its JVP and VJP) specialized at `batch`."""
    from tlir.passes.tlir_jvp import TlirJvp
    from tlir.passes.tlir_specialize_batch import specialize
    from tlir.passes.tlir_to_llvm import KERNEL_FORMATION, stage_passes
    from tlir.passes.tlir_vjp import TlirVjp
    from tlir.universe import context

    static, ctx = specialize(module.clone(), batch), context()
    for stage in [TlirJvp(), TlirVjp(wrt="all"), *stage_passes(KERNEL_FORMATION)]:
        stage.apply(ctx, static)
    return [f for f in static.ops if isinstance(f, func.FuncOp) and "tlir.kernel" in f.attributes]


def _types(kernel: func.FuncOp) -> list[list[int]]:
    signature = kernel.function_type
    return [list(t.get_shape()) for t in (*signature.inputs.data, *signature.outputs.data)]


def _same_ops(a: func.FuncOp, b: func.FuncOp) -> bool:
    def ops(f):
        return [(op.name, str(op.properties)) for op in f.body.block.ops]

    return ops(a) == ops(b)


def _next_batch_marks(types: list[list[int]], at_b0: list[list[int]]) -> list[list[int]] | None:
    """The marks if `types` (a kernel's at B0 + 1) grow from `at_b0` as k·B."""
    if [len(t) for t in types] != [len(t) for t in at_b0]:
        return None
    marks = [[e - e0 for e, e0 in zip(t, t0, strict=True)] for t, t0 in zip(types, at_b0)]
    grows = all(k == 0 or (k > 0 and e0 == B0 * k) for m, t0 in zip(marks, at_b0)
                for k, e0 in zip(m, t0))  # fmt: skip
    return marks if grows else None


def _compiled(module, name: str, takes_batch: bool, backend="xdsl"):
    """Kernel `name` of `module` compiled, as `call(arrays, ranges, *batch)`
    (a generic kernel is compiled once and called at every batch)."""
    from tlir.compiler import jit
    from tlir.compiler.backend import kernel_abi, mlir, xdsl

    lower = xdsl.kernel_llvm_ir if backend == "xdsl" else mlir.kernel_llvm_ir
    engine = jit.Engine([jit.compile_object(lower(module, "kernel"), 2, "kernel")])
    abi = kernel_abi(module, name)
    types = [ctypes.c_void_p] * abi.arity + [ctypes.c_int64] * (3 if takes_batch else 2)
    function = engine.function(name, None, types)

    def call(arrays, ranges, *batch) -> None:
        for lo, hi in ranges:
            function(*[a.ctypes.data for a in arrays], lo, hi, *batch)

    call.engine = engine  # the machine code lives as long as its engine
    return call


def _scratch(rule, count: int) -> list[np.ndarray]:
    return [np.zeros(max(1, s0 + s1 * count), np.uint8) for s0, s1 in zip(rule[::2], rule[1::2])]


CONTRACTION_BATCHES = (1, 3, 17)


@pytest.mark.parametrize(
    "model,backend",
    [("mlp", "xdsl"), ("cnn", "xdsl"), ("transformer", "xdsl"), ("mix", "xdsl"),
     *[("cnn", "mlir")] * ("mlir" in BACKENDS)],
)  # fmt: skip
def test_every_contraction_of_the_test_models(model, backend):
    """Each contraction kernel of a test model (float64; with its JVP and VJP),
    marked from the kernels formed at B0 and B0 + 1, generated once through the
    back end's `contraction_module` and compiled once, is bit-identical at
    B = 1, 3, 17 to the static kernel formed at that batch (random inputs,
    three thread ranges)."""
    import torch
    import torch_models

    from tlir.compiler.backend import _contraction_parts, contraction_module, kernel_abi

    cls, shape = torch_models.MODELS[model]
    torch.manual_seed(0)
    example = torch.randn(*shape, dtype=torch.float64)
    module = tlir.from_torch(cls().double().eval(), (example,))
    formed = {b: _formed_kernels(module, b) for b in (B0, B0 + 1, *CONTRACTION_BATCHES)}
    generated = 0
    for kernel in formed[B0]:
        if _contraction_parts(kernel) is None:
            continue
        at_b0 = _types(kernel)
        candidates = [_next_batch_marks(_types(f), at_b0) for f in formed[B0 + 1]
                      if _same_ops(f, kernel)]  # fmt: skip
        marks = next(m for m in candidates if m is not None)
        if not any(any(m) for m in marks):
            continue
        kernel.attributes["tlir.batch_axes"] = ArrayAttr(
            [DenseArrayBase.from_list(i64, m) for m in marks]
        )
        generic = contraction_module(kernel)
        assert generic is not None, (kernel.body.block.first_op.name, marks)
        generated += 1
        wrapper = next(op for op in generic.ops if op.sym_name.data == kernel.sym_name.data)
        rule = wrapper.attributes["tlir.parallel_rule"].get_values()
        scratch_rule = wrapper.attributes["tlir.scratch_rule"].get_values()
        call_generic = _compiled(generic, kernel.sym_name.data, True, backend)
        for batch in CONTRACTION_BATCHES:
            want = [[e + (batch - B0) * k for e, k in zip(t, m)] for t, m in zip(at_b0, marks)]
            static = next(f for f in formed[batch] if _same_ops(f, kernel) and _types(f) == want)
            static_module, name = contraction_module(static), static.sym_name.data
            rng = np.random.default_rng(batch)
            count = len(kernel.function_type.inputs.data)
            inputs = [rng.normal(size=s) for s in want[:count]]
            outputs = [np.full(s, 7.0) for s in want[count:]]
            got = [o.copy() for o in outputs]
            scratch = [np.zeros(max(1, n), np.uint8)
                       for n in kernel_abi(static_module, name).scratch_bytes]  # fmt: skip
            _compiled(static_module, name, False)([*inputs, *outputs, *scratch], [(0, 1 << 40)])
            units_b = units(rule, batch)
            arrays = [*inputs, *got, *_scratch(scratch_rule, units_b)]
            call_generic(arrays, _ranges(units_b), batch)
            for want_out, got_out in zip(outputs, got, strict=True):
                _assert_bit_identical(got_out, want_out)
    assert generated >= 4


# every pair of (case, dtype, fused) values once
@pytest.mark.parametrize(
    "case, dtype, fused",
    [
        ("linear_rows", "f64", False),
        ("linear_rows", "f32", True),
        ("matmul_k_host", "f64", True),
        ("matmul_k_host", "f32", False),
    ],
)
def test_hot_loop_is_the_static_kernels(case, dtype, fused):
    """The register tile's loop over k of a batch-generic kernel (rows, summed
    index) is the static kernel's at `TILING_BATCH`: as many loads per term and
    no spills (A's rows at a run-time stride are packed: read in place, their
    addresses took a register each and LLVM spilled the broadcasts)."""
    from tlir.compiler.kernel_harness import hot_loop

    name, make, marks, target, _ = _named(case)
    loops = []
    for batch, batch_axes in ((B0, marks), (TILING_BATCH, None)):
        op_text, shapes, out = make(batch)
        function = contraction_kernel(_op(_module(op_text, shapes, out, dtype)), "kernel",
                                      TARGETS[target], fused_multiply_add=fused,
                                      batch_axes=batch_axes)  # fmt: skip
        loops.append(hot_loop(CompiledKernel(function).assembly()))
    generic, static = loops
    assert generic.loads <= static.loads and generic.spills == 0, (generic, static)
    assert generic.terms == static.terms, (generic, static)
