"""The first compile of a dynamic-batch model against a static compile of the
same model, cold (no compile cache), in the same run; with `--warm`, a warm
fresh process's first compile and call of the dynamic model.

  python bench/dynamic_compile.py [--repeat 3] [--models mlp cnn transformer mix]
  python bench/dynamic_compile.py --warm [--compare OTHER_CHECKOUT] [--repeat 15]

Models: test/python/torch_models.py's four, f32 and f64, imported with
from_torch (batch `?`). "static s" is `tlir.compile` of the module at batch 3 and
its first call; "once s" is `tlir.compile` of the `?` module and its first call
(the one compile for every batch). Minimum over `--repeat` processes of each;
the two results are checked bit-identical.

`--warm`: each process finds the dynamic model in a compile cache filled by a
cold process of the same checkout; "warm s" is `tlir.compile` and the first call
at batch 3 (minimum and median over `--repeat` processes), "llvm" the LLVM
compiles the process ran and their milliseconds. `--compare DIR` times the tlir
of another checkout (its repository root) in alternate processes of the same run,
each with a cache of its own; the results of both are checked bit-identical.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

import tlir
from tlir.passes.tlir_specialize_batch import specialize

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "python"))
import torch_models  # noqa: E402


def seconds(make, x) -> tuple[float, list]:
    start = time.perf_counter()
    model = make()
    out = model(x)
    return time.perf_counter() - start, out


def _model(name: str, dtype: str):
    """The test model `name` from PyTorch (its `?` batch) and an input of batch 3."""
    cls, shape = torch_models.MODELS[name]
    torch.manual_seed(0)
    wide = dtype == "f64"
    net = cls().eval().double() if wide else cls().eval()
    example = torch.randn(*shape, dtype=torch.float64 if wide else torch.float32)
    module = tlir.from_torch(net, (example,))
    x = np.random.default_rng(0).random((3, *shape[1:])).astype(example.numpy().dtype)
    return module, x


def one(name: str, dtype: str, kind: str) -> None:
    """In this process: one cold compile; prints its seconds and its outputs."""
    module, x = _model(name, dtype)
    source = specialize(module, 3) if kind == "static" else module
    t, out = seconds(lambda: tlir.compile(source, cache=False), x)
    print(json.dumps([t, [o.tobytes().hex() for o in out]]))


def measure(name: str, dtype: str, kind: str) -> tuple[float, list]:
    command = [sys.executable, "-W", "ignore", __file__, "--one", name, dtype, kind]
    lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(lines.splitlines()[-1])


def one_warm(name: str, dtype: str) -> None:
    """In this process: the dynamic model's compile and first call on the
    configured cache; prints its seconds, its LLVM compiles (count, seconds)
    and its outputs."""
    from tlir.compiler import jit

    llvm = [0, 0.0]
    original = jit._compile_object

    def counted(*args, **kwargs):
        begin = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            llvm[0] += 1
            llvm[1] += time.perf_counter() - begin

    jit._compile_object = counted
    module, x = _model(name, dtype)
    t, out = seconds(lambda: tlir.compile(module), x)
    print(json.dumps([t, llvm, [o.tobytes().hex() for o in out]]))


def measure_warm(name: str, dtype: str, root: str, cache: str) -> tuple[float, list, list]:
    """One process of the tlir in `root` (a repository root) on the cache `cache`."""
    env = {**os.environ, "PYTHONPATH": root, "TLIR_CACHE_DIR": cache}
    command = [sys.executable, "-W", "ignore", __file__, "--one-warm", name, dtype]
    lines = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout
    return json.loads(lines.splitlines()[-1])


def warm(args) -> None:
    roots = {"this": str(Path(__file__).resolve().parents[1])}
    if args.compare:
        roots["other"] = str(Path(args.compare).resolve())
    header = f"{'model':12} {'dtype':5} {'warm s':>7} {'median':>7} {'llvm':>10}"
    if args.compare:
        header += f" {'other s':>8} {'median':>7} {'llvm':>10} {'ratio':>6}"
    print(header)
    with tempfile.TemporaryDirectory() as caches:
        for name in args.models:
            for dtype in args.dtypes:
                times = {k: [] for k in roots}
                llvm = {}
                want = None
                for k, root in roots.items():  # a cold process fills each cache
                    measure_warm(name, dtype, root, f"{caches}/{k}-{name}-{dtype}")
                for _ in range(args.repeat):
                    for k, root in roots.items():
                        t, runs, out = measure_warm(
                            name, dtype, root, f"{caches}/{k}-{name}-{dtype}"
                        )
                        times[k].append(t)
                        llvm[k] = runs
                        want = want or out
                        assert out == want, f"{name} {dtype}: the results differ"
                row = f"{name:12} {dtype:5}"
                for k in roots:
                    count, ms = llvm[k][0], 1e3 * llvm[k][1]
                    row += f" {min(times[k]):7.3f} {statistics.median(times[k]):7.3f}"
                    row += f" {f'{count} {ms:.1f}ms':>10}"
                if args.compare:
                    row += f" {min(times['this']) / min(times['other']):6.3f}"
                print(row, flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--models", nargs="+", default=list(torch_models.MODELS))
    p.add_argument("--dtypes", nargs="+", default=["f32", "f64"])
    p.add_argument("--warm", action="store_true", help="time a warm fresh process's first call")
    p.add_argument("--compare", help="with --warm: another checkout's root, timed alike")
    p.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    p.add_argument("--one-warm", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        return one(*args.one)
    if args.one_warm:
        return one_warm(*args.one_warm)
    if args.warm:
        return warm(args)
    print(f"{'model':12} {'dtype':5} {'static s':>9} {'once s':>8} {'ratio':>6}")
    for name in args.models:
        for dtype in args.dtypes:
            static, once = [], []
            for _ in range(args.repeat):
                t, want = measure(name, dtype, "static")
                static.append(t)
                t, got = measure(name, dtype, "once")
                once.append(t)
                assert got == want, f"{name} {dtype}: the results differ"
            print(
                f"{name:12} {dtype:5} {min(static):9.2f} {min(once):8.2f} "
                f"{min(once) / min(static):6.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
