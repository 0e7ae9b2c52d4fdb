"""What the A/B benches of compiled interval bounds share: variants of a
model's fast IBP program built in one process (a module setting patched while
it compiles, no cache: a cache entry does not see the setting), each checked
against the reference bit for bit, then called alternately on one thread and
timed by the thread's CPU clock.

Used by bench/zero_terms_ab.py, bench/position_tile_ab.py,
bench/ibp_epilogue_ab.py, bench/fold_starts.py (and `patched` by
bench/strip_tiles_ab.py).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from bounds import same_bits

import tlir
from tlir.reference.ibp import ibp as reference_ibp


def options(doc: str, calls: int, dtype: str = "f64") -> argparse.Namespace:
    """`--dtype`, `--calls` and `--perf-map` (write the variants' kernels to a
    perf map: run under `perf record -e cpu-clock -c 250000`)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--dtype", default=dtype, choices=["f64", "f32"])
    parser.add_argument("--calls", type=int, default=calls)
    parser.add_argument("--perf-map", action="store_true")
    return parser.parse_args()


def cnn_box(dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bench CNN's input `x` and the box [x − 0.01, x + 0.01] in `dtype`."""
    np_type = np.float64 if dtype == "f64" else np.float32
    x = np.random.default_rng(0).normal(size=(16, 3, 16, 16)).astype(np_type)
    return x, x - np_type(0.01), x + np_type(0.01)


@contextlib.contextmanager
def patched(settings: Sequence[tuple[object, str, object]]) -> Iterator[None]:
    """Each (module, attribute, value) set while the block runs, then restored."""
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in settings]
    try:
        for owner, name, value in settings:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


@dataclass
class Variant:
    model: object  # the compiled model (`tlir.compile`)
    program: object  # the fast IBP program (`model._derivative("ibp", "fast")`)
    same_bits: bool  # its bounds are the reference's bit for bit


def fast_ibp(
    path: str,
    dtype: str,
    lows: list[np.ndarray],
    highs: list[np.ndarray],
    settings: Sequence[tuple[object, str, object]] = (),
) -> Variant:
    """The model at `path` compiled with `settings` patched, its bounds of the
    box checked against the reference, and its fast IBP program."""
    with patched(settings):
        model = tlir.compile(path, dtype, threads=1, cache=False)
        got = model.ibp(lows, highs)
        program = model._derivative("ibp", "fast")
    want = reference_ibp(model.module(), lows, highs)
    return Variant(model, program, same_bits(got[0], want[0]) and same_bits(got[1], want[1]))


def alternate(runs: dict[str, Callable[[], object]], calls: int) -> dict[str, list[int]]:
    """Each run called `calls` times, in turns; the thread CPU time of each call (ns)."""
    times: dict[str, list[int]] = {name: [] for name in runs}
    for _ in range(calls):
        for name, run in runs.items():
            start = time.thread_time_ns()
            run()
            times[name].append(time.thread_time_ns() - start)
    return times


def print_times(times: dict[str, list[int]], title: str) -> None:
    """Minimum, tenth percentile and median µs per call of each run."""
    print(f"{title:16} {'min':>8} {'p10':>8} {'median':>8}")
    for name, ts in times.items():
        us = np.sort(ts) / 1e3
        print(f"{name:16} {us[0]:8.1f} {us[len(us) // 10]:8.1f} {us[len(us) // 2]:8.1f}")
