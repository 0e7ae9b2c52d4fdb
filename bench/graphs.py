"""Generated TorchLean graphs for the benchmarks (deterministic weights)."""

from __future__ import annotations

import itertools

import numpy as np


class Builder:
    def __init__(self, input_shape: list[int], seed: int = 0):
        self.nodes: list[dict] = []
        self.rng = np.random.default_rng(seed)
        self.add("input", [], input_shape)

    def add(self, kind: str, parents: list[int], shape: list[int], **fields) -> int:
        self.nodes.append(
            {"id": len(self.nodes), "kind": kind, "parents": parents, "shape": shape, **fields}
        )
        return len(self.nodes) - 1

    def linear(self, x: int, shape: list[int], out_dim: int) -> int:
        in_dim = shape[-1]
        weight = self.rng.normal(0, in_dim**-0.5, (out_dim, in_dim)).round(4).tolist()
        bias = self.rng.normal(0, 0.01, out_dim).round(4).tolist()
        return self.add(
            "linear",
            [x],
            shape[:-1] + [out_dim],
            out_dim=out_dim,
            in_dim=in_dim,
            weight=weight,
            bias=bias,
        )

    def mlp(self, x: int, batch: int, widths: list[int]) -> int:
        """Linear layers from widths[0] to widths[-1], a relu between each two."""
        for i, (fan_in, fan_out) in enumerate(itertools.pairwise(widths)):
            if i:
                x = self.add("relu", [x], [batch, fan_in])
            x = self.linear(x, [batch, fan_in], fan_out)
        return x

    def graph(self, output: int) -> dict:
        return {
            "format": "torchlean.ir.v1",
            "input_id": 0,
            "output_ids": [output],
            "nodes": self.nodes,
        }


def mlp_chain(nodes: int, width: int = 32, batch: int = 4) -> dict:
    """linear + relu pairs until `nodes` nodes."""
    b = Builder([batch, width])
    x = 0
    while len(b.nodes) < nodes:
        x = b.linear(x, [batch, width], width)
        if len(b.nodes) < nodes:
            x = b.add("relu", [x], [batch, width])
    return b.graph(x)


def transformer_chain(nodes: int, seq: int = 8, embed: int = 16) -> dict:
    """Pre-norm MLP blocks with residuals (layernorm, linear, relu, linear, add, softmax)."""
    b = Builder([1, seq, embed])
    shape = [1, seq, embed]
    x = 0
    while len(b.nodes) < nodes:
        h = b.add("layernorm", [x], shape, axis=2)
        h = b.linear(h, shape, 2 * embed)
        h = b.add("relu", [h], shape[:-1] + [2 * embed])
        h = b.linear(h, shape[:-1] + [2 * embed], embed)
        h = b.add("softmax", [h], shape, axis=2)
        x = b.add("add", [x, h], shape)
    return b.graph(x)


ELEMENTWISE_KINDS = ("relu", "tanh", "abs", "sigmoid", "sqrt", "exp", "sin", "cos")


def elementwise_chain(nodes: int, shape: tuple[int, ...] = (4, 4)) -> dict:
    """Unary elementwise ops in a row (one fused kernel, or several of
    `MAX_KERNEL_OPS` ops), until `nodes` nodes."""
    b = Builder(list(shape))
    x = 0
    while len(b.nodes) < nodes:
        x = b.add(ELEMENTWISE_KINDS[len(b.nodes) % len(ELEMENTWISE_KINDS)], [x], list(shape))
    return b.graph(x)
