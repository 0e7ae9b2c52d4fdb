"""A small PyTorch CNN, trained a few steps, imported into tlir, run, compared
with PyTorch (outputs, and gradients against autograd), saved as TorchLean
JSON at its example batch and run at another batch. Needs torch.

    python examples/from_pytorch.py [out.json]
"""

from __future__ import annotations

import sys

import numpy as np
import torch
from torch import nn

import tlir


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(y, 1))


def train(model: nn.Module, steps: int = 20) -> None:
    """A few SGD steps on a toy task: which quadrant of the image is brightest."""
    generator = torch.Generator().manual_seed(0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        x = torch.rand(16, 1, 8, 8, generator=generator)
        label = x[:, 0, :4, :4].mean((1, 2)).gt(0.5).long() + x[:, 0, 4:, 4:].mean((1, 2)).gt(0.5)
        loss = nn.functional.cross_entropy(model(x), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main(out: str = "from_pytorch.json") -> None:
    torch.manual_seed(0)
    model = SmallCNN()
    train(model)
    model.eval()

    x = torch.rand(2, 1, 8, 8)  # the example batch; the model takes any batch
    compiled = tlir.compile(tlir.from_torch(model, (x,)))

    (y,) = compiled(x.numpy())
    expected = model(x).detach().numpy()
    print(f"outputs: max |tlir - torch| = {np.abs(y - expected).max():.2e}")

    cotangent = torch.randn(2, 3)
    xg = x.clone().requires_grad_(True)
    params = dict(model.named_parameters())
    grads = torch.autograd.grad(model(xg), [xg, *params.values()], cotangent)
    _, input_grads, param_grads = compiled.vjp([x.numpy()], [cotangent.numpy()])
    worst = max(
        np.abs(input_grads[0] - grads[0].numpy()).max(),
        *(np.abs(param_grads[k] - grads[1 + i].numpy()).max() for i, k in enumerate(params)),
    )
    print(f"gradients of {', '.join(param_grads)} and the input: max difference {worst:.2e}")

    tlir.save(compiled, out, batch=2)  # TorchLean JSON has a fixed batch
    (again,) = tlir.compile(out, dtype="f32")(x.numpy())
    print(f"saved {out}; reloaded, it gives the same outputs: {np.array_equal(again, y)}")

    other = torch.rand(5, 1, 8, 8)  # the imported model's batch is '?': any batch runs
    (y5,) = compiled(other.numpy())
    print(f"batch 5: max |tlir - torch| = {np.abs(y5 - model(other).detach().numpy()).max():.2e}")


if __name__ == "__main__":
    main(*sys.argv[1:])
