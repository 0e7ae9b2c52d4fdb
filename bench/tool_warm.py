"""`tlir-run` on a warm compile cache: the wall time of the whole command, for
this checkout and, with `--against DIR`, another checkout of tlir (an older
version), interleaved run by run so that both see the same machine load.

  python bench/tool_warm.py [--model examples/cnn.json] [--input examples/cnn_input.npy]
                            [--repeat 15] [--against DIR] [--taskset CPU]

Each checkout gets its own compile cache (a fresh temporary directory), filled
by one cold run that is not counted; every counted run is a new process that
imports `tlir.tools.run` and calls its `main(["MODEL", "--input", "X"])`, whose
output must be the same for every checkout. Columns: `wall` (the whole
process), `import` (NumPy and the tool's module) and `main` (the rest: reading
the model or linking it from the cache, the call, the printing, and the imports
only that path makes). Minimum and median of each (on a shared machine, say
what load it had: `uptime` is printed last).
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

CHILD = r"""
import contextlib, io, sys, time
start = time.perf_counter()
import numpy
import tlir.tools.run
imported = time.perf_counter()
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = tlir.tools.run.main([sys.argv[1], "--input", sys.argv[2]])
done = time.perf_counter()
print(f"{imported - start} {done - imported} {code} {tlir.__file__}")
print(out.getvalue(), end="")
"""


def run_once(checkout: Path, cache: str, args: argparse.Namespace) -> tuple[list[float], str]:
    """([wall, import, main] seconds, the output) of one run in a new process."""
    env = dict(os.environ, PYTHONPATH=str(checkout), TLIR_CACHE_DIR=cache)
    # -P: the working directory (a checkout, maybe) does not shadow PYTHONPATH's
    command = [sys.executable, "-P", "-c", CHILD, args.model, args.input]
    if args.taskset is not None:
        command = ["taskset", "-c", args.taskset, *command]
    start = time.perf_counter()
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - start
    first, _, printed = out.partition("\n")
    imported, main, code, module = first.split(" ", 3)
    if code != "0":
        sys.exit(f"{checkout}: tlir-run exited with {code}")
    if not Path(module).is_relative_to(checkout):
        sys.exit(f"{checkout}: the run imported tlir from {module}")
    return [wall, float(imported), float(main)], printed


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
        times: dict[str, list[list[float]]] = {name: [] for name in checkouts}
        for _ in range(args.repeat):
            for name, path in checkouts.items():
                seconds, out = run_once(path, caches[name], args)
                assert out == outputs[name]
                times[name].append(seconds)
    print(f"tlir-run {args.model} --input {args.input}, warm, {args.repeat} runs each (seconds)")
    columns = ("wall", "import", "main")
    print(f"{'checkout':<16}" + "".join(f"{c + ' min':>12}{c + ' median':>14}" for c in columns))
    for name, runs in times.items():
        cells = []
        for column in zip(*runs, strict=True):
            cells.append(f"{min(column):>12.3f}{statistics.median(column):>14.3f}")
        print(f"{name:<16}" + "".join(cells))
    if len(times) == 2:
        for index, column in enumerate(columns):
            medians = [statistics.median(r[index] for r in runs) for runs in times.values()]
            print(f"{column}: median of --against over this checkout {medians[1] / medians[0]:.2f}")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
