"""Optimizer updates as compiled code, in place (docs/autodiff.md#optimizers).

An update is a function `@main` of one `tlir_ad.map` per parameter: the map
reads the parameter, its gradient and its state (Adam's m and v) elementwise,
and rank-0 scalars (β₁, 1−β₁, the bias corrections, lr, ε, computed by the
caller in the parameters' precision exactly as tlir.optim's NumPy update
computes them; one set per dtype), and yields the new parameter and state in TorchLean's operand
order. Each map compiles to one loop that reads an element before it writes
it, so the call writes its results over its inputs: one pass over memory, no
copies, no allocation. A plan that is not of that form (checked after the
compile) is called out of place and its results copied back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, Float64Type, FunctionType, ModuleOp, TensorType
from xdsl.ir import Block, Region, SSAValue

from tlir.diagnostics import TlirError

WHERE = "optimizer"
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

SGD_SCALARS = ("lr",)
ADAM_SCALARS = ("beta1", "one_minus_beta1", "beta2", "one_minus_beta2", "c1", "c2", "lr", "eps")
"""Per parameter, in the order the map reads them (after the tensors)."""


def _sgd(s, args: list[SSAValue]) -> list[SSAValue]:
    """p − (g·lr)."""
    p, g, lr = args
    return [s.sub(p, s.mul(g, lr))]


def _adam(s, args: list[SSAValue]) -> list[SSAValue]:
    """m ← (m·β₁) + (g·(1−β₁)); v ← (v·β₂) + ((g·g)·(1−β₂)); m̂ = m·c₁, v̂ = v·c₂;
    lrEff = lr/(sqrt(max(v̂, 0)) + ε); p ← p − (lrEff·m̂)."""
    p, g, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2, c1, c2, lr, eps = args
    m = s.add(s.mul(m, beta1), s.mul(g, one_minus_beta1))
    v = s.add(s.mul(v, beta2), s.mul(s.mul(g, g), one_minus_beta2))
    m_hat, v_hat = s.mul(m, c1), s.mul(v, c2)
    lr_eff = s.div(lr, s.add(s.sqrt(s.clamp_at_zero(v_hat)), eps))
    return [s.sub(p, s.mul(lr_eff, m_hat)), m, v]


RULES: dict[str, tuple[int, tuple[str, ...], Callable]] = {
    "sgd": (0, SGD_SCALARS, _sgd),
    "adam": (2, ADAM_SCALARS, _adam),
}
"""kind → (state tensors per parameter, scalars per parameter, scalar body)."""


def _element(dtype: np.dtype):
    return {np.dtype(np.float64): Float64Type(), np.dtype(np.float32): Float32Type()}[dtype]


def dtypes_of(params: Sequence[np.ndarray]) -> list[np.dtype]:
    """The parameters' dtypes in order of first appearance: one set of scalars each."""
    return list(dict.fromkeys(p.dtype for p in params))


def update_module(kind: str, params: Sequence[np.ndarray]) -> ModuleOp:
    """`@main(scalars… per dtype, then p, g, state… per parameter) -> (p', state'…
    per parameter)`; the scalars are rank 0, shared by the parameters of their dtype."""
    from tlir.passes.autodiff.builder import Builder

    states, scalars, body = RULES[kind]
    dtypes = dtypes_of(params)
    arg_types = [TensorType(_element(d), []) for d in dtypes for _ in scalars]
    result_types = []
    for p in params:
        tensor = TensorType(_element(p.dtype), list(p.shape))
        arg_types += [tensor] * (2 + states)
        result_types += [tensor] * (1 + states)
    block = Block(arg_types=arg_types)
    builder = Builder(block, _location())
    shared = {
        d: list(block.args[k * len(scalars) : (k + 1) * len(scalars)]) for k, d in enumerate(dtypes)
    }
    tensors = block.args[len(dtypes) * len(scalars) :]
    results: list[SSAValue] = []
    for index, p in enumerate(params):
        args = list(tensors[index * (2 + states) : (index + 1) * (2 + states)])
        results += builder.map(args + shared[p.dtype], body, count=1 + states)
    block.add_op(func.ReturnOp(*results))
    function = func.FuncOp("main", FunctionType.from_lists(arg_types, result_types), Region(block))
    return ModuleOp([function])


def _location():
    from xdsl.dialects.builtin import UnknownLoc

    return UnknownLoc()


def _in_place(plan) -> bool:
    """Whether every step reads only inputs and writes only outputs, one map
    each (so writing the results over the inputs is safe), with no copies."""
    return not plan.copies and all(
        all(s.kind in ("input", "output") for s in step.args) for step in plan.steps
    )


class Update:
    """A compiled update over `params` (name → array), called in place."""

    def __init__(self, kind: str, params: dict[str, np.ndarray]):
        from tlir.compiler.model import CompiledModel

        self.kind = kind
        self.names = list(params)
        self.layout = [(name, p.shape, p.dtype) for name, p in params.items()]
        arrays = list(params.values())
        # One thread: maps are memory-bound passes that kernel formation never
        # splits across threads (tlir.compiler.work), so more would only start the pool.
        self.model = CompiledModel(update_module(kind, arrays), where=WHERE, threads=1)
        self.in_place = _in_place(self.model.plan)
        # The scalar operands: writeable rank-0 arrays, refilled at each step.
        count = len(RULES[kind][1])
        self.scalars = {d: [np.zeros((), d) for _ in range(count)] for d in dtypes_of(arrays)}

    def gradients(self, params: dict[str, np.ndarray], grads) -> list[np.ndarray]:
        """The gradients in parameter order, checked (before anything changes)."""
        return [_gradient(grads, name, params[name]) for name in self.names]

    def __call__(
        self,
        params: dict[str, np.ndarray],
        grads: list[np.ndarray],
        states: Sequence[dict[str, np.ndarray]],
        scalars: dict[np.dtype, Sequence[np.generic]],
    ) -> None:
        """Write the update into `params` and `states` (name → array each);
        `grads` as `gradients` returns them, `scalars[dtype]` the rank-0
        operands of the parameters of `dtype`, in `RULES` order."""
        inputs: list[np.ndarray] = []
        for dtype, buffers in self.scalars.items():
            for buffer, value in zip(buffers, scalars[dtype], strict=True):
                buffer[()] = value
            inputs += buffers
        outputs: list[np.ndarray] = []
        for name, g in zip(self.names, grads, strict=True):
            p = params[name]
            held = [state[name] for state in states]
            inputs += [p, g, *held]
            outputs += [p, *held]
        if self.in_place:
            self.model.run_into(inputs, outputs)
            return
        for target, value in zip(outputs, self.model.run_checked(inputs), strict=True):
            np.copyto(target, value)


def _gradient(grads, name: str, p: np.ndarray) -> np.ndarray:
    try:
        g = grads[name]
    except KeyError:
        raise TlirError(WHERE, f"no gradient for parameter '{name}'") from None
    if not isinstance(g, np.ndarray) or g.shape != p.shape or g.dtype != p.dtype:
        shape = list(getattr(g, "shape", ()))
        raise TlirError(
            WHERE,
            f"the gradient of '{name}' has shape {shape} and dtype "
            f"{getattr(g, 'dtype', type(g).__name__)}, expected shape {list(p.shape)} "
            f"and dtype {p.dtype}",
        )
    return np.ascontiguousarray(g)


def writeable(params: Mapping[str, np.ndarray]) -> bool:
    """Whether the compiled update can write into each of `params`: non-empty,
    C-contiguous, writeable f32/f64 arrays."""
    return all(
        type(p) is np.ndarray
        and p.dtype in FLOATS
        and p.flags.c_contiguous
        and p.flags.writeable
        and p.size
        for p in params.values()
    )


def overlapping(params: Mapping[str, np.ndarray]) -> bool:
    """Whether two of `params` may share memory (an update in place would then
    read values another parameter's update wrote)."""
    arrays = list(params.values())
    return any(np.may_share_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1 :])


__all__ = ["Update", "overlapping", "update_module", "writeable"]
