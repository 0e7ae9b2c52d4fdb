"""Compiling tlir models to machine code and calling them on NumPy arrays.

  model = tlir.compile("examples/cnn.json", dtype="f64")
  probabilities, logits = model(x)

The module is lowered with `convert-tlir-to-linalg` and
`convert-random-to-arith`, then taken to LLVM IR by a back end, and JIT-compiled.
"""

from __future__ import annotations

import io
import itertools

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer

from tlir.diagnostics import TlirError
from tlir.interface import check_inputs, find_function, numpy_dtype

_MODEL_IDS = itertools.count()

BACKENDS = ("xdsl", "mlir")
"""`xdsl`: tlir's own route (no external tool); `mlir`: upstream mlir-opt/mlir-translate."""


def lower_to_linalg(module: ModuleOp, outline: bool = False) -> ModuleOp:
    """A copy of `module` in linalg / tensor / arith / math / func; with
    `outline`, each tlir op in a `noinline` function of its own."""
    from tlir.passes.convert_random_to_arith import ConvertRandomToArith
    from tlir.passes.convert_tlir_to_linalg import ConvertTlirToLinalg
    from tlir.passes.tlir_outline_ops import TlirOutlineOps
    from tlir.universe import context

    lowered = module.clone()
    passes = (TlirOutlineOps(),) if outline else ()
    PassPipeline((*passes, ConvertTlirToLinalg(), ConvertRandomToArith())).apply(context(), lowered)
    return lowered


def to_text(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


class CompiledModel:
    """A model compiled for this CPU; call it with NumPy arrays."""

    def __init__(
        self, module: ModuleOp, backend: str = "xdsl", opt_level: int = 2, where: str = "model"
    ):
        from tlir import jit

        if backend not in BACKENDS:
            raise TlirError(
                where, f"unknown back end '{backend}' (choose from {', '.join(BACKENDS)})"
            )
        self.where = where
        self.function_op = find_function(module)
        signature = self.function_op.function_type
        self.output_specs = [(tuple(t.get_shape()), numpy_dtype(t)) for t in signature.outputs.data]
        symbols: dict = {}
        if backend == "xdsl":
            from tlir.backend import xdsl

            prefix = f"tlir{next(_MODEL_IDS)}_"
            self.llvm_ir, symbols = xdsl.to_llvm_ir_with_external_constants(module, prefix, where)
        else:
            from tlir.backend import mlir

            linalg_text = to_text(lower_to_linalg(module, outline=True))
            self.llvm_ir = mlir.to_llvm_ir(linalg_text, where)
        self.compiled = jit.CompiledModule(self.llvm_ir, opt_level, where, symbols)
        self.convention = jit.Convention.DESCRIPTOR if backend == "mlir" else jit.Convention.BARE
        shapes = [tuple(t.get_shape()) for t in (*signature.inputs.data, *signature.outputs.data)]
        self._main = self.compiled.function("main", jit.argtypes(shapes, self.convention))

    def __call__(self, *inputs: np.ndarray) -> list[np.ndarray]:
        from tlir import jit

        checked = check_inputs(self.function_op, inputs, self.where)
        return jit.call(self._main, checked, self.output_specs, self.convention)


def compile(
    model, dtype: str | None = None, backend: str = "xdsl", opt_level: int = 2
) -> CompiledModel:
    """Compile a model: a .json/.mlir path, MLIR text, or a module."""
    from tlir.api import load_model, parse_module_checked
    from tlir.diagnostics import verify_module

    if isinstance(model, ModuleOp):
        module, where = model, "module"
    elif isinstance(model, str) and model.endswith((".json", ".mlir")) and "\n" not in model:
        module, where = load_model(model, dtype), model
    else:
        module, where = parse_module_checked(str(model), "<string>"), "<string>"
        verify_module(module, where)
    return CompiledModel(module, backend, opt_level, where)


__all__ = ["CompiledModel", "compile", "lower_to_linalg"]
