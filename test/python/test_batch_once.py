"""A dynamic-batch model compiled once for every batch: kernels marked with
`tlir.batch_axes` take the batch at run time, a new batch lowers and compiles
nothing when every kernel is batch-generic (only the others when not), and
every result is bit-identical to a static compile at the call's batch.

The models' tests compare every batch with the reference evaluator (which a
static compile matches bit for bit) and each compiles statically at one batch
only, a different one in each case: a static compile of the forward, JVP and
VJP costs as much as the one dynamic compile, the reference almost nothing."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

import tlir
from tlir.api import parse_module
from tlir.compiler import backend as backends
from tlir.compiler import jit
from tlir.compiler.backend import mlir
from tlir.compiler.batch_plan import Affine, AffineWorkspace
from tlir.compiler.build import lower_kernel
from tlir.compiler.model import CompiledModel
from tlir.passes.tlir_specialize_batch import specialize
from tlir.reference import evaluate, jvp, vjp

# Every kernel of this model is batch-generic: elementwise, a pooling window,
# a softmax and a layernorm over rows, a reshape, a sum over the batch, and a
# transpose that puts the batch in a stride.
GENERIC = """
func.func @main(%x: tensor<?x2x6x6xDT>) -> (tensor<?x3xDT>, tensor<?x8xDT>, tensor<DT>, tensor<8x?xDT>) {
  %a = tlir.const {value = dense<0.375> : tensor<DT>} : tensor<DT>
  %g = tlir.const {value = dense<[0.5, -1.0, 2.0]> : tensor<3xDT>} : tensor<3xDT>
  %h = tlir.const {value = dense<[0.25, 0.5, -0.75]> : tensor<3xDT>} : tensor<3xDT>
  %t = tlir.tanh %x : (tensor<?x2x6x6xDT>) -> tensor<?x2x6x6xDT>
  %p = tlir.avg_pool %t {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<?x2x6x6xDT>) -> tensor<?x2x3x3xDT>
  %m = tlir.max_pool %t {kernel = array<i64: 3, 3>, stride = array<i64: 3, 3>, padding = array<i64: 0, 0>} : (tensor<?x2x6x6xDT>) -> tensor<?x2x2x2xDT>
  %r = tlir.reshape %p : (tensor<?x2x3x3xDT>) -> tensor<?x6x3xDT>
  %n = tlir.layernorm %r affine(%g, %h) {axis = 2 : i64, eps = 1.000000e-05 : f64} : (tensor<?x6x3xDT>, tensor<3xDT>, tensor<3xDT>) -> tensor<?x6x3xDT>
  %s = tlir.reduce_sum %n axis = 1 : (tensor<?x6x3xDT>) -> tensor<?x3xDT>
  %y = tlir.softmax %s axis = 1 : (tensor<?x3xDT>) -> tensor<?x3xDT>
  %f = tlir.reshape %m : (tensor<?x2x2x2xDT>) -> tensor<?x8xDT>
  %b = tlir.broadcast_to %a : (tensor<DT>) -> tensor<?x8xDT>
  %q = tlir.mul_elem %f, %b : (tensor<?x8xDT>, tensor<?x8xDT>) -> tensor<?x8xDT>
  %z = tlir.sum %q : (tensor<?x8xDT>) -> tensor<DT>
  %e = tlir.exp %f : (tensor<?x8xDT>) -> tensor<?x8xDT>
  %u = tlir.permute %e {perm = array<i64: 1, 0>} : (tensor<?x8xDT>) -> tensor<8x?xDT>
  func.return %y, %q, %z, %u : tensor<?x3xDT>, tensor<?x8xDT>, tensor<DT>, tensor<8x?xDT>
}
"""

STACKED = """
func.func @main(%x: tensor<?x5x8xf32>) -> (tensor<?x5x8xf32>, tensor<?x5x8xf32>) {
  %s = tlir.sigmoid %x : (tensor<?x5x8xf32>) -> tensor<?x5x8xf32>
  %c = tlir.concat %s, %x axis = 0 : (tensor<?x5x8xf32>, tensor<?x5x8xf32>) -> tensor<?x5x8xf32>
  %t = tlir.tanh %x : (tensor<?x5x8xf32>) -> tensor<?x5x8xf32>
  func.return %c, %t : tensor<?x5x8xf32>, tensor<?x5x8xf32>
}
"""

BATCHES = (1, 2, 7, 300)  # 300: more rows than any strip or vector of rows

BACKENDS = [
    "xdsl",
    pytest.param(
        "mlir",
        marks=pytest.mark.skipif(
            mlir.find_tool("mlir-opt") is None, reason="mlir-opt not installed"
        ),
    ),
]


def generic(dtype: str):
    return parse_module(GENERIC.replace("DT", dtype))


def array(shape, dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.dtype(dtype.replace("f", "float")))


def assert_identical(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.tobytes() == w.tobytes()


def run_all(model, x, dx, cotangents) -> list[list[np.ndarray]]:
    """A compiled model's forward, JVP `[y…, dy…]` and VJP `[y…, dx…, dparams…]`
    (the reference evaluator's layout)."""
    forward = model(x)
    primal, tangents = model.jvp([x], [dx])
    outputs, input_grads, param_grads = model.vjp([x], cotangents)
    return [forward, [*primal, *tangents], [*outputs, *input_grads, *param_grads.values()]]


def assert_matches_reference(got: list[list[np.ndarray]], module, x, dx, cotangents):
    forward, tangents, gradients = got
    assert_identical(forward, evaluate(module, [x]))
    assert_identical(tangents, jvp(module, [x], [dx]))
    assert_identical(gradients, vjp(module, [x], cotangents))


class Counter:
    """Counts kernels lowered and LLVM compiles (either in-process cache)."""

    def __init__(self, monkeypatch):
        self.lowered = self.llvm = 0
        lower, compile_ = backends.kernel_to_loops, jit._compile_object

        def counted_lower(*args, **kwargs):
            self.lowered += 1
            return lower(*args, **kwargs)

        def counted_compile(*args, **kwargs):
            self.llvm += 1
            return compile_(*args, **kwargs)

        monkeypatch.setattr(backends, "kernel_to_loops", counted_lower)
        monkeypatch.setattr(jit, "_compile_object", counted_compile)
        monkeypatch.setattr(jit, "_OBJECTS", type(jit._OBJECTS)())


# --- kernels that take the batch ---------------------------------------------------


ROWS = """
func.func @k(%x: tensor<Nx4xf32>, %y: tensor<NxN4xf32>) -> tensor<NxN4xf32> attributes {tlir.kernel} {
  %t = tlir.tanh %x : (tensor<NxN4xf32>) -> tensor<NxN4xf32>
  %s = tlir.add %t, %y : (tensor<NxN4xf32>, tensor<NxN4xf32>) -> tensor<NxN4xf32>
  func.return %s : tensor<NxN4xf32>
}
"""

OVER_THE_BATCH = """
func.func @k(%x: tensor<Nx3xf32>) -> tensor<3xf32> attributes {tlir.kernel} {
  %s = tlir.reduce_sum %x axis = 0 : (tensor<Nx3xf32>) -> tensor<3xf32>
  func.return %s : tensor<3xf32>
}
"""


def marked_kernel(text: str, batch: int, axes: str):
    source = text.replace("N4", "4").replace("N", str(batch))
    module = parse_module(
        source.replace("{tlir.kernel}", "{tlir.kernel, tlir.batch_axes = " + axes + "}")
    )
    return module.ops.first


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text, axes, rule",
    [
        (ROWS, "[array<i64: 1, 0>, array<i64: 1, 0>, array<i64: 1, 0>]", [1, 1, 1, 0]),
        (OVER_THE_BATCH, "[array<i64: 1, 0>, array<i64: 0>]", [0, 0, 1, 1]),
    ],
    ids=["rows", "over-the-batch"],
)
def test_a_marked_kernel_is_the_same_code_at_every_batch(backend, text, axes, rule):
    """The batch reaches the code as its last argument: the machine code at two
    batches is the same (the mlir route's IR also differs in the unused sizes
    of its buffer descriptors), and the ABI reads the batch argument."""
    texts = []
    for batch in (3, 11):
        kernel = marked_kernel(text, batch, axes)
        abi, llvm_ir = lower_kernel(kernel, backend, "k")
        loops = backends.kernel_to_loops(kernel)
        function = loops.ops.first
        assert [v for v in function.attributes["tlir.parallel_rule"].get_values()] == rule
        assert abi.parallel_extent == (rule[1] * batch if rule[0] else rule[3])
        texts.append(llvm_ir)
    assert jit.assembly(texts[0]) == jit.assembly(texts[1])
    if backend == "xdsl":
        assert texts[0] == texts[1]
    assert re.search(r'define void @"?k"?\(([^)]*)\)', texts[0]).group(1).count("i64") == 3


def test_the_check_tells_code_that_depends_on_the_batch():
    """`same_code`: loops that differ only in leading extents serve every batch;
    a static extent that differs (a stride, a loop bound) does not."""
    from tlir.compiler.batch_compare import same_code

    rows = "[array<i64: 1, 0>, array<i64: 1, 0>, array<i64: 1, 0>]"
    loops = [backends.kernel_to_loops(marked_kernel(ROWS, b, rows)) for b in (3, 11)]
    assert same_code(*loops)
    unmarked = [
        parse_module(ROWS.replace("N4", "4").replace("N", str(b))).ops.first for b in (3, 11)
    ]
    assert not same_code(*(backends.kernel_to_loops(k) for k in unmarked))  # min(hi, 3)
    columns = ROWS.replace("Nx4", "4xN").replace("NxN4", "4xN")
    strided = [
        backends.kernel_to_loops(
            marked_kernel(columns, b, "[array<i64: 0, 1>, array<i64: 0, 1>, array<i64: 0, 1>]")
        )
        for b in (3, 11)
    ]
    assert same_code(*strided)  # addressed flat, at strides from the batch
    static = [parse_module(columns.replace("N", str(b))).ops.first for b in (3, 11)]
    assert not same_code(*(backends.kernel_to_loops(k) for k in static))  # strides 3 and 11


def test_an_unmarked_kernel_keeps_two_index_arguments():
    kernel = parse_module(ROWS.replace("N4", "4").replace("N", "3")).ops.first
    _, llvm_ir = lower_kernel(kernel, "xdsl", "k")
    assert re.search(r'define void @"?k"?\(([^)]*)\)', llvm_ir).group(1).count("i64") == 2
    assert "icmp slt i64 %a4, 3" in llvm_ir  # the clamp min(hi, 3)


def test_affine_workspace_slices_never_overlap_at_any_batch():
    space = AffineWorkspace()
    sizes = [Affine(100, 0), Affine(0, 24), Affine(8, 64), Affine(0, 3), Affine(64, 1)]
    offsets = [space.allocate(s) for s in sizes]
    space.release(offsets[1], sizes[1])
    late = space.allocate(Affine(0, 16))  # fits the freed batch-sized slice
    assert late == offsets[1]
    live = [*zip(offsets, sizes), (late, Affine(0, 16))]
    del live[1]
    for batch in (1, 2, 7, 300):
        spans = sorted((o.at(batch), o.at(batch) + s.at(batch)) for o, s in live)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
        assert all(start % 64 == 0 for start, _ in spans)
        assert spans[-1][1] <= space.peak.at(batch)


# --- one compile for every batch -----------------------------------------------------


def cotangents_at(batch: int, dtype: str) -> list[np.ndarray]:
    shapes = [(batch, 3), (batch, 8), (), (8, batch)]
    return [array(shape, dtype, seed) for seed, shape in enumerate(shapes)]


# every pair of (dtype, back end, threads) values once; each case compiles
# statically at one of the batches (all four among the cases)
@pytest.mark.parametrize(
    ("dtype", "backend", "threads", "static_batch"),
    [
        ("f32", "xdsl", 1, 1),
        ("f64", "xdsl", 2, 300),
        pytest.param("f32", "mlir", 2, 7, marks=BACKENDS[1].marks),
        pytest.param("f64", "mlir", 1, 2, marks=BACKENDS[1].marks),
    ],
)
def test_a_new_batch_compiles_nothing(dtype, backend, threads, static_batch, monkeypatch):
    model = tlir.compile(generic(dtype), backend=backend, threads=threads, cache=False)
    model(array((4, 2, 6, 6), dtype, 0))  # the one compile
    model.vjp([array((4, 2, 6, 6), dtype, 0)], cotangents_at(4, dtype))
    model.jvp([array((4, 2, 6, 6), dtype, 0)], [array((4, 2, 6, 6), dtype, 1)])
    assert model.stats["kernels compiled per batch"] == {
        "main": 0,
        "main_vjp all": 0,
        "main_jvp False": 0,
    }
    counter = Counter(monkeypatch)
    got = {}
    for batch in BATCHES:
        x, dx = array((batch, 2, 6, 6), dtype, batch), array((batch, 2, 6, 6), dtype, 1000 + batch)
        got[batch] = run_all(model, x, dx, cotangents_at(batch, dtype))
    assert (counter.lowered, counter.llvm) == (0, 0)
    assert model.stats["compiled batches"] == []
    for batch in BATCHES:  # the reference's bits at every batch
        x, dx = array((batch, 2, 6, 6), dtype, batch), array((batch, 2, 6, 6), dtype, 1000 + batch)
        assert_matches_reference(got[batch], generic(dtype), x, dx, cotangents_at(batch, dtype))
    static = CompiledModel(specialize(generic(dtype), static_batch), backend=backend, cache=False)
    x = array((static_batch, 2, 6, 6), dtype, static_batch)
    dx = array((static_batch, 2, 6, 6), dtype, 1000 + static_batch)
    for g, w in zip(got[static_batch], run_all(static, x, dx, cotangents_at(static_batch, dtype))):
        assert_identical(g, w)


def test_kernels_that_are_not_generic_are_compiled_alone_at_a_new_batch(monkeypatch):
    """A concat along the batch writes its second part at an offset of B rows,
    a static offset in the code: that kernel is compiled at each new batch,
    alone, and listed in `stats`."""
    model = tlir.compile(STACKED, cache=False)
    model(np.ones((2, 5, 8), np.float32))
    assert model.stats["kernels compiled once"] == {"main": 1}  # the tanh
    assert model.stats["kernels compiled per batch"] == {"main": 1}
    counter = Counter(monkeypatch)
    got = {}
    for batch in (5, 300, 5):
        before, new = counter.lowered, batch not in got
        got[batch] = model(array((batch, 5, 8), "f32", batch))
        assert counter.lowered - before == (1 if new else 0)
    assert counter.lowered == 2
    assert model.stats["compiled batches"] == [2, 5, 300]
    assert model.stats["per-batch kernel compiles"] == 3
    for batch in (5, 300):
        static = CompiledModel(specialize(parse_module(STACKED), batch), cache=False)
        assert_identical(got[batch], static(array((batch, 5, 8), "f32", batch)))


def test_a_scratch_buffer_with_the_batch_in_a_stride_is_addressed_flat(monkeypatch):
    """The permuted sigmoid kept between a permute and a sum ([5, B, 8]): its
    axes marked from the loops that index it, its strides from the batch."""
    text = """
    func.func @main(%x: tensor<?x5x8xf32>) -> (tensor<5x?xf32>, tensor<?x5x8xf32>) {
      %p = tlir.permute %x {perm = array<i64: 1, 0, 2>} : (tensor<?x5x8xf32>) -> tensor<5x?x8xf32>
      %s = tlir.sigmoid %p : (tensor<5x?x8xf32>) -> tensor<5x?x8xf32>
      %r = tlir.reduce_sum %s axis = 2 : (tensor<5x?x8xf32>) -> tensor<5x?xf32>
      %t = tlir.tanh %x : (tensor<?x5x8xf32>) -> tensor<?x5x8xf32>
      func.return %r, %t : tensor<5x?xf32>, tensor<?x5x8xf32>
    }"""
    model = tlir.compile(text, cache=False)
    model(array((3, 5, 8), "f32", 0))
    assert model.stats["kernels compiled per batch"] == {"main": 0}
    counter = Counter(monkeypatch)
    got = {batch: model(array((batch, 5, 8), "f32", batch)) for batch in BATCHES}
    assert (counter.lowered, counter.llvm) == (0, 0)
    for batch in BATCHES:
        static = CompiledModel(specialize(parse_module(text), batch), cache=False)
        assert_identical(got[batch], static(array((batch, 5, 8), "f32", batch)))


def test_row_statistics_of_a_permuted_layernorm_take_the_batch(monkeypatch):
    """A layernorm whose result is permuted: its parallel loop is the permuted
    axis, so the loops filling its row statistics (scratch buffers that lead
    with the batch, marked from the loops that index them) run to the batch."""
    text = """
    func.func @main(%x: tensor<?x5x8xf64>) -> tensor<5x?x8xf64> {
      %g = tlir.const {value = dense<1.5> : tensor<8xf64>} : tensor<8xf64>
      %h = tlir.const {value = dense<0.25> : tensor<8xf64>} : tensor<8xf64>
      %n = tlir.layernorm %x affine(%g, %h) {axis = 2 : i64, eps = 1.000000e-05 : f64} : (tensor<?x5x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<?x5x8xf64>
      %p = tlir.permute %n {perm = array<i64: 1, 0, 2>} : (tensor<?x5x8xf64>) -> tensor<5x?x8xf64>
      func.return %p : tensor<5x?x8xf64>
    }"""
    model = tlir.compile(text, cache=False)
    model(array((3, 5, 8), "f64", 0))
    assert model.stats["kernels compiled per batch"] == {"main": 0}
    counter = Counter(monkeypatch)
    got = {batch: model(array((batch, 5, 8), "f64", batch)) for batch in BATCHES}
    assert (counter.lowered, counter.llvm) == (0, 0)
    for batch in BATCHES:
        static = CompiledModel(specialize(parse_module(text), batch), cache=False)
        assert_identical(got[batch], static(array((batch, 5, 8), "f64", batch)))


sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))


@pytest.mark.parametrize(
    "name, dtype, backend, threads, static_batch",
    [
        ("mlp", "f32", "xdsl", 2, 1),
        ("cnn", "f32", "xdsl", 1, 2),
        ("transformer", "f32", "xdsl", 2, 7),
        ("mix", "f32", "xdsl", 1, 300),
        pytest.param("mlp", "f64", "mlir", 1, 300, marks=BACKENDS[1].marks),
        pytest.param("cnn", "f64", "mlir", 2, 7, marks=BACKENDS[1].marks),
    ],
)
def test_torch_models_at_any_batch_match_a_static_compile(
    name, dtype, backend, threads, static_batch, monkeypatch
):
    """Every kernel of the four models is compiled once: a new batch compiles
    nothing. Forward, JVP and VJP (gradients included) bit-identical to the
    reference at 1, 2, 7 and 300, and to a static compile at `static_batch`:
    its forward, and for the MLP (one case per back end) its JVP and VJP too
    (a static compile of the larger models' derivatives costs more than all
    the rest of the case; the reference checks them at every batch)."""
    torch = pytest.importorskip("torch")
    import torch_models

    cls, shape = torch_models.MODELS[name]
    torch.manual_seed(0)
    net = cls().eval().double() if dtype == "f64" else cls().eval()
    example = torch.randn(*shape, dtype=torch.float64 if dtype == "f64" else torch.float32)
    module = tlir.from_torch(net, (example,))
    options = dict(cache=False, threads=threads, backend=backend)
    model = tlir.compile(module, **options)
    x = array((3, *shape[1:]), dtype, 0)
    cotangents = [array(y.shape, dtype, 7) for y in model(x)]
    model.jvp([x], [x]), model.vjp([x], cotangents)  # the one compile of each
    assert sum(model.stats["kernels compiled per batch"].values()) == 0
    counter = Counter(monkeypatch)
    got, calls = {}, {}
    for batch in (1, 2, 7, 300):
        x, dx = array((batch, *shape[1:]), dtype, batch), array((batch, *shape[1:]), dtype, 1)
        dy = [array(y.shape, dtype, 7) for y in model(x)]
        calls[batch] = (x, dx, dy)
        got[batch] = run_all(model, x, dx, dy)
    assert (counter.lowered, counter.llvm) == (0, 0)
    monkeypatch.undo()
    for batch, results in got.items():
        assert_matches_reference(results, module, *calls[batch])
    static = tlir.compile(specialize(module, static_batch), **options)
    if name == "mlp":
        for g, w in zip(got[static_batch], run_all(static, *calls[static_batch])):
            assert_identical(g, w)
    else:
        assert_identical(got[static_batch][0], static(calls[static_batch][0]))


def test_a_marked_lowering_that_fails_leaves_the_kernel_to_the_static_route(monkeypatch):
    lower = backends.kernel_to_loops

    def failing(kernel, *rest):
        if "tlir.batch_axes" in kernel.attributes:
            raise RuntimeError("a bug in a marked lowering")
        return lower(kernel, *rest)

    monkeypatch.setattr(backends, "kernel_to_loops", failing)
    model = tlir.compile(STACKED, cache=False)
    x = array((3, 5, 8), "f32", 3)
    got = model(x)
    assert model.stats["kernels compiled once"] == {"main": 0}
    assert model.stats["kernels compiled per batch"] == {"main": 2}
    static = CompiledModel(specialize(parse_module(STACKED), 3), cache=False)
    assert_identical(got, static(x))


def test_jvp_with_parameter_tangents_and_vjp_wrt_params_at_any_batch(monkeypatch):
    torch = pytest.importorskip("torch")
    import torch_models

    cls, shape = torch_models.MODELS["mlp"]
    torch.manual_seed(0)
    module = tlir.from_torch(cls().eval(), (torch.randn(*shape),))
    model = tlir.compile(module, cache=False)
    seeds = {name: array(p.shape, "f32", 5) for name, p in model.parameters().items()}
    x = array((2, *shape[1:]), "f32", 0)
    model.jvp([x], [x], seeds), model.vjp([x], [array((2, 3), "f32", 1)], wrt="params")
    counter = Counter(monkeypatch)
    got = {}
    for batch in (1, 9):
        x, dx = array((batch, *shape[1:]), "f32", batch), array((batch, *shape[1:]), "f32", 9)
        dy = [array((batch, 3), "f32", 3)]
        got[batch] = (model.jvp([x], [dx], seeds), model.vjp([x], dy, wrt="params"))
    assert (counter.lowered, counter.llvm) == (0, 0)
    for batch in (1, 9):
        static = tlir.compile(specialize(module, batch), cache=False)
        x, dx = array((batch, *shape[1:]), "f32", batch), array((batch, *shape[1:]), "f32", 9)
        dy = [array((batch, 3), "f32", 3)]
        (primal, tangents), (outputs, inputs, params) = got[batch]
        want_jvp, want_vjp = static.jvp([x], [dx], seeds), static.vjp([x], dy, wrt="params")
        assert_identical([*primal, *tangents], [*want_jvp[0], *want_jvp[1]])
        assert inputs == want_vjp[1] == []
        assert list(params) == list(want_vjp[2])
        assert_identical([*outputs, *params.values()], [*want_vjp[0], *want_vjp[2].values()])


def test_the_one_compile_shares_its_kernels_with_helper_processes(monkeypatch):
    """The batch kernels are lowered, compared and compiled in helper processes
    too, as a static compile's are; the objects are the same bits."""
    torch = pytest.importorskip("torch")
    import torch_models

    from tlir.compiler import helper

    cls, shape = torch_models.MODELS["mix"]
    torch.manual_seed(0)
    module = tlir.from_torch(cls().eval(), (torch.randn(*shape),))
    x = array((5, *shape[1:]), "f32", 3)
    forked = []
    start = helper.start_helpers
    monkeypatch.setattr(
        helper, "start_helpers", lambda shares, where: forked.append(shares) or start(shares, where)
    )
    monkeypatch.setenv(helper.ENV_PROCESSES, "2")
    shared = tlir.compile(module, cache=False, threads=1)
    got = shared(x)
    assert len(forked) == 1 and len(forked[0]) == 1 and forked[0][0]
    monkeypatch.setenv(helper.ENV_PROCESSES, "1")
    alone = tlir.compile(module, cache=False, threads=1)
    assert_identical(got, alone(x))
    assert len(forked) == 1
    assert shared._code("forward").compile.objects == alone._code("forward").compile.objects
    assert shared.stats["kernels compiled once"] == alone.stats["kernels compiled once"]


# --- a warm process -------------------------------------------------------------

COUNTED_RUN = """
import json, sys
import numpy as np
import tlir
from tlir.compiler import backend as backends
from tlir.compiler import jit

counts = {"llvm": 0, "lowered": 0}


def counted(module, name, original):
    def run(*args, **kwargs):
        counts[name] += 1
        return original(*args, **kwargs)

    setattr(module, original.__name__, run)


counted(jit, "llvm", jit._compile_object)
counted(backends, "lowered", backends.kernel_to_loops)
model = tlir.compile(open(sys.argv[1]).read(), threads=2)
outputs = []
for batch in (3, 300):
    x = np.random.default_rng(batch).standard_normal((batch, *map(int, sys.argv[2:]))).astype(np.float32)
    outputs += [o.tobytes().hex() for o in model(x)]
print(json.dumps([counts, model.stats["cache"], outputs]))
"""


@pytest.mark.parametrize("text, shape", [(GENERIC.replace("DT", "f32"), (2, 6, 6)),
                                         (STACKED, (5, 8))], ids=["generic", "per-batch"])  # fmt: skip
def test_a_warm_process_runs_no_llvm_and_gives_a_cold_ones_bits(tmp_path, text, shape):
    """A new process meets the dynamic model in the compile cache: its kernels,
    the kernels compiled at a batch, its entry function and the thread runtime
    all come from there (no lowering, no LLVM at all), the results are the
    bits of the process that compiled them."""
    import json
    import os
    import subprocess

    path = tmp_path / "model.mlir"
    path.write_text(text)
    env = {**os.environ, "TLIR_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> list:
        command = [sys.executable, "-c", COUNTED_RUN, str(path), *map(str, shape)]
        proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.splitlines()[-1])

    cold, warm = run(), run()
    assert cold[0]["llvm"] > 0 and cold[1] == "miss"
    assert warm[0] == {"llvm": 0, "lowered": 0}
    assert warm[1] == "hit"
    assert warm[2] == cold[2]
    static = CompiledModel(specialize(parse_module(text), 300), cache=False)
    x = np.random.default_rng(300).standard_normal((300, *shape)).astype(np.float32)
    assert [o.tobytes().hex() for o in static(x)] == cold[2][len(cold[2]) // 2 :]
