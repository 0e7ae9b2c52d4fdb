"""Model file formats: size, write time and load time of one MLP's weights.

  python bench/model_format.py [--widths 784 512 512 10] [--dtype f32 f64]
                               [--values full float32] [--repeat 3]

Builds a multilayer perceptron (linear layers of the given widths, a relu
between each two, batch 64) in the element type of each `--dtype`, with
weights of one of two kinds (`--values`): `full`, normally distributed values
of every bit of that type (a trained model's), or `float32`, PyTorch's default
initialisation drawn in float32 (uniform within ±1/√fan_in) and widened, as a
PyTorch model converted with `.double()` holds (for f32 the two are alike, and
only `full` is measured). Then it writes it as `torchlean.ir.v1`
JSON, as a `.tlz` container and, for comparison, as MLIR text (xDSL prints
large constants as hexadecimal `dense<"0x…">` literals), and reads each back.
**write** = the module to a file (`tlir.torchlean.exporter.export_bytes`, or
printing); **load** = the file to a verified module (`tlir.load_model`, then
the verifier); each the best of `--repeat` rounds in this process, every round
running each format once in turn. Ratios are JSON's figure over the other
format's.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tlir.api import load_model  # noqa: E402
from tlir.compiler.model import to_text  # noqa: E402
from tlir.diagnostics import verify_module  # noqa: E402
from tlir.files import write_output  # noqa: E402
from tlir.torchlean import import_graph  # noqa: E402
from tlir.torchlean.exporter import export_bytes  # noqa: E402
from tlir.torchlean.reader import read_graph  # noqa: E402

BATCH = 64


def mlp_document(widths: list[int], dtype: str, seed: int = 0, values: str = "full") -> dict:
    """The MLP as a graph document. `values="full"`: weights of every bit (no
    rounding to a few decimals, as a trained model's), float32 values for f32,
    float64 for f64; `"float32"`: PyTorch's default initialisation of a linear
    layer (uniform within ±1/√fan_in) drawn in float32, widened for f64."""
    rng = np.random.default_rng(seed)
    carrier = np.float32 if dtype == "f32" else np.float64
    nodes: list[dict] = [{"id": 0, "kind": "input", "parents": [], "shape": [BATCH, widths[0]]}]
    for index, (fan_in, fan_out) in enumerate(itertools.pairwise(widths)):
        if index:
            nodes.append(_node(nodes, "relu", [BATCH, fan_in]))
        if values == "float32":
            bound = fan_in**-0.5
            weight = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
            bias = rng.uniform(-bound, bound, fan_out).astype(np.float32)
            weight, bias = weight.astype(carrier), bias.astype(carrier)
        else:
            weight = rng.normal(0, fan_in**-0.5, (fan_out, fan_in)).astype(carrier)
            bias = rng.normal(0, 0.01, fan_out).astype(carrier)
        nodes.append(
            _node(
                nodes,
                "linear",
                [BATCH, fan_out],
                out_dim=fan_out,
                in_dim=fan_in,
                weight=weight.tolist(),
                bias=bias.tolist(),
            )  # fmt: skip
        )
    last = len(nodes) - 1
    return {"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [last], "nodes": nodes}


def _node(nodes: list[dict], kind: str, shape: list[int], **fields) -> dict:
    return {"id": len(nodes), "kind": kind, "parents": [len(nodes) - 1], "shape": shape, **fields}


def interleaved_best(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """The best time of each run over `repeat` rounds, each round running every
    one once, in turn: on a shared machine a burst of load slows all of them,
    not the repetitions of one."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in times.items()}


FORMATS = ("json", "tlz", "mlir")


def measure(directory: str, widths: list[int], dtype: str, values: str, repeat: int) -> None:
    import json

    source = os.path.join(directory, f"source-{dtype}.json")
    Path(source).write_text(json.dumps(mlp_document(widths, dtype, values=values)))
    module = import_graph(read_graph(source), dtype)
    params = sum(a * b + b for a, b in itertools.pairwise(widths))
    print(f"\nMLP {'-'.join(map(str, widths))} {dtype}, {values} values: {params} parameters")
    print(f"{'format':<8} {'bytes':>12} {'write s':>9} {'load s':>9}   ratios (JSON / format)")
    paths = {ext: os.path.join(directory, f"mlp-{dtype}.{ext}") for ext in FORMATS}

    def writer(ext: str) -> Callable[[], object]:
        if ext == "mlir":
            return lambda: write_output(paths[ext], to_text(module))
        return lambda: write_output(paths[ext], export_bytes(module, paths[ext]))

    def loader(ext: str) -> Callable[[], object]:
        return lambda: verify_module(load_model(paths[ext], dtype), paths[ext])

    writes = interleaved_best({ext: writer(ext) for ext in FORMATS}, repeat)
    loads = interleaved_best({ext: loader(ext) for ext in FORMATS}, repeat)
    size0 = os.path.getsize(paths["json"])
    for ext in FORMATS:
        size = os.path.getsize(paths[ext])
        ratios = f"size {size0 / size:5.1f}x  write {writes['json'] / writes[ext]:5.1f}x  "
        ratios += f"load {loads['json'] / loads[ext]:6.1f}x"
        print(f"{ext:<8} {size:>12} {writes[ext]:>9.4f} {loads[ext]:>9.4f}   {ratios}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[784, 512, 512, 10])
    parser.add_argument("--dtype", nargs="+", choices=("f32", "f64"), default=["f32", "f64"])
    parser.add_argument(
        "--values", nargs="+", choices=("full", "float32"), default=["full", "float32"]
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        for dtype in args.dtype:
            for values in args.values:
                if dtype == "f64" or values == "full":
                    measure(directory, args.widths, dtype, values, args.repeat)


if __name__ == "__main__":
    main()
