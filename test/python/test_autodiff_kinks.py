"""Kink, tie and zero conventions, bit for bit, with values derived by hand from
docs/autodiff.md (docs/autodiff.md#forward-mode-dual-valued-execution,
docs/autodiff.md#reverse-mode, D1–D9 of docs/autodiff.md#choices-beyond-torchlean): relu'(0) = 0, abs'(0) = 0, sqrt'(x ≤ 0) = 0,
max/min ties ½ each, max_pool's first maximum, zero derivatives of detach and
random ops, the quotient rule's signed zeros, the `0·x` terms dual execution
keeps, and softmax's ½/½ max tie. Each expectation is checked against the
reference and against compiled code (all cases merged into one module per back end).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from autodiff_util import BACKENDS, derivative, merged, same_bits

import tlir
from tlir.reference import jvp, vjp

NAN, INF = float("nan"), float("inf")


def vec(n: int) -> str:
    return f"tensor<{n}xf64>"


def unary(op: str, n: int) -> str:
    t = vec(n)
    return (f"func.func @main(%x: {t}) -> {t} {{\n  %y = tlir.{op} %x : ({t}) -> {t}\n"
            f"  func.return %y : {t}\n}}\n")  # fmt: skip


def binary(op: str, n: int) -> str:
    t = vec(n)
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %y = tlir.{op} %a, %b : ({t}, {t}) -> {t}\n  func.return %y : {t}\n}}\n")  # fmt: skip


@dataclass
class Kink:
    name: str
    text: str
    inputs: list
    tangents: list
    tangent: list  # the expected output tangent
    cotangent: list  # the output cotangent
    gradients: list  # the expected input gradients

    def arrays(self, values) -> list[np.ndarray]:
        return [np.array(v, np.float64) for v in values]


MAX_POOL = """func.func @main(%x: tensor<1x2x2xf64>) -> tensor<1x1x1xf64> {
  %y = tlir.max_pool %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<1x2x2xf64>) -> tensor<1x1x1xf64>
  func.return %y : tensor<1x1x1xf64>
}
"""

RANDOM = """func.func @main(%x: tensor<3xf64>, %p: tensor<f64>) -> tensor<3xf64> {
  %d = tlir.detach %x : (tensor<3xf64>) -> tensor<3xf64>
  %u = tlir.rand_uniform {seed = 1 : i64, node_id = 2 : i64} : tensor<3xf64>
  %m = tlir.bernoulli_mask %p {seed = 1 : i64, node_id = 3 : i64} : (tensor<f64>) -> tensor<3xf64>
  %a = tlir.mul_elem %d, %u : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %y = tlir.mul_elem %a, %m : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  func.return %y : tensor<3xf64>
}
"""

LINEAR = """func.func @main(%x: tensor<2xf64>) -> tensor<1xf64> {
  %w = tlir.const {value = dense<[[0.0, 1.0]]> : tensor<1x2xf64>} : tensor<1x2xf64>
  %b = tlir.const {value = dense<0.0> : tensor<1xf64>} : tensor<1xf64>
  %y = tlir.linear %x, %w, %b : (tensor<2xf64>, tensor<1x2xf64>, tensor<1xf64>) -> tensor<1xf64>
  func.return %y : tensor<1xf64>
}
"""

KINKS = [
    # relu: x == 0 (either sign) is the literal zero dual; x < 0 takes max's
    # literal zero; NaN reaches max's tie: ½·dx + ½·0. VJP factor (x > 0 ? 1 : 0).
    Kink("relu", unary("relu", 5), [[0.0, -0.0, 2.0, -2.0, NAN]], [[-1.0, 1.0, -1.0, -1.0, 1.0]],
         [0.0, 0.0, -1.0, 0.0, 0.5], [-1.0, 1.0, 1.0, 1.0, 1.0], [[-0.0, 0.0, 1.0, 0.0, 0.0]]),
    # abs: the tangent is dx, −dx or the literal 0; the VJP factor sign(x) is 0 at ±0 and NaN.
    Kink("abs", unary("abs", 5), [[0.0, -0.0, 3.0, -3.0, NAN]], [[1.0, 1.0, 1.0, 1.0, 1.0]],
         [0.0, 0.0, 1.0, -1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0], [[0.0, 0.0, 1.0, -1.0, 0.0]]),
    # sqrt(max(x, 0)): x ≤ 0 gives 0; x = 4: 1/(2·2). The VJP's factor is 0 at
    # x ≤ 0, formed before the product, so 0·inf is NaN.
    Kink("sqrt", unary("sqrt", 4), [[0.0, -0.0, -1.0, 4.0]], [[1.0, 1.0, 1.0, 1.0]],
         [0.0, 0.0, 0.0, 0.25], [INF, 1.0, 1.0, 1.0], [[NAN, 0.0, 0.0, 0.25]]),
    # max ties and NaN: ½·da + ½·db; the VJP gives ½ to each side.
    Kink("max_elem", binary("max_elem", 4), [[1.0, 1.0, 2.0, NAN], [1.0, 1.0, 1.0, 1.0]],
         [[2.0, 2.0, 2.0, 2.0], [4.0, -4.0, 4.0, 4.0]], [3.0, -1.0, 2.0, 3.0],
         [1.0, 1.0, 1.0, 1.0], [[0.5, 0.5, 1.0, 0.5], [0.5, 0.5, 0.0, 0.5]]),
    Kink("min_elem", binary("min_elem", 3), [[1.0, 1.0, 2.0], [1.0, 1.0, 1.0]],
         [[2.0, 2.0, 2.0], [4.0, -4.0, 4.0]], [3.0, -1.0, 4.0],
         [1.0, 1.0, 1.0], [[0.5, 0.5, 0.0], [0.5, 0.5, 1.0]]),
    # max_pool: 3 at (0, 1) and (1, 0); the first in row-major order wins.
    Kink("max_pool", MAX_POOL, [[[[1.0, 3.0], [3.0, 0.0]]]], [[[[10.0, 20.0], [30.0, 40.0]]]],
         [[[20.0]]], [[[5.0]]], [[[[0.0, 5.0], [0.0, 0.0]]]]),
    # detach, random numbers and the mask: zero tangents; x's gradient is +0
    # (unreached) and the keep probability's too. y = (detach(x)·u)·mask.
    Kink("detach_random", RANDOM, [[1.0, 2.0, 3.0], 1.0], [[1.0, 1.0, 1.0], 1.0],
         [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [[0.0, 0.0, 0.0], 0.0]),
    # inv by the quotient rule (D1): ((0·x) − (1·dx)) / (x·x). dx = +0 gives
    # (0 − 0)/4 = +0 where −dx/x² is −0; x = inf gives 0·inf = NaN.
    Kink("inv", unary("inv", 3), [[2.0, INF, -2.0]], [[0.0, 1.0, -0.0]], [0.0, NAN, 0.0],
         [1.0, 1.0, 1.0], [[-0.25, -0.0, -0.25]]),
    # linear keeps the (dW·x) terms of its dual fold: a zero weight tangent
    # times x = inf is NaN. The VJP: dx = fold over o of g·W.
    Kink("linear", LINEAR, [[INF, 1.0]], [[0.0, 0.0]], [NAN], [2.0], [[0.0, 2.0]]),
]  # fmt: skip


def _check(got: np.ndarray, want: list) -> bool:
    return same_bits(np.asarray(got), np.array(want, np.float64))


@pytest.mark.parametrize("kink", KINKS, ids=[k.name for k in KINKS])
def test_reference_follows_the_convention(kink):
    module = tlir.parse_module(kink.text)
    xs = kink.arrays(kink.inputs)
    tangent = jvp(module, xs, kink.arrays(kink.tangents))[1]
    assert _check(tangent, kink.tangent), tangent
    grads = vjp(module, xs, [np.array(kink.cotangent)], wrt="inputs")[1:]
    assert all(_check(g, w) for g, w in zip(grads, kink.gradients)), grads


@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_code_follows_the_convention(backend):
    modules, args, expected = [], [], []
    for kink in KINKS:
        xs = kink.arrays(kink.inputs)
        modules += [derivative(kink.text, "jvp"), derivative(kink.text, "vjp", wrt="inputs")]
        args += [*xs, *kink.arrays(kink.tangents), *xs, np.array(kink.cotangent)]
        expected += [None, kink.tangent, None, *kink.gradients]
    outputs = tlir.compile(merged(modules), backend=backend)(*args)
    checked = [(g, w) for g, w in zip(outputs, expected) if w is not None]
    assert len(checked) == sum(1 + len(k.gradients) for k in KINKS)
    assert all(_check(g, w) for g, w in checked)


SOFTMAX = """func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = tlir.softmax %x axis = 0 : (tensor<3xf64>) -> tensor<3xf64>
  func.return %y : tensor<3xf64>
}
"""


def _softmax_dual(x: list[float], dx: list[float], split_ties: bool) -> list[float]:
    """Dual execution's softmax tangent, scalar by scalar: m folds the Dual max over every
    element from (x0, dx0) (ties: ½·dm + ½·dx, or the first wins); de = e·(dx −
    dm); S and dS fold from 0; dy by the quotient rule (D1)."""
    m, dm = x[0], dx[0]
    for xi, di in zip(x, dx):
        if xi > m:
            m, dm = xi, di
        elif not m > xi and split_ties:
            m, dm = (xi if m <= xi else m), 0.5 * dm + 0.5 * di
    e = [math.exp(xi - m) for xi in x]
    de = [ei * (di - dm) for ei, di in zip(e, dx)]
    s = ds = 0.0
    for ei, dei in zip(e, de):
        s, ds = s + ei, ds + dei
    return [((dei * s) - (ei * ds)) / (s * s) for ei, dei in zip(e, de)]


def test_softmax_max_splits_ties():
    """A tie at the maximum where the ½/½ split and a first-wins max round
    differently: the reference and the compiled code take the split."""
    x = [0.0, 0.0, -1.0]
    dx = [1304.0000451301373, 0.9470809631292422, -703.7352358069926]
    split = _softmax_dual(x, dx, split_ties=True)
    assert split != _softmax_dual(x, dx, split_ties=False)
    module = tlir.parse_module(SOFTMAX)
    args = [np.array(x), np.array(dx)]
    assert jvp(module, args[:1], args[1:])[1].tolist() == split
    assert tlir.compile(derivative(SOFTMAX, "jvp"))(*args)[1].tolist() == split
