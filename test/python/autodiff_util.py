"""Helpers of the automatic-differentiation tests: derivative modules whose
@main is `@main_jvp`/`@main_vjp` (what the compiler calls), several of them
merged into one @main (one compilation), and bit comparisons."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.ir import Block, Region

import tlir
from tlir.compiler.backend.mlir import find_tool
from tlir.diagnostics import verify_module
from tlir.interface import find_function
from tlir.passes.tlir_jvp import TlirJvp
from tlir.passes.tlir_vjp import TlirVjp
from tlir.universe import context

BACKENDS = [
    "xdsl",
    pytest.param(
        "mlir", marks=pytest.mark.skipif(find_tool("mlir-opt") is None, reason="no mlir-opt")
    ),
]
"""Both back ends, the mlir one skipped where MLIR's tools are not installed."""


def derivative(model: str | ModuleOp, mode: str, **options) -> ModuleOp:
    """The module after `tlir-jvp` / `tlir-vjp`, its derivative function renamed
    @main (and the original @main dropped)."""
    module = tlir.parse_module(model) if isinstance(model, str) else model.clone()
    (TlirJvp(**options) if mode == "jvp" else TlirVjp(**options)).apply(context(), module)
    main = find_function(module)
    main.detach()
    main.erase()
    find_function(module, f"main_{mode}").sym_name = StringAttr("main")
    verify_module(module, "derivative")
    return module


def merged(modules: Sequence[ModuleOp]) -> ModuleOp:
    """One @main running every module's @main side by side: the arguments and
    the results one after the other (the modules have no other functions)."""
    mains = [find_function(m) for m in modules]
    block = Block(arg_types=[t for m in mains for t in m.function_type.inputs.data])
    results = []
    position = 0
    for main in mains:
        body = main.body.block
        mapping = dict(zip(body.args, block.args[position : position + len(body.args)]))
        position += len(body.args)
        for op in body.ops:
            if isinstance(op, func.ReturnOp):
                results += [mapping[v] for v in op.arguments]
                break
            clone = op.clone(value_mapper=mapping)
            block.add_op(clone)
            mapping.update(zip(op.results, clone.results))
    block.add_op(func.ReturnOp(*results))
    typ = FunctionType.from_lists(list(block.arg_types), [v.type for v in results])
    return ModuleOp([func.FuncOp("main", typ, Region(block))])


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Bit-identical, except that NaNs only need to be NaNs: LLVM may rewrite
    `x·(−1)` as a negation, which flips a NaN's sign bit, and IEEE leaves the
    sign and payload of a NaN result unspecified."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    nan = np.isnan(want)
    if not np.array_equal(np.isnan(got), nan):
        return False
    return got[~nan].tobytes() == want[~nan].tobytes()


def close(got: np.ndarray, want: np.ndarray) -> bool:
    """The numerics contract where transcendentals enter: relative 1e-12 (f64)
    or 1e-5 (f32), NaNs at the same places."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    rtol = 1e-5 if got.dtype == np.float32 else 1e-12
    nan = np.isnan(want)
    if not np.array_equal(np.isnan(got), nan):
        return False
    return bool(np.allclose(got[~nan], want[~nan], rtol=rtol, atol=0))


def normal(shape, dtype: str, seed: int) -> np.ndarray:
    np_dtype = np.float32 if dtype == "f32" else np.float64
    return np.random.default_rng(seed).normal(size=shape).astype(np_dtype)


def output_shapes(module: ModuleOp) -> list[tuple[int, ...]]:
    return [tuple(t.get_shape()) for t in find_function(module).function_type.outputs.data]
