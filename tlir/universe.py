"""tlir's dialects and passes as an xDSL universe (entry point `xdsl.universe`).

`tlir-opt` registers these directly; the entry point lets plain `xdsl-opt`
see them too. Everything is imported lazily, on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.context import Context
from xdsl.universe import Universe

_DIALECTS = {
    "tlir": ("tlir.dialects.tlir", "Tlir"),
    "random": ("tlir.dialects.random", "Random"),
    "tlir_llvm": ("tlir.dialects.tlir_llvm", "TlirLLVM"),
    "tlir_ad": ("tlir.dialects.tlir_ad", "TlirAD"),
}

_PASSES = {
    "convert-tlir-to-linalg": ("tlir.passes.convert_tlir_to_linalg", "ConvertTlirToLinalg"),
    "convert-random-to-arith": ("tlir.passes.convert_random_to_arith", "ConvertRandomToArith"),
    "tlir-inline-custom": ("tlir.passes.tlir_inline_custom", "TlirInlineCustom"),
    "tlir-specialize-batch": ("tlir.passes.tlir_specialize_batch", "TlirSpecializeBatch"),
    "tlir-form-kernels": ("tlir.passes.tlir_form_kernels", "TlirFormKernels"),
    "tlir-dedup-kernels": ("tlir.passes.tlir_dedup_kernels", "TlirDedupKernels"),
    "tlir-fuse-elementwise": ("tlir.passes.tlir_fuse_elementwise", "TlirFuseElementwise"),
    "tlir-bufferize": ("tlir.passes.tlir_bufferize", "TlirBufferize"),
    "tlir-linalg-to-loops": ("tlir.passes.tlir_linalg_to_loops", "TlirLinalgToLoops"),
    "tlir-scf-to-cf": ("tlir.passes.tlir_scf_to_cf", "TlirScfToCf"),
    "tlir-lower-to-llvm": ("tlir.passes.tlir_lower_to_llvm", "TlirLowerToLLVM"),
    "tlir-to-llvm": ("tlir.passes.tlir_to_llvm", "TlirToLLVM"),
    "tlir-contraction-kernels": ("tlir.passes.tlir_contraction_kernels", "TlirContractionKernels"),
    "tlir-jvp": ("tlir.passes.tlir_jvp", "TlirJvp"),
    "tlir-vjp": ("tlir.passes.tlir_vjp", "TlirVjp"),
    "tlir-ibp": ("tlir.passes.tlir_ibp", "TlirIbp"),
}


def _lazy(module: str, attribute: str) -> Callable[[], object]:
    return lambda: getattr(importlib.import_module(module), attribute)


def tlir_dialects() -> dict[str, Callable]:
    return {name: _lazy(*where) for name, where in _DIALECTS.items()}


def tlir_passes() -> dict[str, Callable]:
    return {name: _lazy(*where) for name, where in _PASSES.items()}


TLIR_UNIVERSE = Universe(all_dialects=tlir_dialects(), all_passes=tlir_passes())


def context() -> Context:
    """An xDSL context knowing xDSL's dialects and tlir's (loaded lazily)."""
    from xdsl.dialects import get_all_dialects

    ctx = Context()
    for name, factory in {**get_all_dialects(), **tlir_dialects()}.items():
        ctx.register_dialect(name, factory)
    return ctx
