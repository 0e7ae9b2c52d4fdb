"""Legacy `torchlean.ir.v1` kinds (docs/json-format.md#legacy-dialect) rewritten to current ones.

Legacy files carry a single `output_id` and rank-restricted 2-D kinds. Each
rewrite checks the legacy shape contract (stricter than the current one: a
window must fit the padded input) and returns a node of the current kind with
current field names, which the current handler then imports. Legacy files
carry parameters out of band; tlir reads them when they are inline under the
current field names (`weight`, `bias`, `values`, `gamma`, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from xdsl.ir import SSAValue

from tlir.shapes import Shape, fmt
from tlir.torchlean.reader import RawNode

Rewrite = Callable[[RawNode, Shape], dict[str, Any]]


def _require_rank(node: RawNode, shape: Shape, rank: int, layout: str) -> None:
    if len(shape) != rank:
        raise node.error(f"the parent must have shape {layout}, got {fmt(shape)}")


def _pool2d(kind: str, padded: bool) -> tuple[str, Rewrite]:
    def rewrite(node: RawNode, parent: Shape) -> dict[str, Any]:
        _require_rank(node, parent, 3, "[C, H, W]")
        kh, kw, stride = node.nat("kH"), node.nat("kW"), node.nat("stride")
        pad = node.nat("padding") if padded else 0
        if kh == 0 or kw == 0 or stride == 0:
            raise node.error("kH, kW and stride must be positive")
        for extent, k, axis in ((parent[1], kh, "H"), (parent[2], kw, "W")):
            if extent + 2 * pad < k:
                raise node.error(
                    f"the {k}-wide window does not fit {axis} = {extent} with padding {pad}"
                )
        return {"spatial_rank": 2, "kernel": [kh, kw], "stride": [stride, stride],
                "padding": [pad, pad]}  # fmt: skip

    return kind, rewrite


def _conv2d(node: RawNode, parent: Shape) -> dict[str, Any]:
    in_c = node.nat("inC")
    _require_rank(node, parent, 3, "[inC, H, W] (legacy conv2d has no batch axis)")
    if in_c == 0:
        raise node.error("inC must be positive")
    pad, stride = node.nat("padding"), node.nat("stride")
    return {
        "spatial_rank": 2, "kernel": [node.nat("kH"), node.nat("kW")], "stride": [stride, stride],
        "padding": [pad, pad], "padding_after": [pad, pad], "dilation": [1, 1], "groups": 1,
        "channel_axis": 0, "in_channels": in_c, "out_channels": node.nat("outC"),
    }  # fmt: skip


def _batch_norm2d(node: RawNode, parent: Shape) -> dict[str, Any]:
    channels = node.nat("channels")
    _require_rank(node, parent, 4, "[N, C, H, W]")
    n, c, h, w = parent
    if 0 in (n, h, w) or c == 0 or c != channels:
        raise node.error(
            f"the parent must be [N, {channels}, H, W] with N, H, W > 0, got {fmt(parent)}"
        )
    return {"channel_axis": 1, "channels": channels}


def _swap_first_two(node: RawNode, parent: Shape) -> dict[str, Any]:
    if len(parent) < 2:
        raise node.error(f"the parent must have rank at least 2, got {fmt(parent)}")
    return {"axis1": 0, "axis2": 1}


def _transpose3d_last_two(node: RawNode, parent: Shape) -> dict[str, Any]:
    _require_rank(node, parent, 3, "rank 3")
    return {"axis1": 1, "axis2": 2}


def _single_axis_reduce(node: RawNode, parent: Shape) -> dict[str, Any]:
    return {"axes": [node.nat("axis")], "keepdim": False}


REWRITES: dict[str, tuple[str, Rewrite]] = {
    "max_pool2d": _pool2d("max_pool", padded=False),
    "max_pool2d_pad": _pool2d("max_pool", padded=True),
    "avg_pool2d": _pool2d("avg_pool", padded=False),
    "avg_pool2d_pad": _pool2d("avg_pool", padded=True),
    "conv2d": ("conv", _conv2d),
    "batch_norm2d_nchw_eval": ("batch_norm_eval", _batch_norm2d),
    "swap_first_two": ("transpose", _swap_first_two),
    "transpose3d_last_two": ("transpose", _transpose3d_last_two),
    "reduce_sum": ("reduce_sum", _single_axis_reduce),
    "reduce_mean": ("reduce_mean", _single_axis_reduce),
    "broadcastTo": ("broadcast_to", lambda node, parent: {}),
}


def rewrite(node: RawNode, values: dict[int, Any]) -> RawNode:
    """The current-dialect node for a legacy node (unchanged kinds pass through)."""
    if node.kind not in REWRITES:
        return node
    kind, function = REWRITES[node.kind]
    if len(node.parents) != 1:
        raise node.error(f"expects 1 parent, got {len(node.parents)}")
    parent = values[node.parents[0]]
    parent_shape = tuple(parent.type.get_shape()) if isinstance(parent, SSAValue) else ()
    fields = {**node.fields, **function(node, parent_shape)}
    return replace(node, kind=kind, fields=fields)
