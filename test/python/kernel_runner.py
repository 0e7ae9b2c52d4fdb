"""Compile one kernel function on its own and call it on NumPy arrays.

For tests of the passes below kernel formation (bufferization, loops, fusion):
the function is marked `tlir.kernel`, lowered by a back end exactly as the
compiler lowers kernels, and called through its `.entry` wrapper over
`[lo, hi)` ranges.
"""

from __future__ import annotations

import ctypes

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import UnitAttr

import tlir
from tlir.compiler.jit import Engine
from tlir.compiler.model import compile_kernel
from tlir.interface import numpy_dtype


def run_kernel(text: str, inputs, backend: str = "xdsl", ranges=None):
    """Outputs of the module's first function, run as a kernel; `ranges` splits
    its parallel extent (default: one call over everything)."""
    module = tlir.parse_module(text)
    kernel = next(op for op in module.ops if isinstance(op, func.FuncOp))
    kernel.attributes["tlir.kernel"] = UnitAttr()
    abi, data = compile_kernel(kernel, backend, 2, "test")
    engine = Engine([data])
    name = kernel.sym_name.data
    entry = engine.function(
        f"{name}.entry", None, [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]
    )
    outputs = [np.zeros(t.get_shape(), numpy_dtype(t)) for t in kernel.function_type.outputs.data]
    scratch = [np.zeros(max(n, 1), np.uint8) for n in abi.scratch_bytes]
    arrays = [np.ascontiguousarray(x) for x in inputs] + outputs + scratch
    keep = np.zeros(1)
    pointers = (ctypes.c_void_p * len(arrays))(
        *[a.ctypes.data if a.size else keep.ctypes.data for a in arrays]
    )
    for lo, hi in ranges or [(0, abi.parallel_extent)]:
        entry(pointers, lo, hi)
    return outputs, abi
