"""`tlir-run` on a warm compile cache: the wall time of the whole command, for
this checkout and, with `--against DIR`, another checkout of tlir (an older
version), interleaved run by run so that both see the same machine load.

  python bench/tool_warm.py [--model examples/cnn.json] [--input examples/cnn_input.npy]
                            [--repeat 15] [--against DIR] [--taskset CPU]

Each checkout gets its own compile cache (a fresh temporary directory), filled
by one cold run that is not counted; every counted run is a new process
(`python -m tlir.tools.run MODEL --input X`), whose stdout must be the same
for every checkout. The table shows the minimum and the median (on a shared
machine, say what load it had: `uptime` is printed last).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(checkout: Path, cache: str, args: argparse.Namespace) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=str(checkout), TLIR_CACHE_DIR=cache)
    command = [sys.executable, "-m", "tlir.tools.run", args.model, "--input", args.input]
    if args.taskset is not None:
        command = ["taskset", "-c", args.taskset, *command]
    start = time.perf_counter()
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=str(ROOT / "examples" / "cnn.json"))
    parser.add_argument("--input", default=str(ROOT / "examples" / "cnn_input.npy"))
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--against", type=Path, help="another checkout of tlir to compare with")
    parser.add_argument("--taskset", help="pin every run to these CPUs (taskset -c)")
    args = parser.parse_args()
    checkouts = {"this checkout": ROOT}
    if args.against is not None:
        checkouts["--against"] = args.against.resolve()
    with tempfile.TemporaryDirectory() as scratch:
        caches = {name: os.path.join(scratch, str(i)) for i, name in enumerate(checkouts)}
        outputs = {name: run_once(path, caches[name], args)[1] for name, path in checkouts.items()}
        if len(set(outputs.values())) != 1:
            sys.exit("the checkouts print different outputs")
        times: dict[str, list[float]] = {name: [] for name in checkouts}
        for _ in range(args.repeat):
            for name, path in checkouts.items():
                seconds, out = run_once(path, caches[name], args)
                assert out == outputs[name]
                times[name].append(seconds)
    print(f"tlir-run {args.model} --input {args.input}, warm, {args.repeat} runs each")
    print(f"{'checkout':<16}{'min s':>8}{'median s':>10}")
    for name, values in times.items():
        print(f"{name:<16}{min(values):>8.3f}{statistics.median(values):>10.3f}")
    if len(times) == 2:
        ratio = statistics.median(times["--against"]) / statistics.median(times["this checkout"])
        print(f"median of --against over this checkout: {ratio:.2f}")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
