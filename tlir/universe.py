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


def _random_dialect() -> Dialect:
    from tlir.dialects.random import Random

    return Random


def tlir_dialects() -> dict[str, Callable[[], Dialect]]:
    return {"tlir": _tlir_dialect, "random": _random_dialect}


def _convert_random_to_arith() -> type[ModulePass]:
    from tlir.passes.convert_random_to_arith import ConvertRandomToArith

    return ConvertRandomToArith


def _convert_tlir_to_linalg() -> type[ModulePass]:
    from tlir.passes.convert_tlir_to_linalg import ConvertTlirToLinalg

    return ConvertTlirToLinalg


def _tlir_bufferize() -> type[ModulePass]:
    from tlir.passes.tlir_bufferize import TlirBufferize

    return TlirBufferize


def _tlir_outline_kernels() -> type[ModulePass]:
    from tlir.passes.tlir_outline_kernels import TlirOutlineKernels

    return TlirOutlineKernels


def _tlir_lower_to_llvm() -> type[ModulePass]:
    from tlir.passes.tlir_lower_to_llvm import TlirLowerToLLVM

    return TlirLowerToLLVM


def _tlir_to_llvm() -> type[ModulePass]:
    from tlir.passes.tlir_to_llvm import TlirToLLVM

    return TlirToLLVM


def _tlir_outline_ops() -> type[ModulePass]:
    from tlir.passes.tlir_outline_ops import TlirOutlineOps

    return TlirOutlineOps


def tlir_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        "tlir-outline-ops": _tlir_outline_ops,
        "tlir-to-llvm": _tlir_to_llvm,
        "tlir-lower-to-llvm": _tlir_lower_to_llvm,
        "tlir-outline-kernels": _tlir_outline_kernels,
        "tlir-bufferize": _tlir_bufferize,
        "convert-tlir-to-linalg": _convert_tlir_to_linalg,
        "convert-random-to-arith": _convert_random_to_arith,
    }


TLIR_UNIVERSE = Universe(all_dialects=tlir_dialects(), all_passes=tlir_passes())
