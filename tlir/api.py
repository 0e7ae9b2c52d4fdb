"""The Python API: contexts and parsing for embedding tlir in other toolchains."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import LocatingParser


def context() -> Context:
    """An xDSL context knowing xDSL's dialects and tlir's (loaded lazily)."""
    from tlir.universe import tlir_dialects

    ctx = Context()
    for name, factory in {**get_all_dialects(), **tlir_dialects()}.items():
        ctx.register_dialect(name, factory)
    return ctx


def parse_module(text: str, filename: str = "<string>", ctx: Context | None = None) -> ModuleOp:
    """Parse MLIR text; every op gets a `file:line:col` location for diagnostics."""
    parser = LocatingParser(ctx or context(), text, filename)
    return parser.parse_module()
