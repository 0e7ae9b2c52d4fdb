"""Run time of compiled tlir code against NumPy and PyTorch eager (CPU), measured
in the same run; prints times and ratios (tlir time / other time: below 1 means
tlir is faster).

  python bench/run_time.py [--repeat 20] [--backends xdsl mlir]

tlir's default numerics are strict (sums in TorchLean's order, no
reassociation, no FMA), so reductions cannot be vectorised along the summed
axis; NumPy and PyTorch use blocked BLAS and SIMD reductions.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import graphs  # noqa: E402

import tlir  # noqa: E402
from tlir.backend import mlir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

try:
    import torch
    import torch.nn.functional as F  # noqa: N812

    torch.set_num_threads(1)
except ImportError:  # PyTorch is optional: `pip install torch==2.13.0`
    torch = None


def best_of(function: Callable[[], object], repeat: int) -> float:
    function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def compiled(graph_or_text, backend: str):
    """A compiled model from a graph dict, a model path, or MLIR text."""
    if isinstance(graph_or_text, str) and graph_or_text.endswith(".json"):
        return tlir.compile(graph_or_text, backend=backend)
    if isinstance(graph_or_text, dict):
        path = Path(tempfile.mkdtemp()) / "model.json"
        path.write_text(json.dumps(graph_or_text))
        return tlir.compile(str(path), backend=backend)
    return tlir.compile(graph_or_text, backend=backend)


def tlir_times(source, inputs: list[np.ndarray], backends: list[str], repeat: int) -> dict:
    """Best time of the compiled model per back end (compile time excluded)."""
    from functools import partial

    return {be: best_of(partial(compiled(source, be), *inputs), repeat) for be in backends}


def report(name: str, tlir_times: dict[str, float], others: dict[str, float]) -> None:
    for backend, seconds in tlir_times.items():
        ratios = "  ".join(f"vs {k} {seconds / v:7.2f}x" for k, v in others.items())
        print(f"{name:34} tlir[{backend}] {seconds * 1e3:9.3f} ms  {ratios}", flush=True)
    print(f"{'':34} " + "  ".join(f"{k} {v * 1e3:.3f} ms" for k, v in others.items()), flush=True)


def matmul_case(backends, repeat):
    n = 512
    t = f"tensor<{n}x{n}xf64>"
    text = (
        f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
        f"  %c = tlir.matmul %a, %b : ({t}, {t}) -> {t}\n  func.return %c : {t}\n}}"
    )
    a, b = np.random.default_rng(0).normal(size=(2, n, n))
    times = tlir_times(text, [a, b], backends, repeat)
    others = {"numpy": best_of(lambda: a @ b, repeat)}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        others["torch"] = best_of(lambda: ta @ tb, repeat)
    report("matmul 512x512 f64", times, others)


CHAIN = ["mul_elem", "add", "relu", "sqrt", "sub", "abs", "max_elem", "min_elem"]


def chain_case(backends, repeat):
    n = 1_000_000
    typ = f"tensor<{n}xf64>"
    lines, prev = [], "%x"
    for i, op in enumerate(CHAIN):
        unary = op in ("relu", "sqrt", "abs")
        operands, types = (prev, typ) if unary else (f"{prev}, %y", f"{typ}, {typ}")
        lines.append(f"  %v{i} = tlir.{op} {operands} : ({types}) -> {typ}")
        prev = f"%v{i}"
    text = (
        f"func.func @main(%x: {typ}, %y: {typ}) -> {typ} {{\n"
        + "\n".join(lines)
        + f"\n  func.return {prev} : {typ}\n}}"
    )
    x, y = np.random.default_rng(1).normal(size=(2, n))

    def numpy_chain():
        v = x * y
        v = v + y
        v = np.where(v <= 0, 0.0, v)
        v = np.sqrt(np.where(v <= 0, 0.0, v))
        v = v - y
        v = np.abs(v)
        v = np.where(v <= y, y, v)
        return np.where(v <= y, v, y)

    times = tlir_times(text, [x, y], backends, repeat)
    others = {"numpy": best_of(numpy_chain, repeat)}
    if torch is not None:
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def torch_chain():
            v = tx * ty
            v = v + ty
            v = torch.relu(v)
            v = torch.sqrt(v)
            v = v - ty
            v = torch.abs(v)
            v = torch.maximum(v, ty)
            return torch.minimum(v, ty)

        others["torch"] = best_of(torch_chain, repeat)
    report("8-op elementwise chain, 1e6 f64", times, others)


def conv_case(backends, repeat):
    """A 3x3 convolution, 16 -> 16 channels, batch 8, 32x32, padding 1."""
    t, wt = "tensor<8x16x32x32xf64>", "tensor<16x16x3x3xf64>"
    props = (
        "{kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, "
        "padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, "
        "channel_axis = 1 : i64, in_channels = 16 : i64, out_channels = 16 : i64}"
    )
    text = (
        f"func.func @main(%x: {t}, %w: {wt}, %b: tensor<16xf64>) -> {t} {{\n"
        f"  %0 = tlir.conv %x, %w, %b {props} : ({t}, {wt}, tensor<16xf64>) -> {t}\n"
        f"  func.return %0 : {t}\n}}"
    )
    rng = np.random.default_rng(4)
    x, w, b = rng.normal(size=(8, 16, 32, 32)), rng.normal(size=(16, 16, 3, 3)), rng.normal(size=16)
    times = tlir_times(text, [x, w, b], backends, repeat)
    others = {}
    if torch is not None:
        tx, tw, tb = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)
        others["torch"] = best_of(lambda: F.conv2d(tx, tw, tb, padding=1), repeat)
    report("conv 3x3, 8x16x32x32, f64", times, others)


def mlp_graph():
    b = graphs.Builder([64, 784], seed=3)
    h = b.linear(0, [64, 784], 512)
    h = b.add("relu", [h], [64, 512])
    h = b.linear(h, [64, 512], 512)
    h = b.add("relu", [h], [64, 512])
    out = b.linear(h, [64, 512], 10)
    return b.graph(out), [n for n in b.nodes if n["kind"] == "linear"]


def mlp_case(backends, repeat):
    graph, linears = mlp_graph()
    x = np.random.default_rng(2).normal(size=(64, 784))
    weights = [(np.array(n["weight"]), np.array(n["bias"])) for n in linears]

    def numpy_mlp():
        h = x
        for i, (w, b) in enumerate(weights):
            h = h @ w.T + b
            if i < 2:
                h = np.maximum(h, 0)
        return h

    times = tlir_times(graph, [x], backends, repeat)
    others = {"numpy": best_of(numpy_mlp, repeat)}
    if torch is not None:
        tx = torch.from_numpy(x)
        tw = [(torch.from_numpy(w), torch.from_numpy(b)) for w, b in weights]

        def torch_mlp():
            h = tx
            for i, (w, b) in enumerate(tw):
                h = F.linear(h, w, b)
                if i < 2:
                    h = torch.relu(h)
            return h

        others["torch"] = best_of(torch_mlp, repeat)
    report("MLP 784-512-512-10, batch 64, f64", times, others)


def bundled_case(name, backends, repeat):
    """Bundled models: against the reference evaluator (NumPy, TorchLean's exact
    order, one Python loop step per summed index) and PyTorch eager, node by node."""
    from tlir.reference import evaluate

    path = str(ROOT / "examples" / f"{name}.json")
    x = np.load(ROOT / "examples" / f"{name}_input.npy")
    module = tlir.load_model(path)
    times = tlir_times(path, [x], backends, repeat)
    others = {"reference (numpy)": best_of(lambda: evaluate(module, [x]), max(2, repeat // 10))}
    if torch is not None:
        import eager

        ids = [op.node_id.value.data for op in module.walk() if op.name == "tlir.bernoulli_mask"]
        runner = eager.torch_runner(json.loads(Path(path).read_text()), ids)
        others["torch"] = best_of(lambda: runner(x), repeat)
    report(f"bundled {name}", times, others)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--backends", nargs="+", default=["xdsl", "mlir"])
    args = parser.parse_args()
    backends = [b for b in args.backends if b != "mlir" or mlir.find_tool("mlir-opt")]
    version = torch.__version__ if torch else "not installed"
    print(f"torch: {version} (1 thread); numpy {np.__version__}")
    for name in ("cnn", "transformer_block"):
        bundled_case(name, backends, args.repeat)
    matmul_case(backends, max(3, args.repeat // 4))
    chain_case(backends, args.repeat)
    mlp_case(backends, args.repeat)
    conv_case(backends, args.repeat)


if __name__ == "__main__":
    main()
