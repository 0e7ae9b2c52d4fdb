"""What bench/dynamic_batch.py and bench/dynamic_bounds.py share: their options
and examples/train.py's MLP and CNN as dynamic-batch models."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _train_example():
    spec = importlib.util.spec_from_file_location("train_example", ROOT / "examples" / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def options(description: str, repeat: int, dtype: bool = False) -> argparse.Namespace:
    """`--repeat` (default `repeat`), `--batches`, `--threads`, and `--dtype` if asked."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--repeat", type=int, default=repeat)
    p.add_argument("--batches", type=int, nargs="+", default=[1, 32, 256])
    p.add_argument("--threads", type=int, default=1)
    if dtype:
        p.add_argument("--dtype", choices=["f32", "f64"], default="f64")
    return p.parse_args()


def dynamic_models(
    out: Path, threads: int, dtype: str = "f64"
) -> Iterator[tuple[str, object, object, tuple]]:
    """(name, dynamic model, its module, a sample's shape) of the MLP and the CNN
    in `dtype`, built at two batches and generalized as the example does (their
    graphs written to `out`)."""
    train = _train_example()
    for name, build, shape in [("mlp", train.mlp, (64,)), ("cnn", train.cnn, (1, 8, 8))]:
        dynamic = train.dynamic_model(build, 32, dtype, out, name, threads)
        yield name, dynamic, dynamic.module(), shape
