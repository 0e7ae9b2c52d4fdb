"""Writes the bundled example models (deterministic weights) and their inputs.

  python examples/make_examples.py

cnn.json: conv, batch norm, relu, max pool, grouped dilated conv, avg pool,
reduce_mean over two axes, linear, softmax. transformer_block.json: layernorm,
single-head self-attention (expanded on import), residual adds, an MLP and a
Bernoulli dropout mask. legacy_cnn.json: the same ideas in the legacy dialect.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tlir.torchlean.exporter import dumps

HERE = Path(__file__).parent
rng = np.random.default_rng(20261202)


def weights(*shape: int, scale: float = 0.5) -> list:
    return np.round(rng.normal(0.0, scale, shape), 4).tolist()


def node(nodes: list, kind: str, parents: list[int], shape: list[int], **fields) -> int:
    nodes.append({"id": len(nodes), "kind": kind, "parents": parents, "shape": shape, **fields})
    return len(nodes) - 1


def conv_fields(in_c, out_c, k, pad, pad_after, dilation, groups, spatial):
    dense = np.zeros((out_c, in_c, k, k))
    per_in, per_out = in_c // groups, out_c // groups
    for oc in range(out_c):
        g = oc // per_out
        dense[oc, g * per_in : (g + 1) * per_in] = weights(per_in, k, k)
    return dict(
        spatial_rank=2,
        kernel=[k, k],
        stride=[1, 1],
        padding=[pad, pad],
        padding_after=[pad_after, pad_after],
        dilation=[dilation, dilation],
        groups=groups,
        channel_axis=1,
        in_channels=in_c,
        out_channels=out_c,
        input_spatial=spatial,
        weight=dense.tolist(),
        bias=weights(out_c, scale=0.1),
    )


def cnn() -> dict:
    n: list = []
    x = node(n, "input", [], [1, 3, 8, 8])
    c1 = node(n, "conv", [x], [1, 4, 8, 8], **conv_fields(3, 4, 3, 1, 1, 1, 1, [8, 8]))
    bn = node(
        n,
        "batch_norm_eval",
        [c1],
        [1, 4, 8, 8],
        channel_axis=1,
        channels=4,
        eps=1e-5,
        gamma=weights(4, scale=0.2),
        beta=weights(4, scale=0.1),
        mean=weights(4, scale=0.1),
        var=np.round(rng.uniform(0.5, 1.5, 4), 4).tolist(),
    )
    r1 = node(n, "relu", [bn], [1, 4, 8, 8])
    p1 = node(
        n,
        "max_pool",
        [r1],
        [1, 4, 4, 4],
        spatial_rank=2,
        kernel=[2, 2],
        stride=[2, 2],
        padding=[0, 0],
    )
    c2 = node(n, "conv", [p1], [1, 4, 4, 4], **conv_fields(4, 4, 3, 2, 2, 2, 2, [4, 4]))
    r2 = node(n, "relu", [c2], [1, 4, 4, 4])
    p2 = node(
        n,
        "avg_pool",
        [r2],
        [1, 4, 4, 4],
        spatial_rank=2,
        kernel=[3, 3],
        stride=[1, 1],
        padding=[1, 1],
    )
    gap = node(n, "reduce_mean", [p2], [1, 4], axes=[2, 3], keepdim=False)
    fc = node(
        n,
        "linear",
        [gap],
        [1, 3],
        out_dim=3,
        in_dim=4,
        weight=weights(3, 4),
        bias=weights(3, scale=0.1),
    )
    out = node(n, "softmax", [fc], [1, 3], axis=1)
    return {"format": "torchlean.ir.v1", "input_id": x, "output_ids": [out, fc], "nodes": n}


def transformer_block() -> dict:
    b, s, e, hidden = 1, 4, 8, 16
    n: list = []
    x = node(n, "input", [], [b, s, e])
    ln1 = node(
        n,
        "layernorm",
        [x],
        [b, s, e],
        axis=2,
        eps=1e-5,
        gamma=np.round(1 + rng.normal(0, 0.1, e), 4).tolist(),
        beta=weights(e, scale=0.1),
    )
    mha_fields = {
        f"{p}_{kind}": weights(e, e, scale=0.3) if kind == "weight" else weights(e, scale=0.05)
        for p in ("q", "k", "v", "out")
        for kind in ("weight", "bias")
    }
    mha = len(n)
    n.append(
        {
            "id": mha,
            "kind": "multihead_attention",
            "parents": [ln1, ln1, ln1],
            "value_kind": "tuple",
            "tuple_shapes": [[b, s, e], [b, s, s]],
            "embed_dim": e,
            "num_heads": 1,
            "batch_first": True,
            "dropout_zero": True,
            "bias": True,
            "scale": e**-0.5,
            **mha_fields,
        }
    )
    att = node(n, "tuple_getitem", [mha], [b, s, e], index=0)
    res1 = node(n, "add", [x, att], [b, s, e])
    ln2 = node(
        n,
        "layernorm",
        [res1],
        [b, s, e],
        axis=2,
        eps=1e-5,
        gamma=np.round(1 + rng.normal(0, 0.1, e), 4).tolist(),
        beta=weights(e, scale=0.1),
    )
    up = node(
        n,
        "linear",
        [ln2],
        [b, s, hidden],
        out_dim=hidden,
        in_dim=e,
        weight=weights(hidden, e, scale=0.3),
        bias=weights(hidden, scale=0.05),
    )
    act = node(n, "relu", [up], [b, s, hidden])
    keep = node(n, "const", [], [], value_shape=[], values=[0.9])
    mask = node(n, "bernoulli_mask", [keep], [b, s, hidden], seed=1234)
    dropped = node(n, "mul_elem", [act, mask], [b, s, hidden])
    down = node(
        n,
        "linear",
        [dropped],
        [b, s, e],
        out_dim=e,
        in_dim=hidden,
        weight=weights(e, hidden, scale=0.3),
        bias=weights(e, scale=0.05),
    )
    out = node(n, "add", [res1, down], [b, s, e])
    return {"format": "torchlean.ir.v1", "input_id": x, "output_ids": [out], "nodes": n}


def legacy_cnn() -> dict:
    n: list = []
    x = node(n, "input", [], [2, 6, 6])
    conv = node(
        n,
        "conv2d",
        [x],
        [3, 6, 6],
        inC=2,
        outC=3,
        kH=3,
        kW=3,
        stride=1,
        padding=1,
        weight=weights(3, 2, 3, 3),
        bias=weights(3, scale=0.1),
    )
    act = node(n, "tanh", [conv], [3, 6, 6])
    pool = node(n, "max_pool2d_pad", [act], [3, 3, 3], kH=3, kW=3, stride=2, padding=1)
    swap = node(n, "swap_first_two", [pool], [3, 3, 3])
    red = node(n, "reduce_sum", [swap], [3, 3], axis=2)
    flat = node(n, "flatten", [red], [9], value_shape=[3, 3])
    return {"format": "torchlean.ir.v1", "input_id": x, "output_id": flat, "nodes": n}


def main() -> None:
    models = {"cnn": cnn(), "transformer_block": transformer_block(), "legacy_cnn": legacy_cnn()}
    for name, graph in models.items():
        (HERE / f"{name}.json").write_text(dumps(graph))
        shape = graph["nodes"][graph["input_id"]]["shape"]
        np.save(HERE / f"{name}_input.npy", np.round(rng.normal(0, 1, shape), 3))


if __name__ == "__main__":
    main()
