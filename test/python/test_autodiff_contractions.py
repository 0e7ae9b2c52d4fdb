"""The derivative rules that emit plain contractions (`passes/autodiff/
contractions.py`): the VJP of linear and matmul as matmuls, conv's kernel
gradient as one `tlir_ad.conv_kernel_grad`, its input gradient as one
`tlir_ad.conv_input_grad`, and the JVP of linear and conv with unseeded (+0)
parameter tangents as the plain op on dx + (+0·x). They must equal the spec's
folds bit for bit, non-finite inputs included: an infinite or NaN input makes
+0·x NaN in exactly the outputs whose fold reads it, and nowhere else."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_util import derivative, normal, output_shapes, same_bits

import tlir
from tlir.dense import numpy_to_dense
from tlir.reference import evaluate, jvp, vjp


def _const(name: str, array: np.ndarray) -> str:
    dense = numpy_to_dense(array)
    return f"    %{name} = tlir.const {{value = {dense}}} : {dense.type}\n"


def _type(shape, dtype: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{dtype}>"


def _nonfinite(w: np.ndarray) -> np.ndarray:
    """Kernel cells that border positions never reach: +0·w would be NaN there."""
    flat = w.reshape(-1)
    flat[0], flat[-1] = np.inf, np.nan
    return w


CONVS = {
    "conv": dict(
        x=(2, 3, 8, 6), w=(4, 3, 3, 2), out=(2, 4, 4, 5), kernel=(3, 2), stride=(2, 1),
        pad=(1, 0), after=(1, 1), dil=(1, 2),
    ),
    "conv_unbatched": dict(
        x=(3, 8, 6), w=(4, 3, 3, 2), out=(4, 4, 5), kernel=(3, 2), stride=(2, 1),
        pad=(1, 0), after=(1, 1), dil=(1, 2),
    ),
    "conv_same": dict(
        x=(2, 3, 6, 5), w=(4, 3, 3, 3), out=(2, 4, 6, 5), kernel=(3, 3), stride=(1, 1),
        pad=(1, 1), after=(1, 1), dil=(1, 1),
    ),
    "conv_dilated_asym": dict(
        x=(1, 2, 7, 6), w=(3, 2, 2, 3), out=(1, 3, 7, 4), kernel=(2, 3), stride=(1, 1),
        pad=(0, 2), after=(2, 0), dil=(2, 2),
    ),
    "conv_unreached": dict(
        x=(2, 2, 5), w=(3, 2, 2), out=(2, 3, 1), kernel=(2,), stride=(1,), pad=(0,),
        after=(0,), dil=(4,),
    ),
    "conv_3d_lead": dict(
        x=(2, 1, 2, 5, 4), w=(2, 2, 3, 1), out=(2, 1, 2, 3, 4), kernel=(3, 1), stride=(1, 1),
        pad=(0, 0), after=(0, 0), dil=(1, 1),
    ),
    "conv_grouped": dict(
        x=(2, 4, 6, 5), w=(6, 4, 3, 3), out=(2, 6, 4, 3), kernel=(3, 3), stride=(1, 1),
        pad=(0, 0), after=(0, 0), dil=(1, 1), groups=(2,),
    ),
}  # fmt: skip


def _module(kind: str, dtype: str, weights_nonfinite: bool = False) -> tuple[str, tuple[int, ...]]:
    """A function of one input whose contraction reads constant parameters."""
    np_dtype = np.float32 if dtype == "f32" else np.float64
    rng = np.random.default_rng(5)

    def arr(*shape):
        return (rng.integers(-8, 9, shape) / 8).astype(np_dtype)

    if kind == "linear":
        x, out = (2, 3, 4), (2, 3, 5)
        body = _const("w", arr(5, 4)) + _const("b", arr(5))
        op = f"tlir.linear %x, %w, %b : ({_type(x, dtype)}, {_type((5, 4), dtype)}, "
        op += f"{_type((5,), dtype)}) -> {_type(out, dtype)}"
    elif kind == "matmul":
        x, out = (2, 3, 4), (2, 3, 2)
        body = _const("w", arr(2, 4, 2))
        op = f"tlir.matmul %x, %w : ({_type(x, dtype)}, {_type((2, 4, 2), dtype)}) -> "
        op += _type(out, dtype)
    else:
        spec = CONVS[kind]
        x, w, out = spec["x"], spec["w"], spec["out"]
        body = _const("w", arr(*w)) + _const("b", arr(w[0]))
        if weights_nonfinite:
            body = _const("w", _nonfinite(arr(*w))) + _const("b", arr(w[0]))
        ints = {k: "array<i64: " + ", ".join(map(str, v)) + ">" for k, v in spec.items()}
        props = (
            f"{{kernel = {ints['kernel']}, stride = {ints['stride']}, padding = {ints['pad']}, "
            f"padding_after = {ints['after']}, dilation = {ints['dil']}, "
            f"groups = {spec.get('groups', (1,))[0]} : i64, "
            f"channel_axis = {len(x) - 1 - len(spec['kernel'])} : i64, "
            f"in_channels = {x[len(x) - 1 - len(spec['kernel'])]} : i64, "
            f"out_channels = {w[0]} : i64}}"
        )
        op = f"tlir.conv %x, %w, %b {props} : ({_type(x, dtype)}, "
        op += f"{_type(w, dtype)}, {_type((w[0],), dtype)}) -> {_type(out, dtype)}"
    text = (
        f"func.func @main(%x: {_type(x, dtype)}) -> {_type(out, dtype)} {{\n{body}"
        f"    %y = {op}\n    func.return %y : {_type(out, dtype)}\n}}\n"
    )
    return text, x


def _inputs(shape, dtype: str, finite: bool) -> np.ndarray:
    x = normal(shape, dtype, seed=3)
    x.reshape(-1)[1] = -0.0
    if not finite:
        flat = x.reshape(-1)
        flat[5], flat[-3] = np.inf, np.nan
    return x


KINDS = ["linear", "matmul", *CONVS]


@pytest.mark.parametrize("finite", [True, False], ids=["finite", "nonfinite"])
@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("kind", KINDS)
def test_emitted_contractions_evaluate_to_the_reference(kind, dtype, finite):
    text, shape = _module(kind, dtype, weights_nonfinite=not finite and kind in CONVS)
    module = tlir.parse_module(text)
    x = _inputs(shape, dtype, finite)
    dx = normal(shape, dtype, seed=4)
    dx.reshape(-1)[0] = -0.0  # dx + (+0·x) turns it to +0 where x > 0
    dy = normal(output_shapes(module)[0], dtype, seed=6)
    dy.reshape(-1)[2] = np.nan if not finite else dy.reshape(-1)[2]
    for got, want in [
        (evaluate(derivative(text, "jvp"), [x, dx]), jvp(module, [x], [dx])),
        (evaluate(derivative(text, "vjp", wrt="all"), [x, dy]), vjp(module, [x], [dy])),
    ]:
        assert all(same_bits(g, w) for g, w in zip(got, want, strict=True))


def test_rules_emit_contractions():
    """The fast forms are taken: no fold over the contraction remains in them."""
    from tlir.passes.tlir_jvp import TlirJvp
    from tlir.passes.tlir_vjp import TlirVjp
    from tlir.universe import context

    # Forward op, its copies in @main_jvp and @main_vjp, then the rules' own.
    conv = {"tlir.conv": 3 + 1, "tlir.matmul": 0, "tlir_ad.conv_input_grad": 1}
    conv["tlir_ad.conv_kernel_grad"] = 1
    # A grouped conv's tangent is a conv too; its kernel gradient keeps the fold.
    grouped = {**conv, "tlir_ad.conv_kernel_grad": 0}
    for kind, counts in [
        ("linear", {"tlir.linear": 3 + 1, "tlir.matmul": 2}),
        ("matmul", {"tlir.matmul": 3 + 2}),
        ("conv", conv),
        ("conv_same", conv),
        ("conv_unreached", conv),
        ("conv_grouped", grouped),
    ]:
        module = tlir.parse_module(_module(kind, "f64")[0])
        TlirJvp().apply(context(), module)
        TlirVjp().apply(context(), module)
        names = [op.name for op in module.walk()]
        assert {name: names.count(name) for name in counts} == counts, kind


@pytest.mark.parametrize(
    "kind", ["linear", "matmul", "conv", "conv_same", "conv_unreached", "conv_grouped"]
)
def test_compiled_contractions_match_the_reference(kind):
    dtype = "f32" if kind.startswith("conv") else "f64"
    text, shape = _module(kind, dtype)
    module = tlir.parse_module(text)
    model = tlir.compile(module)
    x = _inputs(shape, dtype, finite=False)
    dx = normal(shape, dtype, seed=4)
    dx.reshape(-1)[0] = -0.0  # dx + (+0·x) turns it to +0 where x > 0
    dy = normal(output_shapes(module)[0], dtype, seed=6)
    ys, dys = model.jvp([x], [dx])
    want = jvp(module, [x], [dx])
    assert all(same_bits(g, w) for g, w in zip([*ys, *dys], want, strict=True))
    ys, gxs, gps = model.vjp([x], [dy])
    want = vjp(module, [x], [dy])
    got = [*ys, *gxs, *gps.values()]
    assert all(same_bits(g, w) for g, w in zip(got, want, strict=True))
    # NaN reaches only the outputs whose fold reads the non-finite inputs.
    assert 0 < np.isnan(dys[0]).sum() < dys[0].size
