"""The contraction kernels (`tlir.passes.contraction_kernels`): every matmul rank
case and broadcast pattern, linear with 0–2 leading dims, conv 1-D/2-D/3-D with
groups, strides, dilations, asymmetric padding and channel axes 0–2; sizes that
leave every remainder path (rows, columns, vector lanes, k blocks, units) and
sizes 0 and 1; NaN/±inf/−0 inputs. Each kernel is compiled through both back
ends, run over all its work units at once and split into several ranges (as
threads would), and compared bit for bit with the reference evaluator (NaN
compared as NaN)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from tlir import shapes
from tlir.backend.mlir import find_tool
from tlir.passes.contraction_kernels import TargetInfo, contraction_kernel, host_target
from tlir.passes.contraction_kernels.harness import CompiledKernel, instruction_counts
from tlir.reference import evaluate
from tlir.shapes import ConvConfig

HOST = host_target()
# Small caches and stack: several k blocks and column units even on small shapes.
TINY = dataclasses.replace(HOST, l1_bytes=1024, l2_bytes=4096, stack_bytes=6144)
SSE = TargetInfo(vector_bytes=16, registers=16, l1_bytes=2048, l2_bytes=8192, stack_bytes=8192)
WIDE = TargetInfo(vector_bytes=64, registers=32)  # 512-bit vectors, legalized by LLVM here
OUTER = dataclasses.replace(HOST, tile=(6, 2), l1_bytes=2048, l2_bytes=16384, stack_bytes=12288)
TARGETS = {"host": HOST, "tiny": TINY, "sse": SSE, "wide": WIDE, "outer": OUTER}

BACKENDS = ["xdsl", "mlir"] if find_tool("mlir-opt") else ["xdsl"]


def _typ(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def _module(op_text: str, arg_shapes, out_shape, dtype: str, epilogue: str = "") -> str:
    args = ", ".join(f"%a{i}: {_typ(s, dtype)}" for i, s in enumerate(arg_shapes))
    ins = ", ".join(_typ(s, dtype) for s in arg_shapes)
    out = _typ(out_shape, dtype)
    body = f"  %r = {op_text} : ({ins}) -> {out}\n"
    result = "%r"
    if epilogue:
        body += epilogue.format(out=out)
        result = "%e"
    return f"func.func @main({args}) -> {out} {{\n{body}  func.return {result} : {out}\n}}\n"


def _arr(values) -> str:
    return "array<i64" + (": " + ", ".join(map(str, values)) if values else "") + ">"


def matmul(a, b):
    return "tlir.matmul %a0, %a1", [a, b], shapes.matmul(a, b)


def linear(x, out_dim):
    w, b = (out_dim, x[-1]), (out_dim,)
    return "tlir.linear %a0, %a1, %a2", [x, w, b], shapes.linear(x, w, b)


def conv(x, cout, kernel, stride=None, pad=None, pad_after=None, dilation=None, groups=1, axis=1):
    d = len(kernel)
    stride, dilation = stride or (1,) * d, dilation or (1,) * d
    pad = pad or (0,) * d
    pad_after = pad_after or pad
    cin = x[axis]
    cfg = ConvConfig(kernel=tuple(kernel), stride=tuple(stride), padding=tuple(pad),
                     padding_after=tuple(pad_after), dilation=tuple(dilation), groups=groups,
                     channel_axis=axis, in_channels=cin, out_channels=cout)  # fmt: skip
    props = (f"{{kernel = {_arr(kernel)}, stride = {_arr(stride)}, padding = {_arr(pad)}, "
             f"padding_after = {_arr(pad_after)}, dilation = {_arr(dilation)}, groups = {groups} : i64, "
             f"channel_axis = {axis} : i64, in_channels = {cin} : i64, out_channels = {cout} : i64}}")  # fmt: skip
    w = (cout, cin, *kernel)
    return f"tlir.conv %a0, %a1, %a2 {props}", [x, w, (cout,)], shapes.conv(x, cfg)


# (name, (op text, argument shapes, output shape), target, special values?)
CASES = [
    # matmul: the four rank cases, batch broadcasting, remainders
    ("mm_2d", matmul((7, 13), (13, 11)), "host", False),
    ("mm_2d_blocks", matmul((29, 37), (37, 70)), "tiny", True),
    ("mm_2d_outer", matmul((13, 20), (20, 19)), "outer", False),
    ("mm_2d_sse", matmul((13, 9), (9, 19)), "sse", True),
    ("mm_2d_wide", matmul((10, 9), (9, 50)), "wide", False),
    ("mm_batch", matmul((2, 3, 5, 4), (2, 3, 4, 6)), "host", False),
    ("mm_broadcast_b", matmul((2, 3, 5, 4), (4, 9)), "tiny", False),
    ("mm_broadcast_both", matmul((2, 1, 5, 4), (3, 4, 9)), "host", True),
    ("mm_broadcast_ones", matmul((1, 3, 5, 4), (2, 1, 4, 9)), "outer", False),
    ("mm_vec_mat", matmul((6,), (2, 6, 10)), "host", True),
    ("mm_mat_vec", matmul((2, 9, 6), (6,)), "tiny", True),
    ("mm_dot", matmul((7,), (7,)), "host", True),
    ("mm_ones", matmul((1, 1), (1, 1)), "host", False),
    ("mm_k0", matmul((3, 0), (0, 5)), "host", False),
    ("mm_m0", matmul((0, 4), (4, 5)), "host", False),
    ("mm_batch0", matmul((0, 3, 4), (4, 5)), "host", False),
    # linear: 0, 1, 2 leading dims
    ("linear_vec", linear((9,), 13), "host", True),
    ("linear_batch", linear((11, 20), 50), "tiny", True),
    ("linear_2lead", linear((2, 3, 7), 5), "outer", False),
    ("linear_sse", linear((5, 6), 7), "sse", False),
    ("linear_in0", linear((3, 0), 4), "host", False),
    # conv: rank 1-3, groups, stride, dilation, asymmetric padding, channel axes
    ("conv2d_pad", conv((2, 3, 9, 11), 5, (3, 3), pad=(1, 1)), "host", True),
    ("conv2d_blocks", conv((1, 4, 10, 13), 6, (3, 2), pad=(2, 0), pad_after=(1, 3)), "tiny", True),
    ("conv2d_grouped", conv((1, 4, 7, 8), 6, (3, 3), stride=(2, 2), pad=(1, 0), pad_after=(1, 2),
                            dilation=(1, 2), groups=2), "outer", False),
    ("conv2d_depthwise", conv((2, 6, 6, 7), 6, (3, 3), pad=(1, 1), groups=6), "sse", False),
    ("conv1d_axis0", conv((3, 9), 3, (3,), stride=(2,), dilation=(3,), groups=3, axis=0), "host", True),
    ("conv1d_axis2", conv((2, 1, 4, 17), 5, (4,), stride=(3,), pad=(2,), pad_after=(1,), axis=2),
     "tiny", False),
    ("conv3d", conv((1, 2, 5, 6, 7), 3, (2, 3, 3), stride=(1, 2, 1), pad=(1, 0, 1),
                    pad_after=(0, 1, 2), dilation=(2, 1, 1)), "host", True),
    ("conv_1x1", conv((1, 5, 1, 1), 1, (1, 1)), "wide", False),
    ("conv_batch0", conv((0, 2, 4, 4), 3, (3, 3), pad=(1, 1)), "host", False),
]


def _inputs(arg_shapes, dtype, special: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    arrays = []
    for shape in arg_shapes:
        values = (rng.normal(size=shape) * 2).astype(np_dtype)
        if special and values.size:
            flat = values.reshape(-1)
            picks = rng.choice(flat.size, size=max(1, flat.size // 12), replace=False)
            flat[picks] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0], size=picks.size)
        arrays.append(values)
    return arrays


def _assert_bit_identical(got: np.ndarray, ref: np.ndarray) -> None:
    assert got.shape == ref.shape and got.dtype == ref.dtype
    assert np.array_equal(np.isnan(got), np.isnan(ref)), "NaN positions differ"
    finite = ~np.isnan(ref)
    width = np.uint64 if ref.dtype == np.float64 else np.uint32
    bad = got[finite].view(width) != ref[finite].view(width)
    assert not bad.any(), f"{int(bad.sum())} elements differ, e.g. {got[finite][bad][:3]} vs {ref[finite][bad][:3]}"


def _ranges(extent: int) -> list[tuple[int, int]]:
    """Three uneven pieces, as three threads would run them."""
    cuts = sorted({0, extent // 3, (2 * extent) // 3 + (extent > 2), extent})
    return list(zip(cuts[:-1], cuts[1:]))


def _run_case(text: str, arg_shapes, target: TargetInfo, dtype: str, backend: str,
              special: bool, epilogue: int = 0) -> CompiledKernel:  # fmt: skip
    import tlir

    module = tlir.parse_module(text)
    ops = [op for op in module.walk() if op.name.startswith("tlir.")]
    kernel_ops = ops[1 : 1 + epilogue]
    function = contraction_kernel(ops[0], "kernel", target, epilogue=kernel_ops)
    inputs = _inputs(arg_shapes, dtype, special)
    ref = evaluate(module, inputs)[0]
    compiled = CompiledKernel(function, backend)
    extras = [inputs[i] for i in range(len(ops[0].operands), len(arg_shapes))]
    args = [np.ascontiguousarray(x) for x in inputs[: len(ops[0].operands)] + extras]
    for ranges in ([(0, compiled.extent)], _ranges(compiled.extent)):
        out = np.full(ref.shape, 7.0, ref.dtype)
        compiled([*args, out], ranges)
        _assert_bit_identical(out, ref)
    return compiled


def _params():
    """f64 through both back ends, f32 through tlir's route for every other case
    (the kernels differ only in lane count; compile time bounds the suite)."""
    params = []
    for index, (name, case, target, special) in enumerate(CASES):
        zero_size = any(0 in shape for shape in (*case[1], case[2]))
        for backend in BACKENDS:
            # MLIR's bare-pointer calling convention does not convert functions
            # with zero-size memref arguments (upstream limitation).
            if backend == "mlir" and zero_size:
                continue
            dtypes = ["f64", "f32"] if backend == "xdsl" and index % 2 == 0 else ["f64"]
            if backend == "mlir" and index % 5 == 0:
                dtypes = ["f32"]
            for dtype in dtypes:
                params.append(pytest.param(case, target, special, backend, dtype,
                                           id=f"{name}-{backend}-{dtype}"))  # fmt: skip
    return params


@pytest.mark.parametrize("case,target,special,backend,dtype", _params())
def test_kernel_matches_reference(case, target, special, backend, dtype):
    op_text, arg_shapes, out_shape = case
    text = _module(op_text, arg_shapes, out_shape, dtype)
    _run_case(text, arg_shapes, TARGETS[target], dtype, backend, special)
