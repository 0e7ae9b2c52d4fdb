"""Helpers to write small torchlean.ir.v1 graphs in tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Graph:
    """Nodes are appended in order; `add` returns the new node's id."""

    def __init__(self, input_shape: list[int]):
        self.nodes: list[dict[str, Any]] = []
        self.add("input", [], input_shape)

    def add(self, kind: str, parents: list[int], shape: list[int] | None, **fields: Any) -> int:
        node: dict[str, Any] = {"id": len(self.nodes), "kind": kind, "parents": parents}
        if shape is not None:
            node["shape"] = shape
        node.update(fields)
        self.nodes.append(node)
        return node["id"]

    def current(self, outputs: list[int]) -> dict[str, Any]:
        return {
            "format": "torchlean.ir.v1",
            "input_id": 0,
            "output_ids": outputs,
            "nodes": self.nodes,
        }

    def legacy(self, output: int) -> dict[str, Any]:
        return {
            "format": "torchlean.ir.v1",
            "input_id": 0,
            "output_id": output,
            "nodes": self.nodes,
        }


def write(tmp: Path, document: Any, name: str = "model.json") -> str:
    path = tmp / name
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return str(path)
