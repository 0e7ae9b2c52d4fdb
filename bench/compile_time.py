"""Compile time against graph size, per back end: seconds per node and the
growth ratio (time per node at N over time per node at the smallest N; 1.0 is
linear growth).

  python bench/compile_time.py [--sizes 100 1000 3000] [--backends xdsl mlir]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import graphs  # noqa: E402

import tlir  # noqa: E402
from tlir.backend import mlir  # noqa: E402


def compile_seconds(graph: dict, backend: str, opt_level: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        path.write_text(json.dumps(graph))
        start = time.perf_counter()
        tlir.compile(str(path), backend=backend, opt_level=opt_level)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 3000])
    parser.add_argument("--backends", nargs="+", default=["xdsl", "mlir"])
    parser.add_argument("-O", "--opt-level", type=int, default=2)
    args = parser.parse_args()
    backends = [b for b in args.backends if b != "mlir" or mlir.find_tool("mlir-opt")]
    print(f"{'graph':12} {'nodes':>6} {'backend':8} {'seconds':>9} {'s/node':>9} {'growth':>7}")
    for name, make in (("mlp", graphs.mlp_chain), ("transformer", graphs.transformer_chain)):
        for backend in backends:
            base = None
            for size in args.sizes:
                graph = make(size)
                count = len(graph["nodes"])
                seconds = compile_seconds(graph, backend, args.opt_level)
                per_node = seconds / count
                base = base or per_node
                print(
                    f"{name:12} {count:6d} {backend:8} {seconds:9.2f} {per_node:9.4f} "
                    f"{per_node / base:7.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
