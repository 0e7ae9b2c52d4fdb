"""CPU time of kernel formation (`tlir` stage) and of the xDSL lowering of the
distinct kernels (`lowering` stage) of bench/compile_time.py's graphs: the calling
thread's CPU time, so that a loaded machine changes it far less than wall time.

  python -P bench/lowering_cpu.py [--repeat 5] [--graphs mlp1024 block mlp transformer chain]
                                  [--compare CHECKOUT …]

Each stage runs `--repeat` times in one process (the garbage collector paused, as
a compile pauses it) and the best time is shown. With `--compare`, each
checkout (a directory with tlir's sources) is measured in its own processes,
taking turns, `--rounds` times, and the table shows the best of all and the
ratio of each checkout to the first.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

GRAPHS = ("mlp1024", "block", "mlp", "transformer", "chain")


def graph(name: str) -> dict:
    import compile_time
    import graphs

    if name in compile_time.FIXED:
        return compile_time.FIXED[name]()
    makers = {
        "mlp": graphs.mlp_chain,
        "transformer": graphs.transformer_chain,
        "chain": graphs.elementwise_chain,
    }
    return makers[name](1000)


def measure(names: list[str], repeat: int) -> dict[str, dict[str, float]]:
    """{graph: {"tlir": s, "lowering": s, "kernels": n}}, best of `repeat`."""
    from xdsl.dialects import func

    import tlir
    from tlir.compiler import build
    from tlir.passes.tlir_form_kernels import is_kernel

    results = {}
    gc.disable()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(graph(name)))
            module = tlir.load_model(str(path))
            best = {"tlir": float("inf"), "lowering": float("inf")}
            for _ in range(repeat):
                start = time.thread_time()
                work, entry = build._entry_module(module, "main", True)
                best["tlir"] = min(best["tlir"], time.thread_time() - start)
                used = {
                    op.callee.root_reference.data
                    for op in entry.walk()
                    if isinstance(op, func.CallOp)
                }
                kernels = [
                    k
                    for k in work.ops
                    if isinstance(k, func.FuncOp)
                    and is_kernel(k)
                    and k.sym_name.data in used
                    and build._computes_something(k)
                ]
                start = time.thread_time()
                for kernel in kernels:
                    build._start_lowering(kernel, "xdsl", name)
                best["lowering"] = min(best["lowering"], time.thread_time() - start)
                del work, entry
                gc.collect()
            results[name] = {**best, "kernels": len(kernels)}
    return results


def compare(checkouts: list[str], names: list[str], repeat: int, rounds: int) -> None:
    best: dict[str, dict[str, dict[str, float]]] = {c: {} for c in checkouts}
    for _ in range(rounds):
        for checkout in checkouts:
            env = {**os.environ, "PYTHONPATH": checkout}
            command = [sys.executable, "-P", __file__, "--json", "--repeat", str(repeat)]
            out = subprocess.run(
                [*command, "--graphs", *names], env=env, capture_output=True, text=True
            )
            if out.returncode != 0:
                raise SystemExit(f"{checkout}: {out.stderr.strip()}")
            for name, row in json.loads(out.stdout).items():
                mine = best[checkout].setdefault(name, dict(row))
                for stage in ("tlir", "lowering"):
                    mine[stage] = min(mine[stage], row[stage])
    first = checkouts[0]
    print(f"{'graph':12} {'kernels':>7} {'checkout':40} {'tlir':>8} {'lowering':>8} {'both':>8}")
    totals = {c: [0.0, 0.0] for c in checkouts}
    for name in names:
        for checkout in checkouts:
            row, base = best[checkout][name], best[first][name]
            both, base_both = row["tlir"] + row["lowering"], base["tlir"] + base["lowering"]
            totals[checkout][0] += row["tlir"]
            totals[checkout][1] += row["lowering"]
            print(
                f"{name:12} {row['kernels']:7d} {checkout[-40:]:40} {row['tlir']:8.3f}"
                f" {row['lowering']:8.3f} {both:8.3f}  x{both / base_both:.2f}"
            )
    for checkout in checkouts:
        t, lo = totals[checkout]
        bt, blo = totals[first]
        print(
            f"{'total':12} {'':7} {checkout[-40:]:40} {t:8.3f} {lo:8.3f} {t + lo:8.3f}"
            f"  tlir x{t / bt:.2f} lowering x{lo / blo:.2f} both x{(t + lo) / (bt + blo):.2f}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--compare", nargs="+")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.compare:
        compare(args.compare, args.graphs, args.repeat, args.rounds)
        return
    results = measure(args.graphs, args.repeat)
    if args.json:
        print(json.dumps(results))
        return
    for name, row in results.items():
        print(f"{name:12} {row['kernels']:4d} kernels  tlir {row['tlir']:.3f} s  "
              f"lowering {row['lowering']:.3f} s")  # fmt: skip


if __name__ == "__main__":
    main()
