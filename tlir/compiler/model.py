"""Compiling tlir models to machine code and calling them on NumPy arrays.

  model = tlir.compile("examples/cnn.json", dtype="f64")
  probabilities, logits = model(x)
  outputs, tangents = model.jvp([x], [dx])
  outputs, input_grads, param_grads = model.vjp([x], [dp, dl])
  model.parameters()["node3.weight"][...] -= 0.1 * param_grads["node3.weight"]

The route: custom calls inlined, ops grouped into kernels (fused), identical
kernels merged (`tlir-inline-custom`, `tlir-form-kernels`,
`tlir-dedup-kernels`); each distinct kernel lowered once, by the chosen back
end, to an object file (or taken from the compile cache); the graph's function
becomes a plan of kernel calls over one workspace, emitted as an entry
function (`tlir.compiler.build`); the objects are linked in memory and called.
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.printer import Printer

from tlir.compiler.backend import KernelABI
from tlir.compiler.calling import ArraySpecs, EntryCall, pointer_array
from tlir.compiler.options import CompileOptions, takes_options
from tlir.compiler.threads import check_threads
from tlir.dense import dense_to_numpy, numpy_to_dense
from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.interface import VJP_WRT, find_function
from tlir.interpreter import collector_paused
from tlir.parameters import constants, parameter_names, parameters

if TYPE_CHECKING:
    from tlir.compiler.bounds_call import BoundsCall
    from tlir.compiler.plan import Plan

SLOT_ATTRIBUTE = "tlir.slot"
"""Marks a constant of the model's function with its position among them, so
that its copies in a derivative function read the same shared array."""


def lower_to_linalg(module: ModuleOp) -> ModuleOp:
    """A copy of `module` in linalg / tensor / arith / math / func on tensors."""
    from tlir.passes.convert_random_to_arith import ConvertRandomToArith
    from tlir.passes.convert_tlir_to_linalg import ConvertTlirToLinalg
    from tlir.universe import context

    lowered = module.clone()
    ctx = context()
    for stage in (ConvertTlirToLinalg(), ConvertRandomToArith()):
        stage.apply(ctx, lowered)
    return lowered


def to_text(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


class CompiledModel:
    """A model compiled for this CPU; call it with NumPy arrays.

    `module` is a checked module (`tlir.frontend.load`: verified, within the
    size limits, calling only its own functions, `function` a model's entry):
    the compiler checks none of this again.
    `options` are `tlir.compiler.options.CompileOptions`: back end, LLVM level,
    threads, compile cache, progress bar, fusion, numerics.
    """

    @takes_options
    @collector_paused()
    def __init__(
        self,
        module: ModuleOp,
        where: str = "model",
        function: str = "main",
        shared: list[np.ndarray] | None = None,
        **options: object,
    ):
        from tlir.compiler.build import Build
        from tlir.compiler.cache import open_cache

        checked = self._configure(where, function, options)
        self._module_value, self._module_loader = module, None
        self._function_op = find_function(module, function)
        build = Build(
            module,
            function,
            checked.backend,
            checked.opt_level,
            where,
            checked.fuse,
            checked.progress,
            checked.numerics,
            checked.parameters,
        )
        store = open_cache(checked.cache)
        loaded = build.load(store) if store is not None else None
        self.stats["cache"] = "off" if store is None else "hit" if loaded else "miss"
        plan, objects = loaded or build.compile(store)
        self.stats.update(build.seconds)
        self.stats["helper kernels"] = build.helper_kernels
        self.model_key = build.model_key
        if shared is None:
            # The model's own function: its constants become the shared arrays.
            shared = [dense_to_numpy(c.value) for c in constants(self._function_op)]  # fresh
            slots = own_constant_slots(module, function)
        else:
            slots = constant_slots(module, function)
        self._link(plan, objects, shared, slots, self._function_op.function_type)

    @classmethod
    @collector_paused()
    def from_cache(
        cls,
        loader: Callable[[], ModuleOp],
        model_key: str,
        function: str,
        signature: FunctionType,
        plan: Plan,
        objects: list[bytes],
        shared: list[np.ndarray],
        slots: list[int | None],
        parameter_slots: list[tuple[str, int]],
        where: str,
        **options,
    ) -> CompiledModel:
        """A model whose plan and objects came from the compile cache and whose
        module is built by `loader` only when something asks for it (`module`,
        derivatives, bounds; `tlir.compiler.warm`). `options` are `__init__`'s."""
        model = cls.__new__(cls)
        model._configure(where, function, options)
        model._module_value, model._module_loader = None, loader
        model._function_op = None
        model.model_key = model_key
        model._parameter_slots = list(parameter_slots)
        model.stats["cache"] = "hit"
        model._link(plan, objects, shared, slots, signature)
        return model

    def _configure(self, where: str, function: str, options: dict) -> CompileOptions:
        """The options, checked, and the state of a model not yet linked."""
        checked = CompileOptions.of(options, "CompiledModel").checked(where)
        self._threads = checked.threads
        self.where = where
        self.stats: dict[str, object] = {}
        self._options = checked.as_dict()  # threads checked: derivatives do not warn again
        self.numerics = checked.numerics
        self.frozen = checked.parameters == "frozen"
        self.function = function
        self._derivatives: dict[object, CompiledModel] = {}
        self._parameter_slots: list[tuple[str, int]] | None = None
        self._parameter_names_cache: list[str] | None = None
        self._bounds_call: BoundsCall | None = None  # built by the first `bounds`
        return checked

    def _link(
        self,
        plan: Plan,
        objects: list[bytes],
        shared: list[np.ndarray],
        slots: list[int | None],
        signature: FunctionType,
    ) -> None:
        """Link the objects and bind the plan's constants: each one with a slot
        is that shared array, the others contiguous copies of their own."""
        from tlir.compiler import jit
        from tlir.compiler.plan import ENTRY
        from tlir.limits import check_total_bytes

        cache = self._options["cache"]
        if self.frozen:
            shared = frozen_arrays(shared)
        self.plan = plan
        check_total_bytes(plan.workspace_bytes, "the workspace of the compiled model", self.where)
        self.object_digests = [hashlib.sha256(data).hexdigest() for data in objects]
        start = time.perf_counter()
        if jit.host().threads:  # the symbol entry functions call, defined first
            from tlir.compiler.pool import stub

            stub(cache)
        self.engine = jit.Engine(objects)
        pointer = ctypes.c_void_p
        self._entry = self.engine.function(
            ENTRY, ctypes.c_int32, [pointer, pointer, pointer, pointer, ctypes.c_int32]
        )
        self.stats["link"] = time.perf_counter() - start
        self._shared, self._slots = shared, slots
        self._constants = [
            np.ascontiguousarray(c) if slot is None else shared[slot]
            for c, slot in zip(plan.constants, slots, strict=True)
        ]
        for c, slot in zip(plan.constants, slots, strict=True):
            assert slot is None or (c.shape == shared[slot].shape and c.dtype == shared[slot].dtype)
        if self.frozen:
            self._constants = frozen_arrays(self._constants)
        # Constant weights packed once (`parameters="frozen"`), after the constants.
        self._packed = [packed.of(self._constants[source]) for source, packed in plan.packed]
        self.function_type = signature  # known without the module (a model from the cache)
        self._inputs = ArraySpecs(signature.inputs.data)
        self._results = ArraySpecs(signature.outputs.data)
        self._call = EntryCall(
            self._entry,
            self._inputs,
            plan.outputs,
            plan.workspace_bytes,
            pointer_array([*self._constants, *self._packed]),
            self.where,
            cache,
        )
        self.plan.constants = self._constants  # the shared arrays, not copies

    @property
    def _module(self) -> ModuleOp:
        """The checked module the model was compiled from (built now, once, for a
        model from the compile cache)."""
        if self._module_value is None:
            self._module_value = self._module_loader()
            self._module_loader = None
        return self._module_value

    @property
    def function_op(self) -> func.FuncOp:
        """The model's function in its module."""
        if self._function_op is None:
            self._function_op = find_function(self._module, self.function)
        return self._function_op

    def parameters(self) -> dict[str, np.ndarray]:
        """The model's parameters (`tlir.parameters`), name → the array the compiled
        forward, JVP and VJP all read, in parameter order. Writing into an array in
        place (`p[...] = v`, `p -= u`) changes the model; rebinding a name does not.
        With `parameters="frozen"` the arrays are read-only, for good."""
        if self._parameter_slots is None:
            source = self.function_op
            position = {op: k for k, op in enumerate(constants(source))}
            self._parameter_slots = [
                (name, position[op])
                for name, op in zip(parameter_names(source), parameters(source), strict=True)
            ]
        return {name: self._shared[slot] for name, slot in self._parameter_slots}

    def _parameter_names(self) -> list[str]:
        if self._parameter_names_cache is None:
            if self._parameter_slots is None:
                self.parameters()
            self._parameter_names_cache = [name for name, _ in self._parameter_slots]
        return self._parameter_names_cache

    def constant_arrays(self) -> list[np.ndarray]:
        """Every constant array the compiled code reads, in plan order."""
        return self._constants

    def module(self) -> ModuleOp:
        """A copy of the model's module whose constants hold the current values."""
        copy = self._module.clone()
        source = find_function(copy, self.function)
        for op, value in zip(constants(source), self._shared, strict=True):
            op.value = numpy_to_dense(value)
        return copy

    def jvp(
        self,
        inputs: Sequence[np.ndarray],
        tangents: Sequence[np.ndarray],
        param_tangents: Mapping[str, np.ndarray] | Sequence[np.ndarray] | None = None,
    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Forward mode (dual-valued execution): `(outputs, output_tangents)` for
        `tangents` (one per input) and, optionally, parameter tangents (name →
        array, missing ones +0; or a list in parameter order)."""
        refuse_frozen(self, "jvp")
        inputs = self._check(inputs, "input", "inputs")
        tangents = self._check(tangents, "tangent", "tangents (one per input)")
        seeded = param_tangents is not None
        extra = self._param_arrays(param_tangents, "parameter tangent") if seeded else []
        results = self._derivative("jvp", seeded).run_checked([*inputs, *tangents, *extra])
        count = len(self.plan.outputs)
        return results[:count], results[count:]

    def vjp(
        self, inputs: Sequence[np.ndarray], cotangents: Sequence[np.ndarray], wrt: str = "all"
    ) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, np.ndarray]]:
        """Reverse mode: `(outputs, input_grads, param_grads)` for `cotangents`
        (one per output); `param_grads` maps each parameter's name to its gradient.
        `wrt="params"` (`"inputs"`) compiles and runs a VJP without the input
        (parameter) gradients, returned empty."""
        refuse_frozen(self, "vjp")
        if wrt not in VJP_WRT:
            raise TlirError(self.where, f"wrt must be one of {', '.join(VJP_WRT)}, got {wrt!r}")
        inputs = self._check(inputs, "input", "inputs")
        cotangents = _check_arrays(
            self._results, cotangents, "cotangent", "cotangents (one per output)", self.where
        )
        results = self._derivative("vjp", wrt).run_checked([*inputs, *cotangents])
        outputs = len(self._results)
        inputs_count = len(inputs) if wrt != "params" else 0
        names = self._parameter_names() if wrt != "inputs" else []
        grads = results[outputs + inputs_count :]
        return (
            results[:outputs],
            results[outputs : outputs + inputs_count],
            dict(zip(names, grads, strict=True)),
        )

    def ibp(
        self, lowers: Sequence[np.ndarray], uppers: Sequence[np.ndarray], rules: str = "torchlean"
    ) -> tuple[list[np.ndarray | None], list[np.ndarray | None]]:
        """Interval bound propagation (TorchLean's rules, docs/verification.md):
        `(lowers, uppers)` per output for a box per input, None for an output
        the rules leave unresolved (`bounds` says why). `rules="tight"`: the
        opt-in tight rules (docs/verification.md#tight-rules)."""
        result = self.bounds(lowers, uppers, rules)
        return result.lowers, result.uppers

    def ibp_ball(
        self, inputs: Sequence[np.ndarray], eps: float, rules: str = "torchlean"
    ) -> tuple[list[np.ndarray | None], list[np.ndarray | None]]:
        """`ibp` on TorchLean's ℓ∞ box around `inputs`: [subDown(x, eps), addUp(x, eps)]
        (the tight rules' steps with `rules="tight"`)."""
        result = self._bounds_caller().ball(inputs, eps, rules)
        return result.lowers, result.uppers

    def bounds(self, lowers, uppers, rules: str = "torchlean"):
        """`ibp` with the reason of every unresolved output (`tlir.verification.IbpResult`):
        the fast program where the host has AVX-512 and its checks are all
        zero, else the exact one (`tlir.compiler.bounds_call`)."""
        return self._bounds_caller()(lowers, uppers, rules)

    def _bounds_caller(self) -> BoundsCall:
        if self._bounds_call is None:
            from tlir.compiler.bounds_call import BoundsCall

            self._bounds_call = BoundsCall(
                self.where, self.function_op, self._inputs.specs, partial(self._derivative, "ibp")
            )
        return self._bounds_call

    def crown(
        self, lowers, uppers, objective=None, mode: str = "torchlean", rules: str = "torchlean"
    ):
        """CROWN bounds `(lower, upper)` of `C·y` over the box of the model's one
        input (`lowers`/`uppers`: one array each, as for `ibp`): `objective` is
        `C` (rows × output size; default the identity, and the bounds have the
        output's shape); `mode` "torchlean" (TorchLean's directed sweep) or "relu"
        (ReLU relaxations); (None, None) where no bound can be given
        (docs/verification.md#crown); `rules` the IBP rules of its boxes."""
        from tlir.crown import model_crown

        return model_crown(
            self.function_op, self.module(), lowers, uppers, objective, mode, self.where, rules
        )

    def crown_ball(
        self, inputs, eps: float, objective=None, mode: str = "torchlean", rules: str = "torchlean"
    ):
        """`crown` on TorchLean's ℓ∞ box around `inputs`: [subDown(x, eps), addUp(x, eps)]."""
        from tlir.crown import model_crown_ball

        return model_crown_ball(
            self.function_op, self.module(), inputs, eps, objective, mode, self.where, rules
        )

    def _check(self, arrays, what: str, plural: str) -> list[np.ndarray]:
        return _check_arrays(self._inputs, arrays, what, plural, self.where)

    def _param_arrays(self, given, what: str) -> list[np.ndarray]:
        params = self.parameters()
        if isinstance(given, Mapping):
            unknown = sorted(set(given) - set(params))
            if unknown:
                raise TlirError(self.where, f"no parameter named '{unknown[0]}'")
            arrays = [given.get(n, np.zeros_like(p)) for n, p in params.items()]
        else:
            arrays = list(given)
        types = [p for p in params.values()]
        checked = []
        if len(arrays) != len(types):
            raise TlirError(
                self.where, f"the model has {len(types)} parameters, got {len(arrays)} {what}s"
            )
        for name, value, like in zip(params, arrays, types, strict=True):
            value = np.asarray(value)
            if value.shape != like.shape or value.dtype != like.dtype:
                raise TlirError(
                    self.where,
                    f"{what} '{name}' has shape {list(value.shape)} and dtype {value.dtype}, "
                    f"expected shape {list(like.shape)} and dtype {like.dtype}",
                )
            checked.append(np.ascontiguousarray(value))
        return checked

    def _derivative(self, mode: str, option: bool | str) -> CompiledModel:
        """The compiled `@main_jvp` (`option`: parameter tangents) / `@main_vjp`
        (`option`: wrt), compiled on first use."""
        key = (mode, option)
        if key not in self._derivatives:
            self._derivatives[key] = CompiledModel(
                derivative_module(self._module, self.function, mode, option),
                where=self.where,
                function=f"{self.function}_{mode}",
                shared=self._shared,
                **self._options,
            )
        derived = self._derivatives[key]
        # A derivative runs with the model's thread count as it is now, not as it was
        # when the derivative was compiled.
        derived._threads = self._threads
        return derived

    @property
    def threads(self) -> int:
        """The threads each threaded step of a call uses (capped: `tlir.compiler.threads`)."""
        return self._threads

    @threads.setter
    def threads(self, threads: int) -> None:
        self._threads = check_threads(threads, self.where)

    def __call__(self, *inputs: np.ndarray) -> list[np.ndarray]:
        if len(inputs) != len(self._inputs):
            raise TlirError(
                self.where,
                f"@{self.function} takes {len(self._inputs)} inputs, got {len(inputs)}",
            )
        return self._call(inputs, self._threads)

    def run_checked(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        """Call with arrays the caller has checked (count, shapes, dtypes, C order)."""
        return self._call.run(arrays, self._threads)

    def run_split(self, arrays: list[np.ndarray], count: int) -> tuple[list[np.ndarray], list]:
        """`run_checked` with the results after the first `count` as Python
        numbers (all 0-d: a bounds function's statuses and checks)."""
        return self._call.run_split(arrays, self._threads, count)

    def run_into(self, arrays: list[np.ndarray], outputs: list[np.ndarray]) -> None:
        """`run_checked` writing the results into `outputs`, checked by the caller
        too (`EntryCall.run_into`: an output may be an input only for code that
        reads each element before writing it)."""
        self._call.run_into(arrays, outputs, self._threads)


def _check_arrays(
    specs: ArraySpecs, arrays, what: str, plural: str, where: str
) -> list[np.ndarray]:
    """One array per spec, of its exact shape and dtype (C-contiguous copies if needed)."""
    arrays = list(arrays)
    if len(arrays) != len(specs):
        raise TlirError(where, f"expected {len(specs)} {plural}, got {len(arrays)}")
    return specs.check(arrays, what, where)


def frozen_arrays(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """Read-only copies of `arrays` that no one can make writeable again: their
    memory is an immutable `bytes` object, which NumPy never writes (arrays
    frozen already are kept)."""
    return [a if _frozen(a) else _freeze(a) for a in arrays]


def _frozen(array: np.ndarray) -> bool:
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, bytes)


def _freeze(array: np.ndarray) -> np.ndarray:
    data = np.ascontiguousarray(array).tobytes()
    return np.frombuffer(data, array.dtype).reshape(array.shape)


def refuse_frozen(model, what: str) -> None:
    """A one-line error for `what` (derivatives, updates) on a frozen model."""
    if model.frozen:
        raise TlirError(
            model.where,
            f'{what} needs live parameters: the model was compiled with parameters="frozen"',
        )


def tag_constants(module: ModuleOp, function: str) -> ModuleOp:
    """A copy of `module` whose `function`'s constants carry their position."""
    from xdsl.dialects.builtin import IntegerAttr

    copy = module.clone()
    for position, op in enumerate(constants(find_function(copy, function))):
        op.attributes[SLOT_ATTRIBUTE] = IntegerAttr(position, 64)
    return copy


def own_constant_slots(module: ModuleOp, function: str) -> list[int | None]:
    """`constant_slots` of `tag_constants(module, function)`. Without custom calls
    the compiled function reads exactly its own constants, in order, so the
    slots are their positions and the module need not be copied to tag them."""
    if any(isinstance(op, T.CustomOp) for op in module.walk()):
        return constant_slots(tag_constants(module, function), function)
    return list(range(len(constants(find_function(module, function)))))


def constant_slots(module: ModuleOp, function: str) -> list[int | None]:
    """For each constant the compiled `function` reads (the plan's order, custom
    calls inlined): the shared position it is tagged with, or None."""
    from xdsl.dialects.builtin import IntegerAttr

    if any(isinstance(op, T.CustomOp) for op in module.walk()):
        from tlir.passes.tlir_inline_custom import TlirInlineCustom
        from tlir.universe import context

        module = ModuleOp([op.clone() for op in module.ops if isinstance(op, func.FuncOp)])
        TlirInlineCustom().apply(context(), module)
    slots: list[int | None] = []
    for op in find_function(module, function).body.block.ops:
        if isinstance(op, T.ConstOp):
            tag = op.attributes.get(SLOT_ATTRIBUTE)
            slots.append(tag.value.data if isinstance(tag, IntegerAttr) else None)
    return slots


def derivative_module(
    module: ModuleOp, function: str, mode: str, option: bool | str = False
) -> ModuleOp:
    """`@{function}_jvp` (`tlir-jvp`, parameter tangents if `option`),
    `@{function}_vjp` (`tlir-vjp`, wrt=`option`, default all) or
    `@{function}_ibp` (`tlir-ibp`, rules=`option`) of `module`, in a module of its own (the
    forward function dropped) whose copies of the constants are tagged."""
    from tlir.passes.tlir_ibp import TlirIbp
    from tlir.passes.tlir_jvp import TlirJvp
    from tlir.passes.tlir_vjp import TlirVjp
    from tlir.universe import context

    work = tag_constants(module, function)
    if mode == "ibp":
        fast = option == "fast"
        rules = option if isinstance(option, str) and not fast else "torchlean"
        TlirIbp(function=function, rules=rules, fast=fast).apply(context(), work)
    elif mode == "jvp":
        TlirJvp(params=bool(option), function=function).apply(context(), work)
    else:
        wrt = option if isinstance(option, str) else "all"
        TlirVjp(wrt=wrt, function=function).apply(context(), work)
    called = {op.callee.root_reference.data for op in work.walk() if isinstance(op, T.CustomOp)}
    if function not in called:  # the forward function is not compiled again
        source = find_function(work, function)
        source.detach()
        source.erase()
    return work


def lower_kernel(kernel: func.FuncOp, backend: str, where: str) -> tuple[KernelABI, str]:
    """Lower one distinct kernel with `backend` to LLVM IR: (ABI, IR text)."""
    from tlir.compiler.build import lower_kernel

    return lower_kernel(kernel, backend, where)


def compile_kernel(
    kernel: func.FuncOp, backend: str, opt_level: int, where: str
) -> tuple[KernelABI, bytes]:
    """Lower one distinct kernel with `backend` and compile it for the host:
    (ABI, object)."""
    from tlir.compiler.build import compile_kernel

    return compile_kernel(kernel, backend, opt_level, where)


__all__ = ["CompiledModel", "compile_kernel", "lower_kernel", "lower_to_linalg"]
