"""A compiled model whose batch is `?`: any batch size ≥ 1 at call time.

`tlir.compile` of a module whose function takes `?` extents (from_torch and
from_onnx with `dynamic_batch=True`) gives a `DynamicBatchModel`. It checks
the module's batch once (`check_batch`: every `?` a multiple k·B of the batch)
and compiles its forward function (at the first call; the JVP, VJP and the
IBP programs of `bounds` at theirs) once for every batch
(`tlir.compiler.batch_model`): the kernels whose code serves every batch take
it at run time, and a call at a new batch compiles only the kernels that do
not (listed in `stats`); a graph whose kernels do not
pair up across batches is compiled per batch as a static model (the module
specialized to the batch, `tlir-specialize-batch`). CROWN compiles nothing: its
sweeps run on the module specialized to the box's batch. Every batch reads the
same parameter arrays, so `parameters()` updated in place change them all.

Results are bit-identical to a static compile at the call's batch
(docs/design.md#dynamic-batch).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType

from tlir.compiler.batch_model import (
    NOMINAL,
    SMALL_NOMINAL,
    BatchCompile,
    BatchModelCode,
    NotGeneric,
    PerBatch,
    check_arrays,
)
from tlir.compiler.bounds_call import BoundsCall
from tlir.compiler.calling import EntryCall
from tlir.compiler.model import (
    CompiledModel,
    constant_slots,
    derivative_module,
    frozen_arrays,
    refuse_frozen,
    tag_constants,
)
from tlir.compiler.options import check_parameters
from tlir.compiler.plan import entry_constants
from tlir.compiler.threads import check_threads, default_threads
from tlir.dense import dense_to_numpy, numpy_to_dense
from tlir.diagnostics import TlirError
from tlir.interface import find_function, numpy_dtype
from tlir.limits import check_tensor_sizes
from tlir.parameters import constants, parameter_names, parameters
from tlir.passes.ibp.signed import fewest_rows
from tlir.passes.tlir_specialize_batch import check_batch, specialize

SPECIALIZED = 4
"""How many batches' specialized modules CROWN keeps (specializing costs more
than the copy each call takes)."""


def _spec_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join("?" if d < 0 else str(d) for d in shape) + "]"


@dataclass(frozen=True)
class _Signature:
    """A function's signature alone, as the box checks of `tlir.verification` read it."""

    function_type: FunctionType


class _BatchProgram:
    """A bounds program's caller at one batch, as `BoundsCall` calls a static
    model's derived one: run with the model's threads as they are at the call."""

    __slots__ = ("_call", "_model")

    def __init__(self, call: EntryCall, model: DynamicBatchModel) -> None:
        self._call, self._model = call, model

    def run_split(self, boxes: list[np.ndarray], count: int) -> tuple[list[np.ndarray], list]:
        return self._call.run_split(boxes, self._model._threads, count)

    def run_checked(self, boxes: list[np.ndarray]) -> list[np.ndarray]:
        return self._call.run(boxes, self._model._threads)


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
        self.frozen = check_parameters(options.get("parameters", "live"), where) == "frozen"
        signature = self.function_op.function_type
        self._inputs = [(tuple(t.get_shape()), numpy_dtype(t)) for t in signature.inputs.data]
        itemsize = max((d.itemsize for _, d in self._inputs if d.kind == "f"), default=8)
        self._small_below = fewest_rows(itemsize)
        """Batches below this run the IBP program formed at `SMALL_NOMINAL`."""
        self._shared = [dense_to_numpy(c.value) for c in constants(self.function_op)]
        if self.frozen:  # every batch's model reads these same read-only arrays
            self._shared = frozen_arrays(self._shared)
        self._models: dict[int, CompiledModel] = {}
        self._compiling = threading.Lock()  # concurrent first calls compile a batch once
        self._codes: dict[tuple[str, object], BatchModelCode | None] = {}
        self._batch_first = bool(self._inputs[0][0][:1]) and self._inputs[0][0][0] < 0
        """Whether input 0 has the batch (`?` leading): a bound's batch is its first array's."""
        self._bounds_calls: dict[int, BoundsCall] = {}  # per batch met by a bound
        self._ibp_programs: dict[tuple[int, str], _BatchProgram] = {}  # (batch, option)
        self._specialized: dict[int, ModuleOp] = {}  # CROWN's modules, a few recent batches
        self.stats: dict[str, object] = {
            "compiled batches": [],
            "kernels compiled once": {},
            "kernels compiled per batch": {},
            "per-batch kernel compiles": 0,
        }
        """`compiled batches`: the batches at which a call compiled something
        (kernels not batch-generic, or a whole static model); the kernel counts
        per function (`main`, `main_vjp all`, `main_ibp fast`, ...); every
        kernel compiled at a batch so far."""

    # --- the model at one batch ------------------------------------------------

    def at(self, batch: int) -> CompiledModel:
        """The model compiled for `batch` (compiled on first use)."""
        model = self._models.get(batch)
        if model is not None:
            return model
        with self._compiling:
            return self._models.get(batch) or self._compile(batch)

    # --- one compile for every batch ---------------------------------------------

    def _module_at(self, mode: str, option: object):
        function, where = self.function, self.where
        if mode == "forward":
            return lambda batch: tag_constants(specialize(self._module, batch, where), function)
        return lambda batch: derivative_module(
            specialize(self._module, batch, where), function, mode, option
        )

    def _code(
        self, mode: str, option: object = None, nominal: tuple[int, int] = NOMINAL
    ) -> BatchModelCode | None:
        """The code compiled once for every batch (its kernels formed at the
        `nominal` batches), or None if the graph needs a static compile per batch."""
        key = (mode, option) if nominal == NOMINAL else (mode, option, nominal)
        if key in self._codes:
            return self._codes[key]
        with self._compiling:
            if key not in self._codes:
                self._codes[key] = self._compile_code(mode, option, nominal)
        return self._codes[key]

    def _compile_code(
        self, mode: str, option: object, nominal: tuple[int, int]
    ) -> BatchModelCode | None:
        name = self.function if mode == "forward" else f"{self.function}_{mode}"
        module_at = self._module_at(mode, option)
        options = {
            k: self._options[k]
            for k in ("backend", "opt_level", "fuse", "numerics")
            if k in self._options
        }
        from tlir.compiler.cache import open_cache

        store = open_cache(bool(self._options.get("cache", True)))
        try:
            compiled = BatchCompile(
                module_at, name, where=self.where, store=store, nominal=nominal, **options
            )
        except NotGeneric:
            return None
        hit = compiled.cache_hits == len(compiled.infos) and compiled.entry_hit
        self.stats["cache"] = "off" if store is None else "hit" if hit else "miss"
        slots = constant_slots(module_at(nominal[0]), name)
        arrays = [
            np.ascontiguousarray(c) if slot is None else self._shared[slot]
            for c, slot in zip(entry_constants(compiled.first.entry), slots, strict=True)
        ]
        label = name if option is None else f"{name} {option}"
        label = label if nominal == NOMINAL else f"{label} small"
        self.stats["kernels compiled once"][label] = len(compiled.infos) - len(compiled.per_batch)
        self.stats["kernels compiled per batch"][label] = len(compiled.per_batch)
        return BatchModelCode(compiled, arrays, bool(self._options.get("cache", True)))

    def _run(self, code: BatchModelCode, batch: int, groups, fallback):
        """The call at `batch` on `groups` of arrays, each `(arrays, what, plural)`
        checked as `CompiledModel` checks them; `fallback()` if this batch needs a
        static compile after all (its kernels do not pair up with the first's)."""
        specs, checked = code.compile.inputs, []
        for arrays, what, plural in groups:
            arrays = list(arrays)
            part = specs[len(checked) : len(checked) + len(arrays)]
            expected = len(specs) - len(checked) if len(groups) == 1 else None
            if expected is not None and len(arrays) != expected:
                raise TlirError(self.where, f"expected {expected} {plural}, got {len(arrays)}")
            checked += check_arrays(part, arrays, batch, what, self.where)
        if len(checked) != len(specs):
            raise TlirError(self.where, f"expected {len(specs)} arrays, got {len(checked)}")
        state = self._state(code, batch)
        if state is None:
            return fallback()
        return state.call.run(checked, self._threads)

    def _state(self, code: BatchModelCode, batch: int) -> PerBatch | None:
        """`code` at `batch` (the kernels it compiled there counted in `stats`),
        or None if this batch needs a static compile after all."""
        fresh = batch not in code.batches
        try:
            state = code.at(batch)
        except NotGeneric:
            return None
        if fresh and state.kernels:
            self.stats["cache"] = "miss" if self.stats.get("cache") != "off" else "off"
            self.stats["per-batch kernel compiles"] += state.kernels
            if batch not in self.stats["compiled batches"]:
                self.stats["compiled batches"].append(batch)
        return state

    # --- a static compile per batch (a graph the one compile does not take) ------

    def _compile(self, batch: int) -> CompiledModel:
        static = tag_constants(specialize(self._module, batch, self.where), self.function)
        check_tensor_sizes(static, self.where)  # the loading stage saw only the `?` form
        model = CompiledModel(
            static, where=self.where, threads=self._threads, shared=self._shared, **self._options
        )
        self._models[batch] = model
        if batch not in self.stats["compiled batches"]:
            self.stats["compiled batches"].append(batch)
        self.stats.update({k: v for k, v in model.stats.items() if k not in self.stats})
        return model

    def batch_of(self, arrays: Sequence[object], what: str = "input", exact: bool = True) -> int:
        """The batch of `arrays` (one per input): each of its input's shape but
        for a leading `?` (and dtype, if `exact`), all with one batch ≥ 1;
        one-line errors otherwise."""
        batch = None
        for index, (value, (shape, dtype)) in enumerate(zip(arrays, self._inputs, strict=False)):
            value = np.asarray(value)
            fits = (
                (value.dtype == dtype or not exact)
                and value.ndim == len(shape)
                and all(d < 0 or d == e for d, e in zip(shape, value.shape, strict=True))
                and all(e >= 1 for d, e in zip(shape, value.shape, strict=True) if d < 0)
            )
            if fits and shape and shape[0] < 0 and batch not in (None, value.shape[0]):
                raise TlirError(
                    self.where,
                    f"{what} {index} has batch {value.shape[0]}, but {what} 0 has batch {batch}",
                )
            if not fits and not exact:
                raise TlirError(
                    self.where,
                    f"{what} {index} has shape {list(value.shape)}, expected shape "
                    f"{_spec_text(shape)} ('?': any batch of at least 1)",
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
        # A batch met before: its caller checks the arrays against their shapes
        # at that batch, so a call costs little more than a static model's.
        code = self._codes.get(("forward", None))
        first = inputs[0] if inputs else None
        if code is not None and type(first) is np.ndarray and first.ndim:
            state = code.batches.get(first.shape[0])
            if state is not None and len(inputs) == len(state.specs):
                return state.call(inputs, self._threads)
        batch = self.batch_of(inputs)
        if len(inputs) != len(self._inputs):
            raise TlirError(
                self.where,
                f"@{self.function} takes {len(self._inputs)} inputs, got {len(inputs)}",
            )
        code = self._code("forward")
        if code is None:
            return self.at(batch)(*inputs)
        return self._run(
            code, batch, [(inputs, "input", "inputs")], lambda: self.at(batch)(*inputs)
        )

    def jvp(
        self,
        inputs: Sequence[np.ndarray],
        tangents: Sequence[np.ndarray],
        param_tangents: Mapping[str, np.ndarray] | Sequence[np.ndarray] | None = None,
    ):
        refuse_frozen(self, "jvp")
        batch = self.batch_of(inputs)
        seeded = param_tangents is not None
        code = self._code("jvp", seeded)

        def static():
            return self.at(batch).jvp(inputs, tangents, param_tangents)

        if code is None:
            return static()
        groups = [
            (self._counted(inputs, len(self._inputs), "inputs"), "input", "inputs"),
            (
                self._counted(tangents, len(self._inputs), "tangents (one per input)"),
                "tangent",
                "tangents",
            ),
        ]
        if seeded:
            extra = CompiledModel._param_arrays(self, param_tangents, "parameter tangent")  # type: ignore[arg-type]
            groups.append((extra, "parameter tangent", "parameter tangents"))
        results = self._run(code, batch, groups, static)
        if isinstance(results, tuple):
            return results
        count = len(self.function_op.function_type.outputs.data)
        return results[:count], results[count:]

    def vjp(self, inputs: Sequence[np.ndarray], cotangents: Sequence[np.ndarray], wrt="all"):
        from tlir.interface import VJP_WRT

        refuse_frozen(self, "vjp")
        batch = self.batch_of(inputs)
        if wrt not in VJP_WRT:
            raise TlirError(self.where, f"wrt must be one of {', '.join(VJP_WRT)}, got {wrt!r}")
        code = self._code("vjp", wrt)

        def static():
            return self.at(batch).vjp(inputs, cotangents, wrt)

        if code is None:
            return static()
        outputs = len(self.function_op.function_type.outputs.data)
        groups = [
            (self._counted(inputs, len(self._inputs), "inputs"), "input", "inputs"),
            (
                self._counted(cotangents, outputs, "cotangents (one per output)"),
                "cotangent",
                "cotangents",
            ),
        ]
        results = self._run(code, batch, groups, static)
        if isinstance(results, tuple):
            return results
        count = len(self._inputs) if wrt != "params" else 0
        names = list(self.parameters()) if wrt != "inputs" else []
        grads = results[outputs + count :]
        return (
            results[:outputs],
            results[outputs : outputs + count],
            dict(zip(names, grads, strict=True)),
        )

    def _counted(self, arrays, count: int, plural: str) -> list:
        arrays = list(arrays)
        if len(arrays) != count:
            raise TlirError(self.where, f"expected {count} {plural}, got {len(arrays)}")
        return arrays

    # --- bounds ---------------------------------------------------------------------

    def ibp(self, lowers, uppers, rules: str = "torchlean"):
        """`CompiledModel.ibp` at the boxes' batch."""
        result = self.bounds(lowers, uppers, rules)
        return result.lowers, result.uppers

    def ibp_ball(self, inputs, eps: float, rules: str = "torchlean"):
        """`CompiledModel.ibp_ball` at the inputs' batch."""
        inputs = inputs if type(inputs) is list else list(inputs)
        call = self._bounds_calls.get(self._leading(inputs))
        if call is None:  # a batch not met before: its shapes checked here
            from tlir.tight import check_rules

            rules = check_rules(rules, self.where)
            call = self._bounds_at(self.batch_of(inputs, exact=False))
        result = call.ball(inputs, eps, rules)
        return result.lowers, result.uppers

    def bounds(self, lowers, uppers, rules: str = "torchlean"):
        """`CompiledModel.bounds` at the boxes' batch: `@main_ibp` (and its fast
        path) compiled once for every batch, as the derivatives are, called
        through the static model's path (`BoundsCall`) with this batch's
        programs. A batch met before: its caller checks every shape at it."""
        lowers = lowers if type(lowers) is list else list(lowers)
        call = self._bounds_calls.get(self._leading(lowers))
        if call is None:
            from tlir.tight import check_rules

            rules = check_rules(rules, self.where)
            batch, lowers, uppers = self._box_batch(lowers, uppers)
            call = self._bounds_at(batch)
        return call(lowers, uppers, rules)

    def _bounds_at(self, batch: int) -> BoundsCall:
        """The bounds call at `batch`: the boxes checked against the inputs'
        shapes at it, its programs `_ibp_program`'s."""
        call = self._bounds_calls.get(batch)
        if call is None:
            types = [
                TensorType(t.element_type, [batch if d < 0 else d for d in t.get_shape()])
                for t in self.function_op.function_type.inputs.data
            ]
            specs = [(tuple(t.get_shape()), numpy_dtype(t)) for t in types]
            signature = _Signature(FunctionType.from_lists(types, []))
            program = partial(self._ibp_program, batch)
            call = BoundsCall(self.where, self.function_op, specs, program, signature)
            self._bounds_calls[batch] = call
        return call

    def _ibp_code(self, batch: int, option: str) -> BatchModelCode | None:
        """The IBP program that runs at `batch`: below two vectors of rows, the
        one formed at `SMALL_NOMINAL` (compiled on the first such call), whose
        signed interval linears vectorise over the outputs as a static compile
        at such a batch does; else (or if that one compiles kernels per batch)
        the one formed at `NOMINAL`."""
        if batch < self._small_below:
            small = self._code("ibp", option, SMALL_NOMINAL)
            if small is not None and not small.compile.per_batch:
                return small
        return self._code("ibp", option)

    def _ibp_program(self, batch: int, option: str):
        """`@main_ibp` for `option` ("fast" or the rules) at `batch`: the
        once-compiled code's caller at the batch, or (a graph or batch the one
        compile does not take) the batch's static compile's."""
        program = self._ibp_programs.get((batch, option))
        if program is not None:
            return program
        code = self._ibp_code(batch, option)
        state = None if code is None else self._state(code, batch)
        if state is None:  # looked up at each call: it takes the model's threads then
            return self.at(batch)._derivative("ibp", option)
        program = self._ibp_programs[(batch, option)] = _BatchProgram(state.call, self)
        return program

    def crown(self, lowers, uppers, objective=None, mode: str = "torchlean", rules="torchlean"):
        """`CompiledModel.crown` at the box's batch. CROWN's sweeps run on the
        reference evaluator: the module specialized to the batch, nothing compiled."""
        from tlir.crown import model_crown

        batch, lowers, uppers = self._box_batch(lowers, uppers)
        static = self._static_module(batch)
        function_op = find_function(static, self.function)
        return model_crown(function_op, static, lowers, uppers, objective, mode, self.where, rules)

    def crown_ball(self, inputs, eps: float, objective=None, mode="torchlean", rules="torchlean"):
        """`CompiledModel.crown_ball` at the inputs' batch (nothing compiled)."""
        from tlir.crown import model_crown_ball

        inputs = list(inputs)
        static = self._static_module(self.batch_of(inputs, exact=False))
        function_op = find_function(static, self.function)
        return model_crown_ball(
            function_op, static, inputs, eps, objective, mode, self.where, rules
        )

    def _box_batch(self, lowers, uppers) -> tuple[int, list, list]:
        """(the batch of a box, its lower ends, its upper ends): both of one batch."""
        lowers, uppers = list(lowers), list(uppers)
        count = len(self._inputs)
        if len(lowers) != count or len(uppers) != count:
            raise TlirError(
                self.where, f"expected {count} lower and {count} upper bounds (one per "
                f"input), got {len(lowers)} and {len(uppers)}"
            )  # fmt: skip
        met = self._met(lowers)
        if met is not None:  # `input_boxes` checks every shape at it
            return met, lowers, uppers
        batch = self.batch_of(lowers, "lower bound", exact=False)
        upper = self.batch_of(uppers, "upper bound", exact=False)
        if upper != batch:
            raise TlirError(
                self.where, f"the upper bounds have batch {upper}, the lower bounds {batch}"
            )
        return batch, lowers, uppers

    def _leading(self, arrays: list) -> int | None:
        """The batch `arrays[0]` gives where input 0 has the batch, else None."""
        first = arrays[0] if arrays else None
        if not self._batch_first or type(first) is not np.ndarray or not first.ndim:
            return None
        return first.shape[0]

    def _met(self, arrays: list) -> int | None:
        """The batch of `arrays` if a bound met it before (the caller checks
        every shape at it), else None."""
        batch = self._leading(arrays)
        return batch if batch in self._bounds_calls else None

    def _static_module(self, batch: int) -> ModuleOp:
        """A copy of the module at `batch` (within the size limits) whose
        constants hold the current values, as a static model's `module()`."""
        static = self._specialized.pop(batch, None)
        if static is None:
            static = specialize(self._module, batch, self.where)
            check_tensor_sizes(static, self.where)
        self._specialized[batch] = static  # the most recent last
        while len(self._specialized) > SPECIALIZED:
            del self._specialized[next(iter(self._specialized))]
        copy = static.clone()
        function = find_function(copy, self.function)
        for op, value in zip(constants(function), self._shared, strict=True):
            op.value = numpy_to_dense(value)
        return copy

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
