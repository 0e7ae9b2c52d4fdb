"""Small PyTorch models for the front-end tests (torch imported by the caller's
importorskip first)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class CNN(nn.Module):
    """Grouped strided conv, batch norm (eval), pooling, flatten, dropout (eval)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
        self.bn = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 4, 3, padding=1, dilation=1, bias=False)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AvgPool2d(3, stride=1, padding=1)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(4 * 2 * 2, 3)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv1(x)))
        y = self.pool(self.avg(self.conv2(y)))
        return self.fc(self.drop(torch.flatten(y, 1)))


class TransformerBlock(nn.Module):
    """Pre-norm block: layernorm, 4-head self-attention, residual, MLP with tanh GELU."""

    def __init__(self, dim=8, heads=4):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 2 * dim)
        self.down = nn.Linear(2 * dim, dim)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))


class Mix(nn.Module):
    """Elementwise and structural ops: scalars, broadcasting, cat, permute,
    transpose, slices, reductions, the activations; sequence-first attention
    with two heads; conv1d with dilation."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.linspace(0.5, 1.5, 6))
        self.attn = nn.MultiheadAttention(6, 2)
        self.conv = nn.Conv1d(4, 4, 3, dilation=2, padding=2, groups=4)

    def forward(self, x):  # x: [B, 4, 6]
        n = x.shape[0]
        a = torch.sigmoid(x) * self.scale + 1.5 - x / 4
        b = torch.exp(torch.sin(x)) + torch.log(torch.abs(x) + 1) * torch.cos(x)
        c = torch.sqrt(F.softplus(x)) - torch.tanh(x).relu()
        d = torch.cat([a, b.transpose(1, 2).reshape(n, 4, 6), c], dim=1)  # [B, 12, 6]
        e = d.permute(0, 2, 1).sum(-1, keepdim=True) + d.mean(dim=(1, 2)).view(n, 1, 1)
        s = d.transpose(0, 1)[:4]  # [4, B, 6]: sequence first
        att = self.attn(s, s, s, need_weights=False)[0].transpose(0, 1)
        f = self.conv(x)[:, 1:3] * 2.0
        return torch.log_softmax(e, dim=1), att, f, d[:, 2] - x.sum()


class Clamps(nn.Module):
    def forward(self, x):
        return (
            torch.clamp(x, -1.5, 2.0),
            F.hardtanh(x),
            F.leaky_relu(x, 0.1),
            x.clamp(min=0.5),
            x.clamp(max=0.25),
        )


class Biasless(nn.Module):
    """Self-attention, a linear layer and a conv, all with or without biases."""

    def __init__(self, bias: bool):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, bias=bias, batch_first=True)
        self.fc = nn.Linear(8, 8, bias=bias)
        self.conv = nn.Conv1d(4, 3, 3, bias=bias)

    def forward(self, x):
        y = self.attn(x, x, x, need_weights=False)[0]
        return self.conv(self.fc(y).relu())


TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-10}
"""How close to PyTorch an imported model's outputs and gradients must be."""

MODELS = {
    "mlp": (MLP, (3, 6)),
    "cnn": (CNN, (2, 4, 8, 8)),
    "transformer": (TransformerBlock, (2, 5, 8)),
    "mix": (Mix, (2, 4, 6)),
}
"""The models both importers are tested on, with their example input's shape."""
