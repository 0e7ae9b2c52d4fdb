"""A dynamic-batch model's bounds at any batch from one compile: `ibp`,
`ibp_ball` and `bounds` run `@main_ibp` (its fast path, the exact program when
a check is set, the tight rules) compiled once for every batch, and `crown` /
`crown_ball` run the reference sweeps on the module at the call's batch, so a
new batch lowers and compiles nothing; every result (None for an unresolved
output included) is a static compile's at that batch, bit for bit."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_batch_once import BACKENDS, STACKED, Counter, array  # noqa: E402

import tlir  # noqa: E402
from tlir.api import parse_module  # noqa: E402
from tlir.compiler.batch_model import SMALL_NOMINAL  # noqa: E402
from tlir.diagnostics import TlirError  # noqa: E402
from tlir.passes.directed_steps import host_has_embedded_rounding  # noqa: E402
from tlir.passes.tlir_specialize_batch import specialize  # noqa: E402

BATCHES = (1, 7, 300)  # 300: more rows than any strip or vector of rows
WARM = 2  # the batch of the one compile (of the programs for small batches)
LARGE = 40  # the batch of the programs for two vectors of rows or more
MLIR = BACKENDS[1].marks

# every pair of (model, dtype, back end, threads) values at least once (five
# cases, not sixteen): each compiles statically at three batches to compare
CASES = [
    ("mlp", "f32", "xdsl", 1),
    pytest.param("mlp", "f32", "mlir", 2, marks=MLIR),
    ("mlp", "f64", "xdsl", 2),
    ("cnn", "f32", "xdsl", 2),
    pytest.param("cnn", "f64", "mlir", 1, marks=MLIR),
]


@pytest.fixture(scope="module")
def torch_module():
    """(name, dtype) → the model imported from PyTorch with a `?` batch, once."""
    torch = pytest.importorskip("torch")
    import torch_models

    found = {}

    def get(name: str, dtype: str):
        if (name, dtype) not in found:
            cls, shape = torch_models.MODELS[name]
            torch.manual_seed(0)
            net = cls().eval().double() if dtype == "f64" else cls().eval()
            wide = torch.float64 if dtype == "f64" else torch.float32
            module = tlir.from_torch(net, (torch.randn(*shape, dtype=wide),))
            found[name, dtype] = (module, shape[1:])
        return found[name, dtype]

    return get


def boxes(batch: int, item: tuple[int, ...], dtype: str, eps: float = 0.125):
    x = array((batch, *item), dtype, batch)
    return x, [x - x.dtype.type(eps)], [x + x.dtype.type(eps)]


def infinite_box(batch: int, item: tuple[int, ...], dtype: str):
    """A box whose first sample reaches −inf and last +inf: the fast path's
    checks are set wherever a contraction takes it."""
    _, lows, highs = boxes(batch, item, dtype)
    lows[0][0].flat[0] = -np.inf
    highs[0][-1].flat[-1] = np.inf
    return lows, highs


def objective(batch: int, dtype: str) -> np.ndarray | None:
    """The identity (None) at small batches; two rows over the 3·B outputs at
    300 (the identity's coefficients would be 900 rows by every cell, and relu
    mode's a row pair per ReLU cell: it runs at the small batches only)."""
    if batch < 300:
        return None
    rows = np.zeros((2, 3 * batch), np.float64 if dtype == "f64" else np.float32)
    rows[0, 1], rows[1, -1] = 1.0, -2.0
    return rows


def same(got, want) -> bool:
    """Arrays (or None) of one shape, dtype and bits."""
    if got is None or want is None:
        return got is None and want is None
    return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


def assert_same_result(got, want):
    assert got.reasons == want.reasons
    assert all(same(g, w) for g, w in zip(got.lowers, want.lowers))
    assert all(same(g, w) for g, w in zip(got.uppers, want.uppers))


def all_bounds(model, batch: int, item, dtype: str):
    """Every bound the model gives at `batch`, in one order for both models."""
    x, lows, highs = boxes(batch, item, dtype)
    return [
        model.bounds(lows, highs),
        model.bounds(*infinite_box(batch, item, dtype)),
        model.bounds(lows, highs, rules="tight"),
        model.ibp_ball([x], 0.125),
        model.crown(lows, highs, objective(batch, dtype)),
        model.crown_ball(
            [x], 0.125, objective(batch, dtype), mode="relu" if batch < 300 else "torchlean"
        ),
    ]


def assert_same_bounds(got: list, want: list):
    for g, w in zip(got[:3], want[:3]):
        assert_same_result(g, w)
    (lows, highs), (want_lows, want_highs) = got[3], want[3]  # ibp_ball: lists
    assert all(same(a, b) for a, b in zip([*lows, *highs], [*want_lows, *want_highs]))
    for g, w in zip(got[4:], want[4:]):  # crown: (lower, upper)
        assert all(same(a, b) for a, b in zip(g, w))


@pytest.mark.parametrize(("name", "dtype", "backend", "threads"), CASES)
def test_bounds_at_a_new_batch_compile_nothing(
    name, dtype, backend, threads, torch_module, monkeypatch
):
    module, item = torch_module(name, dtype)
    model = tlir.compile(module, backend=backend, threads=threads, cache=False)
    all_bounds(model, WARM, item, dtype)  # the one compile of each program for small batches
    _, lows, highs = boxes(LARGE, item, dtype)  # and for large ones
    model.bounds(*infinite_box(LARGE, item, dtype))
    model.bounds(lows, highs, rules="tight")
    labels = ["main_ibp tight"]
    if host_has_embedded_rounding():
        labels.append("main_ibp fast")
        # the CNN's convs take the fast path at the nominal batches (the MLP's
        # layers are too small, and so are both at the small ones): its infinite
        # box sets a check and the exact program runs, compiled once too
        rerun = name == "cnn"
        assert (("ibp", "torchlean") in model._codes) == rerun
        assert ("ibp", "torchlean", SMALL_NOMINAL) not in model._codes
    labels += [f"{label} small" for label in labels]
    labels += ["main_ibp torchlean"] if host_has_embedded_rounding() and rerun else []
    per_batch = model.stats["kernels compiled per batch"]
    assert sorted(per_batch) == sorted(labels)
    assert all(per_batch[label] == 0 for label in labels)
    assert all(model.stats["kernels compiled once"][label] > 0 for label in labels)
    counter = Counter(monkeypatch)
    got = {batch: all_bounds(model, batch, item, dtype) for batch in BATCHES}
    assert (counter.lowered, counter.llvm) == (0, 0)
    assert model.stats["compiled batches"] == []
    assert model._models == {}  # no static model either
    monkeypatch.undo()
    for batch in BATCHES:
        static = tlir.compile(
            specialize(module, batch), backend=backend, threads=threads, cache=False
        )
        want = all_bounds(static, batch, item, dtype)
        assert_same_bounds(got[batch], want)
        assert got[batch][0].lowers[0].shape == (batch, 3)
        # the infinite box leaves the CNN's output unresolved (its batch norm's
        # intermediates are not finite): None at every batch, as statically
        assert [low is None for low in got[batch][1].lowers] == [name == "cnn"]


@pytest.fixture(scope="module")
def mlp32(torch_module):
    module, item = torch_module("mlp", "f32")
    return module, item, tlir.compile(module, cache=False)


def test_a_float64_box_of_an_f32_model_is_rounded_outward_at_any_batch(mlp32):
    """As a static model's: lower ends rounded down, upper ends up."""
    module, item, model = mlp32
    x = array((5, *item), "f64", 3)
    lows, highs = [x - 0.1], [x + 0.1]
    got = model.bounds(lows, highs)
    assert got.lowers[0].dtype == np.float32
    static = tlir.compile(specialize(module, 5), cache=False)
    assert_same_result(got, static.bounds(lows, highs))
    got_crown, want_crown = model.crown(lows, highs), static.crown(lows, highs)
    assert all(same(g, w) for g, w in zip(got_crown, want_crown))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda m, x: m.bounds([x], [x[:3]]),
            "the upper bounds have batch 3, the lower bounds 4",
        ),
        (
            lambda m, x: m.ibp([x[:, :5]], [x[:, :5]]),
            "lower bound 0 has shape [4, 5], expected shape [?, 6] ('?': any batch of at least 1)",
        ),
        (
            lambda m, x: m.bounds([x], []),
            "expected 1 lower and 1 upper bounds (one per input), got 1 and 0",
        ),
        (
            lambda m, x: m.crown([x[:0]], [x[:0]]),
            "lower bound 0 has shape [0, 6], expected shape [?, 6] ('?': any batch of at least 1)",
        ),
        (
            lambda m, x: m.ibp_ball([x[None]], 0.1),
            "input 0 has shape [1, 4, 6], expected shape [?, 6] ('?': any batch of at least 1)",
        ),
        (lambda m, x: m.ibp([x], [x], rules="loose"), "rules must be one of"),
    ],
    ids=["batches", "extent", "count", "empty", "rank", "rules"],
)
def test_a_bad_box_is_a_one_line_error(mlp32, call, message):
    _, item, model = mlp32
    with pytest.raises(TlirError) as err:
        call(model, array((4, *item), "f32", 0))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_an_ibp_kernel_that_is_not_generic_is_compiled_at_each_new_batch(monkeypatch):
    """The interval concat along the batch writes its second part at an offset
    of B rows: that kernel alone is compiled per batch, and the bounds are
    still a static compile's."""
    model = tlir.compile(STACKED, cache=False)
    x = array((2, 5, 8), "f32", 0)
    model.ibp([x - 1], [x + 1], rules="tight")
    assert model.stats["kernels compiled per batch"]["main_ibp tight"] > 0
    assert model.stats["kernels compiled once"]["main_ibp tight"] > 0
    counter = Counter(monkeypatch)
    x = array((9, 5, 8), "f32", 9)
    got = model.bounds([x - 1], [x + 1], rules="tight")
    assert counter.lowered == model.stats["kernels compiled per batch"]["main_ibp tight"]
    assert model.stats["compiled batches"] == [2, 9]
    assert model._models == {}
    static = tlir.compile(specialize(parse_module(STACKED), 9), cache=False)
    assert_same_result(got, static.bounds([x - 1], [x + 1], rules="tight"))


def test_parameters_changed_in_place_reach_the_bounds_at_a_batch_met_before(torch_module):
    """The compiled bounds read the shared arrays; CROWN's module at a batch met
    before (kept specialized) takes the current values at each call."""
    from tlir.reference.crown import crown as reference_crown

    module, item = torch_module("mlp", "f64")
    model = tlir.compile(module, cache=False)
    _, lows, highs = boxes(3, item, "f64")
    before = model.crown(lows, highs), model.ibp(lows, highs)
    weight = next(iter(model.parameters().values()))
    weight *= 0.5
    got_crown, got_ibp = model.crown(lows, highs), model.ibp(lows, highs)
    assert not np.array_equal(got_crown[0], before[0][0])
    static = specialize(model.module(), 3)
    want = reference_crown(static, lows[0], highs[0])
    assert all(same(g, w) for g, w in zip(got_crown, want))
    want_ibp = tlir.compile(static, cache=False).ibp(lows, highs)
    assert all(same(g, w) for g, w in zip([*got_ibp[0], *got_ibp[1]], [*want_ibp[0], *want_ibp[1]]))
    assert not np.array_equal(got_ibp[0][0], before[1][0][0])


@pytest.mark.parametrize("where", ["compile", "batch"])
def test_bounds_that_cannot_take_the_one_compile_are_a_static_compiles(
    where, torch_module, monkeypatch
):
    """A graph whose IBP kernels do not pair up (`compile`), or not at the
    call's batch (`batch`), takes the static route there: the batch's model,
    and a second call there forms no kernels again."""
    from tlir.compiler import batch_model, dynamic
    from tlir.compiler.batch_model import NotGeneric

    refusals = []

    def refuse(*args, **kwargs):
        refusals.append(args)
        raise NotGeneric("refused by the test")

    module, item = torch_module("mlp", "f64")
    model = tlir.compile(module, cache=False)
    if where == "compile":
        monkeypatch.setattr(dynamic, "BatchCompile", refuse)
    else:
        monkeypatch.setattr(batch_model, "PerBatch", refuse)
    _, lows, highs = boxes(5, item, "f64")
    got = model.bounds(lows, highs, rules="tight")
    assert list(model._models) == [5] and model.stats["compiled batches"] == [5]
    # batch 5 runs the small batches' program (the other formed only if that one is refused)
    assert (model._codes[("ibp", "tight", SMALL_NOMINAL)] is None) == (where == "compile")
    assert (("ibp", "tight") in model._codes) == (where == "compile")
    static = tlir.compile(specialize(module, 5), cache=False)
    assert_same_result(got, static.bounds(lows, highs, rules="tight"))
    assert_same_result(model.bounds(lows, highs, rules="tight"), got)
    # both programs refused once (the small batches' and the other), or the batch once
    assert len(refusals) == (2 if where == "compile" else 1)


def test_a_bad_box_at_a_batch_met_before_is_a_one_line_error(mlp32):
    """At a batch met before the batch is read from the first array alone; the
    boxes' checks at that batch still refuse every other shape."""
    _, item, model = mlp32
    x = array((4, *item), "f32", 0)
    model.ibp_ball([x], 0.1)
    cases = [
        (lambda: model.ibp_ball([x[:, :5]], 0.1), "input 0 has shape [4, 5], expected [4, 6]"),
        (lambda: model.bounds([x], [x[:3]]), "upper bound 0 has shape [3, 6], expected [4, 6]"),
        (lambda: model.crown([x], [x[:, :5]]), "upper bound 0 has shape [4, 5], expected [4, 6]"),
    ]
    for call, message in cases:
        with pytest.raises(TlirError) as err:
            call()
        assert str(err.value).endswith(message)


def test_signed_interval_linear_at_any_batch_from_one_compile(monkeypatch):
    """A chain of linears whose rows, at the nominal batches, are not whole
    vectors: the fast program's signed folds run their rows in strips (the
    register tile's, three, two or one vector's, then one by one) with
    run-time bounds, so batches 1, 7, 56 (a strip of two vectors and one of
    one), 64 (whole strips, no rest), 88 (a strip of three vectors) and 300
    compile nothing and give
    a static compile's bits (the reference's at 7); an infinite box's check
    sends it to the exact program, compiled once as well. Below two vectors
    of rows (1 and 7) the program formed at small nominal batches runs: its
    linears vectorise over the outputs (no strips), as a static compile's at 7."""
    from test_ibp_signed import chain_text

    from tlir.compiler.backend import kernel_to_loops
    from tlir.dialects.tlir_ad import ROW_STRIPS
    from tlir.reference.ibp import ibp as reference_ibp

    module = parse_module(chain_text(["?"], [48, 64, 24, 10], "f64", seed=3))
    model = tlir.compile(module, cache=False)
    model.bounds(*infinite_box(WARM, (48,), "f64"))  # the one compile of each program
    if host_has_embedded_rounding():  # a small batch forms the small batches' program alone
        assert list(model._codes) == [("ibp", "fast", SMALL_NOMINAL)]
    model.bounds(*infinite_box(LARGE, (48,), "f64"))
    if host_has_embedded_rounding():  # the first two linears (61·24·10 terms: too few)
        formed = model._codes[("ibp", "fast")].compile.first.work
        folds = [op for op in formed.walk() if ROW_STRIPS in op.attributes]
        assert len(folds) == 2
        for fold in folds:  # its loops: strips of 4, 3, 2, 1, 1/2, 1/4 vectors (a split each)
            loops = str(kernel_to_loops(fold.parent_op()))
            assert loops.count("arith.divui") == 6
            assert all(f"arith.constant {w} : index" in loops for w in (32, 24, 16))
    counter = Counter(monkeypatch)
    got = {}
    for batch in (1, 7, 56, 64, 88, 300):
        _, lows, highs = boxes(batch, (48,), "f64")
        got[batch] = (lows, highs, model.bounds(lows, highs))
    infinite = model.bounds(*infinite_box(7, (48,), "f64"))
    assert (counter.lowered, counter.llvm) == (0, 0)
    assert model.stats["compiled batches"] == [] and model._models == {}
    if host_has_embedded_rounding():  # which program ran at which batch
        small = model._codes[("ibp", "fast", SMALL_NOMINAL)]
        assert sorted(small.batches) == [1, WARM, 7]
        assert sorted(model._codes[("ibp", "fast")].batches) == [LARGE, 56, 64, 88, 300]
        assert not any(ROW_STRIPS in op.attributes for op in small.compile.first.work.walk())
    monkeypatch.undo()
    for batch, (lows, highs, result) in got.items():
        static = tlir.compile(specialize(module, batch), cache=False)
        assert_same_result(result, static.bounds(lows, highs))
        if batch != 7:
            continue
        want = reference_ibp(specialize(module, batch), lows, highs)  # slow at 300
        assert same(result.lowers[0], want[0][0]) and same(result.uppers[0], want[1][0])
        want = static.bounds(*infinite_box(batch, (48,), "f64"))
        assert infinite.reasons == want.reasons  # NaN bounds: their bytes compared
        ends = [*infinite.lowers, *infinite.uppers, *want.lowers, *want.uppers]
        assert ends[0].tobytes() == ends[2].tobytes() and ends[1].tobytes() == ends[3].tobytes()


# batches whose rows run every strip width of the signed layout after a whole
# strip: f64 (8 lanes) 32 + 15 (8, 4, 2, 1), 32 + 23 (16, 4, 2, 1), 32 + 31 (24, 4,
# 2, 1); f32 (16 lanes) 64 + 31 (16, 8, 4, then one by one), 64 + 47 (32, 8, 4, ...),
# 64 + 63 (48, 8, 4, ...)
STRIP_BATCHES = {"f64": (47, 55, 63), "f32": (95, 111, 127)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_signed_strips_sum_in_local_tiles_to_the_same_bits(dtype, backend):
    """The signed interval linear's strips of rows sum in local tiles
    (`passes/row_strips.py`): at batches that run every strip width, the
    dynamic model's bounds are the reference's and a static compile's, bit
    for bit, on both back ends."""
    from test_ibp_signed import chain_text

    from tlir.reference.ibp import ibp as reference_ibp

    module = parse_module(chain_text(["?"], [48, 64, 24, 10], dtype, seed=5))
    model = tlir.compile(module, backend=backend, cache=False)
    for batch in STRIP_BATCHES[dtype]:
        _, lows, highs = boxes(batch, (48,), dtype)
        got = model.bounds(lows, highs)
        static = tlir.compile(specialize(module, batch), backend=backend, cache=False)
        assert_same_result(got, static.bounds(lows, highs))
        want = reference_ibp(specialize(module, batch), lows, highs)
        assert same(got.lowers[0], want[0][0]) and same(got.uppers[0], want[1][0])
    assert model.stats["compiled batches"] == []


def _innermost_loops(asm: str) -> list[str]:
    """The bodies of the innermost loops of x86 assembly: from a label to the
    branch back to it, with no label between."""
    lines = asm.splitlines()
    loops = []
    for end, line in enumerate(lines):
        branch = re.match(r"\s+j\w+\s+(\.LBB\w+)$", line)
        if branch is None:
            continue
        starts = [k for k in range(end) if lines[k].startswith(branch.group(1) + ":")]
        if starts and not any(re.match(r"\.LBB\w+:", s) for s in lines[starts[0] + 1 : end]):
            loops.append("\n".join(lines[starts[0] : end + 1]))
    return loops


@pytest.mark.skipif(not host_has_embedded_rounding(), reason="the vector steps need AVX-512")
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_signed_strips_keep_their_sums_in_registers_at_a_runtime_batch(dtype, monkeypatch):
    """In the kernel compiled once for every batch, the loop over the columns
    of a strip of four vectors of rows (two outputs, lower and upper: 16 sums)
    loads and stores no sum: they stay in registers, as in a static compile's
    tile. Summed on the outputs, whose rows lie a run-time stride apart, LLVM
    could not tell the sums apart and loaded and stored each one per column."""
    from test_ibp_signed import chain_text

    from tlir.compiler import jit
    from tlir.compiler.kernel_harness import assembly

    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "1")
    compiled = []
    compile_ = jit._compile_object

    def kept(llvm_ir, *args, **kwargs):
        compiled.append(llvm_ir)
        return compile_(llvm_ir, *args, **kwargs)

    monkeypatch.setattr(jit, "_compile_object", kept)
    monkeypatch.setattr(jit, "_OBJECTS", type(jit._OBJECTS)())
    module = parse_module(chain_text(["?"], [48, 64, 10], dtype, seed=5))
    model = tlir.compile(module, cache=False)
    model.bounds(*boxes(LARGE, (48,), dtype)[1:])
    lanes = 8 if dtype == "f64" else 16
    width = "pd" if dtype == "f64" else "ps"
    hot = []
    for llvm_ir in compiled:
        name = re.search(r'define void @"?(k_\w+)"?\(', llvm_ir)
        if name is None or "tlir_step_down" not in llvm_ir:
            continue
        for loop in _innermost_loops(assembly(llvm_ir, name.group(1))):
            if loop.count(f"vsub{width}\t{{rd-sae}}") == 4 * 2 * 2:  # 4 vectors × 2 outputs
                hot.append(loop)
    assert hot, f"no loop over the columns of a {4 * lanes}-row strip"
    for loop in hot:  # each linear's
        assert re.findall(rf"vmovu{width}\t%zmm\d+, [^%\n]*\(", loop) == [], loop
