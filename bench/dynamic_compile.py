"""The first compile of a dynamic-batch model against a static compile of the
same model, cold (no compile cache), in the same run.

  python bench/dynamic_compile.py [--repeat 3] [--models mlp cnn transformer mix]

Models: test/python/torch_models.py's four, f32 and f64, imported with
from_torch (batch `?`). "static s" is `tlir.compile` of the module at batch 3 and
its first call; "once s" is `tlir.compile` of the `?` module and its first call
(the one compile for every batch). Minimum over `--repeat` processes of each;
the two results are checked bit-identical.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
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


def one(name: str, dtype: str, kind: str) -> None:
    """In this process: one cold compile; prints its seconds and its outputs."""
    cls, shape = torch_models.MODELS[name]
    torch.manual_seed(0)
    wide = dtype == "f64"
    net = cls().eval().double() if wide else cls().eval()
    example = torch.randn(*shape, dtype=torch.float64 if wide else torch.float32)
    module = tlir.from_torch(net, (example,))
    x = np.random.default_rng(0).random((3, *shape[1:])).astype(example.numpy().dtype)
    source = specialize(module, 3) if kind == "static" else module
    t, out = seconds(lambda: tlir.compile(source, cache=False), x)
    print(json.dumps([t, [o.tobytes().hex() for o in out]]))


def measure(name: str, dtype: str, kind: str) -> tuple[float, list]:
    command = [sys.executable, "-W", "ignore", __file__, "--one", name, dtype, kind]
    lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(lines.splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--models", nargs="+", default=list(torch_models.MODELS))
    p.add_argument("--dtypes", nargs="+", default=["f32", "f64"])
    p.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        return one(*args.one)
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
