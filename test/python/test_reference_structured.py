"""Reference evaluator, reductions/windows/normalization/data movement.

Expected values come from plain scalar loops written from the spec's formulas
(left folds from +0 in Python floats), independent of the evaluator's
vectorised NumPy code.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from conftest import run_mlir


def fold(terms) -> float:
    acc = 0.0
    for t in terms:
        acc = acc + t
    return acc


def typ(shape, dtype="f64") -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def single(op_text: str, in_shapes, out_shape, dtype="f64") -> str:
    args = ", ".join(f"%a{i}: {typ(s, dtype)}" for i, s in enumerate(in_shapes))
    out = typ(out_shape, dtype)
    body = op_text.format(*[f"%a{i}" for i in range(len(in_shapes))])
    ins = ", ".join(typ(s, dtype) for s in in_shapes)
    return (
        f"func.func @main({args}) -> {out} {{\n  %r = {body} : ({ins}) -> {out}\n"
        f"  func.return %r : {out}\n}}"
    )


RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.normal(size=shape)


def test_sum_is_a_left_fold_not_pairwise():
    x = np.array([1e16, 1.0, -1e16, 1.0, 3.0, 1.0, 1e16, 0.75, -1e16, 2.0] * 13)
    got = run_mlir(single("tlir.sum {0}", [x.shape], ()), x)[0]
    assert got == fold(x.tolist())
    assert got != np.sum(x)  # NumPy's pairwise sum differs on this input


def test_sum_of_empty_and_negative_zero():
    assert run_mlir(single("tlir.sum {0}", [(0,)], ()), np.zeros(0))[0] == 0.0
    got = run_mlir(single("tlir.sum {0}", [(2,)], ()), np.array([-0.0, -0.0]))[0]
    assert math.copysign(1.0, got) == 1.0  # fold starts from +0


def test_reduce_sum_and_mean_each_axis():
    x = rand(3, 4, 5)
    for axis in range(3):
        out_shape = tuple(d for i, d in enumerate(x.shape) if i != axis)
        s = run_mlir(single(f"tlir.reduce_sum {{0}} axis = {axis}", [x.shape], out_shape), x)[0]
        m = run_mlir(single(f"tlir.reduce_mean {{0}} axis = {axis}", [x.shape], out_shape), x)[0]
        for index in itertools.product(*(range(d) for d in out_shape)):
            terms = [x[index[:axis] + (k,) + index[axis:]] for k in range(x.shape[axis])]
            assert s[index] == fold(terms)
            assert m[index] == fold(terms) / x.shape[axis]


def test_mse_loss():
    a, b = rand(2, 3), rand(2, 3)
    got = run_mlir(single("tlir.mse_loss {0}, {1}", [(2, 3), (2, 3)], ()), a, b)[0]
    d = (a - b).ravel().tolist()
    assert got == fold(v * v for v in d) / 6
    empty = run_mlir(single("tlir.mse_loss {0}, {1}", [(0,), (0,)], ()), np.zeros(0), np.zeros(0))
    assert empty[0] == 0.0  # denominator 1 for an empty tensor


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((2, 3), (3, 4)), ((2, 1, 2, 3), (3, 3, 2)), ((3,), (2, 3, 4)), ((2, 3), (3,)), ((3,), (3,))],
)
def test_matmul_rank_cases(a_shape, b_shape):
    from tlir import shapes

    a, b = rand(*a_shape), rand(*b_shape)
    out_shape = shapes.matmul(a_shape, b_shape)
    got = run_mlir(single("tlir.matmul {0}, {1}", [a_shape, b_shape], out_shape), a, b)[0]
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    expect = np.empty(
        np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]) + (a2.shape[-2], b2.shape[-1])
    )
    for index in itertools.product(*(range(d) for d in expect.shape)):
        batch, i, j = index[:-2], index[-2], index[-1]
        ab = tuple(
            0 if d == 1 else k for d, k in zip(a2.shape[:-2], batch[len(batch) - a2.ndim + 2 :])
        )
        bb = tuple(
            0 if d == 1 else k for d, k in zip(b2.shape[:-2], batch[len(batch) - b2.ndim + 2 :])
        )
        expect[index] = fold(a2[ab + (i, k)] * b2[bb + (k, j)] for k in range(a2.shape[-1]))
    assert np.array_equal(got, expect.reshape(out_shape))


def test_linear():
    x, w, b = rand(2, 3, 4), rand(5, 4), rand(5)
    got = run_mlir(
        single("tlir.linear {0}, {1}, {2}", [(2, 3, 4), (5, 4), (5,)], (2, 3, 5)), x, w, b
    )[0]
    for i, j, o in itertools.product(range(2), range(3), range(5)):
        assert got[i, j, o] == fold(w[o, k] * x[i, j, k] for k in range(4)) + b[o]


def conv_reference(x, w, b, stride, pad, pad_after, dilation, groups):
    """docs/ops.md#conv on one batch of NC(spatial) input, by scalar loops."""
    n, cin = x.shape[:2]
    spatial = x.shape[2:]
    cout, kernel = w.shape[0], w.shape[2:]
    outs = [
        (s + p + q - (d * (k - 1) + 1)) // st + 1
        for s, p, q, d, k, st in zip(spatial, pad, pad_after, dilation, kernel, stride)
    ]
    y = np.zeros((n, cout, *outs))
    cin_g, cout_g = cin // groups, cout // groups
    for bi, oc in itertools.product(range(n), range(cout)):
        g = oc // cout_g
        for o in itertools.product(*(range(v) for v in outs)):
            terms = []
            for local in range(cin_g):
                ic = g * cin_g + local
                for off in itertools.product(*(range(k) for k in kernel)):
                    coords = [
                        oo * st + ww * d - p
                        for oo, st, ww, d, p in zip(o, stride, off, dilation, pad)
                    ]
                    inside = all(0 <= q < s for q, s in zip(coords, spatial))
                    value = x[(bi, ic, *coords)] if inside else 0.0
                    terms.append(value * w[(oc, ic, *off)])
            y[(bi, oc, *o)] = fold(terms) + b[oc]
    return y


CONV_CASES = [
    # x shape, cout, kernel, stride, pad, pad_after, dilation, groups
    ((1, 2, 5, 5), 4, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),
    ((2, 4, 5, 6), 6, (3, 2), (2, 1), (1, 0), (1, 1), (1, 1), 2),
    ((1, 2, 7, 7), 2, (2, 3), (1, 2), (0, 2), (1, 0), (2, 2), 1),
    ((1, 3, 9), 3, (3,), (2,), (1,), (0,), (3,), 3),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv_grouped_dilated_padded(case):
    x_shape, cout, kernel, stride, pad, pad_after, dilation, groups = case
    cin = x_shape[1]
    w = rand(cout, cin, *kernel)
    b = rand(cout)
    x = rand(*x_shape)
    expect = conv_reference(x, w, b, stride, pad, pad_after, dilation, groups)
    arr = lambda v: "array<i64: " + ", ".join(map(str, v)) + ">"  # noqa: E731
    props = (
        f"{{kernel = {arr(kernel)}, stride = {arr(stride)}, padding = {arr(pad)}, "
        f"padding_after = {arr(pad_after)}, dilation = {arr(dilation)}, groups = {groups} : i64, "
        f"channel_axis = 1 : i64, in_channels = {cin} : i64, out_channels = {cout} : i64}}"
    )
    text = single("tlir.conv {0}, {1}, {2} " + props.replace("{", "{{").replace("}", "}}"),
                  [x_shape, w.shape, b.shape], expect.shape)  # fmt: skip
    got = run_mlir(text, x, w, b)[0]
    assert np.array_equal(got, expect)


def pool_reference(x, kernel, stride, pad, kind):
    lead = x.shape[: x.ndim - len(kernel)]
    spatial = x.shape[x.ndim - len(kernel) :]
    outs = [(s + 2 * p - k) // st + 1 for s, p, k, st in zip(spatial, pad, kernel, stride)]
    y = np.zeros(lead + tuple(outs))
    for li in itertools.product(*(range(v) for v in lead)):
        for o in itertools.product(*(range(v) for v in outs)):
            cells = []
            for off in itertools.product(*(range(k) for k in kernel)):
                coords = [oo * st + ww - p for oo, st, ww, p in zip(o, stride, off, pad)]
                inside = all(0 <= q < s for q, s in zip(coords, spatial))
                cells.append(x[li + tuple(coords)] if inside else None)
            if kind == "max":
                best = None
                for v in cells:
                    if v is not None and (best is None or v > best):
                        best = v
                y[li + o] = 0.0 if best is None else best
            else:
                y[li + o] = fold(0.0 if v is None else v for v in cells) / math.prod(kernel)
    return y


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "pad"),
    [
        ((2, 3, 6, 6), (2, 2), (2, 2), (0, 0)),
        ((1, 5, 5), (3, 3), (2, 1), (1, 1)),
        ((7,), (3,), (2,), (1,)),
    ],
)
def test_pooling(kind, shape, kernel, stride, pad):
    x = rand(*shape)
    expect = pool_reference(x, kernel, stride, pad, kind)
    arr = lambda v: "array<i64: " + ", ".join(map(str, v)) + ">"  # noqa: E731
    props = f"{{{{kernel = {arr(kernel)}, stride = {arr(stride)}, padding = {arr(pad)}}}}}"
    got = run_mlir(single(f"tlir.{kind}_pool {{0}} {props}", [shape], expect.shape), x)[0]
    assert np.array_equal(got, expect)


def test_max_pool_nan_rules_and_empty_axis():
    props = "{{kernel = array<i64: 3>, stride = array<i64: 3>, padding = array<i64: 0>}}"
    x = np.array([np.nan, 5.0, 1.0, 2.0, np.nan, 7.0])
    got = run_mlir(single(f"tlir.max_pool {{0}} {props}", [(6,)], (2,)), x)[0]
    assert math.isnan(got[0])  # a NaN first cell sticks
    assert got[1] == 7.0  # a later NaN is ignored
    quirk = "{{kernel = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 2>}}"
    empty = run_mlir(single(f"tlir.avg_pool {{0}} {quirk}", [(5,)], (0,)), rand(5))[0]
    assert empty.shape == (0,)


def test_batch_norm_eval():
    x, g, b, m = rand(2, 3, 2), rand(3), rand(3), rand(3)
    v = np.array([0.5, -0.25, 2.0])  # a negative variance is clamped to 0
    props = "{{channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-05 : f64}}"
    text = single(f"tlir.batch_norm_eval {{0}}, {{1}}, {{2}}, {{3}}, {{4}} {props}",
                  [(2, 3, 2), (3,), (3,), (3,), (3,)], (2, 3, 2))  # fmt: skip
    got = run_mlir(text, x, g, b, m, v)[0]
    for n, c, s in itertools.product(range(2), range(3), range(2)):
        var = v[c] if not v[c] <= 0 else 0.0
        std = math.sqrt(var + 1e-5)
        assert got[n, c, s] == ((x[n, c, s] - m[c]) / std) * g[c] + b[c]


def test_softmax_each_axis():
    x = rand(2, 3, 4)
    for axis in range(3):
        got = run_mlir(single(f"tlir.softmax {{0}} axis = {axis}", [x.shape], x.shape), x)[0]
        moved = np.moveaxis(x, axis, -1)
        out = np.moveaxis(got, axis, -1)
        for index in itertools.product(*(range(d) for d in moved.shape[:-1])):
            row = moved[index].tolist()
            m = row[0]
            for v in row:
                m = v if m <= v else m
            e = [math.exp(v - m) for v in row]
            total = fold(e)
            assert out[index].tolist() == [v / total for v in e]


def test_hard_masked_softmax_blocked_rows_are_zero():
    x = rand(3, 4)
    mask = [[True, False, True, True], [False, False, False, False], [False, True, False, False]]
    attr = (
        "dense<"
        + str(mask).replace("True", "true").replace("False", "false")
        + "> : tensor<3x4xi1>"
    )
    got = run_mlir(
        single(f"tlir.hard_masked_softmax {{0}} {{{{mask = {attr}}}}}", [(3, 4)], (3, 4)), x
    )[0]
    for r in range(3):
        allowed = [x[r, j] for j in range(4) if mask[r][j]]
        if not allowed:
            assert got[r].tolist() == [0.0] * 4
            continue
        best = allowed[0]
        for v in allowed:
            best = v if v > best else best
        nums = [math.exp(x[r, j] - best) if mask[r][j] else 0.0 for j in range(4)]
        assert got[r].tolist() == [v / fold(nums) for v in nums]


def test_layernorm_recentred_variance_and_affine():
    x, g, b = rand(3, 2, 4), rand(2, 4), rand(2, 4)
    text = single("tlir.layernorm {0} affine({1}, {2}) {{axis = 1 : i64, eps = 1.0e-05 : f64}}",
                  [(3, 2, 4), (2, 4), (2, 4)], (3, 2, 4))  # fmt: skip
    got = run_mlir(text, x, g, b)[0]
    for r in range(3):
        row = x[r].ravel().tolist()
        n = len(row)
        mu = fold(row) / n
        c = [v - mu for v in row]
        mu2 = fold(c) / n
        var = fold((v - mu2) * (v - mu2) for v in c) / n
        sigma = math.sqrt(max(var, 0.0) + 1e-5)
        expect = [(cv / sigma) * gv + bv for cv, gv, bv in zip(c, g.ravel(), b.ravel())]
        assert got[r].ravel().tolist() == expect


def test_data_movement():
    x = rand(2, 3, 4)
    got = run_mlir(
        single("tlir.permute {0} {{perm = array<i64: 2, 0, 1>}}", [x.shape], (4, 2, 3)), x
    )[0]
    assert all(
        got[k, i, j] == x[i, j, k] for i, j, k in itertools.product(range(2), range(3), range(4))
    )
    got = run_mlir(
        single("tlir.transpose {0} {{axis1 = 0 : i64, axis2 = 2 : i64}}", [x.shape], (4, 3, 2)), x
    )[0]
    assert got[3, 1, 0] == x[0, 1, 3]
    c = rand(3, 1)
    got = run_mlir(single("tlir.broadcast_to {0}", [(3, 1)], (2, 3, 5)), c)[0]
    assert all(
        got[a, i, j] == c[i, 0] for a, i, j in itertools.product(range(2), range(3), range(5))
    )
    got = run_mlir(single("tlir.reshape {0}", [x.shape], (6, 4)), x)[0]
    assert got[5, 3] == x[1, 2, 3]
    got = run_mlir(single("tlir.flatten {0}", [x.shape], (24,)), x)[0]
    assert got[23] == x[1, 2, 3] and got[4] == x[0, 1, 0]
    y = rand(2, 1, 4)
    got = run_mlir(single("tlir.concat {0}, {1} axis = 1", [x.shape, y.shape], (2, 4, 4)), x, y)[0]
    assert got[1, 3, 2] == y[1, 0, 2] and got[1, 2, 2] == x[1, 2, 2]


def test_const_and_custom_call():
    text = """
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %c = tlir.const {value = dense<[0.1, 3.0]> : tensor<2xf32>} : tensor<2xf32>
      %y = tlir.custom @scale(%x, %c) {name = "scale"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      func.return %y : tensor<2xf32>
    }
    func.func @scale(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
      %r = tlir.mul_elem %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      func.return %r : tensor<2xf32>
    }"""
    got = run_mlir(text, np.array([2.0, -1.0], np.float32))[0]
    assert got.dtype == np.float32
    assert got.tolist() == [float(np.float32(2.0) * np.float32(0.1)), -3.0]
