"""Reading `torchlean.ir.v1` JSON (docs/json-format.md#root-fields,
docs/json-format.md#legacy-dialect): structure and typed fields.

Every failure is a `TlirError` naming the file and, where there is one, the
raw JSON node: `model.json: error: node 7 (conv): field 'kernel' ...`.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tlir.diagnostics import TlirError
from tlir.limits import read_text_file
from tlir.shapes import Shape, fmt
from tlir.torchlean.json_text import parse_json_text

if TYPE_CHECKING:
    from tlir.torchlean.container import Container

FORMAT = "torchlean.ir.v1"

I64_LIMIT = 1 << 63
"""Natural numbers (shapes, axes, ids, kernel sizes, …) become i64 values: each
must be below 2^63. Only a seed may be larger (TorchLean reduces it mod 2^64)."""


@dataclass
class RawNode:
    """One entry of `"nodes"`, before import-time lowering."""

    id: int
    kind: str
    parents: list[int]
    shape: Shape | None
    fields: dict[str, Any]
    file: str
    tuple_shapes: list[Shape] = field(default_factory=list)
    container: Container | None = None
    """The `.tlz` the node comes from, whose arrays its payload fields may name."""

    def error(self, message: str) -> TlirError:
        return TlirError(self.file, f"node {self.id} ({self.kind}): {message}")

    def has(self, name: str) -> bool:
        return name in self.fields

    def _get(self, name: str) -> Any:
        if name not in self.fields:
            raise self.error(f"missing field '{name}'")
        return self.fields[name]

    def nat(self, name: str, default: int | None = None) -> int:
        if default is not None and name not in self.fields:
            return default
        return _nat(self._get(name), self, f"field '{name}'")

    def seed(self, name: str = "seed") -> int:
        """A natural number of any size (a random op's seed, taken mod 2^64)."""
        return _nat(self._get(name), self, f"field '{name}'", limit=None)

    def nats(self, name: str, length: int | None = None, default: Sequence[int] | None = None):
        if default is not None and name not in self.fields:
            return tuple(default)
        value = self._get(name)
        if not isinstance(value, list):
            raise self.error(f"field '{name}' must be a list of natural numbers")
        out = tuple(_nat(v, self, f"field '{name}'") for v in value)
        if length is not None and len(out) != length:
            raise self.error(f"field '{name}' has {len(out)} entries, expected {length}")
        return out

    def boolean(self, name: str, default: bool | None = None) -> bool:
        if default is not None and name not in self.fields:
            return default
        value = self._get(name)
        if not isinstance(value, bool):
            raise self.error(f"field '{name}' must be true or false")
        return value

    def number(self, name: str) -> float:
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(f"field '{name}' must be a number")
        return json_float(value)

    def tensor(self, name: str, shape: Shape) -> np.ndarray:
        """A payload tensor: nested lists matching `shape` exactly
        (docs/json-format.md#numbers-and-payloads)."""
        value = self._get(name)
        if self._is_reference(value):
            return self._array(name, value, shape)
        try:
            array = _nested(value, shape)
        except ValueError as err:
            raise self.error(f"field '{name}': {err}; expected shape {fmt(shape)}") from None
        return array

    def flat(self, name: str, count: int) -> np.ndarray:
        value = self._get(name)
        if self._is_reference(value):
            return self._array(name, value, (count,))
        if not isinstance(value, list) or len(value) != count:
            got = len(value) if isinstance(value, list) else type(value).__name__
            raise self.error(f"field '{name}' must be a flat list of {count} numbers, got {got}")
        try:
            return _nested(value, (count,))
        except ValueError as err:
            raise self.error(f"field '{name}': {err}") from None

    def _is_reference(self, value: Any) -> bool:
        """An object in a `.tlz` (where it must be a reference), or an object
        that looks like one in JSON (which is told it is out of place)."""
        return type(value) is dict and (self.container is not None or "array" in value)

    def _array(self, name: str, value: dict, shape: Shape) -> np.ndarray:
        """A payload given as a reference to an array member of a `.tlz`: the
        array must have exactly the shape of the JSON value it replaces."""
        if self.container is None:
            raise self.error(f"field '{name}' is an array reference, which only a .tlz holds")
        try:
            member, array = self.container.array(value)
        except ValueError as err:
            raise self.error(f"field '{name}': {err}") from None
        if array.shape != tuple(shape):
            raise self.error(
                f"field '{name}': member '{member}' has shape {fmt(array.shape)}, "
                f"expected {fmt(shape)}"
            )
        return array


def _nat(
    value: Any, node: RawNode | None, what: str, file: str = "", limit: int | None = I64_LIMIT
) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        message = f"{what} must be a natural number, got {_brief(value)}"
        raise node.error(message) if node else TlirError(file, message)
    if limit is not None and value >= limit:
        message = f"{what} is {_brief(value)}, out of range (at most 2^63 - 1)"
        raise node.error(message) if node else TlirError(file, message)
    return value


def _brief(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


_NUMBER_TYPES = frozenset({int, float})
"""The Python types of a JSON number (never `bool`, the type of `true`/`false`)."""


def _nested(value: Any, shape: Shape) -> np.ndarray:
    """Check a nested list against `shape` and convert it to float64. The fast
    path flattens the levels and checks the entries' types with C-level
    iteration (no Python call per entry), then converts the flat list at once;
    anything unexpected takes the slow path, which names the first offending
    entry."""
    leaves = _leaves(value, shape)
    if leaves is not None and set(map(type, leaves)) <= _NUMBER_TYPES:
        try:
            return np.array(leaves, dtype=np.float64).reshape(shape)
        except OverflowError:  # an integer literal beyond binary64: entry by entry
            pass
    return _nested_checked(value, shape)


def _leaves(value: Any, shape: Shape) -> list | None:
    """The entries of a nesting of lists of exactly `shape`, row-major; None if
    the nesting differs."""
    level = [value]
    for extent in shape:
        if not all(type(v) is list and len(v) == extent for v in level):
            return None
        level = list(itertools.chain.from_iterable(level))
    return level


def _nested_checked(value: Any, shape: Shape) -> np.ndarray:
    """`_nested`, one entry at a time, for a precise message."""
    if not shape:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"expected a number, got {json.dumps(value)[:40]}")
        return np.array(json_float(value))
    if not isinstance(value, list) or len(value) != shape[0]:
        got = f"a list of {len(value)}" if isinstance(value, list) else json.dumps(value)[:40]
        raise ValueError(f"expected a list of {shape[0]} at this level, got {got}")
    parts = [_nested_checked(v, shape[1:]) for v in value]
    return np.stack(parts) if parts else np.zeros(shape)


def json_float(value: int | float) -> float:
    """A JSON number as binary64, an integer literal exactly as the same digits
    written as a float literal: rounded to nearest, ±inf beyond binary64's range
    (as `1e400` parses), never an error (docs/json-format.md)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def load_json(path: str, text: str | None = None) -> Any:
    """The JSON document of file `path` (or `text`, its content already read)."""
    return parse_json_text(read_text_file(path) if text is None else text, path)


@dataclass
class RawGraph:
    file: str
    nodes: list[RawNode]
    input_id: int
    output_ids: list[int]
    legacy: bool
    dtype: str | None = None
    """The element type a `.tlz` was written in (None for JSON)."""
    batches: tuple[int, int] | None = None
    """A `tlz.v3`'s two batches: this graph is at the first, `at_second_batch` at the second."""
    at_second_batch: RawGraph | None = None


def read_graph(path: str, data: bytes | None = None) -> RawGraph:
    """Parse and check the structure of a graph file (ids, parents, kinds,
    interface): `torchlean.ir.v1` JSON, or a `.tlz` (by its extension). `data`,
    when given, is the file's content already read."""
    from tlir.torchlean.container import is_container, open_container

    container = None
    if is_container(path):
        from tlir.limits import read_limited

        container = open_container(path, read_limited(path) if data is None else data)
        root = container.document
    elif data is not None:
        try:
            root = parse_json_text(data.decode("utf-8"), path)
        except UnicodeDecodeError:
            raise TlirError(path, "the file is not UTF-8 text") from None
    else:
        root = load_json(path)
    if not isinstance(root, dict):
        raise TlirError(path, "the top level must be a JSON object")
    graph = _read_root(path, root, container)
    if container is not None and container.dynamic:
        graph.batches, graph.at_second_batch = _read_batch_field(path, root, container)
    return graph


def _read_root(path: str, root: Any, container: Container | None) -> RawGraph:
    if root.get("format") != FORMAT:
        got = json.dumps(root.get("format")) if "format" in root else "nothing"
        raise TlirError(path, f"'format' must be \"{FORMAT}\", got {got}")
    legacy = "output_ids" not in root and "output_id" in root
    if legacy:
        output_ids = [_nat(root["output_id"], None, "'output_id'", path)]
    else:
        outputs = root.get("output_ids")
        if not isinstance(outputs, list) or not outputs:
            raise TlirError(path, "'output_ids' must be a non-empty list of node ids")
        output_ids = [_nat(v, None, "'output_ids' entry", path) for v in outputs]
    if "input_id" not in root:
        raise TlirError(path, "missing 'input_id'")
    input_id = _nat(root["input_id"], None, "'input_id'", path)
    raw_nodes = root.get("nodes")
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise TlirError(path, "'nodes' must be a non-empty list")
    nodes = [_read_node(path, index, entry, container) for index, entry in enumerate(raw_nodes)]
    _check_interface(path, nodes, input_id, output_ids)
    dtype = container.dtype if container is not None else None
    return RawGraph(path, nodes, input_id, output_ids, legacy, dtype)


def _read_batch_field(
    path: str, root: dict, container: Container
) -> tuple[tuple[int, int], RawGraph]:
    """A `tlz.v3`'s root field `batch`: its two batches and the graph at the second."""
    from tlir.torchlean.container import BATCH_FIELD

    value = root.get(BATCH_FIELD)
    batches = value.get("batches") if isinstance(value, dict) else None
    if (
        not isinstance(value, dict)
        or set(value) != {"batches", "nodes"}
        or not isinstance(batches, list)
        or len(batches) != 2
        or not all(type(b) is int and 2 <= b < I64_LIMIT for b in batches)
        or batches[0] >= batches[1]
    ):
        raise TlirError(
            path,
            f'field \'{BATCH_FIELD}\' must be {{"batches": [B1, B2], "nodes": [...]}} '
            "with 2 <= B1 < B2 (a tlz.v3 model's nodes at its second batch)",
        )
    second = _read_root(path, {**root, "nodes": value["nodes"]}, container)
    return (batches[0], batches[1]), second


def _read_node(path: str, index: int, entry: Any, container: Container | None) -> RawNode:
    if not isinstance(entry, dict):
        raise TlirError(path, f"node {index}: each node must be a JSON object")
    if entry.get("id") != index or isinstance(entry.get("id"), bool):
        raise TlirError(
            path, f"node {index}: 'id' is {json.dumps(entry.get('id'))}, expected {index}"
        )
    kind = entry.get("kind")
    if not isinstance(kind, str):
        raise TlirError(path, f"node {index}: 'kind' must be a string")
    parents = entry.get("parents", None)
    if not isinstance(parents, list):
        raise TlirError(path, f"node {index} ({kind}): 'parents' must be a list of node ids")
    node = RawNode(index, kind, [], None, entry, path, container=container)
    for parent in parents:
        _nat(parent, node, "each parent")
        if parent >= index:
            raise node.error(f"parent {parent} is not an earlier node (parents must be < {index})")
    node.parents = list(parents)
    if entry.get("value_kind") == "tuple":
        shapes = entry.get("tuple_shapes")
        if not isinstance(shapes, list):
            raise node.error("a tuple value needs 'tuple_shapes'")
        node.tuple_shapes = [_shape(node, s, "tuple_shapes entry") for s in shapes]
    else:
        if entry.get("value_kind", "tensor") != "tensor":
            raise node.error(f"unknown 'value_kind' {json.dumps(entry.get('value_kind'))}")
        if "shape" not in entry:
            raise node.error("missing field 'shape'")
        node.shape = _shape(node, entry["shape"], "'shape'")
    return node


def _shape(node: RawNode, value: Any, what: str) -> Shape:
    if not isinstance(value, list):
        raise node.error(f"{what} must be a list of natural numbers")
    return tuple(_nat(v, node, what) for v in value)


def _check_interface(path: str, nodes: list[RawNode], input_id: int, outputs: list[int]) -> None:
    inputs = [n.id for n in nodes if n.kind == "input"]
    if len(inputs) != 1:
        raise TlirError(path, f"expected exactly one 'input' node, found {len(inputs)}")
    if input_id != inputs[0]:
        raise TlirError(path, f"'input_id' is {input_id} but the input node is node {inputs[0]}")
    for output in outputs:
        if output >= len(nodes):
            raise TlirError(path, f"output id {output} does not name a node")
