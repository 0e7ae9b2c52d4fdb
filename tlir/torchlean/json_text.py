"""JSON text in and out of graph files (`.json`, and a `.tlz`'s graph.json):
strict parsing with located errors, and writing one node per line."""

from __future__ import annotations

import json
from typing import Any

from tlir.diagnostics import TlirError


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def parse_json_text(text: str, path: str, member: str | None = None) -> Any:
    """JSON text of `path` (or of its `member`, in a `.tlz`) as Python values;
    errors name the file, the member and the position."""
    prefix = f"member '{member}': " if member else ""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        message = err.msg.removesuffix(" at")  # "Unterminated string starting at"
        if member:  # a position in the member, not in the file
            place = f"line {err.lineno} column {err.colno}"
            raise TlirError(path, f"{prefix}invalid JSON at {place}: {message}") from None
        raise TlirError(f"{path}:{err.lineno}:{err.colno}", f"invalid JSON: {message}") from None
    except ValueError as err:
        raise TlirError(path, f"{prefix}invalid JSON: {err}") from None
    except RecursionError:
        raise TlirError(path, f"{prefix}invalid JSON: nested too deeply") from None


def dumps(graph: dict[str, Any]) -> str:
    """The graph as JSON text, one node per line."""
    head = {k: v for k, v in graph.items() if k != "nodes"}
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append('  "nodes": [')
    nodes = [f"    {json.dumps(node, allow_nan=False)}" for node in graph["nodes"]]
    lines.append(",\n".join(nodes))
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


__all__ = ["dumps", "parse_json_text"]
