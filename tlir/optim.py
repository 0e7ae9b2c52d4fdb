"""TorchLean's optimizers (SGD, Adam) on NumPy arrays, updated in place.

Every update is elementwise with TorchLean's exact operand order (docs/autodiff.md#optimizers),
in the parameters' own precision (scalars are cast to it first), and the
parameters are updated in the order given (TorchLean's list order):

* SGD:  p ← p − (g·lr)
* Adam: t ← t+1; β₁ᵗ ← β₁ᵗ⁻¹·β₁, β₂ᵗ ← β₂ᵗ⁻¹·β₂ (from 1); m ← (m·β₁) + (g·(1−β₁));
  v ← (v·β₂) + ((g·g)·(1−β₂)); m̂ = m·(1/(1−β₁ᵗ)), v̂ = v·(1/(1−β₂ᵗ));
  lrEff = lr/(sqrt(max(v̂, 0)) + ε); p ← p − (lrEff·m̂).

`step(grads)` takes the gradients by parameter name (as `CompiledModel.vjp`
returns them) and writes into the arrays of `params` (as
`CompiledModel.parameters()` returns them), so the compiled model sees the
new values at once.

The update runs as compiled code (`tlir.update`: one loop per parameter, in
place, compiled on the first step) with the very bits of the NumPy update
below; `compiled=False` runs the NumPy update instead, as do parameters the
compiled update cannot write into (not C-contiguous f32/f64 arrays).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tlir.diagnostics import TlirError


def _scalar(value: float, like: np.ndarray) -> np.generic:
    return like.dtype.type(value)


def max_zero(x: np.ndarray) -> np.ndarray:
    """max(x, 0) as Lean's `maxOfLe`: if x ≤ 0 then 0 else x (so max(−0, 0) = +0
    and max(NaN, 0) = NaN)."""
    zero = x.dtype.type(0.0)
    return np.where(x <= zero, zero, x)


class _Optimizer:
    """The compiled update of `kind`, built on the first step."""

    kind = ""

    def __init__(self, params: Mapping[str, np.ndarray], compiled: bool):
        for name, p in params.items():
            if isinstance(p, np.ndarray) and not p.flags.writeable:
                raise TlirError(
                    type(self).__name__,
                    f"parameter '{name}' is read-only (a model compiled with "
                    'parameters="frozen" cannot be trained)',
                )
        self.params = params
        self.compiled = compiled
        self._update = None
        self._checked: tuple = ()

    def _compiled_update(self):
        """The compiled update, or None for the NumPy one."""
        from tlir import update

        if not self.compiled or not update.writeable(self.params):
            return None
        # Overlaps are checked again only when the arrays change (ids, shapes).
        key = tuple((name, id(p), p.shape, p.dtype) for name, p in self.params.items())
        if key != self._checked:
            if update.overlapping(self.params):
                return None
            layout = [(name, shape, dtype) for name, _, shape, dtype in key]
            if self._update is None or self._update.layout != layout:
                self._update = update.Update(self.kind, dict(self.params))
            self._checked = key
        return self._update


class SGD(_Optimizer):
    kind = "sgd"

    def __init__(
        self,
        params: Mapping[str, np.ndarray],
        lr: float,
        compiled: bool = True,
    ):
        super().__init__(params, compiled)
        self.lr = lr

    def step(self, grads: Mapping[str, np.ndarray]) -> None:
        update = self._compiled_update()
        if update is not None:
            checked = update.gradients(self.params, grads)
            scalars = {d: (d.type(self.lr),) for d in update.scalars}
            update(self.params, checked, [], scalars)
            return
        for name, p in self.params.items():
            g = grads[name]
            np.subtract(p, g * _scalar(self.lr, p), out=p)


class Adam(_Optimizer):
    kind = "adam"

    def __init__(
        self,
        params: Mapping[str, np.ndarray],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        compiled: bool = True,
    ):
        super().__init__(params, compiled)
        self.lr, self.betas, self.eps = lr, betas, eps
        self.t = 0
        self.m = {n: np.zeros_like(p) for n, p in params.items()}
        self.v = {n: np.zeros_like(p) for n, p in params.items()}
        self.power1: dict[str, np.generic] = {n: _scalar(1.0, p) for n, p in params.items()}
        self.power2: dict[str, np.generic] = {n: _scalar(1.0, p) for n, p in params.items()}

    def step(self, grads: Mapping[str, np.ndarray]) -> None:
        update = self._compiled_update()
        if update is not None:
            checked = update.gradients(self.params, grads)
            self.t += 1
            update(self.params, checked, [self.m, self.v], self._scalars(update.scalars))
            return
        self.t += 1
        for name, p in self.params.items():
            g = grads[name]
            one = _scalar(1.0, p)
            beta1, beta2 = _scalar(self.betas[0], p), _scalar(self.betas[1], p)
            self.power1[name] = self.power1[name] * beta1
            self.power2[name] = self.power2[name] * beta2
            m = self.m[name] = (self.m[name] * beta1) + (g * (one - beta1))
            v = self.v[name] = (self.v[name] * beta2) + ((g * g) * (one - beta2))
            m_hat = m * (one / (one - self.power1[name]))
            v_hat = v * (one / (one - self.power2[name]))
            lr_eff = _scalar(self.lr, p) / (np.sqrt(max_zero(v_hat)) + _scalar(self.eps, p))
            np.subtract(p, lr_eff * m_hat, out=p)

    def _scalars(self, dtypes) -> dict[np.dtype, tuple[np.generic, ...]]:
        """Advance β₁ᵗ, β₂ᵗ; the scalar operands of the compiled update per dtype
        (tlir.update.ADAM_SCALARS), computed as the NumPy update computes them for
        each parameter (the same values for every parameter of a dtype)."""
        scalars = {}
        for dtype in dtypes:
            names = [name for name, p in self.params.items() if p.dtype == dtype]
            one = dtype.type(1.0)
            beta1, beta2 = dtype.type(self.betas[0]), dtype.type(self.betas[1])
            power1 = self.power1[names[0]] * beta1
            power2 = self.power2[names[0]] * beta2
            for name in names:
                self.power1[name], self.power2[name] = power1, power2
            c1, c2 = one / (one - power1), one / (one - power2)
            lr, eps = dtype.type(self.lr), dtype.type(self.eps)
            scalars[dtype] = (beta1, one - beta1, beta2, one - beta2, c1, c2, lr, eps)
        return scalars


__all__ = ["SGD", "Adam"]
