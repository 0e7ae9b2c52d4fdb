"""Compile time per stage, cold and warm, against a calibration measured in the
same run (and against `torch.compile` where PyTorch is installed).

  python bench/compile_time.py [--sizes 300 3000] [--graphs mlp transformer chain]
                               [--backends xdsl mlir] [-O 2]

Graphs: `mlp` (linear and relu), `transformer` (pre-norm MLP blocks), `chain`
(4x4 unary elementwise ops in a row: kernel formation and fusion at length);
without `--sizes`, 300 and 3,000 nodes, and 1,000 and 10,000 for `chain`. Two
of one size: `mlp1024` (the MLP 1024-256-256-10 of bench/run_time.py) and
`block` (examples/transformer_block.json). `--repeat N` runs each compile N
times and shows the medians (on a shared machine, say what load it had).
`ratio-imp` is the compile without the import, over the calibration. tlir's
modules are byte-compiled first, as an installed package's are.

Each compile runs in a fresh process: **cold** with an empty compile cache,
**warm** with the cache the cold run filled (a new process hitting the
cache). The child calls `tlir.compile(path)`. Stages: `import` (Python imports —
NumPy's too, which any caller of a compiled model has made: its inputs are
arrays — plus the compile's `read`: the loading stage, or on a warm compile
reading the file and its entry, the module not built at all), `tlir`
(kernel formation), `lowering` (xDSL passes, or mlir-opt, of the distinct
kernels), `llvm` (LLVM's optimizer and code generation), `entry` (the plan
and its entry function), `load` (reading cache entries), `link`; `runtime` is
not part of the compile: the thread runtime's load at the first call with more
than one thread (from the cache when warm, else LLVM). Ratios are
to the **calibration**: xDSL parsing, verifying and printing a 3,000-op
`arith` function, timed in this process (best of three) before each graph and
back end and once more at the end; the ratios use the fastest of these, since
a shared or virtual machine's speed drifts during a run (the table is printed
at the end). `growth` is the time per node at
each size over the time per node at the smallest size (1.00 is linear).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import graphs  # noqa: E402

CHILD = r"""
import json, sys, time
start = time.perf_counter()
import numpy  # a caller of a compiled model has it: its inputs are NumPy arrays
import tlir
imported = time.perf_counter() - start
compiled = tlir.compile(sys.argv[1], backend=sys.argv[2], opt_level=int(sys.argv[3]))
total = time.perf_counter() - start
stats = {k: v for k, v in compiled.stats.items()}
imported += stats.pop("read")
from tlir.compiler import jit, pool
start = time.perf_counter()
if jit.host().threads:
    pool.runtime()
runtime = time.perf_counter() - start
print(json.dumps({"import": imported, "total": total, **stats, "runtime": runtime}))
"""


def calibration() -> float:
    """xDSL parse + verify + print of a 3,000-op arith function, in seconds."""
    from xdsl.context import Context
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.parser import Parser
    from xdsl.printer import Printer

    lines, previous = ["func.func @f(%a: f64) -> f64 {"], "%a"
    for i in range(3000):
        lines.append(f"  %v{i} = arith.addf {previous}, %a : f64")
        previous = f"%v{i}"
    lines.append(f"  func.return {previous} : f64\n}}")
    text = "\n".join(lines)
    ctx = Context()
    for dialect in (Builtin, Func, Arith):
        ctx.load_dialect(dialect)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        module = Parser(ctx, text).parse_module()
        module.verify()
        Printer(stream=io.StringIO()).print_op(module)
        best = min(best, time.perf_counter() - start)
    return best


def byte_compile() -> None:
    """tlir's modules (and the dialects' and passes') byte-compiled, as an installed
    package is: with PYTHONDONTWRITEBYTECODE set, every fresh process would
    otherwise compile their sources again (about 0.1 s of each compile)."""
    import compileall

    import tlir
    import tlir.dialects
    import tlir.passes

    for package in (tlir, tlir.dialects, tlir.passes):
        compileall.compile_dir(package.__path__[0], quiet=2)


def child_compile(path: str, backend: str, opt_level: int, cache_dir: str) -> dict:
    env = {**os.environ, "TLIR_CACHE_DIR": cache_dir}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, path, backend, str(opt_level)],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise SystemExit(f"compile failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def torch_compile_seconds(graph: dict) -> float | None:
    """First call of `torch.compile` on the graph's eager PyTorch program."""
    try:
        import eager
        import numpy as np
        import torch
    except ImportError:
        return None
    runner = eager.torch_runner(graph, [])
    shape = graph["nodes"][0]["shape"]
    x = np.random.default_rng(0).normal(size=shape)
    compiled = torch.compile(lambda: runner(x))
    torch._dynamo.reset()
    start = time.perf_counter()
    compiled()
    return time.perf_counter() - start


DEFAULT_SIZES = {"chain": (1000, 10000)}

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def mlp_1024() -> dict:
    """The MLP 1024-256-256-10 (batch 128) of bench/run_time.py."""
    b = graphs.Builder([128, 1024], seed=3)
    return b.graph(b.mlp(0, 128, [1024, 256, 256, 10]))


FIXED = {
    "mlp1024": mlp_1024,
    "block": lambda: json.loads((EXAMPLES / "transformer_block.json").read_text()),
}
"""Graphs of one size (`--sizes` does not apply)."""


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r.get(key, 0.0) for r in runs)


STAGES = ("import", "tlir", "lowering", "llvm", "entry", "load", "link", "runtime")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--graphs", nargs="+", default=["mlp", "transformer", "chain"])
    parser.add_argument("--backends", nargs="+", default=["xdsl", "mlir"])
    parser.add_argument("-O", "--opt-level", type=int, default=2)
    parser.add_argument("--torch", action="store_true", help="also time torch.compile")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; medians shown")
    args = parser.parse_args()
    from tlir.compiler.backend import mlir

    backends = [b for b in args.backends if b != "mlir" or mlir.find_tool("mlir-opt")]
    byte_compile()
    calibrations: list[float] = []
    rows: list[tuple[str, float, float, str]] = []  # (before the ratio, seconds, import, after)
    makers = {
        "mlp": graphs.mlp_chain,
        "transformer": graphs.transformer_chain,
        "chain": graphs.elementwise_chain,
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.graphs:
            sizes = (0,) if name in FIXED else args.sizes or DEFAULT_SIZES.get(name, (300, 3000))
            for backend in backends:
                calibrations.append(calibration())
                base = None
                for size in sizes:
                    graph = FIXED[name]() if name in FIXED else makers[name](size)
                    count = len(graph["nodes"])
                    path = Path(tmp) / f"{name}{size}.json"
                    path.write_text(json.dumps(graph))
                    runs: dict[str, list[dict]] = {"cold": [], "warm": []}
                    for repeat in range(args.repeat):
                        cache = Path(tmp) / f"cache-{name}-{size}-{backend}-{repeat}"
                        for run in runs:
                            stats = child_compile(str(path), backend, args.opt_level, str(cache))
                            runs[run].append(stats)
                    for run, measured in runs.items():
                        stats = {k: _median(measured, k) for k in ("total", *STAGES)}
                        total = stats["total"]
                        growth = ""
                        if run == "cold" and name not in FIXED:
                            per_node = total / count
                            base = base or per_node
                            growth = f"{per_node / base:7.2f}"
                        stages = "".join(f" {stats[s]:8.2f}" for s in STAGES)
                        head = f"{name:12} {count:6d} {backend:7} {run:5} {total:8.2f} "
                        rows.append((head, total, stats["import"], f"x{stages} {growth:>7}"))
            if args.torch and name not in FIXED:
                graph = makers[name](min(sizes))
                seconds = torch_compile_seconds(graph)
                if seconds is not None:
                    head = f"{name:12} {len(graph['nodes']):6d} torch.compile (first call) "
                    rows.append((head + f"{seconds:8.2f} s  ", seconds, 0.0, "x"))
    calibrations.append(calibration())
    calib = min(calibrations)
    print(
        f"calibration (xDSL parse+verify+print, 3,000 arith ops): {calib:.3f} s "
        f"(fastest of {', '.join(f'{c:.3f}' for c in calibrations)})"
    )
    header = f"{'graph':12} {'nodes':>6} {'backend':7} {'run':5} {'seconds':>8} {'ratio':>7}"
    print(header + "".join(f" {s:>8}" for s in STAGES) + f" {'growth':>7} {'ratio-imp':>9}")
    for head, seconds, imported, tail in rows:
        print(f"{head}{seconds / calib:6.1f}{tail} {(seconds - imported) / calib:8.2f}x")


if __name__ == "__main__":
    main()
