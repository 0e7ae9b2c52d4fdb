"""Emitting derivative programs: tlir ops, `tlir_ad` ops and scalar bodies.

A `Builder` appends ops to a block, every one at the location of the op being
differentiated. `Scalar` extends the lowering's `Body` with the `Dual`
instances on (primal, tangent) pairs of scalars, each in TorchLean's order of
native operations, so that a rule reads like the spec's tangent program
(docs/autodiff.md#forward-mode-dual-valued-execution).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, TensorType, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tlir.dense import numpy_to_dense
from tlir.dialects import tlir as T
from tlir.dialects import tlir_ad as A
from tlir.passes.convert_tlir_to_linalg.emit import Body, amap
from tlir.passes.convert_tlir_to_linalg.emit import dim as d

Pair = tuple[SSAValue, SSAValue]
"""A dual scalar: (primal, tangent)."""

HALF = 0.5
"""`1/2` evaluated in the carrier: exact in both precisions."""


class Scalar(Body):
    """Scalar ops of a `tlir_ad` body, plus the Dual instances."""

    def neg(self, x: SSAValue) -> SSAValue:
        return self(arith.NegfOp(x))

    def sqrt(self, x: SSAValue) -> SSAValue:
        return self(math.SqrtOp(x))

    def tanh(self, x: SSAValue) -> SSAValue:
        return self(math.TanhOp(x))

    def sin(self, x: SSAValue) -> SSAValue:
        return self(math.SinOp(x))

    def cos(self, x: SSAValue) -> SSAValue:
        return self(math.CosOp(x))

    def gt(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.cmp("ogt", a, b)

    def both(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(arith.AndIOp(a, b))

    def either(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(arith.OrIOp(a, b))

    def nonzero(self, flag: SSAValue) -> SSAValue:
        """A 0/1 mask element as i1."""
        return self.cmp("une", flag, self.const(0.0))

    def first_max(
        self, value: SSAValue, valid: SSAValue, carried: SSAValue, state: list[SSAValue]
    ) -> list[SSAValue]:
        """One step of the fold that finds the first maximal valid cell (row-major,
        strict >): `state` is (best, seen, what the winner carries) and becomes the
        new state; `valid` is a 0/1 flag. max_pool's JVP (the winner's tangent),
        its VJP (the winner's offset) and the masked softmax's row maximum."""
        best, seen, winner = state
        unseen = self.cmp("oeq", seen, self.const(0.0))
        take = self.both(self.nonzero(valid), self.either(unseen, self.gt(value, best)))
        new_best = self.select(take, value, best)
        now_seen = self.select(self.nonzero(valid), self.const(1.0), seen)
        return [new_best, now_seen, self.select(take, carried, winner)]

    def choose(self, *cases: tuple[SSAValue, SSAValue], otherwise: SSAValue) -> SSAValue:
        """`if c1 then v1 elif c2 then v2 … else otherwise`."""
        result = otherwise
        for condition, value in reversed(cases):
            result = self.select(condition, value, result)
        return result

    # --- Dual instances (docs/autodiff.md), tangent programs in TorchLean's order

    def quotient(self, a: Pair, b: Pair) -> Pair:
        """D1: q = a/b, den = b·b, n1 = da·b, n2 = a·db, dq = (n1 − n2)/den."""
        (x, dx), (y, dy) = a, b
        q = self.div(x, y)
        den = self.mul(y, y)
        num = self.sub(self.mul(dx, y), self.mul(x, dy))
        return q, self.div(num, den)

    def product(self, a: Pair, b: Pair) -> Pair:
        """(a·b, (da·b) + (a·db))."""
        (x, dx), (y, dy) = a, b
        return self.mul(x, y), self.add(self.mul(dx, y), self.mul(x, dy))

    def tie_split(self, da: SSAValue, db: SSAValue) -> SSAValue:
        """A max/min tie or NaN: (½·da) + (½·db)."""
        half = self.const(HALF)
        return self.add(self.mul(half, da), self.mul(half, db))

    def dual_max(self, a: Pair, b: Pair) -> Pair:
        """a > b: a; b > a: b; else (max(a, b), ½da + ½db); primals compared."""
        (x, dx), (y, dy) = a, b
        tangent = self.choose(
            (self.gt(x, y), dx), (self.gt(y, x), dy), otherwise=self.tie_split(dx, dy)
        )
        return self.lean_max(x, y), tangent

    def dual_min(self, a: Pair, b: Pair) -> Pair:
        (x, dx), (y, dy) = a, b
        tangent = self.choose(
            (self.gt(y, x), dx), (self.gt(x, y), dy), otherwise=self.tie_split(dx, dy)
        )
        return self.lean_min(x, y), tangent

    def zero(self) -> Pair:
        """A literal zero dual (0, 0)."""
        return self.const(0.0), self.const(0.0)

    def dual_sqrt(self, a: Pair) -> Pair:
        """The Dual sqrt: r = sqrt a; tangent a > 0 ? da / (2·r) : 0."""
        x, dx = a
        r = self.sqrt(x)
        tangent = self.div(dx, self.mul(self.const(2.0), r))
        return r, self.select(self.gt(x, self.const(0.0)), tangent, self.const(0.0))

    def guarded_sqrt(self, a: Pair) -> Pair:
        """The spec's sqrt(max(x, 0)) over duals."""
        return self.dual_sqrt(self.dual_max(a, self.zero()))

    def dual_exp(self, a: Pair) -> Pair:
        e = self.exp(a[0])
        return e, self.mul(e, a[1])

    def dual_log(self, a: Pair) -> Pair:
        """(log a, da / a): plain division."""
        return self.log(a[0]), self.div(a[1], a[0])

    def one_plus(self, a: Pair) -> Pair:
        """One + a = (1 + a, 0 + da)."""
        return self.add(self.const(1.0), a[0]), self.add(self.const(0.0), a[1])


BodyFunction = Callable[[Scalar, list[SSAValue]], Sequence[SSAValue]]


def tensor_type(element: Attribute, shape: Sequence[int]) -> TensorType:
    return TensorType(element, list(shape))


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())


def element_of(value: SSAValue) -> Attribute:
    return value.type.element_type


class Builder:
    """Appends ops to `block`, each at `location`."""

    def __init__(self, block: Block, location: Attribute):
        self.block = block
        self.location = location

    def at(self, location: Attribute) -> Builder:
        return Builder(self.block, location)

    def add(self, op: Operation) -> Operation:
        op.location = self.location
        self.block.add_op(op)
        return op

    # --- tlir ops ------------------------------------------------------------

    def tlir(
        self,
        op_class: type[T.TlirOp],
        operands: Sequence,
        shape: Sequence[int],
        element: Attribute | None = None,
        **properties: Attribute,
    ) -> SSAValue:
        element = element or element_of(operands[0])
        op = op_class.build(
            operands=list(operands),
            result_types=[tensor_type(element, shape)],
            properties=properties,
        )
        return self.add(op).results[0]

    def const(self, value: float, shape: Sequence[int], element: Attribute) -> SSAValue:
        """A splat `tlir.const` (the +0 of an unseeded tangent, of an unreached gradient)."""
        typ = tensor_type(element, shape)
        dense = DenseIntOrFPElementsAttr.from_list(typ, [value])
        op = T.ConstOp.build(properties={"value": dense}, result_types=[typ])
        return self.add(op).results[0]

    def zeros_like(self, value: SSAValue) -> SSAValue:
        return self.const(0.0, shape_of(value), element_of(value))

    def add_values(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.tlir(T.AddOp, [a, b], shape_of(a))

    def reshape(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        if shape_of(value) == tuple(shape):
            return value
        return self.tlir(T.ReshapeOp, [value], shape)

    # --- tlir_ad ops -----------------------------------------------------------

    def map(self, inputs: Sequence[SSAValue], body: BodyFunction, count: int = 1) -> list[SSAValue]:
        """A `tlir_ad.map` with `count` results of the shape of the non-scalar inputs."""
        element = element_of(inputs[0])
        shape = max((shape_of(v) for v in inputs), key=len)
        block = Block(arg_types=[element] * len(inputs))
        block.add_op(A.YieldOp(*body(Scalar(block, element), list(block.args))))
        _prune(block)
        typ = tensor_type(element, shape)
        return list(self.add(A.MapOp(inputs, [typ] * count, Region(block))).results)

    def fold(
        self,
        inputs: Sequence[SSAValue | float],
        maps: Sequence[Sequence],
        bounds: Sequence[int],
        reductions: Sequence[int],
        inits: Sequence[SSAValue | float],
        body: BodyFunction,
        strips: Sequence[int] = (),
    ) -> list[SSAValue]:
        """A `tlir_ad.fold` over `bounds`; `maps` give each input's index
        expressions (ints or `dim(k)`), `reductions` the reduction dimensions,
        `inits` each result's start (a value, or a number to fill it with),
        `strips` its loops' row strips (`tlir_ad.ROW_STRIPS`; none if empty).

        An input given as a number reaches the body as a constant (nothing to
        read), and a number as init is a broadcast of a rank-0 constant, which
        kernel formation fuses into the fold's kernel: the result buffer is
        filled there instead of copied from a constant tensor."""
        tensors = [v for v in inputs if isinstance(v, SSAValue)]
        element = element_of(tensors[0]) if tensors else element_of(inits[0])
        out_shape = [n for k, n in enumerate(bounds) if k not in reductions]
        init_values = [
            v if isinstance(v, SSAValue) else self.filled(v, out_shape, element) for v in inits
        ]
        block = Block(arg_types=[element] * (len(tensors) + len(init_values)))
        scalar = Scalar(block, element)
        args = iter(block.args)
        values = [next(args) if isinstance(v, SSAValue) else scalar.const(v) for v in inputs]
        block.add_op(A.YieldOp(*body(scalar, [*values, *args])))
        _prune(block)
        iterators = [A.REDUCTION if k in reductions else A.PARALLEL for k in range(len(bounds))]
        read = [m for v, m in zip(inputs, maps, strict=True) if isinstance(v, SSAValue)]
        affine = [amap(len(bounds), exprs) for exprs in read]
        op = A.FoldOp(tensors, init_values, bounds, affine, iterators, Region(block))
        if strips:
            op.attributes[A.ROW_STRIPS] = DenseArrayBase.from_list(i64, list(strips))
        return list(self.add(op).results)

    def filled(self, value: float, shape: Sequence[int], element: Attribute) -> SSAValue:
        """A tensor of `value`: a broadcast of a rank-0 constant."""
        if not shape:
            return self.const(value, [], element)
        scalar = self.const(value, [], element)
        return self.tlir(T.BroadcastToOp, [scalar], shape)

    def pad(
        self,
        value: SSAValue,
        low: Sequence[int],
        high: Sequence[int],
        interior: Sequence[int] | None = None,
    ) -> SSAValue:
        shape = shape_of(value)
        interior = interior or [0] * len(shape)
        if not any(low) and not any(high) and not any(interior):
            return value
        out = [A.padded_extent(*args) for args in zip(shape, low, high, interior, strict=True)]
        op = A.PadOp(value, low, high, interior, tensor_type(element_of(value), out))
        return self.add(op).results[0]

    def ones(self, shape: Sequence[int], element: Attribute) -> SSAValue:
        return self.const(1.0, shape, element)

    def array(self, values: np.ndarray, element: Attribute) -> SSAValue:
        """A `tlir.const` holding `values` (offset tables, masks)."""
        dtype = np.float32 if element.bitwidth == 32 else np.float64
        dense = numpy_to_dense(np.asarray(values, dtype))
        op = T.ConstOp.build(properties={"value": dense}, result_types=[dense.type])
        return self.add(op).results[0]


def _prune(block: Block) -> None:
    """Drop the scalar ops nothing uses (a Dual instance computes primal and
    tangent; a rule often needs only one of them). Every body op is pure."""
    for op in reversed(list(block.ops)):
        if not isinstance(op, A.YieldOp) and all(not r.uses for r in op.results):
            op.detach()
            op.erase()


def dims(positions) -> list:
    return [d(p) for p in positions]


__all__ = ["Builder", "Pair", "Scalar", "d", "dims", "element_of", "shape_of"]
