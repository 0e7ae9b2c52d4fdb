"""Single-op modules covering every tlir op and the variants that change its
lowering, in both precisions; shared by the lowering and end-to-end tests."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

TRANSCENDENTAL = {"tanh", "sigmoid", "exp", "log", "sin", "cos", "softplus", "safe_log",
                  "softmax", "hard_masked_softmax"}  # fmt: skip


@dataclass
class OpCase:
    """`body` uses %a0, %a1, … for the arguments and `{t}` for the element type."""

    name: str
    op: str
    arg_shapes: list[tuple[int, ...]]
    out_shape: tuple[int, ...]
    body: str
    positive: bool = False
    special: dict[int, np.ndarray] = field(default_factory=dict)
    result_only: bool = False

    @property
    def transcendental(self) -> bool:
        return self.op in TRANSCENDENTAL

    def text(self, dtype: str) -> str:
        def typ(shape):
            return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"

        args = ", ".join(f"%a{i}: {typ(s)}" for i, s in enumerate(self.arg_shapes))
        ins = ", ".join(typ(s) for s in self.arg_shapes)
        out = typ(self.out_shape)
        body = self.body.replace("{t}", dtype)
        if self.result_only:
            return (f"func.func @main({args}) -> {out} {{\n  %r = {body} : {out}\n"
                    f"  func.return %r : {out}\n}}\n")  # fmt: skip
        return (f"func.func @main({args}) -> {out} {{\n  %r = {body} : ({ins}) -> {out}\n"
                f"  func.return %r : {out}\n}}\n")  # fmt: skip

    def inputs(self, dtype: str, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        np_dtype = np.float32 if dtype == "f32" else np.float64
        arrays = []
        for i, shape in enumerate(self.arg_shapes):
            if i in self.special:
                arrays.append(np.asarray(self.special[i], np_dtype).reshape(shape))
                continue
            values = rng.normal(size=shape) * 2
            if self.positive:
                values = np.abs(values) + 0.1
            arrays.append(values.astype(np_dtype))
        return arrays


def _arr(values) -> str:
    return "array<i64" + (": " + ", ".join(map(str, values)) if values else "") + ">"


def _conv(name, x, w, out, kernel, stride, pad, pad_after, dilation, groups, axis=1):
    cin, cout = x[axis], w[0]
    props = (f"{{kernel = {_arr(kernel)}, stride = {_arr(stride)}, padding = {_arr(pad)}, "
             f"padding_after = {_arr(pad_after)}, dilation = {_arr(dilation)}, groups = {groups} : i64, "
             f"channel_axis = {axis} : i64, in_channels = {cin} : i64, out_channels = {cout} : i64}}")  # fmt: skip
    return OpCase(name, "conv", [x, w, (cout,)], out, f"tlir.conv %a0, %a1, %a2 {props}")


def _pool(kind, name, x, out, kernel, stride, pad):
    props = f"{{kernel = {_arr(kernel)}, stride = {_arr(stride)}, padding = {_arr(pad)}}}"
    return OpCase(name, f"{kind}_pool", [x], out, f"tlir.{kind}_pool %a0 {props}")


SPECIAL = np.array([np.nan, -0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, 3.0])


def build_cases() -> list[OpCase]:
    cases: list[OpCase] = []
    for op in (
        "abs",
        "sqrt",
        "inv",
        "relu",
        "tanh",
        "sigmoid",
        "exp",
        "sin",
        "cos",
        "softplus",
        "detach",
    ):
        cases.append(OpCase(op, op, [(3, 4)], (3, 4), f"tlir.{op} %a0"))
        cases.append(
            OpCase(f"{op}_special", op, [(8,)], (8,), f"tlir.{op} %a0", special={0: SPECIAL})
        )
    cases.append(OpCase("relu_scalar", "relu", [()], (), "tlir.relu %a0"))
    cases.append(OpCase("log", "log", [(3, 4)], (3, 4), "tlir.log %a0", positive=True))
    cases.append(OpCase("safe_log", "safe_log", [(3, 4), ()], (3, 4), "tlir.safe_log %a0, %a1",
                        special={1: np.array(1e-3)}))  # fmt: skip
    for op in ("add", "sub", "mul_elem", "max_elem", "min_elem"):
        cases.append(OpCase(op, op, [(2, 3), (2, 3)], (2, 3), f"tlir.{op} %a0, %a1"))
        cases.append(OpCase(f"{op}_special", op, [(8,), (8,)], (8,), f"tlir.{op} %a0, %a1",
                            special={0: SPECIAL, 1: SPECIAL[::-1].copy()}))  # fmt: skip
    cases.append(OpCase("add_empty", "add", [(0, 3), (0, 3)], (0, 3), "tlir.add %a0, %a1"))
    cases.append(OpCase("const", "const", [(2,)], (2, 2),
                        "tlir.const {value = dense<[[0.1, -2.5], [3.0e+38, 7.0]]> : tensor<2x2x{t}>}",
                        result_only=True))  # fmt: skip
    cases.append(OpCase("rand_uniform", "rand_uniform", [(1,)], (2, 3, 4),
                        "tlir.rand_uniform {seed = 42 : i64, node_id = 3 : i64}", result_only=True))  # fmt: skip
    cases.append(OpCase("rand_uniform_scalar", "rand_uniform", [(1,)], (),
                        "tlir.rand_uniform {seed = 18446744073709551615 : i64, node_id = 9 : i64}",
                        result_only=True))  # fmt: skip
    for p in (0.5, 0.0, 1.0, 0.999):
        cases.append(OpCase(f"bernoulli_{p}", "bernoulli_mask", [()], (3, 5),
                            "tlir.bernoulli_mask %a0 {seed = 7 : i64, node_id = 1 : i64}",
                            special={0: np.array(p)}))  # fmt: skip
    cases.append(
        OpCase(
            "permute",
            "permute",
            [(2, 3, 4)],
            (4, 2, 3),
            "tlir.permute %a0 {perm = array<i64: 2, 0, 1>}",
        )
    )
    cases.append(OpCase("transpose", "transpose", [(2, 3, 4)], (4, 3, 2),
                        "tlir.transpose %a0 {axis1 = 0 : i64, axis2 = 2 : i64}"))  # fmt: skip
    cases.append(OpCase("broadcast", "broadcast_to", [(3, 1)], (2, 3, 5), "tlir.broadcast_to %a0"))
    cases.append(OpCase("broadcast_scalar", "broadcast_to", [()], (2, 2), "tlir.broadcast_to %a0"))
    cases.append(OpCase("reshape", "reshape", [(2, 3, 4)], (4, 6), "tlir.reshape %a0"))
    cases.append(OpCase("reshape_to_scalar", "reshape", [(1, 1)], (), "tlir.reshape %a0"))
    cases.append(OpCase("reshape_from_scalar", "reshape", [()], (1, 1, 1), "tlir.reshape %a0"))
    cases.append(OpCase("flatten", "flatten", [(2, 3, 4)], (24,), "tlir.flatten %a0"))
    cases.append(
        OpCase(
            "concat",
            "concat",
            [(2, 3), (2, 1), (2, 2)],
            (2, 6),
            "tlir.concat %a0, %a1, %a2 axis = 1",
        )
    )
    cases.append(
        OpCase("concat_axis0", "concat", [(1, 3), (2, 3)], (3, 3), "tlir.concat %a0, %a1 axis = 0")
    )
    for axis in range(3):
        out = tuple(d for i, d in enumerate((2, 3, 4)) if i != axis)
        cases.append(
            OpCase(
                f"reduce_sum_{axis}",
                "reduce_sum",
                [(2, 3, 4)],
                out,
                f"tlir.reduce_sum %a0 axis = {axis}",
            )
        )
        cases.append(
            OpCase(
                f"reduce_mean_{axis}",
                "reduce_mean",
                [(2, 3, 4)],
                out,
                f"tlir.reduce_mean %a0 axis = {axis}",
            )
        )
    cases.append(OpCase("sum", "sum", [(3, 5)], (), "tlir.sum %a0"))
    cases.append(OpCase("sum_fold_order", "sum", [(10,)], (), "tlir.sum %a0",
                        special={0: np.array([1e16, 1.0, -1e16, 1.0, 3.0, 1.0, 1e16, 0.75, -1e16, 2.0])}))  # fmt: skip
    cases.append(OpCase("sum_empty", "sum", [(0,)], (), "tlir.sum %a0"))
    cases.append(OpCase("mse_loss", "mse_loss", [(2, 3), (2, 3)], (), "tlir.mse_loss %a0, %a1"))
    for name, a, b, out in [("matmul_2d", (2, 3), (3, 4), (2, 4)), ("matmul_batch", (5, 1, 2, 3), (7, 3, 4), (5, 7, 2, 4)),
                            ("matmul_vec_mat", (3,), (2, 3, 4), (2, 4)), ("matmul_mat_vec", (2, 3), (3,), (2,)),
                            ("matmul_dot", (3,), (3,), ())]:  # fmt: skip
        cases.append(OpCase(name, "matmul", [a, b], out, "tlir.matmul %a0, %a1"))
    cases.append(
        OpCase(
            "linear", "linear", [(2, 3, 4), (5, 4), (5,)], (2, 3, 5), "tlir.linear %a0, %a1, %a2"
        )
    )
    cases.append(
        OpCase("linear_vector", "linear", [(4,), (5, 4), (5,)], (5,), "tlir.linear %a0, %a1, %a2")
    )
    cases.append(
        _conv(
            "conv",
            (1, 2, 5, 5),
            (4, 2, 3, 3),
            (1, 4, 5, 5),
            (3, 3),
            (1, 1),
            (1, 1),
            (1, 1),
            (1, 1),
            1,
        )
    )
    cases.append(
        _conv(
            "conv_groups",
            (2, 4, 5, 6),
            (6, 4, 3, 2),
            (2, 6, 3, 6),
            (3, 2),
            (2, 1),
            (1, 0),
            (1, 1),
            (1, 1),
            2,
        )
    )
    cases.append(
        _conv(
            "conv_dilation_asym",
            (1, 2, 7, 7),
            (2, 2, 2, 3),
            (1, 2, 6, 3),
            (2, 3),
            (1, 2),
            (0, 2),
            (1, 0),
            (2, 2),
            1,
        )
    )
    cases.append(
        _conv(
            "conv_1d_unbatched", (3, 9), (3, 3, 3), (3, 2), (3,), (2,), (1,), (0,), (3,), 3, axis=0
        )
    )
    cases.append(_pool("max", "max_pool", (2, 3, 6, 6), (2, 3, 3, 3), (2, 2), (2, 2), (0, 0)))
    cases.append(_pool("max", "max_pool_padded", (1, 5, 5), (1, 3, 5), (3, 3), (2, 1), (1, 1)))
    cases.append(_pool("max", "max_pool_1d", (7,), (4,), (3,), (2,), (1,)))
    cases.append(_pool("max", "max_pool_empty", (5,), (0,), (2,), (1,), (2,)))
    cases.append(_pool("avg", "avg_pool", (2, 3, 6, 6), (2, 3, 3, 3), (2, 2), (2, 2), (0, 0)))
    cases.append(_pool("avg", "avg_pool_padded", (1, 5, 5), (1, 3, 5), (3, 3), (2, 1), (1, 1)))
    cases.append(
        _pool("avg", "avg_pool_3d", (2, 3, 3, 3), (2, 2, 2, 2), (2, 2, 2), (1, 1, 1), (0, 0, 0))
    )
    bn = "{channel_axis = 1 : i64, channels = 3 : i64, eps = 1.0e-05 : f64}"
    cases.append(OpCase("batch_norm", "batch_norm_eval", [(2, 3, 2, 2), (3,), (3,), (3,), (3,)], (2, 3, 2, 2),
                        f"tlir.batch_norm_eval %a0, %a1, %a2, %a3, %a4 {bn}",
                        special={4: np.array([0.5, -0.25, 2.0])}))  # fmt: skip
    cases.append(OpCase("batch_norm_2d", "batch_norm_eval", [(4, 3), (3,), (3,), (3,), (3,)], (4, 3),
                        f"tlir.batch_norm_eval %a0, %a1, %a2, %a3, %a4 {bn}", special={4: np.array([1.0, 0.1, 3.0])}))  # fmt: skip
    for axis in range(3):
        cases.append(
            OpCase(
                f"softmax_{axis}",
                "softmax",
                [(2, 3, 4)],
                (2, 3, 4),
                f"tlir.softmax %a0 axis = {axis}",
            )
        )
    cases.append(
        OpCase(
            "softmax_nan",
            "softmax",
            [(8,)],
            (8,),
            "tlir.softmax %a0 axis = 0",
            special={0: SPECIAL},
        )
    )
    mask = "dense<[[true, false, true, true], [false, false, false, false], [false, true, false, false]]> : tensor<3x4xi1>"
    cases.append(OpCase("hard_masked_softmax", "hard_masked_softmax", [(3, 4)], (3, 4),
                        f"tlir.hard_masked_softmax %a0 {{mask = {mask}}}"))  # fmt: skip
    cases.append(OpCase("hard_masked_softmax_scalar", "hard_masked_softmax", [()], (),
                        "tlir.hard_masked_softmax %a0 {mask = dense<true> : tensor<i1>}"))  # fmt: skip
    cases.append(
        OpCase(
            "layernorm",
            "layernorm",
            [(3, 2, 4)],
            (3, 2, 4),
            "tlir.layernorm %a0 {axis = 1 : i64, eps = 1.0e-05 : f64}",
        )
    )
    cases.append(OpCase("layernorm_affine", "layernorm", [(3, 2, 4), (4,), (4,)], (3, 2, 4),
                        "tlir.layernorm %a0 affine(%a1, %a2) {axis = 2 : i64, eps = 1.0e-03 : f64}"))  # fmt: skip
    cases += zero_size_cases()
    return cases


def zero_size_cases() -> list[OpCase]:
    """Zero extents where the spec allows them: the empty results and the
    non-empty results of empty folds."""
    return [
        OpCase("relu_empty", "relu", [(3, 0)], (3, 0), "tlir.relu %a0"),
        OpCase("matmul_empty_k", "matmul", [(2, 0), (0, 3)], (2, 3), "tlir.matmul %a0, %a1"),
        OpCase(
            "matmul_empty_batch", "matmul", [(0, 2, 3), (3, 4)], (0, 2, 4), "tlir.matmul %a0, %a1"
        ),
        OpCase(
            "linear_empty_in", "linear", [(2, 0), (3, 0), (3,)], (2, 3), "tlir.linear %a0, %a1, %a2"
        ),
        OpCase(
            "reduce_sum_empty_other", "reduce_sum", [(0, 3)], (0,), "tlir.reduce_sum %a0 axis = 1"
        ),
        OpCase("softmax_empty_axis", "softmax", [(2, 0)], (2, 0), "tlir.softmax %a0 axis = 1"),
        OpCase(
            "layernorm_empty_rows",
            "layernorm",
            [(0, 4)],
            (0, 4),
            "tlir.layernorm %a0 {axis = 1 : i64, eps = 1.0e-05 : f64}",
        ),
        OpCase("mse_empty", "mse_loss", [(0,), (0,)], (), "tlir.mse_loss %a0, %a1"),
        OpCase(
            "concat_empty_part", "concat", [(2, 0), (2, 3)], (2, 3), "tlir.concat %a0, %a1 axis = 1"
        ),
        OpCase("broadcast_to_empty", "broadcast_to", [(1, 3)], (0, 3), "tlir.broadcast_to %a0"),
        _conv(
            "conv_empty_batch",
            (0, 2, 5, 5),
            (4, 2, 3, 3),
            (0, 4, 3, 3),
            (3, 3),
            (1, 1),
            (0, 0),
            (0, 0),
            (1, 1),
            1,
        ),
    ]


CASES = build_cases()
