"""CROWN (tlir.reference.crown, CompiledModel.crown, tlir-run --crown): the test
vectors of TorchLean's verification engine derived by hand from its rules
(binary64: every operation rounded to nearest, then one step outward), the
cases where the directed sweep gains over IBP, and soundness of both modes at
sampled points and box corners (the reference evaluator is the oracle)."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
from pathlib import Path

import fuzz_graphs
import numpy as np
import pytest
from crown_models import Net, random_cnn, random_mlp
from hypothesis import given
from hypothesis import strategies as st

import tlir
from tlir.bounds import ball
from tlir.diagnostics import TlirError
from tlir.reference import evaluate
from tlir.reference.crown import coefficient_affine, crown, evaluate_on_box
from tlir.reference.ibp import ibp

F64 = np.dtype(np.float64)
S = 5e-324  # the smallest subnormal step
ROOT = Path(__file__).resolve().parents[2]


def nd(x: float) -> float:
    return math.nextafter(x, -math.inf)


def nu(x: float) -> float:
    return math.nextafter(x, math.inf)


def spec_net() -> Net:
    """linear → relu → linear of the spec: W1 = [[1, −2], [3, 1]], b1 = [0.5, −1], W2 = [[1, 1]]."""
    net = Net((2,))
    net.linear([[1.0, -2.0], [3.0, 1.0]], [0.5, -1.0]).relu()
    return net.linear([[1.0, 1.0]], [0.0])


# --- the directed sweep, bit for bit ------------------------------------------------


def test_linear_relu_linear_directed_sweep_bits():
    """The ReLU is discharged against its box; the finish corrects both
    straddling inputs; the zero coefficient row is concretised on the box."""
    lo, hi = ball(np.array([0.0, 1.0]), 1.0, F64, "x")
    got_lo, got_hi = crown(spec_net().module(), lo, hi)
    z_hi = [float.fromhex("0x1.8000000000005p+0"), float.fromhex("0x1.0000000000005p+2")]
    a_hi = nu(0.0 + nu(1.0 * 1.0))  # one term of the fold over W2's single row
    # constants: <a, b2> of the last linear, then the relu's discharge [0, z_hi]
    k_lo = nd(0.0 + nd(0.0 + nd(1.0 * 0.0)))
    k_hi = nu(0.0 + nu(0.0 + nu(1.0 * 0.0)))
    k_lo = nd(k_lo + nd(nd(0.0 + nd(0.0)) + nd(0.0)))
    k_hi = nu(k_hi + nu(nu(0.0 + nu(a_hi * z_hi[0])) + nu(a_hi * z_hi[1])))
    # no coefficient reaches x: corrections with [0, 0] on the straddling inputs
    corr_lo = nd(nd(0.0 + nd(nu(0.0) * lo[0])) + nd(nu(0.0) * lo[1]))
    corr_hi = nu(nu(0.0 + nu(nd(0.0) * lo[0])) + nu(nd(0.0) * lo[1]))
    row_lo = nd(nd(0.0 + nd(0.0)) + nd(0.0))  # min2(mulDown(0, l), mulDown(0, u)) per input
    row_hi = nu(nu(0.0 + nu(0.0)) + nu(0.0))
    assert got_lo[0] == nd(row_lo + nd(k_lo + corr_lo)) == -19 * S
    assert got_hi[0] == nu(row_hi + nu(k_hi + corr_hi))


def test_linear_relu_linear_equals_ibp_up_to_rounding():
    """TorchLean's vector: with the ReLU discharged, the sweep gives IBP's
    [0, 5.5] (exactly, on an exact backend); on Float both are within rounding of it."""
    lo, hi = ball(np.array([0.0, 1.0]), 1.0, F64, "x")
    module = spec_net().module()
    (i_lo,), (i_hi,) = ibp(module, [lo], [hi])
    c_lo, c_hi = crown(module, lo, hi)
    assert c_lo[0] == pytest.approx(0.0, abs=1e-300) and i_lo[0] == pytest.approx(0, abs=1e-300)
    assert c_hi[0] == pytest.approx(5.5, rel=1e-14) and c_hi[0] == pytest.approx(i_hi[0], rel=1e-14)
    assert c_lo[0] <= 0 and c_hi[0] >= 5.5


def test_input_correction_vector():
    """TorchLean's input-correction vector: x ∈ [−1, 2], a ∈ [0.5, 1.5]: rows
    0.5 / 1.5 with corrections ∓(1.5 − 0.5)·1 (exactly −1 / +1, here one step
    out per operation); concretised [−1.5, 4]."""
    x_lo, x_hi = np.array([-1.0]), np.array([2.0])
    a = (np.array([[0.5]]), np.array([[1.5]]))
    (low_row, low_c), (high_row, high_c) = coefficient_affine(x_lo, x_hi, a)
    assert low_row.tolist() == [[0.5]] and high_row.tolist() == [[1.5]]
    assert low_c[0] == nd(0.0 + nd(nu(1.5 - 0.5) * -1.0)) == -1.0000000000000007
    assert high_c[0] == nu(0.0 + nu(nd(0.5 - 1.5) * -1.0)) == 1.0000000000000007
    lower = evaluate_on_box(low_row, low_c, x_lo, x_hi, True)[0]
    upper = evaluate_on_box(high_row, high_c, x_lo, x_hi, False)[0]
    assert lower == nd(nd(0.0 + nd(0.5 * -1.0)) + low_c[0])
    assert upper == nu(nu(0.0 + nu(1.5 * 2.0)) + high_c[0])
    assert lower == pytest.approx(-1.5, rel=1e-14) and upper == pytest.approx(4.0, rel=1e-14)
    assert lower <= -1.5 and upper >= 3.0  # the true range of a·x is [−1.5, 3]


def test_nonnegative_and_nonpositive_inputs_take_one_end():
    (low_row, low_c), (high_row, high_c) = coefficient_affine(
        np.array([0.0, -3.0]), np.array([1.0, -1.0]), (np.array([[0.5, 0.5]]), np.array([[1.5, 1.5]]))
    )  # fmt: skip
    assert low_row.tolist() == [[0.5, 1.5]] and high_row.tolist() == [[1.5, 0.5]]
    # the zero corrections are still folded with one step out each
    assert low_c[0] == nd(nd(0.0 + 0.0) + 0.0) and high_c[0] == nu(nu(0.0 + 0.0) + 0.0)


def test_failed_sweep_falls_back_to_the_output_box():
    """An unresolved box on the path (exp on Float) fails the sweep; the
    objective is then discharged against the output's box, here unresolved too."""
    net = Net((2,)).then("exp", (2,))
    net.linear([[1.0, 1.0]], [0.0])
    lo, hi = np.zeros(2), np.ones(2)
    assert crown(net.module(), lo, hi) == (None, None)


# --- where the directed sweep gains over IBP ------------------------------------------


def _width(bounds) -> float:
    return float(np.sum(bounds[1] - bounds[0]))


def test_affine_chain_cancels():
    """W2·(W1·x) with W2 = W1⁻¹: the sweep gives x's box back, IBP doubles it."""
    net = Net((2,)).linear([[1.0, 1.0], [1.0, -1.0]], [0.0, 0.0])
    module = net.linear([[0.5, 0.5], [0.5, -0.5]], [0.0, 0.0]).module()
    lo, hi = np.array([-1.0, 2.0]), np.array([1.0, 3.0])
    found = crown(module, lo, hi)
    (i_lo,), (i_hi,) = ibp(module, [lo], [hi])
    assert np.all(found[0] <= lo) and np.all(found[1] >= hi)
    assert np.allclose(found[0], lo, atol=1e-14) and np.allclose(found[1], hi, atol=1e-14)
    assert _width((i_lo, i_hi)) >= 1.9 * _width(found)


def test_residual_cancels():
    """x + (−I)·x = 0: the sweep's coefficients cancel, IBP's boxes add."""
    net = Net((3,))
    minus = net.emit("linear", [("%x", (3,)), net.const(-np.eye(3)), net.const(np.zeros(3))],
                     (3,))  # fmt: skip
    net.value, net.shape = net.emit("add", [("%x", (3,)), minus], (3,))
    module = net.module()
    lo, hi = -np.ones(3), np.ones(3)
    found = crown(module, lo, hi)
    (i_lo,), (i_hi,) = ibp(module, [lo], [hi])
    assert np.all(found[0] <= 0) and np.all(found[1] >= 0)
    assert np.all(found[1] - found[0] < 1e-13) and np.all(i_hi - i_lo >= 4)


def structural_net(dtype: str = "f64") -> Net:
    """transpose, reshape, a matmul by a constant, concat, permute, sub: all linear."""
    rng = np.random.default_rng(3)
    net = Net((2, 3), dtype)
    net.then("transpose", (3, 2), attrs="{axis1 = 0 : i64, axis2 = 1 : i64} ")
    t_value = net.value
    net.then("matmul", (3, 4), net.const(rng.normal(size=(2, 4))))
    m_value = net.value
    net.value, net.shape = net.emit("concat", [(t_value, (3, 2)), (m_value, (3, 4))], (3, 6),
                                    "axis = 1 ")  # fmt: skip
    net.then("permute", (6, 3), attrs="{perm = array<i64: 1, 0>} ")
    net.then("reshape", (18,))
    net.then("sub", (18,), net.const(rng.normal(size=18)))
    return net.linear(rng.normal(size=(4, 18)), rng.normal(size=4))


def exact_range(module, lo, hi):
    """A linear function's range on a box: the centre's value ± |M|·radius (float64)."""
    centre, radius = (lo + hi) / 2, (hi - lo) / 2
    y0 = evaluate(module, [centre])[0].reshape(-1)
    columns = []
    for j in range(lo.size):
        e = np.zeros(lo.size)
        e[j] = 1.0
        columns.append(evaluate(module, [centre + e.reshape(lo.shape)])[0].reshape(-1) - y0)
    return y0, np.abs(np.stack(columns, 1)) @ radius.reshape(-1)


@pytest.mark.parametrize("mode", ["torchlean", "relu"])
def test_structural_ops_move_coefficients_exactly(mode):
    """On a linear function, CROWN is its exact range up to rounding: every
    index map and dense matrix is the op's own."""
    module = structural_net().module()
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3))
    lo, hi = x - 0.1, x + 0.1
    y0, spread = exact_range(module, lo, hi)
    found = crown(module, lo, hi, mode=mode)
    assert np.allclose(found[0], y0 - spread, rtol=1e-9, atol=1e-9)
    assert np.allclose(found[1], y0 + spread, rtol=1e-9, atol=1e-9)
    (i_lo,), (i_hi,) = ibp(module, [lo], [hi])
    assert _width(found) < _width((i_lo, i_hi))


# --- ReLU relaxations ---------------------------------------------------------------


def test_relu_mode_spec_vector():
    """TorchLean's relaxation vector: triangle upper lines (0.25, 1.125) and
    (0.5, 2), lower slopes 0 (1.5 > 4.5 and the tie 4 > 4 are false): y ∈ [0, 4.5]
    on [−1, 1] × [0, 2]."""
    lo, hi = crown(spec_net().module(), np.array([-1.0, 0.0]), np.array([1.0, 2.0]), mode="relu")
    assert -1e-300 < lo[0] <= 0
    assert 4.5 <= hi[0] < 4.5 + 1e-12


def test_relu_mode_query_example():
    """x ∈ [−1, 1], z = (x, −x): h0 + h1 ≤ ½x + ½ − ½x + ½ = 1 < 3/2."""
    net = Net((1,)).linear([[1.0], [-1.0]], [0.0, 0.0]).relu()
    lo, hi = crown(net.module(), -np.ones(1), np.ones(1), np.array([[1.0, 1.0]]), mode="relu")
    assert 1.0 <= hi[0] < 1.0 + 1e-12 and hi[0] - 1.5 < 0
    assert lo[0] <= 0


def test_relu_mode_tightens_a_residual_pre_activation():
    """relu(x + (−0.9·I)·x) = relu(0.1·x) summed, x ∈ [−1, 1]³: the ReLU's
    operand gets [−0.1, 0.1] from its own sweep (IBP: [−1.9, 1.9]), so the sum's
    upper bound is the exact 0.3 (with IBP's box it would be 3)."""
    net = Net((3,))
    scaled = net.emit("linear", [("%x", (3,)), net.const(-0.9 * np.eye(3)), net.const(np.zeros(3))],
                      (3,))  # fmt: skip
    net.value, net.shape = net.emit("add", [("%x", (3,)), scaled], (3,))
    net.relu().then("sum", ())
    lo, hi = crown(net.module(), -np.ones(3), np.ones(3), mode="relu")
    assert 0.3 <= hi[()] < 0.3 + 1e-12 and -1e-12 < lo[()] <= 0


def test_relu_mode_discharges_a_relu_without_lines():
    """A pre-activation box with an infinite end (10·x overflows at x = −1e308)
    has no triangle line: the coefficient is discharged against relu's box
    [0, 10], never dropped."""
    net = Net((1,)).linear([[10.0]], [0.0]).relu()
    lo, hi = crown(net.module(), np.array([-1e308]), np.array([1.0]), mode="relu")
    assert lo[0] <= 0 and hi[0] >= 10


def test_relu_mode_12_24_24_4_against_ibp():
    """A 12-24-24-4 ReLU MLP at radius 0.05 (PyTorch's default initialisation,
    inputs uniform in [0, 1]): IBP is about 9 times as wide, as with auto_LiRPA's
    CROWN on such a network."""
    rng = np.random.default_rng(0)
    net, widths = Net((12,)), [12, 24, 24, 4]
    for i, (fan_in, fan_out) in enumerate(itertools.pairwise(widths)):
        if i:
            net.relu()
        bound = fan_in**-0.5
        net.linear(
            rng.uniform(-bound, bound, (fan_out, fan_in)), rng.uniform(-bound, bound, fan_out)
        )
    module = net.module()
    ratios = []
    for seed in range(5):
        x = np.random.default_rng(seed).uniform(0, 1, 12)
        lo, hi = ball(x, 0.05, F64, "x")
        (i_lo,), (i_hi,) = ibp(module, [lo], [hi])
        ratios.append(_width((i_lo, i_hi)) / _width(crown(module, lo, hi, mode="relu")))
    assert 8 < np.mean(ratios) < 12, ratios  # 7.9 to 12.0 over these five inputs


CASES = [
    ("mlp", lambda d, s: random_mlp([6, 16, 16, 3], d, s)),
    ("mlp-deep", lambda d, s: random_mlp([4, 8, 8, 8, 2], d, s)),
    ("cnn", lambda d, s: random_cnn(dtype=d, seed=s)),
    ("cnn-bn-pool", lambda d, s: random_cnn(dtype=d, seed=s, extras=True)),
]


def corners(lo: np.ndarray, hi: np.ndarray, rng, count: int = 64):
    """Every corner of a small box, else `count` random ones."""
    n = lo.size
    if n <= 6:
        picks = np.array(list(itertools.product([0, 1], repeat=n)), bool)
    else:
        picks = rng.integers(0, 2, (count, n)).astype(bool)
    for pick in picks:
        yield np.where(pick.reshape(lo.shape), hi, lo)


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_soundness_and_relu_tightness(name, make, dtype):
    """Both modes hold the model's outputs at sampled points and corners of
    random boxes; relu-mode bounds lie inside IBP's, strictly on most outputs."""
    tighter = total = 0
    for seed in range(3):
        net = make(dtype, seed)
        module = net.module()
        rng = np.random.default_rng(100 + seed)
        x = rng.normal(size=net.input_shape).astype(net.np)
        eps = float(rng.choice([0.01, 0.05, 0.2]))
        lo, hi = ball(x, eps, net.np, "x")
        (i_lo,), (i_hi,) = ibp(module, [lo], [hi])
        found = {mode: crown(module, lo, hi, mode=mode) for mode in ("torchlean", "relu")}
        points = [rng.uniform(lo, hi).astype(net.np) for _ in range(100)]
        for point in [*points, *corners(lo, hi, rng)]:
            y = evaluate(module, [point])[0]
            for mode, (b_lo, b_hi) in found.items():
                assert np.all(b_lo <= y) and np.all(y <= b_hi), (mode, seed)
        r_lo, r_hi = found["relu"]
        assert np.all(r_lo >= i_lo) and np.all(r_hi <= i_hi)
        tighter += int(np.sum(r_hi - r_lo < i_hi - i_lo))
        total += r_lo.size
    assert tighter > total / 2


def test_objective_rows():
    """C·y for a margin-like C: within C·[IBP box], and sound at sampled points."""
    net = random_mlp([5, 10, 3], seed=2)
    module = net.module()
    c = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0], [2.0, 0.5, -0.25]])
    x = np.random.default_rng(5).normal(size=5)
    lo, hi = ball(x, 0.1, F64, "x")
    for mode in ("torchlean", "relu"):
        b_lo, b_hi = crown(module, lo, hi, c, mode=mode)
        assert b_lo.shape == (3,)
        for point in np.random.default_rng(6).uniform(lo, hi, (200, 5)):
            v = c @ evaluate(module, [point])[0]
            assert np.all(b_lo <= v + 1e-12) and np.all(v <= b_hi + 1e-12)


@pytest.mark.parametrize(
    "objective,mode,match",
    [
        (np.ones((2, 3)), "relu", r"shape \[2, 3\], expected \[rows, 2\]"),
        (np.ones(2), "relu", r"expected \[rows, 2\]"),
        (np.array([[np.nan, 1.0]]), "relu", "not finite"),
        (None, "alpha", "mode must be one of torchlean, relu"),
    ],
)
def test_bad_arguments_are_one_line_errors(objective, mode, match):
    module = random_mlp([3, 4, 2]).module()
    with pytest.raises(TlirError, match=match):
        crown(module, np.zeros(3), np.ones(3), objective, mode=mode)


def test_f32_objective_must_be_exact():
    module = random_mlp([3, 4, 2], "f32").module()
    box = np.zeros(3, np.float32), np.ones(3, np.float32)
    with pytest.raises(TlirError, match="float32 cannot hold exactly"):
        crown(module, *box, np.array([[0.1, 0.0]]))


TWO_INPUTS = """
func.func @main(%x: tensor<2xf64>, %y: tensor<2xf64>) -> tensor<2xf64> {
  %z = tlir.add %x, %y : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  func.return %z : tensor<2xf64>
}
"""


def test_two_inputs_are_refused():
    with pytest.raises(TlirError, match="one input and one output, this one has 2 inputs"):
        crown(tlir.parse_module(TWO_INPUTS), np.zeros(2), np.ones(2))


@pytest.mark.skipif(not os.environ.get("TLIR_AUTO_LIRPA"), reason="TLIR_AUTO_LIRPA not set")
def test_relu_mode_matches_auto_lirpa():
    """auto_LiRPA's CROWN (its source on TLIR_AUTO_LIRPA) on the bench's MLP and
    CNN: the same widths up to rounding (it rounds to nearest; tlir outward)."""
    sys.path[:0] = os.environ["TLIR_AUTO_LIRPA"].split(os.pathsep)
    sys.path.insert(0, str(ROOT / "bench"))
    pytest.importorskip("auto_LiRPA")
    import crown as bench

    for _name, net, shape, eps in bench.models():
        module = tlir.parse_module(bench.to_tlir(list(net), shape))
        x = np.random.default_rng(0).uniform(0, 1, shape)
        lo, hi = ball(x, eps, F64, "x")
        c_lo, c_hi = crown(module, lo, hi, mode="relu")
        theirs = bench.lirpa_crown(net, x, eps, 1)["CROWN"][2]  # (wall, CPU, widths)
        assert np.allclose(c_hi - c_lo, theirs, rtol=1e-6)


# --- the API and the tool --------------------------------------------------------------


@pytest.fixture(scope="module")
def compiled_mlp():
    net = random_mlp([4, 6, 3], seed=7)
    return net.module(), tlir.compile(net.module(), dtype="f64")


@pytest.mark.parametrize("mode", ["torchlean", "relu"])
def test_compiled_model_crown_is_the_reference(compiled_mlp, mode):
    module, model = compiled_mlp
    x = np.random.default_rng(8).normal(size=4)
    lo, hi = ball(x, 0.1, F64, "x")
    got = model.crown([lo], [hi], mode=mode)
    want = crown(module, lo, hi, mode=mode)
    assert all(g.tobytes() == w.tobytes() for g, w in zip(got, want, strict=True))
    ball_got = model.crown_ball([x], 0.1, np.array([[1.0, -1.0, 0.0]]), mode=mode)
    assert ball_got[0].shape == (1,)
    with pytest.raises(TlirError, match="lower bound above its upper bound"):
        model.crown([hi], [lo], mode=mode)


def test_compiled_f32_model_rounds_a_float64_box_outward():
    net = random_mlp([3, 5, 2], "f32", seed=9)
    model = tlir.compile(net.module(), dtype="f32")
    lo, hi = np.full(3, 0.1), np.full(3, 0.3)  # not float32 numbers
    got = model.crown([lo], [hi], mode="relu")
    # float32's 0.1 is above 0.1: the lower end steps down; its 0.3 is above 0.3: kept
    assert float(np.float32(0.1)) > 0.1 and float(np.float32(0.3)) > 0.3
    low = np.full(3, np.nextafter(np.float32(0.1), np.float32(-1)))
    want = crown(net.module(), low, np.full(3, np.float32(0.3)), mode="relu")
    assert got[0].dtype == np.float32
    assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()


def run_tool(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tlir.tools.run", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env)  # fmt: skip


def test_tool_prints_and_writes_bounds(tmp_path):
    net = random_mlp([3, 5, 2], seed=11)
    model = tmp_path / "mlp.mlir"
    model.write_text(net.text())
    x = np.array([0.1, -0.2, 0.3])
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "c.npy", np.array([[1.0, -1.0]]))
    out = tmp_path / "b.npz"
    proc = run_tool(str(model), "--input", str(tmp_path / "x.npy"), "--crown", "0.05",
                    "--crown-mode", "relu", "--objective", str(tmp_path / "c.npy"),
                    "--output", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    written = np.load(out)
    lo, hi = ball(x, 0.05, F64, "x")
    want = crown(net.module(), lo, hi, np.array([[1.0, -1.0]]), mode="relu")
    assert written["lower"].tobytes() == want[0].tobytes()
    assert written["upper"].tobytes() == want[1].tobytes()
    proc = run_tool(str(model), "--input", str(tmp_path / "x.npy"), "--crown", "0.05")
    want = crown(net.module(), lo, hi)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0] == (
        f"lower: shape [2] float64: {float(want[0][0])!r} {float(want[0][1])!r}"
    )


def test_tool_errors_are_one_line(tmp_path):
    model = tmp_path / "two.mlir"
    model.write_text(TWO_INPUTS)
    mlp = tmp_path / "mlp.mlir"
    mlp.write_text(random_mlp([3, 4, 2]).text())
    np.save(tmp_path / "x.npy", np.zeros(2))
    np.save(tmp_path / "x3.npy", np.zeros(3))
    np.save(tmp_path / "c.npy", np.ones((1, 5)))
    cases = [
        ((str(model), "--input", str(tmp_path / "x.npy"), "--input", str(tmp_path / "x.npy"),
          "--crown", "0.1"), "one input and one output"),
        ((str(mlp), "--input", str(tmp_path / "x3.npy"), "--crown", "0.1", "--objective",
          str(tmp_path / "c.npy")), "expected [rows, 2]"),
        ((str(mlp), "--input", str(tmp_path / "x3.npy"), "--crown", "-1"), "eps must be"),
        ((str(mlp), "--input", str(tmp_path / "x3.npy"), "--crown-mode", "relu"),
         "go with --crown"),
        ((str(mlp), "--input", str(tmp_path / "x3.npy"), "--crown", "0.1", "--ibp", "0.1"),
         "does not go with --ibp"),
    ]  # fmt: skip
    for args, message in cases:
        proc = run_tool(*args)
        assert proc.returncode == 1, (args, proc.stderr)
        assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_tool_says_why_an_output_is_unresolved(tmp_path):
    """Float32 has no interval rule for tanh: no box, no sweep; the line names the op."""
    net = Net((2,), "f32").then("tanh", (2,))
    net.linear(np.ones((1, 2)), np.zeros(1))
    model = tmp_path / "tanh.mlir"
    model.write_text(net.text())
    np.save(tmp_path / "x.npy", np.zeros(2, np.float32))
    proc = run_tool(str(model), "--input", str(tmp_path / "x.npy"), "--crown", "0.1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("output0: unresolved: ")
    assert "(tlir.tanh): no interval rule for tanh on Float32" in proc.stdout


def test_matmul_by_a_constant_is_linear_with_zero_bias():
    """TorchLean's unary matmul is its linear rule with a zero bias, whose
    constant is still added: the same bits as `linear` with bias 0."""
    w = np.random.default_rng(12).normal(size=(3, 4))
    as_linear = Net((4,)).linear(w, np.zeros(3)).module()
    net = Net((4,))
    net.value, net.shape = net.emit("matmul", [net.const(w), ("%x", (4,))], (3,))
    lo, hi = ball(np.linspace(-1, 1, 4), 0.1, F64, "x")
    got, want = crown(net.module(), lo, hi), crown(as_linear, lo, hi)
    assert all(g.tobytes() == v.tobytes() for g, v in zip(got, want, strict=True))


CONV = (
    "{{kernel = array<i64: {k}>, stride = array<i64: {s}>, padding = array<i64: {p}>, "
    "padding_after = array<i64: {q}>, dilation = array<i64: {d}>, groups = {g} : i64, "
    "channel_axis = 1 : i64, in_channels = 4 : i64, out_channels = 6 : i64}} "
)


@pytest.mark.parametrize("k,s,p,q,d,g", [("3, 2", "2, 1", "1, 0", "0, 2", "1, 2", 2),
                                         ("2, 3", "1, 2", "0, 1", "1, 1", "2, 1", 1)])  # fmt: skip
def test_conv_matrix_and_transposed_conv_are_the_conv(k, s, p, q, d, g):
    """A conv's dense matrix (a leading batch, groups, strides, dilation,
    uneven padding) is its evaluator's map; the transposed conv and the conv
    (relu mode's products without SciPy) multiply by that matrix and by its
    magnitude, and the sparse matrix (with SciPy) is that matrix."""
    from tlir.reference.crown_maps import ConvTranspose, conv_matrix
    from tlir.reference.ops import EVALUATORS
    from tlir.shapes import ConvConfig
    from tlir.shapes import conv as conv_shape

    def ints(text):
        return tuple(int(v) for v in text.split(", "))

    cfg = ConvConfig(kernel=ints(k), stride=ints(s), padding=ints(p), padding_after=ints(q),
                     dilation=ints(d), groups=g, channel_axis=1, in_channels=4,
                     out_channels=6)  # fmt: skip
    rng = np.random.default_rng(13)
    w = rng.normal(size=(6, 4, *cfg.kernel))  # dense block-diagonal: off-block taps unread
    net = Net((2, 4, 7, 6))
    net.then("conv", conv_shape((2, 4, 7, 6), cfg), net.const(w), net.const(np.zeros(6)),
             attrs=CONV.format(k=k, s=s, p=p, q=q, d=d, g=g))  # fmt: skip
    function = list(net.module().body.block.ops)[0]
    op = next(o for o in function.body.block.ops if o.name == "tlir.conv")
    matrix = conv_matrix(op, w)
    x = rng.normal(size=(2, 4, 7, 6))
    want = EVALUATORS[type(op)](op, [x, w, np.zeros(6)]).reshape(-1)
    assert np.allclose(matrix @ x.reshape(-1), want, rtol=1e-12, atol=1e-12)
    left = rng.normal(size=(5, matrix.shape[0]))
    transposed = ConvTranspose(op, w)
    assert np.allclose(transposed.times(left), left @ matrix, rtol=1e-12, atol=1e-12)
    assert np.allclose(transposed.times(left, magnitude=True), left @ np.abs(matrix),
                       rtol=1e-12, atol=1e-12)  # fmt: skip
    for magnitude, m in ((False, matrix), (True, np.abs(matrix))):
        assert np.allclose(transposed.transposed_conv(left, magnitude), left @ m, rtol=1e-12,
                           atol=1e-12)  # fmt: skip
        columns = rng.normal(size=(matrix.shape[1], 2))
        assert np.allclose(transposed.conv(columns[:, 0], magnitude), m @ columns[:, 0],
                           rtol=1e-12, atol=1e-12)  # fmt: skip
        assert np.allclose(transposed.forward(columns, magnitude), m @ columns, rtol=1e-12,
                           atol=1e-12)  # fmt: skip
    pytest.importorskip("scipy")
    assert np.array_equal(transposed.sparse().toarray(), matrix)


@fuzz_graphs.budget(ci=30)
@given(data=st.data())
def test_random_graphs_are_bounded_soundly(tmp_path_factory, data):
    """Random graphs (one output kept) and boxes: both modes' bounds hold the
    forward evaluator's outputs at sampled points and corners; relu mode's lie
    inside IBP's. CROWN bounds the exact-real graph: where terms cancel exactly
    (x − (x + 1e-40) in f32 is −1e-40, the evaluator's 0) a bound can be
    tighter than the evaluator's rounding, so points get a margin of 1000 ulps
    of 1 + |value|."""
    from tlir.torchlean import import_file

    document = data.draw(fuzz_graphs.graphs(), label="graph")
    document["output_ids"] = document["output_ids"][:1]
    dtype = data.draw(st.sampled_from(["f32", "f64"]), label="dtype")
    path = tmp_path_factory.mktemp("crown") / "model.json"
    path.write_text(fuzz_graphs.dumps(document))
    module = import_file(str(path), dtype)
    np_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    shape = tuple(document["nodes"][0]["shape"])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    centre = rng.normal(size=shape).astype(np_dtype)
    radius = (np.abs(rng.normal(size=shape)) * 0.3).astype(np_dtype)
    lo, hi = (centre - radius).astype(np_dtype), (centre + radius).astype(np_dtype)
    found = {mode: crown(module, lo, hi, mode=mode) for mode in ("torchlean", "relu")}
    (i_lo,), (i_hi,) = ibp(module, [lo], [hi])
    r_lo, r_hi = found["relu"]
    if i_lo is not None:
        assert r_lo is not None
        assert np.all((r_lo >= i_lo) | np.isnan(i_lo)) and np.all((r_hi <= i_hi) | np.isnan(i_hi))
    points = [lo, hi] + [np.where(rng.random(shape) < 0.5, lo, hi) for _ in range(6)]
    points += [np.clip((lo + rng.random(shape) * (hi - lo)).astype(np_dtype), lo, hi)
               for _ in range(20)]  # fmt: skip
    for point in points:
        try:
            (value,) = evaluate(module, [point])
        except TlirError:
            continue  # log of a non-positive value: no forward value to bound
        for mode, (b_lo, b_hi) in found.items():
            if b_lo is None:
                continue
            bad = np.isnan(b_lo) | np.isnan(b_hi) | np.isnan(value)
            inside = (b_lo <= value) & (value <= b_hi)
            with np.errstate(all="ignore"):
                margin = 1000 * np.finfo(np_dtype).eps * (1 + np.abs(value.astype(np.float64)))
                near = (b_lo - margin <= value) & (value <= b_hi + margin)
            ok = bad | inside | near
            assert np.all(ok), (mode, value[~ok], b_lo[~ok], b_hi[~ok])


def test_large_matrices_are_refused_in_one_line(monkeypatch):
    """Coefficient matrices and dense op matrices obey the tensor limit."""
    mlp = random_mlp([6, 16, 3])
    rng = np.random.default_rng(14)
    cnn = Net((1, 8, 8)).conv(rng.normal(size=(4, 1, 3, 3)), np.zeros(4), stride=2, padding=1)
    cnn.then("sum", ())  # the sweep reaches the conv
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "1500")
    module = mlp.module()  # its constants fit
    crown(module, np.zeros(6), np.ones(6))  # 3 rows × 16 cells fit too
    with pytest.raises(TlirError, match="CROWN coefficient matrix of 32 rows × 16 cells"):
        crown(module, np.zeros(6), np.ones(6), mode="relu")  # two rows per ReLU operand cell
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "20000")
    with pytest.raises(TlirError, match=r"the dense 64 × 64 matrix of tlir.conv takes"):
        crown(cnn.module(), np.zeros(cnn.input_shape), np.ones(cnn.input_shape))
