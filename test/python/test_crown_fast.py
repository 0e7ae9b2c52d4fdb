"""relu-mode CROWN's arithmetic (tlir.reference.sound_linalg, crown_affine,
crown_relu): the rounding-error bounds against exact rational sums on
adversarial inputs, widths against an independent float64 CROWN, the sparse
and dense paths, and TorchLean's IBP read only when the bounds might leave it."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from crown_models import Net

from tlir.bounds import ball
from tlir.reference import crown_maps, crown_relu, sound_linalg
from tlir.reference.crown import crown
from tlir.reference.ibp import ibp
from tlir.reference.sound_linalg import nonneg_dot_up, upper_on_box

F64 = np.dtype(np.float64)


def adversarial(rng, shape) -> np.ndarray:
    """Magnitudes from subnormal to 1e300, both signs, some exact zeros."""
    exponent = rng.choice([-1074, -1060, -1022, -300, -60, -20, 0, 0, 0, 20, 300], size=shape)
    mantissa = rng.uniform(0.5, 1.0, shape) * rng.choice([-1.0, 1.0], shape)
    values = np.ldexp(mantissa, np.clip(exponent, -1074, 960))
    values[rng.random(shape) < 0.1] = 0.0
    return values


def exact_max(a: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[Fraction]:
    """Per row, the exact `max a·z` over the box, in rationals."""
    return [sum((max(Fraction(x) * Fraction(low), Fraction(x) * Fraction(high))
                 for x, low, high in zip(row, lo, hi, strict=True)), Fraction(0))
            for row in a]  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_upper_on_box_holds_the_exact_maximum_in_any_order(seed):
    """The bound of `max a·z` holds the exact rational maximum for adversarial
    rows (cancellation across 600 binades, subnormal products), whatever order
    BLAS sums in: here the columns permuted. The round-to-nearest value alone
    falls below the exact one on some rows (so the error term is needed)."""
    rng = np.random.default_rng(seed)
    a = adversarial(rng, (40, 25))
    a[:, :4] = rng.normal(size=(40, 4))  # ordinary terms that cancel
    centre = adversarial(rng, 25)
    radius = np.abs(adversarial(rng, 25)) * (rng.random(25) < 0.5)
    lo, hi = centre - radius, centre + radius
    want = exact_max(a, lo, hi)
    below = 0
    for order in (np.arange(25), np.arange(25)[::-1], rng.permutation(25)):
        got = upper_on_box(a[:, order], (lo[order], hi[order]))
        assert all(Fraction(g) >= w for g, w in zip(got, want, strict=True))
        plain = a[:, order] @ ((lo[order] + hi[order]) / 2) + np.abs(a[:, order]) @ (
            (hi[order] - lo[order]) / 2)  # fmt: skip
        below += sum(np.isfinite(p) and Fraction(p) < w for p, w in zip(plain, want, strict=True))
    assert below > 0


def test_nonneg_dot_holds_the_exact_sum_with_underflow():
    """Nonnegative products that underflow to subnormals or to 0: the bound of
    the sum still holds its exact value."""
    rng = np.random.default_rng(7)
    p = np.abs(adversarial(rng, (30, 50)))
    v = np.abs(adversarial(rng, 50))
    v[:10] = np.ldexp(1.0, -1070)  # products of these with small p underflow
    got = nonneg_dot_up(p, v)
    for row, bound in zip(p, got, strict=True):
        exact = sum((Fraction(x) * Fraction(y) for x, y in zip(row, v, strict=True)), Fraction(0))
        assert Fraction(bound) >= exact


# --- widths against an independent float64 CROWN ---------------------------------------


def reference_crown(layers, lo, hi):
    """Plain CROWN in float64 round-to-nearest (not sound, the textbook
    algorithm): dense affine layers and ReLUs, every ReLU's pre-activation
    bounds by a backward pass of ±I, the adaptive lower slope."""
    pre: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    centre, radius = (lo + hi) / 2, (hi - lo) / 2

    def upper(end: int, c: np.ndarray) -> np.ndarray:
        a, k = c, np.zeros(len(c))
        for i in range(end, -1, -1):
            layer = layers[i]
            if layer[0] == "affine":
                k, a = k + a @ layer[2], a @ layer[1]
                continue
            low, high = pre[i]
            cross = (low < 0) & (high > 0)
            s = np.where(cross, high / np.where(cross, high - low, 1), (low >= 0) * 1.0)
            t = np.where(cross, -s * low, 0.0)
            lam = np.where(cross, (high > -low) * 1.0, (low >= 0) * 1.0)
            k = k + np.maximum(a, 0) @ t
            a = np.where(a >= 0, a * s, a * lam)
        return a @ centre + np.abs(a) @ radius + k

    out = None
    for i, layer in enumerate(layers):
        if layer[0] == "relu":
            continue
        n = layer[1].shape[0]
        eye = np.eye(n)
        out = (-upper(i, -eye), upper(i, eye))
        if i + 1 < len(layers):
            pre[i + 1] = out
    return out


def layered_net(kind: str, seed: int):
    """A random MLP or CNN as a tlir function and its dense layers."""
    rng = np.random.default_rng(seed)
    if kind == "mlp":
        net, layers = Net((10,)), []
        for i, (m, n) in enumerate(itertools.pairwise([10, 20, 20, 20, 4])):
            if i:
                net.relu()
                layers.append(("relu",))
            w, b = rng.normal(0, m**-0.5, (n, m)), rng.normal(0, 0.1, n)
            net.linear(w, b)
            layers.append(("affine", w, b))
        return net, layers
    net = Net((1, 8, 8))
    w1, b1 = rng.normal(0, 1 / 3, (4, 1, 3, 3)), rng.normal(0, 0.1, 4)
    w2, b2 = rng.normal(0, 1 / 6, (6, 4, 3, 3)), rng.normal(0, 0.1, 6)
    net.conv(w1, b1, stride=2, padding=1).relu().conv(w2, b2, padding=1).relu().flatten()
    w3, b3 = rng.normal(0, 96**-0.5, (3, 96)), rng.normal(0, 0.1, 3)
    net.linear(w3, b3)
    function = list(net.module().body.block.ops)[0]
    convs = [op for op in function.body.block.ops if op.name == "tlir.conv"]
    m1, m2 = crown_maps.conv_matrix(convs[0], w1), crown_maps.conv_matrix(convs[1], w2)
    layers = [("affine", m1, np.repeat(b1, 16)), ("relu",), ("affine", m2, np.repeat(b2, 16)),
              ("relu",), ("affine", w3, b3)]  # fmt: skip
    return net, layers


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
@pytest.mark.parametrize("seed", range(3))
def test_relu_mode_width_within_5_percent_of_float64_crown(kind, seed):
    """tlir's sound relu mode against the textbook CROWN in float64: its
    widths are that CROWN's, up to rounding (within 5 %, and not narrower
    than rounding allows)."""
    net, layers = layered_net(kind, seed)
    rng = np.random.default_rng(50 + seed)
    x = rng.uniform(0, 1, net.input_shape)
    for eps in (0.01, 0.05):
        lo, hi = ball(x, eps, F64, "x")
        r_lo, r_hi = reference_crown(layers, lo.reshape(-1), hi.reshape(-1))
        c_lo, c_hi = crown(net.module(), lo, hi, mode="relu")
        (i_lo,), (i_hi,) = ibp(net.module(), [lo], [hi])
        want = np.minimum(r_hi, i_hi) - np.maximum(r_lo, i_lo)  # tlir stays within IBP
        got = c_hi - c_lo
        assert np.all(got <= 1.05 * want) and np.all(got >= want * (1 - 1e-9)), (got, want)


# --- sparse and dense paths --------------------------------------------------------------


def test_dense_path_without_scipy_gives_the_same_bounds(monkeypatch):
    """Without SciPy (no sparse coefficients, the conv's own windows and
    transposed windows), the bounds are the sparse path's up to rounding,
    and both sound at sampled points."""
    net, _ = layered_net("cnn", 4)
    module = net.module()
    x = np.random.default_rng(9).uniform(0, 1, net.input_shape)
    lo, hi = ball(x, 0.05, F64, "x")
    sparse = crown(module, lo, hi, mode="relu")
    monkeypatch.setattr(sound_linalg, "sparse_module", lambda: None)
    monkeypatch.setattr(crown_relu, "sparse_module", lambda: None)
    monkeypatch.setattr(crown_maps.ConvTranspose, "sparse_or_none", lambda self, m=False: None)
    dense = crown(module, lo, hi, mode="relu")
    for a, b in zip(sparse, dense, strict=True):
        assert np.allclose(a, b, rtol=1e-12, atol=1e-12)
    from tlir.reference import evaluate

    for point in np.random.default_rng(10).uniform(lo, hi, (50, *lo.shape)):
        y = evaluate(module, [point])[0]
        for b_lo, b_hi in (sparse, dense):
            assert np.all(b_lo <= y) and np.all(y <= b_hi)


# --- TorchLean's IBP, read only when needed ------------------------------------------------


def test_looser_than_ibp_falls_back_to_torchlean_ibp():
    """y = −relu(x), x ∈ [−1, 2]: the lower line z ≥ x (2 > 1) gives CROWN's
    y ≤ 1 where IBP gives y ≤ 0; the inner check sees CROWN leave IBP's box,
    so TorchLean's IBP is run and intersected."""
    net = Net((1,)).linear([[1.0]], [0.0]).relu()
    module = net.linear([[-1.0]], [0.0]).module()
    lo, hi = np.array([-1.0]), np.array([2.0])
    (i_lo,), (i_hi,) = ibp(module, [lo], [hi])
    c_lo, c_hi = crown(module, lo, hi, mode="relu")
    assert c_hi[0] == i_hi[0] and c_hi[0] < 1e-300
    assert c_lo[0] >= i_lo[0] and c_lo[0] <= -2.0


def test_tight_bounds_do_not_run_torchlean_ibp(monkeypatch):
    """On a network where CROWN is inside IBP's box (the usual case), the
    inner IBP box proves it and TorchLean's IBP is never run."""
    from tlir.reference import crown as crown_module

    net, _ = layered_net("cnn", 1)
    module = net.module()
    x = np.random.default_rng(3).uniform(0, 1, net.input_shape)
    lo, hi = ball(x, 0.02, F64, "x")
    want = crown(module, lo, hi, mode="relu")

    def refuse(*args, **kwargs):
        raise AssertionError("TorchLean's IBP was run")

    monkeypatch.setattr(crown_module, "ibp_boxes", refuse)
    got = crown(module, lo, hi, mode="relu")
    assert all(g.tobytes() == w.tobytes() for g, w in zip(got, want, strict=True))


# --- per-model caches and shortcuts --------------------------------------------------------


def test_signed_rows_is_the_product_of_a_one_hot_objective():
    """`[I; −I]` rows on chosen cells times a sparse or dense matrix: the
    picked and signed rows equal SciPy's product entry for entry; any other
    left operand is not taken."""
    from scipy import sparse

    rng = np.random.default_rng(4)
    matrix = sparse.random_array((40, 30), density=0.2, format="csr", rng=rng)
    cells = np.array([3, 17, 0, 39])
    ones = sparse.csr_array((np.ones(4), (np.arange(4), cells)), shape=(4, 40))
    both = sparse.vstack([ones, -ones], format="csr")
    for m in (matrix, matrix.toarray()):
        got, want = sound_linalg.signed_rows(both, m), both @ m
        assert sparse.issparse(got) == sparse.issparse(m)
        assert np.array_equal(sound_linalg.dense(got), sound_linalg.dense(want))
    assert sound_linalg.signed_rows(both * 2.0, matrix) is None  # not ±1
    assert sound_linalg.signed_rows(both.toarray(), matrix) is None  # not sparse
    assert (
        sound_linalg.signed_rows(sparse.vstack([both, both[:1] * 0.5 + both[1:2]]), matrix) is None
    )


def test_bounds_are_the_same_without_the_one_hot_shortcut(monkeypatch):
    """The ReLU operands' first sweeps through a conv and a linear give the
    same bounds with the rows picked or multiplied (up to the order of later
    sums: SciPy's product leaves a row's entries in another order), both
    sound at sampled points."""
    from tlir.reference import crown_affine, evaluate

    for kind in ("cnn", "mlp"):
        net, _ = layered_net(kind, 2)
        module = net.module()
        x = np.random.default_rng(5).uniform(0, 1, net.input_shape)
        lo, hi = ball(x, 0.05, F64, "x")
        with monkeypatch.context() as m:
            for where in (sound_linalg, crown_maps, crown_affine):
                m.setattr(where, "signed_rows", lambda left, matrix: None)
            want = crown(module, lo, hi, mode="relu")
        got = crown(module, lo, hi, mode="relu")
        for a, b in zip(got, want, strict=True):
            assert np.allclose(a, b, rtol=1e-12, atol=0)
        for point in np.random.default_rng(6).uniform(lo, hi, (30, *lo.shape)):
            y = evaluate(module, [point])[0]
            assert np.all(got[0] <= y) and np.all(y <= got[1])


def test_constant_boxes_are_decoded_again_for_a_new_value():
    """A constant's box is kept per op, read-only; an op given another value
    (and so another affine map) bounds the new network, not the old one."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    from tlir.dialects import tlir as T

    net = Net((1,)).linear([[1.0]], [0.0]).relu()
    module = net.linear([[2.0]], [1.0]).module()
    lo, hi = np.array([-1.0]), np.array([2.0])
    first = crown(module, lo, hi, mode="relu")
    consts = [op for op in module.walk() if isinstance(op, T.ConstOp)]
    for op in consts:
        assert not any(end.flags.writeable for end in crown_relu._CONSTANTS[op][1])
    last = consts[-2]  # the second linear's weight [[2.0]]
    assert last.value.get_values() == (2.0,)
    last.value = DenseIntOrFPElementsAttr.from_list(last.value.type, [3.0])
    second = crown(module, lo, hi, mode="relu")
    assert first[1][0] >= 5.0 and second[1][0] >= 7.0 and second[1][0] < first[1][0] + 2.5


def test_relu_lines_cell_by_cell():
    """The lines computed on the crossing cells alone are, cell by cell, the
    relaxation's definition: slopes 1/0 on exact cells, `u/(u − l)` above and
    1 or 0 below (by `u > −l`) on crossing ones with a bias at least the
    line's gap at 0, nothing on cells with an infinite or NaN end."""
    lo = np.array([[-1.0, 0.5, -2.0, -np.inf, -1.0, -3.0, np.nan, 0.0]])
    hi = np.array([[3.0, 2.0, -0.5, 1.0, 1.0, 1.0, 1.0, 0.0]])
    lower, upper, bias, lines, exact = crown_relu.relu_lines(lo, hi)
    assert lower.shape == upper.shape == bias.shape == lo.shape
    for k in range(lo.size):
        low, high = lo[0, k], hi[0, k]
        if exact[0, k]:
            assert lower[0, k] == upper[0, k] == (1.0 if low >= 0 else 0.0) and bias[0, k] == 0
        elif not lines[0, k]:
            assert not np.isfinite(low) or not np.isfinite(high)
            assert lower[0, k] == upper[0, k] == bias[0, k] == 0
        else:
            assert upper[0, k] == high / (high - low)
            assert lower[0, k] == (1.0 if high > -low else 0.0)
            exact_bias = Fraction(high) * (1 - Fraction(upper[0, k]))
            assert Fraction(bias[0, k]) >= exact_bias
    assert lines.tolist() == [[True, False, False, False, True, True, False, False]]


def test_sparse_objective_with_its_negation_is_the_stack():
    """`[C; −C]` from C's CSR arrays is SciPy's vstack of C and −C, for a C
    with several (and no) entries a row, in COO form or CSR."""
    from scipy import sparse

    c = sparse.random_array((6, 9), density=0.3, format="coo", rng=np.random.default_rng(7))
    for form in (c, c.tocsr()):
        got = sound_linalg.with_negation(form)
        want = sparse.vstack([form, -form], format="csr")
        assert got.format == "csr" and got.shape == (12, 9)
        assert np.array_equal(got.toarray(), want.toarray())
