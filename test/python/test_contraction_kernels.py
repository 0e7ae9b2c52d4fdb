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
from tlir.compiler.backend.mlir import find_tool
from tlir.compiler.kernel_harness import CompiledKernel, HotLoop, hot_loop, instruction_counts
from tlir.passes.contraction_kernels import TargetInfo, contraction_kernel, host_target
from tlir.reference import evaluate
from tlir.shapes import ConvConfig

HOST = host_target()
# Small caches and stack: several k blocks and column units even on small shapes.
# (Targets with a given L1 size have 8 ways, whatever the host's.)
TINY = dataclasses.replace(HOST, l1_bytes=1024, l1_ways=8, l2_bytes=4096, stack_bytes=6144)
SSE = TargetInfo(vector_bytes=16, registers=16, l1_bytes=2048, l2_bytes=8192, stack_bytes=8192)
WIDE = TargetInfo(vector_bytes=64, registers=32)  # 512-bit vectors, legalized by LLVM here
OUTER = dataclasses.replace(HOST, tile=(6, 2), l1_bytes=2048, l1_ways=8, l2_bytes=16384,
                            stack_bytes=12288)  # fmt: skip
# 16-row tiles and an L1 of 2 sets: rows of C 128 bytes apart crowd one set, so
# the partial sums between k blocks go to the scratch buffer.
CROWDED = dataclasses.replace(HOST, tile=(16, 1), l1_bytes=1024, l1_ways=8, l2_bytes=8192,
                              stack_bytes=8192)  # fmt: skip
# A small stack and a large L2: the packed blocks of B of matmul and linear are
# wider than the stack allows, one per unit in the scratch buffer; with a tiny
# L1 also the partial sums (crowded rows of C, several k blocks).
PANEL = dataclasses.replace(HOST, tile=(16, 1), l1_bytes=32768, l1_ways=8, l2_bytes=1 << 20,
                            stack_bytes=8192)  # fmt: skip
PANEL_PARTIALS = dataclasses.replace(PANEL, l1_bytes=1024)
TARGETS = {"host": HOST, "tiny": TINY, "sse": SSE, "wide": WIDE, "outer": OUTER,
           "crowded": CROWDED, "panel": PANEL, "panel_partials": PANEL_PARTIALS}  # fmt: skip

BACKENDS = ["xdsl", "mlir"] if find_tool("mlir-opt") else ["xdsl"]


def _typ(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def _module(op_text: str, arg_shapes, out_shape, dtype: str, epilogue: str = "",
            operands: int | None = None) -> str:  # fmt: skip
    """`func.func @main` computing `op_text` on the first `operands` arguments
    (all by default), then the `epilogue` lines."""
    args = ", ".join(f"%a{i}: {_typ(s, dtype)}" for i, s in enumerate(arg_shapes))
    ins = ", ".join(_typ(s, dtype) for s in arg_shapes[:operands])
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
    # partial sums in the scratch buffer (several k blocks, crowded rows of C)
    ("mm_2d_partials", matmul((37, 45), (45, 48)), "crowded", True),
    ("mm_batch_partials", matmul((2, 3, 5, 40), (40, 32)), "crowded", False),
    # packed blocks of B in the scratch buffer (with partial sums there too, or not)
    ("mm_2d_panel", matmul((37, 45), (45, 200)), "panel", True),
    ("mm_2d_panel_partials", matmul((37, 45), (45, 200)), "panel_partials", True),
    ("mm_batch_panel", matmul((2, 3, 20, 40), (40, 96)), "panel_partials", False),
    # linear: 0, 1, 2 leading dims
    ("linear_vec", linear((9,), 13), "host", True),
    ("linear_batch", linear((11, 20), 50), "tiny", True),
    ("linear_2lead", linear((2, 3, 7), 5), "outer", False),
    ("linear_sse", linear((5, 6), 7), "sse", False),
    ("linear_in0", linear((3, 0), 4), "host", False),
    ("linear_partials", linear((20, 50), 64), "crowded", True),
    ("linear_panel_transposed", linear((20, 130), 140), "panel", True),
    # the weight packed by in-register transposes (n·k ≥ 2048): k and n not
    # multiples of the lanes
    ("linear_transposed_edges", linear((6, 130), 131), "host", True),
    ("linear_transposed_blocks", linear((5, 200), 90), "tiny", True),
    # conv: rank 1-3, groups, stride, dilation, asymmetric padding, channel axes
    ("conv2d_pad", conv((2, 3, 9, 11), 5, (3, 3), pad=(1, 1)), "host", True),
    ("conv2d_blocks", conv((1, 4, 10, 13), 6, (3, 2), pad=(2, 0), pad_after=(1, 3)), "tiny", True),
    (
        "conv2d_grouped",
        conv(
            (1, 4, 7, 8),
            6,
            (3, 3),
            stride=(2, 2),
            pad=(1, 0),
            pad_after=(1, 2),
            dilation=(1, 2),
            groups=2,
        ),
        "outer",
        False,
    ),
    ("conv2d_depthwise", conv((2, 6, 6, 7), 6, (3, 3), pad=(1, 1), groups=6), "sse", False),
    (
        "conv1d_axis0",
        conv((3, 9), 3, (3,), stride=(2,), dilation=(3,), groups=3, axis=0),
        "host",
        True,
    ),
    (
        "conv1d_axis2",
        conv((2, 1, 4, 17), 5, (4,), stride=(3,), pad=(2,), pad_after=(1,), axis=2),
        "tiny",
        False,
    ),
    (
        "conv3d",
        conv(
            (1, 2, 5, 6, 7),
            3,
            (2, 3, 3),
            stride=(1, 2, 1),
            pad=(1, 0, 1),
            pad_after=(0, 1, 2),
            dilation=(2, 1, 1),
        ),
        "host",
        True,
    ),
    ("conv_1x1", conv((1, 5, 1, 1), 1, (1, 1)), "wide", False),
    ("conv_batch0", conv((0, 2, 4, 4), 3, (3, 3), pad=(1, 1)), "host", False),
    # stride 1 along the last axis: packed from a zero-margined band of input rows.
    # Output widths 17 (f32: one vector and an overlapping one; f64: two and one),
    # 16 and 5 (one f32 vector exactly; shorter than a vector: two overlapping halves)
    ("conv2d_band_edges", conv((2, 3, 7, 17), 4, (3, 3), pad=(1, 1)), "host", True),
    ("conv2d_band_narrow", conv((3, 2, 4, 5), 3, (3, 3), pad=(1, 1)), "host", True),
    ("conv2d_band_lanes", conv((1, 2, 5, 16), 3, (3, 3), pad=(1, 1)), "host", False),
    # padding beyond the kernel's reach: whole rows and columns of outputs from zeros
    (
        "conv2d_band_wide_pad",
        conv((1, 2, 4, 5), 3, (2, 3), pad=(3, 4), pad_after=(2, 5)),
        "host",
        True,
    ),
    # row stride 2, dilations, groups; k blocks that start inside a channel's kernel
    # offsets and units that end inside an output row (tiny: small kc and nc)
    (
        "conv2d_band_blocks",
        conv((2, 4, 9, 20), 6, (2, 3), stride=(2, 1), pad=(1, 2), dilation=(2, 3), groups=2),
        "tiny",
        True,
    ),
    (
        "conv3d_band",
        conv((2, 3, 4, 5, 6), 4, (3, 2, 3), pad=(1, 1, 1), dilation=(1, 2, 1)),
        "tiny",
        True,
    ),
    # units of whole rows whose packed rows are assembled from vectors of the band:
    # width 4 (an f32 vector holds parts of 4 output rows), a last unit with fewer rows
    ("conv2d_band_assembled", conv((2, 3, 8, 4), 5, (3, 3), pad=(1, 1)), "host", True),
    ("conv2d_band_short_unit", conv((2, 3, 7, 4), 4, (3, 3), pad=(1, 1)), "tiny", True),
    # an input row too long for the band on the stack in f64 (im2col instead); a band in f32
    ("conv1d_band_long_row", conv((1, 2, 8200), 3, (3,), pad=(1,)), "host", True),
    # weight rows 4 KiB apart in f64 (the same L1 set): the tiles' rows of the
    # weight packed per unit; elsewhere conv tiles read them in place
    ("conv2d_weight_rows_4k", conv((1, 512, 3, 5), 16, (1, 1)), "host", False),
    # partial sums in the scratch buffer: 64 output positions per channel row
    ("conv2d_partials", conv((2, 4, 8, 8), 20, (3, 3), pad=(1, 1)), "crowded", True),
    # 32 input channels, rows of 28: shorter k blocks so that units hold whole
    # output rows (with AVX-512, f64: 4 blocks of 72 and units of 2 rows; f32: 3
    # of 96 and units of 4 rows), 5 rows: a last unit of fewer rows
    ("conv2d_whole_rows", conv((2, 32, 5, 28), 20, (3, 3), pad=(1, 1)), "host", True),
    ("conv2d_whole_rows_f64", conv((1, 32, 6, 28), 16, (3, 3), pad=(1, 1)), "host", False),
    # k blocks of whole channels, each channel's kernel offsets unrolled, the next
    # channel's band filled ahead: 7 channels in blocks of 2 (the last of 1), a
    # 1-D kernel of 3 offsets in blocks of 3 channels and of 2
    ("conv2d_band_channel_blocks", conv((1, 7, 6, 12), 5, (3, 3), pad=(1, 1)), "tiny", True),
    ("conv1d_band_channel_blocks", conv((2, 5, 30), 3, (3,), pad=(1,)), "tiny", False),
    # 12 kernel offsets (more than are unrolled): k blocks inside a channel, two
    # groups of two channels, bands filled ahead
    (
        "conv2d_band_blocks_inside_channels",
        conv((2, 4, 7, 9), 4, (3, 4), pad=(1, 2), groups=2),
        "tiny",
        True,
    ),
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
    assert not bad.any(), (
        f"{int(bad.sum())} elements differ, e.g. {got[finite][bad][:3]} vs {ref[finite][bad][:3]}"
    )


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


# Fused epilogues: (name, contraction, extra argument shapes, epilogue text, op count, target)
EPILOGUES = [
    (
        "linear_relu",
        linear((11, 20), 50),
        [],
        "  %e = tlir.relu %r : ({out}) -> {out}\n",
        1,
        "host",
    ),
    (
        "matmul_add_relu",
        matmul((13, 9), (9, 21)),
        [(13, 21)],
        "  %s = tlir.add %r, %a2 : ({out}, {out}) -> {out}\n"
        "  %e = tlir.relu %s : ({out}) -> {out}\n",
        2,
        "tiny",
    ),
    (
        "matmul_add_relu_partials",
        matmul((20, 45), (45, 32)),
        [(20, 32)],
        "  %s = tlir.add %r, %a2 : ({out}, {out}) -> {out}\n"
        "  %e = tlir.relu %s : ({out}) -> {out}\n",
        2,
        "crowded",
    ),
    (
        "matmul_sub_swapped_scalar",
        matmul((2, 5, 7), (7, 10)),
        [(2, 5, 10), ()],
        "  %s = tlir.sub %a2, %r : ({out}, {out}) -> {out}\n"
        "  %m = tlir.mul_elem %s, %a3 : ({out}, tensor<{t}>) -> {out}\n"
        "  %e = tlir.max_elem %m, %m : ({out}, {out}) -> {out}\n",
        3,
        "outer",
    ),
    (
        "conv_exp_add",
        conv((1, 3, 6, 7), 4, (3, 3), pad=(1, 1)),
        [(1, 4, 6, 7)],
        "  %x = tlir.exp %r : ({out}) -> {out}\n"
        "  %e = tlir.add %x, %a3 : ({out}, {out}) -> {out}\n",
        2,
        "host",
    ),
    ("linear_tanh_vec", linear((6,), 9), [], "  %e = tlir.tanh %r : ({out}) -> {out}\n", 1, "sse"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,case,extra,epilogue,count,target", EPILOGUES,
                         ids=[e[0] for e in EPILOGUES])  # fmt: skip
def test_epilogue_matches_reference(name, case, extra, epilogue, count, target, backend):
    op_text, arg_shapes, out_shape = case
    dtype = "f32" if backend == "mlir" else "f64"
    shapes_all = [*arg_shapes, *extra]
    text = _module(op_text, shapes_all, out_shape, dtype, epilogue.replace("{t}", dtype),
                   operands=len(arg_shapes))  # fmt: skip
    _run_case(text, shapes_all, TARGETS[target], dtype, backend, special=False, epilogue=count)


def test_epilogue_rejects_non_chains():
    import tlir

    text = _module(*matmul((3, 4), (4, 5))[:1], [(3, 4), (4, 5), (3, 5)], (3, 5), "f64",
                   "  %e = tlir.add %a2, %a2 : ({out}, {out}) -> {out}\n", operands=2)  # fmt: skip
    ops = [op for op in tlir.parse_module(text).walk() if op.name.startswith("tlir.")]
    with pytest.raises(ValueError, match="does not use the previous result"):
        contraction_kernel(ops[0], "kernel", HOST, epilogue=ops[1:])


def test_machine_code_is_vector_mul_and_add_without_fma():
    """What LLVM emitted for a host kernel: vector multiplies and adds of the
    host's register width, and not one FMA (the fold rounds twice per term)."""
    text = _module(*matmul((16, 32), (32, 48))[:1], [(16, 32), (32, 48)], (16, 48), "f64")
    import tlir

    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.matmul")
    counts = instruction_counts(CompiledKernel(contraction_kernel(op, "kernel", HOST)).assembly())
    width = {16: "xmm", 32: "ymm", 64: "zmm"}[HOST.vector_bytes]
    assert counts[f"vmulpd {width}"] >= 12 and counts[f"vaddpd {width}"] >= 12, counts
    assert counts["fma"] == 0, counts


@pytest.mark.parametrize("load_broadcasts", [False, True])
def test_avx512_tile_takes_a_as_embedded_broadcasts(load_broadcasts):
    """With 512-bit vectors the register tile is one vector wide, so each broadcast
    of A feeds one multiply and LLVM folds it into that multiply's memory operand
    (`{1to8}`): no `vbroadcastsd zmm`, which would take a multiply-pipe slot on
    AMD. Where broadcasts are the load units' alone (Intel), the tile is two
    vectors wide: one `vbroadcastsd` feeds two multiplies."""
    if HOST.vector_bytes != 64:
        pytest.skip("the host has no AVX-512")
    text = _module(*matmul((64, 96), (96, 64))[:1], [(64, 96), (96, 64)], (64, 64), "f64")
    import tlir

    target = dataclasses.replace(HOST, load_broadcasts=load_broadcasts)
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.matmul")
    counts = instruction_counts(CompiledKernel(contraction_kernel(op, "kernel", target)).assembly())
    if load_broadcasts:
        assert counts["broadcast zmm"] >= 16 and counts["embedded broadcast"] == 0, counts
        assert counts["vmulpd zmm"] == 2 * counts["broadcast zmm"], counts
    else:
        assert counts["embedded broadcast"] >= 16, counts
        assert counts["broadcast zmm"] == 0, counts


def _spied_tilings(monkeypatch, generator) -> list:
    """The tilings `generator.kernel_tiling` chooses from now on, in order."""
    chosen = []
    original = generator.kernel_tiling

    def spy(spec, target):
        chosen.append(original(spec, target))
        return chosen[-1]

    monkeypatch.setattr(generator, "kernel_tiling", spy)
    return chosen


@pytest.mark.parametrize("n, dtype, tile", [(10, "f32", (16, 1)), (10, "f64", (8, 2)),
                                            (256, "f32", (8, 2))])  # fmt: skip
def test_two_vector_tiles_where_n_fills_them(monkeypatch, n, dtype, tile):
    """With `load_broadcasts` the tile is 8 rows of two vectors, but where N fits
    one vector (10 columns, 16 f32 lanes) 16 rows of one: two vectors would
    compute 32 columns for 10."""
    import tlir
    from tlir.passes.contraction_kernels import generator

    target = TargetInfo(vector_bytes=64, registers=32, l1_bytes=48 * 1024, l1_ways=12,
                        l2_bytes=2 << 20, load_broadcasts=True)  # fmt: skip
    chosen = _spied_tilings(monkeypatch, generator)
    text = _module(*linear((128, 256), n)[:1], [(128, 256), (n, 256), (n,)], (128, n), dtype)
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    contraction_kernel(op, "kernel", target)
    assert (chosen[-1].mr, chosen[-1].nv) == tile


HAND_WRITTEN = """\
kernel:
\tvmulpd\t%zmm1, %zmm2, %zmm3
\tvmulpd\t%zmm1, %zmm2, %zmm4
\tvmulpd\t%zmm1, %zmm2, %zmm5
.LBB0_4:                                # =>This Inner Loop Header: Depth=1
\tvmovapd\t(%r8), %zmm17
\tvmulpd\t8(%rcx,%r9,8){1to8}, %zmm17, %zmm18
\tvaddpd\t%zmm18, %zmm15, %zmm15
\tvmovupd\t%zmm20, 64(%rsp)                 # 64-byte Spill
\tvmulpd\t16(%rcx,%r9,8){1to8}, %zmm17, %zmm18
\tvaddpd\t%zmm18, %zmm14, %zmm14
\tvmovupd\t%zmm15, (%rax)
\tcmpq\t$68, %r9
\tjb\t.LBB0_4
\tvmulpd\t%ymm1, %ymm2, %ymm3
.LBB0_5:
\tvfmadd231pd\t(%rdx), %ymm1, %ymm2
\tjmp\t.LBB0_4
"""


def test_hot_loop_of_hand_written_assembly():
    """The loop is the block that branches back to its own label (straight-line
    multiplies before it and a block that jumps elsewhere are not loops): its
    2 multiplies and 2 adds, 3 memory reads (the load and two embedded
    broadcasts; the stores are writes), 1 spill."""
    assert hot_loop(HAND_WRITTEN) == HotLoop("zmm", 2, 2, 0, 3, 1)
    assert hot_loop(HAND_WRITTEN).terms == 2
    assert hot_loop("kernel:\n\tvmulpd\t%zmm1, %zmm2, %zmm3\n\tretq\n") is None


@pytest.mark.parametrize("fused", [False, True])
def test_hot_loop_is_full_width_without_spills(fused):
    """The register tile's loop: the host's widest vectors, nothing spilled, at
    most one memory read per two-rounding term (16×1: one vector of B and 16
    broadcasts of A per 16 terms) and no FMA (exact), or only FMAs (fma)."""
    import tlir

    text = _module(*matmul((64, 96), (96, 64))[:1], [(64, 96), (96, 64)], (64, 64), "f64")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.matmul")
    function = contraction_kernel(op, "kernel", HOST, fused_multiply_add=fused)
    loop = hot_loop(CompiledKernel(function).assembly())
    assert loop is not None
    assert loop.width == {16: "xmm", 32: "ymm", 64: "zmm"}[HOST.vector_bytes], loop
    assert loop.spills == 0, loop
    if fused:
        assert loop.multiplies == loop.adds == 0 and loop.fmas >= 8, loop
    else:
        assert loop.fmas == 0 and loop.multiplies == loop.adds >= 8, loop
        assert loop.loads <= 1.1 * loop.terms, loop


def test_transposed_weight_is_packed_with_vector_shuffles():
    """A linear layer's weight is B transposed (each column of B a row in memory):
    its panels are packed as lanes × lanes squares transposed in registers, so
    the kernel holds full-width shuffles rather than only scalar moves; a small
    weight is packed element by element (less code to compile)."""
    import tlir

    text = _module(*linear((16, 256), 96)[:1], [(16, 256), (96, 256), (96,)], (16, 96), "f64")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    counts = instruction_counts(CompiledKernel(contraction_kernel(op, "kernel", HOST)).assembly())
    width = "zmm" if HOST.vector_bytes == 64 else "ymm/xmm"
    assert counts[f"shuffle {width}"] >= 8, counts
    assert counts["fma"] == 0, counts
    text = _module(*linear((16, 32), 48)[:1], [(16, 32), (48, 32), (48,)], (16, 48), "f64")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    counts = instruction_counts(CompiledKernel(contraction_kernel(op, "kernel", HOST)).assembly())
    assert counts[f"shuffle {width}"] == 0, counts


def _shuffles(function) -> int:
    return sum(op.name == "vector.shuffle" for op in function.walk())


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize(("k", "n"), [(300, 10), (520, 5), (256, 8), (700, 3)])
def test_a_weight_narrower_than_a_vector_is_packed_by_narrower_transposes(
    k, n, fused, dtype, monkeypatch
):
    """A linear of fewer outputs than a vector has lanes (10, 5 or 3 in f32, 5
    or 3 in f64) and at least 2,048 weight elements packs its weight as squares
    of 8, 4 or 2 lanes transposed in registers, the columns past them element
    by element;
    packing only moves data, so each numerics gives the bits of the kernel that
    packs element by element (and exact, the reference evaluator's)."""
    import tlir
    from tlir.passes.contraction_kernels import gemm

    text = _module(*linear((9, k), n)[:1], [(9, k), (n, k), (n,)], (9, n), dtype)
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    inputs = _inputs([(9, k), (n, k), (n,)], dtype, special=True)

    def run(function) -> np.ndarray:
        compiled = CompiledKernel(function)
        out = np.full((9, n), 7.0, inputs[0].dtype)
        compiled([*inputs, out], _ranges(compiled.extent))
        return out

    function = contraction_kernel(op, "kernel", HOST, fused_multiply_add=fused)
    assert _shuffles(function) > 0
    got = run(function)
    monkeypatch.setattr(gemm.StridedPacker, "TRANSPOSE_MIN_ELEMENTS", 1 << 62)
    by_element = contraction_kernel(op, "kernel", HOST, fused_multiply_add=fused)
    assert _shuffles(by_element) == 0
    want = run(by_element)
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    if not fused:
        _assert_bit_identical(got, evaluate(tlir.parse_module(text), inputs)[0])


def test_kernel_signature_and_parallel_extent():
    from xdsl.dialects import memref

    import tlir

    text = _module(*linear((70, 8), 30)[:1], [(70, 8), (30, 8), (30,)], (70, 30), "f64")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    function = contraction_kernel(op, "linear_kernel", TINY)
    inputs = [str(t) for t in function.function_type.inputs.data]
    assert inputs == ["memref<70x8xf64>", "memref<30x8xf64>", "memref<30xf64>",
                      "memref<70x30xf64>", "index", "index"]  # fmt: skip
    assert function.attributes["tlir.parallel_extent"].value.data > 1
    assert not any(isinstance(o, memref.AllocOp) for o in function.walk())
    stack = sum(math.prod(o.memref.type.get_shape()) * 8 for o in function.walk()
                if isinstance(o, memref.AllocaOp))  # fmt: skip
    assert stack <= TINY.stack_bytes
    assert all("llvm.noalias" in d.data for d in function.arg_attrs.data[:4])


@pytest.mark.parametrize("l2_bytes", [1 << 17, 1 << 20])
def test_partial_sums_live_in_per_unit_scratch_shared_by_concurrent_units(l2_bytes):
    """With several k blocks and rows of C 4 KiB apart (512 f64 columns: a 16-row
    tile in one L1 set) the partial sums between blocks go to a scratch
    argument (after the result), one slice per work unit: each unit writes its
    own part of the buffer, so the units of one call may run at once on
    different threads, all given the same scratch buffer (as a compiled
    model's threads are), and the results stay bit-identical."""
    from concurrent.futures import ThreadPoolExecutor

    from xdsl.dialects import memref

    import tlir

    m, k, n = 32, 1000, 512
    text = _module(*matmul((m, k), (k, n))[:1], [(m, k), (k, n)], (m, n), "f64")
    module = tlir.parse_module(text)
    op = next(op for op in module.walk() if op.name == "tlir.matmul")
    # 128 KiB of L2: blocks of B within the stack's budget, 8 units of 32 x 64;
    # 1 MiB: blocks of B 128 columns wide, in the scratch buffer after P, 4 units
    target = dataclasses.replace(HOST, tile=(16, 1), l1_bytes=32768, l1_ways=8, l2_bytes=l2_bytes)
    function = contraction_kernel(op, "kernel", target)
    buffers = [str(t) for t in function.function_type.inputs.data[:-2]]
    assert buffers[:3] == [f"memref<{m}x{k}xf64>", f"memref<{k}x{n}xf64>", f"memref<{m}x{n}xf64>"]
    assert len(buffers) == 4 and buffers[3].endswith("xf64>"), buffers
    assert not any(isinstance(o, memref.AllocOp) for o in function.walk())
    compiled = CompiledKernel(function)
    assert compiled.extent == (8 if l2_bytes == 1 << 17 else 4)
    inputs = _inputs([(m, k), (k, n)], "f64", special=False)
    ref = evaluate(module, inputs)[0]
    units = [(u, u + 1) for u in range(compiled.extent)]
    # each unit alone, on a scratch buffer of NaN: the parts they write are disjoint
    (raw,) = compiled.scratch
    scratch = raw.view(np.float64)  # the kernel's f64 elements
    written = []
    for unit in units:
        scratch.fill(np.nan)
        compiled([*inputs, np.empty_like(ref)], [unit])
        written.append(set(np.flatnonzero(~np.isnan(scratch)).tolist()))
    assert all(written)
    assert sum(map(len, written)) == len(set().union(*written))
    with ThreadPoolExecutor(max_workers=len(units)) as pool:
        for _ in range(5):
            out = np.full(ref.shape, 7.0)
            list(pool.map(lambda r, out=out: compiled([*inputs, out], [r]), units))
            _assert_bit_identical(out, ref)


@pytest.mark.parametrize(
    "m,k,n,reloads_c",
    [
        (384, 640, 512, False),  # rows 4 KiB apart: all 16 rows of a tile in one set
        (384, 640, 1024, False),
        (128, 1024, 256, False),  # 8 rows per set, the slices fit half of L2
        (384, 640, 768, True),  # 8 rows per set, the slices do not
        (384, 512, 640, True),  # 4 rows per set
        (384, 64, 512, False),  # one k block: no partial sums at all
    ],
)
def test_partial_sums_go_to_scratch_where_rows_of_c_crowd_the_l1(m, k, n, reloads_c):
    """On a Zen 4-like target (AVX-512, 32 KiB 8-way L1, 1 MiB L2; 16-row tiles),
    f64. Partial sums kept in C are reloaded from it; kept in the scratch buffer,
    the kernel only ever stores to C."""
    from xdsl.dialects import memref, vector

    import tlir

    zen4 = TargetInfo(vector_bytes=64, registers=32, l1_bytes=32768, l2_bytes=1 << 20,
                      tile=(16, 1))  # fmt: skip
    text = _module(*matmul((m, k), (k, n))[:1], [(m, k), (k, n)], (m, n), "f64")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.matmul")
    function = contraction_kernel(op, "kernel", zen4)
    c = next(o.results[0] for o in function.walk()
             if isinstance(o, memref.CollapseShapeOp) and o.src == function.args[2])  # fmt: skip
    reads_c = any(isinstance(o, vector.LoadOp) and o.base == c for o in function.walk())
    assert reads_c == reloads_c


@pytest.mark.parametrize("k, rows", [(1024, 8), (256, 8), (640, 16), (520, 16)])
def test_tiles_of_half_the_rows_read_crowded_rows_of_a_in_place(k, rows):
    """On a Zen 4-like target (AVX-512, 32 KiB 8-way L1), f64: rows of A 8 KiB
    apart (k = 1024) would put all 16 rows of a tile in one L1 set, rows 2 KiB
    apart (k = 256) 8, its ways; so the tile has 8 rows and reads A in place:
    no copy of A, 8 accumulators per k loop. With 4 rows per set (k = 640) or
    one (k = 520) 16 rows, A in place too."""
    from xdsl.dialects import memref, scf, vector
    from xdsl.dialects.builtin import VectorType

    import tlir

    zen4 = TargetInfo(vector_bytes=64, registers=32, l1_bytes=32768, l2_bytes=1 << 20)
    m, n = 128, 256
    shapes_ = [(m, k), (n, k), (n,)]
    text = _module(*linear((m, k), n)[:1], shapes_, (m, n), "f64")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    function = contraction_kernel(op, "kernel", zen4)
    loops = [o for o in function.walk() if isinstance(o, scf.ForOp)]
    accumulators = max(sum(isinstance(a.type, VectorType) for a in o.iter_args) for o in loops)
    assert accumulators == rows
    # copying A reads it in vectors; the tiles read one element at a time
    a = next(o.results[0] for o in function.walk()
             if isinstance(o, memref.CollapseShapeOp) and o.src == function.args[0])  # fmt: skip
    assert not any(isinstance(o, vector.LoadOp) and o.base == a for o in function.walk())


@pytest.mark.parametrize("ways, k, rows", [(12, 512, 8), (12, 1024, 8), (12, 256, 16),
                                            (8, 512, 16)])  # fmt: skip
def test_the_tile_follows_the_ways_of_a_48k_l1(ways, k, rows):
    """A 48 KiB L1 with 12 ways has 64 sets: rows of A 4 or 8 KiB apart (f64,
    k = 512, 1024) all fall into one, 16 rows overflow it, and the tile takes
    8, which it holds; rows 2 KiB apart (k = 256) put 8 of 16 rows in a set,
    which leaves it room: 16 rows. Taken as 8 ways (96 sets), rows 4 KiB apart
    would spread over 3 sets and keep 16 rows."""
    from xdsl.dialects import scf
    from xdsl.dialects.builtin import VectorType

    import tlir

    target = TargetInfo(vector_bytes=64, registers=32, l1_bytes=48 * 1024, l1_ways=ways,
                        l2_bytes=2 << 20)  # fmt: skip
    m, n = 128, 256
    text = _module(*linear((m, k), n)[:1], [(m, k), (n, k), (n,)], (m, n), "f64")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    function = contraction_kernel(op, "kernel", target)
    loops = [o for o in function.walk() if isinstance(o, scf.ForOp)]
    assert max(sum(isinstance(a.type, VectorType) for a in o.iter_args) for o in loops) == rows


def test_no_tile_loop_is_emitted_for_tiles_the_shape_does_not_have():
    """Fewer rows than a register tile (and fewer columns than a vector): only
    the partial tiles' loops are emitted, not the whole tiles' ones, whose
    micro-kernels would never run (they were most of a small linear's code:
    a 1x8x16 linear of the bench's transformer, 1,359 LLVM instructions before,
    489 after)."""
    from xdsl.dialects import arith, scf

    import tlir
    from tlir.passes.contraction_kernels.tiling import register_tile

    rows, _ = register_tile(HOST)
    lanes = HOST.lanes(8)
    # several column units (then a unit's rows are known only at run time)
    m, n = max(rows // 2, 1), 4 * lanes
    shapes_ = [(1, m, 16), (n, 16), (n,)]
    text = _module(*linear((1, m, 16), n)[:1], shapes_, (1, m, n), "f64")
    op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.linear")
    function = contraction_kernel(op, "kernel", HOST)

    def loops_stepping(step: int) -> int:
        return sum(
            isinstance(loop, scf.ForOp)
            and isinstance(loop.step.owner, arith.ConstantOp)
            and loop.step.owner.value.value.data == step
            for loop in function.walk()
        )

    if rows > lanes:  # (steps of lanes or less are also the packing loops')
        # the partial row tile's loop, and not also one over whole row tiles
        assert loops_stepping(rows) == 1
    _run_case(text, shapes_, HOST, "f64", "xdsl", special=False)


def test_conv_k_blocks_hold_whole_channels(monkeypatch):
    """Where the band packer unrolls a channel's kernel offsets, a conv's k
    blocks hold whole channels: the bench conv (32 channels of 9 offsets, rows
    of 28) on a 48 KiB-L1 AVX-512 target takes 3 blocks of 99 in f32 (11
    channels) where the generic choice is 96; f64's 4 blocks of 72 stay."""
    import tlir
    from tlir.passes.contraction_kernels import generator

    target = TargetInfo(vector_bytes=64, registers=32, l1_bytes=48 * 1024, l1_ways=12,
                        l2_bytes=2 << 20)  # fmt: skip
    chosen = _spied_tilings(monkeypatch, generator)
    op_text, arg_shapes, out = conv((4, 32, 28, 28), 32, (3, 3), pad=(1, 1))
    for dtype, kc in (("f32", 99), ("f64", 72)):
        text = _module(op_text, arg_shapes, out, dtype)
        op = next(op for op in tlir.parse_module(text).walk() if op.name == "tlir.conv")
        contraction_kernel(op, "kernel", target)
        assert chosen[-1].kc == kc
