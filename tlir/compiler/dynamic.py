"""A compiled model whose batch is `?`: any batch size ≥ 1 at call time.

`tlir.compile` of a module whose function takes `?` extents (from_torch and
from_onnx with `dynamic_batch=True`) gives a `DynamicBatchModel`. It checks
the module's batch once (`check_batch`: every `?` a multiple k·B of the batch)
and, at a call, runs the model compiled for that call's batch: the module
specialized to it (`tlir-specialize-batch`) and compiled as any static module,
once per distinct batch, its kernels from the compile cache when another
process compiled them. Every batch's compiled model reads the same parameter
arrays, so `parameters()` updated in place change them all.

The kernels are those of a static compile at that batch, so results are
bit-identical to it (docs/design.md#dynamic-batch); the price is a compile at
each batch first met (`stats["compiled batches"]` lists them).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tlir.compiler.model import CompiledModel, tag_constants
from tlir.compiler.threads import check_threads, default_threads
from tlir.dense import dense_to_numpy, numpy_to_dense
from tlir.diagnostics import TlirError
from tlir.interface import find_function, numpy_dtype
from tlir.limits import check_tensor_sizes
from tlir.parameters import constants, parameter_names, parameters
from tlir.passes.tlir_specialize_batch import check_batch, specialize


def _spec_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join("?" if d < 0 else str(d) for d in shape) + "]"


class DynamicBatchModel:
    """A model compiled at every batch it is called with (see the module's
    docstring); the interface of `CompiledModel`."""

    def __init__(self, module: ModuleOp, where: str = "model", **options: object):
        check_batch(module, where)
        self._module = module
        self.where = where
        self.function = str(options.get("function", "main"))
        self.function_op = find_function(module, self.function, dynamic=True)
        threads = options.pop("threads", None)
        self._threads = default_threads() if threads is None else check_threads(threads, where)
        self._options = options
        self.numerics = options.get("numerics", "exact")
        signature = self.function_op.function_type
        self._inputs = [(tuple(t.get_shape()), numpy_dtype(t)) for t in signature.inputs.data]
        self._shared = [dense_to_numpy(c.value) for c in constants(self.function_op)]
        self._models: dict[int, CompiledModel] = {}
        self._compiling = threading.Lock()  # concurrent first calls compile a batch once
        self.stats: dict[str, object] = {"compiled batches": []}

    # --- the model at one batch ------------------------------------------------

    def at(self, batch: int) -> CompiledModel:
        """The model compiled for `batch` (compiled on first use)."""
        model = self._models.get(batch)
        if model is not None:
            return model
        with self._compiling:
            return self._models.get(batch) or self._compile(batch)

    def _compile(self, batch: int) -> CompiledModel:
        static = tag_constants(specialize(self._module, batch, self.where), self.function)
        check_tensor_sizes(static, self.where)  # the loading stage saw only the `?` form
        model = CompiledModel(
            static, where=self.where, threads=self._threads, shared=self._shared, **self._options
        )
        self._models[batch] = model
        self.stats["compiled batches"].append(batch)
        self.stats.update({k: v for k, v in model.stats.items() if k != "compiled batches"})
        return model

    def batch_of(self, arrays: Sequence[object], what: str = "input") -> int:
        """The batch of `arrays` (one per input): each of its input's shape but
        for a leading `?`, all with one batch ≥ 1; one-line errors otherwise."""
        batch = None
        for index, (value, (shape, dtype)) in enumerate(zip(arrays, self._inputs, strict=False)):
            value = np.asarray(value)
            fits = (
                value.dtype == dtype
                and value.ndim == len(shape)
                and all(d < 0 or d == e for d, e in zip(shape, value.shape, strict=True))
                and all(e >= 1 for d, e in zip(shape, value.shape, strict=True) if d < 0)
            )
            if fits and shape and shape[0] < 0 and batch not in (None, value.shape[0]):
                raise TlirError(
                    self.where,
                    f"{what} {index} has batch {value.shape[0]}, but {what} 0 has batch {batch}",
                )
            if not fits:
                raise TlirError(
                    self.where,
                    f"{what} {index} has shape {list(value.shape)} and dtype {value.dtype}, "
                    f"expected shape {_spec_text(shape)} and dtype {dtype} "
                    "('?': any batch of at least 1)",
                )
            if shape and shape[0] < 0:
                batch = value.shape[0]
        return 1 if batch is None else batch

    # --- calls --------------------------------------------------------------------

    def __call__(self, *inputs: np.ndarray) -> list[np.ndarray]:
        # A batch met before: its compiled model checks the arrays against its
        # own (static) shapes, so a call costs one lookup more than a static one.
        first = inputs[0] if inputs else None
        if type(first) is np.ndarray and first.ndim:
            model = self._models.get(first.shape[0])
            if model is not None:
                return model(*inputs)
        return self.at(self.batch_of(inputs))(*inputs)

    def jvp(
        self,
        inputs: Sequence[np.ndarray],
        tangents: Sequence[np.ndarray],
        param_tangents: Mapping[str, np.ndarray] | Sequence[np.ndarray] | None = None,
    ):
        return self.at(self.batch_of(inputs)).jvp(inputs, tangents, param_tangents)

    def vjp(self, inputs: Sequence[np.ndarray], cotangents: Sequence[np.ndarray], wrt="all"):
        return self.at(self.batch_of(inputs)).vjp(inputs, cotangents, wrt)

    def ibp(self, lowers, uppers, rules: str = "torchlean"):
        return self.at(self.batch_of(lowers, "lower bound")).ibp(lowers, uppers, rules)

    def ibp_ball(self, inputs, eps: float, rules: str = "torchlean"):
        return self.at(self.batch_of(inputs)).ibp_ball(inputs, eps, rules)

    def bounds(self, lowers, uppers, rules: str = "torchlean"):
        return self.at(self.batch_of(lowers, "lower bound")).bounds(lowers, uppers, rules)

    def crown(self, lowers, uppers, objective=None, mode: str = "torchlean", rules="torchlean"):
        model = self.at(self.batch_of(lowers, "lower bound"))
        return model.crown(lowers, uppers, objective, mode, rules)

    def crown_ball(self, inputs, eps: float, objective=None, mode="torchlean", rules="torchlean"):
        return self.at(self.batch_of(inputs)).crown_ball(inputs, eps, objective, mode, rules)

    # --- parameters and the module ------------------------------------------------

    def parameters(self) -> dict[str, np.ndarray]:
        """Name → the array every batch's compiled code reads (as `CompiledModel`)."""
        position = {op: k for k, op in enumerate(constants(self.function_op))}
        names = parameter_names(self.function_op)
        return {
            name: self._shared[position[op]]
            for name, op in zip(names, parameters(self.function_op), strict=True)
        }

    def module(self) -> ModuleOp:
        """A copy of the (dynamic) module whose constants hold the current values."""
        copy = self._module.clone()
        function = find_function(copy, self.function, dynamic=True)
        for op, value in zip(constants(function), self._shared, strict=True):
            op.value = numpy_to_dense(value)
        return copy

    @property
    def threads(self) -> int:
        return self._threads

    @threads.setter
    def threads(self, threads: int) -> None:
        self._threads = check_threads(threads, self.where)
        for model in self._models.values():
            model.threads = self._threads


__all__ = ["DynamicBatchModel"]
