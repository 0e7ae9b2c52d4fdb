"""Register-blocked, vectorised, cache-tiled kernels for `tlir.matmul`,
`tlir.linear` and `tlir.conv`, bit-identical to TorchLean's folds.

`contraction_kernel(op, name, target, epilogue)` returns a `func.func` on
memrefs (static shapes, identity row-major layouts):

    func.func @name(%in0: memref<…>, …, %out: memref<…>, [%partials: memref<P×f>,]
                    %lo: index, %hi: index)
        attributes {tlir.parallel_extent = N : i64, tlir.num_inputs = I : i64,
                    tlir.num_outputs = 1 : i64}

* arguments: the op's operands in order (linear/conv: x, weight, bias), then the
  extra operands of the fused epilogue ops (in order of first use), then the
  result (an out-parameter, fully overwritten), then a scratch buffer where
  the kernel needs one (the kernel ABI's scratch: the caller provides it, its
  contents are irrelevant): for the partial sums between k blocks when a
  register tile's rows of the result crowd one L1 set, and for the packed
  blocks of B of a matmul or linear when they are wider than the stack budget;
  then `lo`, `hi`;
* the call computes the outputs of work units `[lo, hi)` of N (see `gemm.py`:
  batch × row blocks × column blocks; for conv, sample·group × output-channel
  blocks × output-position blocks); units write disjoint parts of the output
  and of the scratch buffer (a slice each), so threads may run disjoint ranges
  of one call with no synchronisation; `[0, N)` is everything;
* no `memref.alloc`: the packed panel (unless it is in the scratch buffer)
  and the edge tiles are `memref.alloca`s (at most `target.stack_bytes`;
  conv's input band at most `conv.BAND_BYTES` more), at the top of the
  function;
* every memref argument carries `llvm.noalias` (the caller guarantees it);
* with `batch_axes` (the kernel's `tlir.batch_axes`: which extents are k·B),
  one kernel for every batch B: it takes `%batch: index` after `hi` and
  carries `tlir.parallel_rule` and `tlir.scratch_rule`, how its work units and
  scratch buffer grow with B (`run_time.py`).

The body is `scf`, `arith`, `memref` and `vector` (load, store, broadcast) ops,
lowered by tlir's route (`tlir-scf-to-cf`, `tlir-lower-to-llvm`) or by
upstream MLIR (`--convert-vector-to-llvm` and the memref → LLVM pipeline).
"""

from __future__ import annotations

import importlib

# The names below load their modules on first use: the compile cache asks for
# `host_target()` on every compile, and a cache hit never builds a kernel.
_EXPORTS = {
    "TargetInfo": "tlir.passes.contraction_kernels.target",
    "host_target": "tlir.passes.contraction_kernels.target",
    "contraction_kernel": "tlir.passes.contraction_kernels.generator",
    "kernel_tiling": "tlir.passes.contraction_kernels.generator",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
