"""Where the time of a compiled IBP goes, kernel by kernel, against the forward's.

  perf record -e cpu-clock -c 250000 -o /tmp/ibp.data -- \\
      python bench/ibp_profile.py [--dtype f32] [--case cnn|mlp|MODEL.json] [--calls 2000]
  python bench/ibp_profile.py --report /tmp/ibp.data [--calls 2000]

The first command compiles the model (`--case`: the bench's CNN or MLP, or a
model file such as examples/cnn.json), writes a perf map of the kernels of its
forward and of its fast IBP program (`/tmp/perf-PID.map`, named `fwd:kernel`
and `ibp:kernel`), then calls each `--calls` times on one thread. The second
prints, per kernel, the microseconds per call (samples of `-c 250000` ns of CPU
clock each, over the calls) and the kernel's share of its program.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from autodiff import cnn_graph, mlp_graph  # noqa: E402

import tlir  # noqa: E402

PERIOD_NS = 250_000


def _kernels(model) -> list[tuple[str, int]]:
    names = sorted({step.kernel for step in model.plan.steps})
    engine = model.engine.engine
    return [(name, engine.get_function_address(name)) for name in names]


def write_map(models: dict[str, object]) -> None:
    """Each kernel from its address to the next symbol's (the objects are laid out
    one after another; the last one gets 64 KB)."""
    entries = [(a, f"{tag}:{n}") for tag, m in models.items() for n, a in _kernels(m) if a]
    entries.sort()
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for k, (address, name) in enumerate(entries):
            end = entries[k + 1][0] if k + 1 < len(entries) else address + 65536
            out.write(f"{address:x} {min(end - address, 1 << 20):x} {name}\n")


def record(args) -> None:
    graphs = {"cnn": cnn_graph, "mlp": mlp_graph}
    path = graphs[args.case]()[1] if args.case in graphs else args.case
    np_type = np.float32 if args.dtype == "f32" else np.float64
    model = tlir.compile(path, args.dtype, threads=1)
    shapes = [t.get_shape() for t in model.function_op.function_type.inputs.data]
    xs = [np.random.default_rng(0).normal(size=s).astype(np_type) for s in shapes]
    lows, highs = [x - np_type(0.01) for x in xs], [x + np_type(0.01) for x in xs]
    model.ibp(lows, highs)
    fast = model._derivative("ibp", "fast")
    write_map({"fwd": model, "ibp": fast})
    boxes = [a for pair in zip(lows, highs, strict=True) for a in pair]
    for _ in range(args.calls):
        model(*xs)
    for _ in range(args.calls):
        fast.run_checked(boxes)


def report(args) -> None:
    text = subprocess.run(
        ["perf", "report", "-i", args.report, "--stdio", "--sort", "sym", "-F", "sample,sym"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    samples: Counter[str] = Counter()
    for line in text.splitlines():
        match = re.match(r"\s*(\d+)\s+\[.\]\s+(\S+)", line)
        if match:
            samples[match.group(2)] += int(match.group(1))
    per_call = {k: n * PERIOD_NS / 1e3 / args.calls for k, n in samples.items()}
    for tag in ("fwd", "ibp"):
        rows = sorted(
            ((k, v) for k, v in per_call.items() if k.startswith(tag + ":")), key=lambda r: -r[1]
        )
        total = sum(v for _, v in rows)
        print(f"{tag}: {total:8.1f} us per call in kernels")
        for name, us in rows:
            print(f"  {name:40} {us:8.1f} us {100 * us / total:5.1f} %")
    other = sum(v for k, v in per_call.items() if not k.startswith(("fwd:", "ibp:")))
    print(f"outside kernels (Python, NumPy, the call): {other:8.1f} us per call (both programs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtype", default="f64", choices=["f64", "f32"])
    parser.add_argument("--case", default="cnn", help="cnn, mlp or a model file")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--report")
    args = parser.parse_args()
    report(args) if args.report else record(args)


if __name__ == "__main__":
    main()
