"""Training with tlir's compiled VJP: a small MLP and a small CNN on 8×8 digits,
each with SGD and with Adam (TorchLean's update formulas, `tlir.optim`).

  python examples/train.py [--epochs N] [--dtype f64|f32] [--out DIR] [--batch B]

The data: scikit-learn's digits (1797 8×8 images) when scikit-learn is
installed, else a generated digits-like set of the same size: ten 5×7 glyphs
placed at random offsets in 8×8, with random stroke intensity, dropped pixels
and noise, on sklearn's 0…16 scale (deterministic, seed 0). 80 % train, 20 %
test.

Each model is a torchlean.ir.v1 graph built here, with the batch as its input
and two outputs: the class probabilities (softmax) and the logits; built at
two batches and imported, its batch becomes `?`, so one compiled model takes
every minibatch, the last, shorter one too. The loss is the mean
cross-entropy of the probabilities; its cotangent on the logits,
(p − onehot)/B, seeds the compiled VJP, whose parameter gradients feed the
optimizer, which writes into `model.parameters()` in place. After training the
weights are saved with `tlir.save` (at the batch of `--batch`), reloaded with
`tlir.compile` and the reloaded model's test outputs are checked
bit-identical.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

try:
    import tlir
except ImportError:  # run from a checkout without tlir installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import tlir
from tlir.optim import SGD, Adam

CLASSES = 10

GLYPHS = [
    ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],  # 0
    ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],  # 1
    ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],  # 2
    ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],  # 3
    ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],  # 4
    ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],  # 5
    ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],  # 6
    ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],  # 7
    ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],  # 8
    ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],  # 9
]


def generated_digits(count: int = 1797, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Digits-like 8×8 images on a 0…16 scale, and their labels."""
    rng = np.random.default_rng(seed)
    glyphs = np.array([[[c == "1" for c in row] for row in g] for g in GLYPHS], np.float64)
    labels = np.arange(count) % CLASSES
    rng.shuffle(labels)
    images = np.zeros((count, 8, 8))
    for k, label in enumerate(labels):
        top, left = rng.integers(0, 2), rng.integers(0, 4)
        stroke = glyphs[label] * rng.uniform(0.6, 1.0, (7, 5))
        stroke *= rng.random((7, 5)) > 0.1  # dropped pixels
        images[k, top : top + 7, left : left + 5] = stroke
    images = np.clip(images * 16 + rng.normal(0, 1.5, images.shape), 0, 16)
    return images, labels


def load_digits() -> tuple[np.ndarray, np.ndarray, str]:
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError:
        images, labels = generated_digits()
        return images, labels, "generated digits (scikit-learn not installed)"
    data = sklearn_digits()
    return data.images.astype(np.float64), data.target, "scikit-learn digits"


class Graph:
    """A torchlean.ir.v1 graph under construction, with deterministic weights."""

    def __init__(self, input_shape: list[int], seed: int):
        self.nodes: list[dict] = []
        self.rng = np.random.default_rng(seed)
        self.add("input", [], input_shape)

    def add(self, kind: str, parents: list[int], shape: list[int], **fields) -> int:
        node = {"id": len(self.nodes), "kind": kind, "parents": parents, "shape": shape}
        self.nodes.append({**node, **fields})
        return len(self.nodes) - 1

    def shape(self, node: int) -> list[int]:
        return self.nodes[node]["shape"]

    def linear(self, x: int, out_dim: int) -> int:
        shape = self.shape(x)
        in_dim = shape[-1]
        weight = self.rng.normal(0, (2 / in_dim) ** 0.5, (out_dim, in_dim))
        return self.add(
            "linear",
            [x],
            [*shape[:-1], out_dim],
            out_dim=out_dim,
            in_dim=in_dim,
            weight=weight.tolist(),
            bias=[0.0] * out_dim,
        )

    def conv3x3(self, x: int, out_channels: int) -> int:
        batch, channels, height, width = self.shape(x)
        fan_in = channels * 9
        weight = self.rng.normal(0, (2 / fan_in) ** 0.5, (out_channels, channels, 3, 3))
        return self.add(
            "conv",
            [x],
            [batch, out_channels, height, width],
            spatial_rank=2,
            kernel=[3, 3],
            stride=[1, 1],
            padding=[1, 1],
            padding_after=[1, 1],
            dilation=[1, 1],
            groups=1,
            channel_axis=1,
            in_channels=channels,
            out_channels=out_channels,
            input_spatial=[height, width],
            weight=weight.tolist(),
            bias=[0.0] * out_channels,
        )

    def classifier_outputs(self, logits: int) -> dict:
        probabilities = self.add("softmax", [logits], self.shape(logits), axis=1)
        return {
            "format": "torchlean.ir.v1",
            "input_id": 0,
            "output_ids": [probabilities, logits],
            "nodes": self.nodes,
        }


def mlp(batch: int, hidden: int = 64, seed: int = 1) -> dict:
    """64 → hidden → relu → 10 → softmax."""
    g = Graph([batch, 64], seed)
    h = g.linear(0, hidden)
    h = g.add("relu", [h], g.shape(h))
    return g.classifier_outputs(g.linear(h, CLASSES))


def cnn(batch: int, channels: int = 8, seed: int = 2) -> dict:
    """conv 3×3 (1 → channels) → relu → max pool 2×2 → reshape → linear → softmax."""
    g = Graph([batch, 1, 8, 8], seed)
    h = g.conv3x3(0, channels)
    h = g.add("relu", [h], g.shape(h))
    h = g.add(
        "max_pool",
        [h],
        [batch, channels, 4, 4],
        spatial_rank=2,
        kernel=[2, 2],
        stride=[2, 2],
        padding=[0, 0],
    )
    flat = [batch, channels * 16]
    h = g.add("reshape", [h], flat, in_shape=g.shape(h), out_shape=flat)
    return g.classifier_outputs(g.linear(h, CLASSES))


def batches(count: int, batch: int, rng: np.random.Generator | None, pad: bool = True):
    """Index arrays of `batch` samples, with the number of real ones: the last,
    shorter one as it is, or, with `pad` (a static model's batch is fixed),
    padded by repeating sample 0."""
    order = rng.permutation(count) if rng is not None else np.arange(count)
    for start in range(0, count, batch):
        index = order[start : start + batch]
        real = len(index)
        if real < batch and pad:
            index = np.concatenate([index, np.full(batch - real, order[0])])
        yield index, real


def any_batch(model) -> bool:
    """Whether `model` takes any batch (its batch is `?`)."""
    from tlir.compiler.dynamic import DynamicBatchModel

    return isinstance(model, DynamicBatchModel)


def dynamic_model(build, batch: int, dtype: str, out: Path, name: str, threads: int):
    """The graph `build(b)` with its batch `?`: built and imported at two batches,
    the extents that follow the batch become `?` (`tlir.frontend.batch`)."""
    from tlir.frontend.batch import generalize, trace_batches

    traced = trace_batches(batch)
    modules = []
    for b in traced:
        path = out / f"{name}-batch{b}.json"
        path.write_text(json.dumps(build(b)))
        modules.append(tlir.load_model(str(path), dtype))
    return tlir.compile(generalize(*modules, traced, name), threads=threads)


def predict(model, x: np.ndarray, batch: int) -> np.ndarray:
    """The probabilities of every sample."""
    out = []
    for index, real in batches(len(x), batch, None, pad=not any_batch(model)):
        out.append(model(x[index])[0][:real])
    return np.concatenate(out)


def train(model, optimizer, data, epochs: int, batch: int, label: str, rng_seed: int = 0):
    """Minibatch training; returns the mean cross-entropy loss of each epoch."""
    x_train, y_train = data
    rng = np.random.default_rng(rng_seed)
    dtype = x_train.dtype
    losses = []
    dynamic = any_batch(model)
    bar = tqdm(range(epochs), desc=label, unit="epoch", leave=False, disable=None)
    for epoch in bar:
        total, seen = 0.0, 0
        for index, real in batches(len(x_train), batch, rng, pad=not dynamic):
            if real < batch and not dynamic:
                continue  # a static model: full batches only
            x, y = x_train[index], y_train[index]
            onehot = np.eye(CLASSES, dtype=dtype)[y]
            probabilities, logits = model(x)
            total += float(-np.log(np.maximum(probabilities[np.arange(real), y], 1e-300)).sum())
            seen += real
            # d(mean cross-entropy)/d(logits) through the softmax: (p − onehot)/B.
            cotangents = [
                np.zeros_like(probabilities),
                (probabilities - onehot) / dtype.type(real),
            ]
            _, _, grads = model.vjp([x], cotangents, wrt="params")  # no input gradient
            optimizer.step(grads)
        losses.append(total / seen)
        bar.set_postfix(loss=f"{losses[-1]:.4f}")
        tqdm.write(f"{label}: epoch {epoch + 1:2d}/{epochs}  loss {losses[-1]:.4f}")
    return losses


def accuracy(model, x: np.ndarray, y: np.ndarray, batch: int) -> float:
    return float((predict(model, x, batch).argmax(axis=1) == y).mean())


def run(args: argparse.Namespace) -> dict:
    """Train and save into `--out`, or into a temporary directory removed at the end."""
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        return train_all(args, out)
    with tempfile.TemporaryDirectory(prefix="tlir-train-") as directory:
        results = train_all(args, Path(directory))
        print(f"(the graphs and models were in {directory}, now removed: --out DIR keeps them)")
        for entry in results["runs"].values():
            entry["saved"] = None
        return results


def train_all(args: argparse.Namespace, out: Path) -> dict:
    start = time.perf_counter()
    np_dtype = np.float32 if args.dtype == "f32" else np.float64
    images, labels, source = load_digits()
    x = (images / 16.0).astype(np_dtype)
    split = int(0.8 * len(x))
    print(f"data: {source}: {split} train, {len(x) - split} test images")
    results: dict = {"source": source, "runs": {}}

    for name, build, shape in [("mlp", mlp, (64,)), ("cnn", cnn, (1, 8, 8))]:
        inputs = x.reshape(len(x), *shape)
        train_data = (inputs[:split], labels[:split])
        compile_start = time.perf_counter()
        # One thread: these kernels are far too small to gain from more.
        model = dynamic_model(build, args.batch, args.dtype, out, name, args.threads)
        params = model.parameters()
        initial = {n: p.copy() for n, p in params.items()}
        zeros = [np.zeros((args.batch, CLASSES), np_dtype)] * 2
        model.vjp([inputs[: args.batch]], zeros, wrt="params")
        print(f"{name}: compiled forward and VJP in {time.perf_counter() - compile_start:.1f} s")
        for opt_name in ("sgd", "adam"):
            for n, p in params.items():
                p[...] = initial[n]  # the same start for both optimizers
            optimizer = (
                SGD(params, lr=args.sgd_lr) if opt_name == "sgd" else Adam(params, lr=args.adam_lr)
            )
            label = f"{name}+{opt_name}"
            run_start = time.perf_counter()
            losses = train(model, optimizer, train_data, args.epochs, args.batch, label)
            seconds = time.perf_counter() - run_start
            test_acc = accuracy(model, inputs[split:], labels[split:], args.batch)
            train_acc = accuracy(model, *train_data, args.batch)
            print(
                f"{label}: test accuracy {test_acc:.2%} (train {train_acc:.2%}), "
                f"{args.epochs} epochs in {seconds:.1f} s"
            )
            saved = out / f"{label}.json"
            tlir.save(model, str(saved), batch=args.batch)  # TorchLean JSON: a fixed batch
            reloaded = tlir.compile(str(saved), args.dtype, threads=args.threads)
            expected = predict(model, inputs[split:], args.batch)
            again = predict(reloaded, inputs[split:], args.batch)
            same = expected.tobytes() == again.tobytes()
            print(f"{label}: saved to {saved}; reloaded outputs bit-identical: {same}")
            results["runs"][label] = {
                "losses": losses,
                "test_accuracy": test_acc,
                "train_accuracy": train_acc,
                "seconds": seconds,
                "reload_identical": same,
                "saved": str(saved),
            }
    results["seconds"] = time.perf_counter() - start
    print(f"total {results['seconds']:.1f} s")
    return results


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--dtype", choices=("f64", "f32"), default="f64")
    p.add_argument("--sgd-lr", type=float, default=0.1)
    p.add_argument("--adam-lr", type=float, default=0.01)
    p.add_argument("--threads", type=int, default=1, help="threads per kernel (default 1)")
    p.add_argument(
        "--out", help="where the graphs and trained models go (default: a temporary directory)"
    )
    return p


def main(argv: list[str] | None = None) -> dict:
    return run(parser().parse_args(argv))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    main()
