"""Hypothesis strategies for tests: valid `torchlean.ir.v1` graphs over every op
kind with a JSON encoding, input arrays with special values, and the budgets of
the randomized tests (a short one in CI, a long one with `--long` or
`TLIR_FUZZ_LONG=1`).

A graph is a DAG: operands are drawn from every value made so far (so values are
shared, and a binary op may read one value twice), extents are small and include
0 and 1, and the outputs are several values, possibly the same one twice, or the
input. Shapes are computed with `tlir.shapes`, the rules the importer checks.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tlir import shapes

LONG = os.environ.get("TLIR_FUZZ_LONG", "") not in ("", "0")
"""The long mode: `pytest --long` (test/conftest.py) or `TLIR_FUZZ_LONG=1`."""


def budget(ci: int, long: int = 0, deadline_ms: int | None = None) -> settings:
    """Hypothesis settings: `ci` examples in CI, `long` (default 200 × ci) in
    long mode, or `TLIR_FUZZ_EXAMPLES` in either; no per-example deadline unless
    given (the contract tests have their own alarm)."""
    count = os.environ.get("TLIR_FUZZ_EXAMPLES", "")
    return settings(
        max_examples=int(count) if count else (long or 200 * ci) if LONG else ci,
        deadline=deadline_ms,
        suppress_health_check=list(HealthCheck),
        derandomize=not LONG,
        print_blob=True,
    )


ELEMENTWISE_UNARY = [
    "abs", "sqrt", "inv", "relu", "tanh", "sigmoid", "exp", "log", "sin", "cos", "softplus",
    "detach",
]  # fmt: skip
ELEMENTWISE_BINARY = ["add", "sub", "mul_elem", "max_elem", "min_elem"]
OTHER_KINDS = [
    "const", "rand_uniform", "bernoulli_mask", "permute", "transpose", "max_pool", "avg_pool",
    "broadcast_to", "reduce_sum", "reduce_mean", "sum", "matmul", "linear", "conv",
    "batch_norm_eval", "softmax", "hard_masked_softmax", "layernorm", "reshape", "flatten",
    "concat", "mse_loss", "safe_log",
]  # fmt: skip
KINDS = sorted(ELEMENTWISE_UNARY + ELEMENTWISE_BINARY + OTHER_KINDS)
"""Every kind with a JSON encoding but `input` (which every graph has) and
`custom` (which JSON cannot carry): 40 kinds."""

TRANSCENDENTAL = {"tanh", "exp", "log", "sin", "cos", "sigmoid", "softplus", "safe_log"}
TRANSCENDENTAL |= {"softmax", "hard_masked_softmax"}

SPECIALS = [
    0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, math.nan, -math.nan, math.inf, -math.inf,
    5e-324, -2.5e-320, 1e-40, -1.2e-38, 1e300, -1e300, 3.4e38, 88.7, -104.0, 710.0, 1e-8,
]  # fmt: skip
"""Special values: NaN (both signs), infinities, signed zeros, f64 and f32
subnormals, values that overflow f32 or `exp`."""

FINITE_SPECIALS = [v for v in SPECIALS if math.isfinite(v)]


@dataclass
class Value:
    node: int
    shape: tuple[int, ...]


@dataclass
class GraphBuilder:
    """Nodes appended in order; each drawn op adds one node (or a few helpers)."""

    draw: Any
    nodes: list[dict] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)

    def add(self, kind: str, parents: list[Value], shape, **fields) -> Value:
        node = {"id": len(self.nodes), "kind": kind, "parents": [p.node for p in parents]}
        node["shape"] = list(shape)
        node.update(fields)
        self.nodes.append(node)
        value = Value(node["id"], tuple(shape))
        self.values.append(value)
        return value

    # --- drawing helpers -------------------------------------------------------

    def extent(self) -> int:
        return self.draw(st.sampled_from([0, 1, 1, 2, 2, 3, 3, 4]))

    def shape(self, max_rank: int = 3) -> tuple[int, ...]:
        rank = self.draw(st.integers(0, max_rank))
        return tuple(self.extent() for _ in range(rank))

    def reals(self, count: int, finite: bool = True) -> list[float]:
        palette = FINITE_SPECIALS if finite else SPECIALS
        element = st.one_of(
            st.sampled_from(palette),
            st.floats(-4, 4, allow_nan=False, width=32),
        )
        return [float(v) for v in self.draw(st.lists(element, min_size=count, max_size=count))]

    def nested(self, shape: tuple[int, ...]) -> Any:
        flat = self.reals(math.prod(shape))
        return np.array(flat, dtype=np.float64).reshape(shape).tolist() if shape else flat[0]

    def pick(self, where=lambda v: True) -> Value | None:
        choices = [v for v in self.values if where(v)]
        return self.draw(st.sampled_from(choices)) if choices else None

    def const(self, shape: tuple[int, ...]) -> Value:
        return self.add("const", [], shape, values=self.reals(math.prod(shape)))

    def scalar(self) -> Value:
        """A scalar operand: an existing one, or a new const."""
        found = self.pick(lambda v: v.shape == ())
        if found is not None and self.draw(st.booleans()):
            return found
        return self.const(())

    def same_shape(self, shape: tuple[int, ...]) -> Value:
        """Another value of `shape`: an existing one (maybe the same), or a const."""
        found = self.pick(lambda v: v.shape == shape)
        if found is not None and self.draw(st.integers(0, 3)):
            return found
        return self.const(shape)

    # --- one node per kind -------------------------------------------------------

    def op(self, kind: str) -> Value:  # noqa: C901 - one branch per kind
        x = self.pick()
        assert x is not None
        if kind == "const":
            return self.const(self.shape())
        if kind == "rand_uniform":
            return self.add("rand_uniform", [], self.shape(), seed=self.seed())
        if kind == "bernoulli_mask":
            p = self.scalar()
            return self.add("bernoulli_mask", [p], self.shape(), seed=self.seed())
        if kind in ELEMENTWISE_UNARY:
            return self.add(kind, [x], x.shape)
        if kind in ELEMENTWISE_BINARY:
            y = self.same_shape(x.shape)
            a, b = self.draw(st.permutations([x, y]))
            return self.add(kind, [a, b], x.shape)
        if kind == "mse_loss":
            return self.add(kind, [x, self.same_shape(x.shape)], ())
        if kind == "safe_log":
            return self.add(kind, [x, self.scalar()], x.shape)
        if kind == "sum":
            return self.add(kind, [x], ())
        if kind == "flatten":
            return self.add(kind, [x], (math.prod(x.shape),), value_shape=list(x.shape))
        if kind == "permute":
            perm = self.draw(st.permutations(range(len(x.shape))))
            return self.add(kind, [x], shapes.permute(x.shape, perm), perm=list(perm))
        if kind == "reshape":
            out = self.factor(math.prod(x.shape))
            return self.add(kind, [x], out, in_shape=list(x.shape), out_shape=list(out))
        if kind == "broadcast_to":
            lead = tuple(self.extent() for _ in range(self.draw(st.integers(0, 2))))
            tail = tuple(self.extent() if e == 1 else e for e in x.shape)
            target = lead + tail
            return self.add(kind, [x], target, from_shape=list(x.shape), to_shape=list(target))
        if kind == "concat":
            return self.concat()
        if kind == "matmul":
            return self.matmul()
        if kind == "hard_masked_softmax":
            allowed = self.draw(
                st.lists(st.booleans(), min_size=math.prod(x.shape), max_size=math.prod(x.shape))
            )
            return self.add(kind, [x], x.shape, allowed=allowed)
        # the remaining kinds need a rank >= 1 operand
        x = self.pick(lambda v: len(v.shape) >= 1)
        if x is None:
            return self.add("relu", [self.values[0]], self.values[0].shape)
        rank = len(x.shape)
        if kind == "transpose":
            a1, a2 = self.draw(st.integers(0, rank - 1)), self.draw(st.integers(0, rank - 1))
            return self.add(kind, [x], shapes.transpose(x.shape, a1, a2), axis1=a1, axis2=a2)
        if kind == "softmax":
            return self.add(kind, [x], x.shape, axis=self.draw(st.integers(0, rank - 1)))
        if kind in ("reduce_sum", "reduce_mean"):
            nonempty = [a for a in range(rank) if x.shape[a]]
            axes = self.draw(st.lists(st.sampled_from(nonempty), unique=True)) if nonempty else []
            keepdim = self.draw(st.booleans())
            out = tuple((1 if keepdim else None) if a in axes else e for a, e in enumerate(x.shape))
            out = tuple(e for e in out if e is not None)
            return self.add(kind, [x], out, axes=axes, keepdim=keepdim)
        if kind == "linear":
            out_dim = self.extent()
            in_dim = x.shape[-1]
            return self.add(
                kind,
                [x],
                x.shape[:-1] + (out_dim,),
                out_dim=out_dim,
                in_dim=in_dim,
                weight=self.nested((out_dim, in_dim)),
                bias=self.nested((out_dim,)),
            )
        if kind in ("max_pool", "avg_pool"):
            d = self.draw(st.integers(1, min(rank, 2)))
            kernel = [self.draw(st.integers(1, 3)) for _ in range(d)]
            stride = [self.draw(st.integers(1, 2)) for _ in range(d)]
            padding = [self.draw(st.integers(0, k // 2 + 1)) for k in kernel]
            out = shapes.pool(x.shape, kernel, stride, padding)
            return self.add(
                kind, [x], out, spatial_rank=d, kernel=kernel, stride=stride, padding=padding
            )
        if kind == "batch_norm_eval":
            axes = [a for a in range(rank) if x.shape[a]]
            if not axes:
                return self.add("abs", [x], x.shape)
            axis = self.draw(st.sampled_from(axes))
            c = x.shape[axis]
            stats = {name: self.nested((c,)) for name in ("gamma", "beta", "mean", "var")}
            eps = self.draw(st.sampled_from([1e-5, 0.0, 0.1]))
            return self.add(kind, [x], x.shape, channel_axis=axis, channels=c, eps=eps, **stats)
        if kind == "layernorm":
            axes = [a for a in range(rank) if math.prod(x.shape[a:])]
            if not axes:
                return self.add("sqrt", [x], x.shape)
            axis = self.draw(st.sampled_from(axes))
            fields: dict[str, Any] = {"axis": axis}
            if self.draw(st.booleans()):
                fields["gamma"] = self.nested(x.shape[axis:])
                fields["beta"] = self.nested(x.shape[axis:])
                fields["eps"] = self.draw(st.sampled_from([1e-5, 1e-3, 0.0]))
            return self.add(kind, [x], x.shape, **fields)
        if kind == "conv":
            return self.conv()
        raise AssertionError(kind)

    def seed(self) -> int:
        return self.draw(st.one_of(st.integers(0, 100), st.integers(0, 2**70)))

    def factor(self, count: int) -> tuple[int, ...]:
        """A random shape with `count` elements (any rank up to 3 when count is 0)."""
        if count == 0:
            out = list(self.shape())
            if 0 not in out:
                out.append(0)
            return tuple(out)
        dims = []
        rest = count
        for _ in range(self.draw(st.integers(0, 2))):
            divisors = [d for d in range(1, rest + 1) if rest % d == 0]
            d = self.draw(st.sampled_from(divisors))
            dims.append(d)
            rest //= d
        if rest != 1 or self.draw(st.booleans()):
            dims.append(rest)
        return tuple(self.draw(st.permutations(dims)))

    def concat(self) -> Value:
        x = self.pick(lambda v: len(v.shape) >= 1)
        if x is None:
            x = self.const((self.extent(),))
        axis = self.draw(st.integers(0, len(x.shape) - 1))
        operands = [x]
        for _ in range(self.draw(st.integers(1, 2))):
            found = self.pick(
                lambda v: (
                    len(v.shape) == len(x.shape)
                    and all(a == axis or e == f for a, (e, f) in enumerate(zip(v.shape, x.shape)))
                )
            )
            operands.append(found if found is not None else x)
        out = shapes.concat([v.shape for v in operands], axis)
        return self.add("concat", operands, out, axis=axis)

    def matmul(self) -> Value:
        a = self.pick(lambda v: len(v.shape) >= 1 and len(v.shape) <= 3)
        if a is None:
            a = self.const((self.extent(),))
        k = a.shape[-1]
        candidates = []
        for v in self.values:
            try:
                shapes.matmul(a.shape, v.shape)
            except shapes.ShapeError:
                continue
            candidates.append(v)
        if candidates and self.draw(st.booleans()):
            b = self.draw(st.sampled_from(candidates))
        else:
            batch = tuple(self.draw(st.sampled_from([1, e])) for e in a.shape[:-2])
            batch = batch[self.draw(st.integers(0, len(batch))) :]
            if self.draw(st.integers(0, 3)) == 0:
                b = self.const((k,))
            else:
                b = self.const((*batch, k, self.extent()))
        return self.add("matmul", [a, b], shapes.matmul(a.shape, b.shape))

    def conv(self) -> Value:
        d = self.draw(st.integers(1, 2))
        x = self.pick(lambda v: len(v.shape) >= d + 1 and v.shape[len(v.shape) - d - 1] > 0)
        if x is None:
            lead = tuple(self.extent() for _ in range(self.draw(st.integers(0, 1))))
            x = self.const(
                (*lead, self.draw(st.integers(1, 3)), *(self.extent() for _ in range(d)))
            )
        channel_axis = len(x.shape) - d - 1
        cin = x.shape[channel_axis]
        groups = self.draw(st.sampled_from([g for g in (1, 2, 3) if cin % g == 0]))
        cout = groups * self.draw(st.integers(1, 2))
        kernel = [self.draw(st.integers(1, 3)) for _ in range(d)]
        dilation = [self.draw(st.integers(1, 2)) for _ in range(d)]
        stride = [self.draw(st.integers(1, 2)) for _ in range(d)]
        spatial = x.shape[channel_axis + 1 :]
        padding, after = [], []
        for extent, k, dil in zip(spatial, kernel, dilation):
            window = dil * (k - 1) + 1
            p = self.draw(st.integers(0, 2))
            q = self.draw(st.integers(max(0, window - extent - p), max(2, window - extent - p)))
            padding.append(p)
            after.append(q)
        cfg = shapes.ConvConfig(
            tuple(kernel), tuple(stride), tuple(padding), tuple(after), tuple(dilation),
            groups, channel_axis, cin, cout,
        )  # fmt: skip
        out = shapes.conv(x.shape, cfg)
        return self.add(
            "conv",
            [x],
            out,
            spatial_rank=d,
            kernel=kernel,
            stride=stride,
            padding=padding,
            padding_after=after,
            dilation=dilation,
            groups=groups,
            channel_axis=channel_axis,
            in_channels=cin,
            out_channels=cout,
            weight=self.nested((cout, cin, *kernel)),
            bias=self.nested((cout,)),
        )


@st.composite
def graphs(draw, kinds: list[str] | None = None, max_ops: int = 6) -> dict:
    """A valid current-dialect graph: an input, 1 to `max_ops` drawn ops (plus
    the helper consts they need), 1 to 3 outputs (repeats and the input allowed)."""
    b = GraphBuilder(draw)
    b.add("input", [], b.shape())
    for _ in range(draw(st.integers(1, max_ops))):
        b.op(draw(st.sampled_from(kinds or KINDS)))
    last = b.values[-1]
    extra = draw(st.lists(st.sampled_from(b.values), max_size=2))
    outputs = [v.node for v in draw(st.permutations([last, *extra]))]
    return {"format": "torchlean.ir.v1", "input_id": 0, "output_ids": outputs, "nodes": b.nodes}


def input_array(draw, shape, dtype: np.dtype) -> np.ndarray:
    """Values for one input: ordinary ones, or mostly special ones."""
    count = math.prod(shape)
    element = st.one_of(
        st.sampled_from(SPECIALS),
        st.floats(-8, 8, allow_nan=False, width=32),
    )
    values = draw(st.lists(element, min_size=count, max_size=count))
    with np.errstate(over="ignore"):
        return np.array(values, dtype=np.float64).astype(dtype).reshape(shape)


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Bit for bit on the unsigned-integer views (signed zeros, infinities,
    subnormals), NaN in exactly the same positions. A NaN's sign and payload are
    not compared: where +NaN and -NaN meet in one addition, LLVM may commute the
    operands and x86 returns the first one's (docs/numerics.md)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    nan = np.isnan(want)
    if not np.array_equal(np.isnan(got), nan):
        return False
    uint = np.uint32 if want.dtype == np.float32 else np.uint64
    return np.array_equal(got.view(uint)[~nan], want.view(uint)[~nan])


def dumps(document: Any) -> str:
    return json.dumps(document, allow_nan=True)
