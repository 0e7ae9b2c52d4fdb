"""Eager executors of the bundled models' graphs, for timing only: each node as
one PyTorch (or NumPy) call, as TorchLean's IR→PyTorch emitter does (docs/design.md#benchmarks).
Not bit-exact references (blocked sums, PyTorch's own exp); random masks are
drawn once with tlir's generator and passed as constants."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tlir import rng


def torch_runner(graph: dict, random_ids: list[int]) -> Callable:
    """`random_ids`: the tensor ids of the graph's random nodes after import
    (they key TorchLean's random numbers), in node order."""
    import torch
    import torch.nn.functional as F  # noqa: N812

    t = torch.from_numpy
    nodes = graph["nodes"]
    params: dict[int, dict] = {}
    random_ids = list(random_ids)
    for node in nodes:
        fields = {k: np.array(v, dtype=np.float64) for k, v in node.items()
                  if k in ("weight", "bias", "gamma", "beta", "mean", "var", "values")
                  or k.endswith(("_weight", "_bias"))}  # fmt: skip
        params[node["id"]] = {k: t(v) for k, v in fields.items()}
        if node["kind"] == "bernoulli_mask":
            keep = float(nodes[node["parents"][0]]["values"][0])
            mask = rng.bernoulli(
                node["seed"], random_ids.pop(0), keep, tuple(node["shape"]), np.dtype("f8")
            )
            params[node["id"]]["mask"] = t(mask)

    def run(x: np.ndarray):
        values: dict[int, object] = {}
        for node in nodes:
            kind, p, a = node["kind"], params[node["id"]], [values.get(i) for i in node["parents"]]
            if kind == "input":
                v = t(x)
            elif kind == "conv":
                pad = node["padding"]
                xp = F.pad(
                    a[0], [pad[1], node["padding_after"][1], pad[0], node["padding_after"][0]]
                )
                v = F.conv2d(xp, p["weight"], p["bias"], stride=node["stride"],
                             dilation=node["dilation"], groups=1)  # fmt: skip
            elif kind == "batch_norm_eval":
                s = (1, -1, 1, 1)
                v = (a[0] - p["mean"].view(s)) * torch.rsqrt(p["var"].view(s) + node["eps"]) * p[
                    "gamma"
                ].view(s) + p["beta"].view(s)
            elif kind == "relu":
                v = torch.relu(a[0])
            elif kind == "max_pool":
                v = F.max_pool2d(a[0], node["kernel"], node["stride"], node["padding"])
            elif kind == "avg_pool":
                v = F.avg_pool2d(
                    a[0], node["kernel"], node["stride"], node["padding"], count_include_pad=True
                )
            elif kind == "reduce_mean":
                v = a[0].mean(dim=node["axes"], keepdim=node["keepdim"])
            elif kind == "linear":
                v = F.linear(a[0], p["weight"], p["bias"])
            elif kind == "softmax":
                v = torch.softmax(a[0], dim=node["axis"])
            elif kind == "layernorm":
                v = F.layer_norm(
                    a[0],
                    a[0].shape[node["axis"] :],
                    p.get("gamma"),
                    p.get("beta"),
                    node.get("eps", 1e-5),
                )
            elif kind == "multihead_attention":
                h = a[0]
                q, k, w = (F.linear(h, p[f"{n}_weight"], p[f"{n}_bias"]) for n in "qkv")
                att = torch.softmax(q @ k.transpose(1, 2) * node["scale"], dim=2)
                v = F.linear(att @ w, p["out_weight"], p["out_bias"])
            elif kind == "tuple_getitem":
                v = a[0]
            elif kind == "add":
                v = a[0] + a[1]
            elif kind == "mul_elem":
                v = a[0] * a[1]
            elif kind == "const":
                v = p["values"].reshape(node["shape"])
            elif kind == "bernoulli_mask":
                v = p["mask"]
            else:
                raise NotImplementedError(kind)
            values[node["id"]] = v
        return [values[i] for i in graph["output_ids"]]

    return run
