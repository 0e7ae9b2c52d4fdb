"""tlir's dialects and passes as an xDSL universe (entry point `xdsl.universe`).

`tlir-opt` registers these directly; the entry point lets plain `xdsl-opt`
see them too.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def _tlir_dialect() -> Dialect:
    from tlir.dialects.tlir import Tlir

    return Tlir


def tlir_dialects() -> dict[str, Callable[[], Dialect]]:
    return {"tlir": _tlir_dialect}


def tlir_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {}


TLIR_UNIVERSE = Universe(all_dialects=tlir_dialects(), all_passes=tlir_passes())
