"""Upstream MLIR accepts what tlir emits: the lowered form of every lit input
and of every JSON test graph parses and verifies in `mlir-opt`; the JSON graphs
also compile through both back ends and match the reference evaluator bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from graphs import write
from test_importer import attention_graph, every_op_graph

import tlir
from tlir.compiler.backend import mlir
from tlir.compiler.model import lower_to_linalg, to_text
from tlir.diagnostics import verify_module
from tlir.reference import evaluate
from tlir.torchlean import import_file

pytestmark = pytest.mark.skipif(
    mlir.find_tool("mlir-opt") is None, reason="mlir-opt not installed (.ci/run installs it)"
)

ROOT = Path(__file__).resolve().parents[2]
LIT_INPUTS = [
    ROOT / "test/Dialect/Tlir/ops.mlir",
    *sorted((ROOT / "test/Conversion/TlirToLinalg").glob("*.mlir")),
]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def chunks(path: Path) -> list[str]:
    return [c for c in path.read_text().split("// -----") if "func.func" in c]


@pytest.mark.parametrize("path", LIT_INPUTS, ids=[p.name for p in LIT_INPUTS])
def test_lowered_lit_input_verifies_in_mlir(path):
    for index, chunk in enumerate(chunks(path)):
        module = tlir.parse_module(chunk, f"{path.name}#{index}")
        verify_module(module, path.name)
        lowered = to_text(lower_to_linalg(module))
        assert "tlir." not in lowered and "random." not in lowered
        mlir.verify(lowered, f"{path.name} chunk {index}")


def graph_files(tmp_path: Path) -> list[str]:
    g, outputs = every_op_graph()
    a, out = attention_graph()
    return [str(p) for p in EXAMPLES] + [
        write(tmp_path, g.current(outputs), "every_op.json"),
        write(tmp_path, a.current([out]), "attention.json"),
    ]


@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_json_graphs_lower_verify_and_run(tmp_path, dtype, backend):
    for path in graph_files(tmp_path):
        module = import_file(path, dtype)
        lowered = to_text(lower_to_linalg(module))
        assert "tlir." not in lowered and "random." not in lowered
        mlir.verify(lowered, path)
        shape = [int(d) for d in next(iter(module.ops)).function_type.inputs.data[0].get_shape()]
        rng = np.random.default_rng(5)
        np_dtype = np.float32 if dtype == "f32" else np.float64
        x = (np.abs(rng.normal(size=shape)) + 0.5).astype(np_dtype)
        got = tlir.compile(module, backend=backend)(x)
        ref = evaluate(module, [x])
        for g, r in zip(got, ref, strict=True):
            assert g.dtype == r.dtype and g.shape == r.shape
            assert g.tobytes() == r.tobytes(), (path, g, r)


def test_a_failing_tool_is_a_one_line_error(monkeypatch):
    """mlir-opt and mlir-translate run piped into each other: a failure of
    either is reported as that tool's first error line, never as the other's."""
    from tlir.diagnostics import TlirError

    with pytest.raises(TlirError) as err:
        mlir.loops_text_to_llvm_ir('"no.such_op"() : () -> ()', "kernel.mlir")
    message = str(err.value)
    assert message.startswith("kernel.mlir: error: mlir-opt failed: ") and "\n" not in message
    assert "unregistered dialect" in message, message
    real = mlir.find_tool

    def translate_is_false(name: str):
        return "/bin/false" if name == "mlir-translate" else real(name)

    monkeypatch.setattr(mlir, "find_tool", translate_is_false)
    with pytest.raises(TlirError, match=r"^kernel.mlir: error: mlir-translate failed"):
        mlir.loops_text_to_llvm_ir("module {}", "kernel.mlir")


# Elementwise epilogues fused into a contraction's kernel, on its result %r of
# type {o}: every unary op; log after sigmoid (its operand must be > 0); every
# binary op with an argument %e of the result's shape; safe_log with a rank-0
# eps %s; and a chain whose leading steps run on vectors in registers before
# the rest runs element by element.
UNARY_EPILOGUES = ["abs", "sqrt", "inv", "relu", "tanh", "sigmoid", "exp", "sin", "cos",
                   "softplus", "detach"]  # fmt: skip
EPILOGUES: dict[str, tuple[str, ...]] = {
    **{op: (f"%y = tlir.{op} %r : ({{o}}) -> {{o}}",) for op in UNARY_EPILOGUES},
    "log": (
        "%g = tlir.sigmoid %r : ({o}) -> {o}",
        "%y = tlir.log %g : ({o}) -> {o}",
    ),
    **{
        op: (f"%y = tlir.{op} %r, %e : ({{o}}, {{o}}) -> {{o}}",)
        for op in ("add", "sub", "mul_elem", "max_elem", "min_elem")
    },
    "safe_log": ("%y = tlir.safe_log %r, %s : ({o}, {s}) -> {o}",),
    "vector_then_scalar": (
        "%g = tlir.abs %r : ({o}) -> {o}",
        "%h = tlir.inv %g : ({o}) -> {o}",
        "%i = tlir.mul_elem %e, %h : ({o}, {o}) -> {o}",
        "%y = tlir.sin %i : ({o}) -> {o}",
    ),
}
# Row folds of at least vector_row_folds.MIN_TERMS terms run one output per
# vector lane, with the elementwise producers fused into them on vectors.
ROW_FOLDS = [
    "%a = tlir.abs %x : ({x}) -> {x}\n  %y = tlir.reduce_sum %a axis = 1 : ({x}) -> {v}",
    "%a = tlir.mul_elem %x, %x : ({x}, {x}) -> {x}\n"
    "  %y = tlir.reduce_mean %a axis = 1 : ({x}) -> {v}",
    "%a = tlir.inv %x : ({x}) -> {x}\n  %b = tlir.sub %a, %x : ({x}, {x}) -> {x}\n"
    "  %y = tlir.reduce_sum %b axis = 1 : ({x}) -> {v}",
]


def _tensor(shape, dtype: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def _epilogue_module(case, epilogue: str, dtype: str) -> tuple[str, list[np.ndarray]]:
    """`case`'s contraction followed by the epilogue, and its inputs."""
    lines = EPILOGUES[epilogue]
    o, s = _tensor(case.out_shape, dtype), _tensor((), dtype)
    inputs = case.inputs(dtype, seed=7)
    args = [f"%a{i}: {_tensor(shape, dtype)}" for i, shape in enumerate(case.arg_shapes)]
    rng = np.random.default_rng(len(inputs))
    np_dtype = np.float32 if dtype == "f32" else np.float64
    if any("%e" in line for line in lines):
        args.append(f"%e: {o}")
        inputs.append((rng.normal(size=case.out_shape) * 2).astype(np_dtype))
    if any("%s" in line for line in lines):
        args.append(f"%s: {s}")
        inputs.append(np.array(1e-3, np_dtype))
    ins = ", ".join(_tensor(shape, dtype) for shape in case.arg_shapes)
    body = "\n  ".join(line.format(o=o, s=s) for line in lines)
    text = (
        f"func.func @main({', '.join(args)}) -> {o} {{\n"
        f"  %r = {case.body.replace('{t}', dtype)} : ({ins}) -> {o}\n"
        f"  {body}\n  func.return %y : {o}\n}}\n"
    )
    return text, inputs


def _row_fold_module(body: str, dtype: str) -> tuple[str, list[np.ndarray]]:
    x, v = _tensor((16, 256), dtype), _tensor((16,), dtype)
    text = (
        f"func.func @main(%x: {x}) -> {v} {{\n  {body.format(x=x, v=v)}\n"
        f"  func.return %y : {v}\n}}\n"
    )
    np_dtype = np.float32 if dtype == "f32" else np.float64
    return text, [np.random.default_rng(11).normal(size=(16, 256)).astype(np_dtype)]


def kernel_modules(dtype: str, op_cases: bool) -> list[tuple[str, list[np.ndarray]]]:
    """Half the op cases, alternating between the dtypes (if `op_cases`: each
    case in one dtype, every case and every dtype met; the epilogues below run
    every unary op in both); every epilogue after a matmul, a linear and a conv,
    the op cases of each kind taken in turn (so that every case gets some
    epilogues, and every epilogue every kind); and the vector row folds."""
    from op_cases import CASES

    kinds = [
        [c for c in CASES if c.op == kind and all(c.out_shape)]
        for kind in ("matmul", "linear", "conv")
    ]
    mine = CASES[("f64", "f32").index(dtype) :: 2] if op_cases else []
    modules = [(case.text(dtype), case.inputs(dtype, seed=3)) for case in mine]
    modules += [
        _epilogue_module(cases[index % len(cases)], epilogue, dtype)
        for index, epilogue in enumerate(EPILOGUES)
        for cases in kinds
    ]
    return modules + [_row_fold_module(body, dtype) for body in ROW_FOLDS]


@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_every_kernel_kind_and_epilogue_compiles_and_matches(dtype, backend):
    """All the kernels in one module (one compile, about 160 kernels): every op
    case, the generated contraction kernels with each epilogue (math on vectors
    included: upstream MLIR's C-library lowering of a vector `math.absf` calls
    `fabs` lane by lane through vector ops, which the vector lowering must come
    after) and the vector row folds, bit for bit against the reference
    (transcendentals included: both call the reference's C library). The op
    cases alone go through tlir's own route in test_e2e_ops and test_llvm_text,
    so here it takes the epilogues and row folds only (a third of the time)."""
    from autodiff_util import merged
    from fuzz_graphs import same_bits

    texts, inputs = zip(*kernel_modules(dtype, op_cases=backend == "mlir"), strict=True)
    module = merged([tlir.parse_module(text) for text in texts])
    args = [array for arrays in inputs for array in arrays]
    want = evaluate(module, args)
    got = tlir.compile(module, backend=backend, cache=False)(*args)
    assert len(got) == len(texts) == len(want)
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        assert same_bits(g, w), texts[index]
