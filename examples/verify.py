"""Certified robustness with tlir: IBP and CROWN on a small CNN trained on 8×8 digits.

  python examples/verify.py [--epochs N] [--images N] [--radii 0.005,0.01,0.02] [--dtype f64|f32]

Trains the CNN of examples/train.py (conv 3×3 → relu → max pool → linear) with Adam
and tlir's compiled VJP, then asks, for each of the first `--images` test images
and each radius ε (pixels scaled to [0, 1]), whether every input in the ℓ∞ ball
of radius ε around the image gets the image's label:

* IBP (TorchLean's rules, `model.ibp_ball`): the box of the logits; certified
  when the label's lower bound is above every other logit's upper bound;
* CROWN (`model.crown_ball(..., mode="relu")`): the margins `logit_y − logit_j`
  as the objective's rows; certified when every lower bound is above 0.

Both are sound: a certified image has no adversarial example in the ball, for
the exact real-number network. The certified accuracy is the share of images
that are classified correctly and certified; CROWN certifies at least what IBP
does, usually more.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train as digits  # noqa: E402 - examples/train.py: the data, the graph, the loop

import tlir  # noqa: E402
from tlir.optim import Adam  # noqa: E402


def logits_model(trained, dtype: str, directory: Path):
    """The CNN for one image with the logits as its only output (CROWN takes one
    output), holding the trained parameters (same node ids, so the same names)."""
    graph = digits.cnn(1)
    softmax = graph["nodes"].pop()
    assert softmax["kind"] == "softmax"
    graph["output_ids"] = softmax["parents"]
    path = directory / "cnn_logits.json"
    path.write_text(json.dumps(graph))
    model = tlir.compile(str(path), dtype, threads=1)
    for name, value in trained.parameters().items():
        model.parameters()[name][...] = value
    return model


def margins(label: int) -> np.ndarray:
    """Rows `e_label − e_j` for every other class j."""
    rows = [np.eye(digits.CLASSES)[label] - np.eye(digits.CLASSES)[j] for j in range(10)]
    return np.array([r for j, r in enumerate(rows) if j != label])


def certify(model, image: np.ndarray, label: int, eps: float) -> tuple[bool, bool]:
    """(IBP certifies, CROWN certifies) the ball of radius `eps` around `image`."""
    (lower,), (upper,) = model.ibp_ball([image], eps)
    ibp = lower is not None and all(
        lower[0, label] > upper[0, j] for j in range(digits.CLASSES) if j != label
    )
    objective = margins(label).astype(image.dtype)
    low, _ = model.crown_ball([image], eps, objective=objective, mode="relu")
    crown = low is not None and bool(np.all(low > 0))
    return ibp, crown


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--images", type=int, default=60, help="test images to certify")
    parser.add_argument("--radii", default="0.005,0.01,0.02", help="ℓ∞ radii, comma-separated")
    parser.add_argument("--dtype", choices=("f64", "f32"), default="f64")
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args(argv)
    radii = [float(r) for r in args.radii.split(",")]
    np_dtype = np.float32 if args.dtype == "f32" else np.float64

    images, labels, source = digits.load_digits()
    x = (images / 16.0).astype(np_dtype).reshape(len(images), 1, 8, 8)
    split = int(0.8 * len(x))
    print(f"data: {source}: {split} train, {len(x) - split} test images")
    with tempfile.TemporaryDirectory(prefix="tlir-verify-") as directory:
        directory = Path(directory)
        graph_path = directory / "cnn.json"
        graph_path.write_text(json.dumps(digits.cnn(args.batch)))
        model = tlir.compile(str(graph_path), args.dtype, threads=1)
        optimizer = Adam(model.parameters(), lr=0.01)
        data = (x[:split], labels[:split])
        digits.train(model, optimizer, data, args.epochs, args.batch, "cnn")
        verifier = logits_model(model, args.dtype, directory)

    test_x, test_y = x[split : split + args.images], labels[split : split + args.images]
    correct = [int(verifier(image[None])[0].argmax()) == label for image, label in
               zip(test_x, test_y, strict=True)]  # fmt: skip
    counts = {eps: [0, 0] for eps in radii}
    seconds = [0.0, 0.0]
    cases = [(i, eps) for i in range(len(test_x)) for eps in radii]
    for i, eps in tqdm(cases, desc="certifying", unit="ball", disable=None):
        if not correct[i]:
            continue
        start = time.perf_counter()
        ibp, crown = certify(verifier, test_x[i][None], int(test_y[i]), eps)
        seconds[0] += time.perf_counter() - start
        counts[eps][0] += ibp
        counts[eps][1] += crown
        if ibp and not crown:
            raise AssertionError("CROWN (relu mode) is never looser than IBP")
    n = len(test_x)
    print(f"clean accuracy on {n} test images: {sum(correct) / n:.1%}")
    print(f"{'radius':>8}  {'IBP certified':>14}  {'CROWN certified':>16}")
    for eps in radii:
        ibp, crown = counts[eps]
        print(f"{eps:8.3f}  {ibp / n:14.1%}  {crown / n:16.1%}")
    print(f"({seconds[0]:.1f} s for {sum(correct) * len(radii)} balls, IBP and CROWN together)")
    return {"clean": sum(correct) / n, "certified": {e: (c[0] / n, c[1] / n) for e, c in
                                                      counts.items()}}  # fmt: skip


if __name__ == "__main__":
    main()
