"""Cross-check against PyTorch autograd (skipped without torch): the
reference VJP against `torch.autograd.grad` and the reference JVP against
`torch.func.jvp`, float64, for the ops PyTorch has: matmul, linear, conv
(groups, stride, dilation, asymmetric padding), pooling, softmax, layernorm,
batch norm, mse_loss and the reductions. Summation orders differ, so the
comparison is approximate (TorchLean's rounding is pinned by the other tests)."""

from __future__ import annotations

import numpy as np
import pytest
from autodiff_util import normal, output_shapes
from op_cases import CASES

import tlir
from tlir.reference import jvp, vjp

torch = pytest.importorskip("torch")
F = torch.nn.functional
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's own


def _conv(case):
    """PyTorch's packed grouped weight from the dense block-diagonal one, and
    the asymmetric padding done by F.pad."""
    props = case.body
    spatial = len(case.arg_shapes[1]) - 2
    values = {
        key: [int(v) for v in props.split(f"{key} = array<i64: ")[1].split(">")[0].split(", ")]
        for key in ("stride", "padding", "padding_after", "dilation")
    }
    groups = int(props.split("groups = ")[1].split(" ")[0])
    conv = {1: F.conv1d, 2: F.conv2d}[spatial]

    def run(x, weight, bias):
        out_c, in_c = weight.shape[:2]
        cin, cout = in_c // groups, out_c // groups
        rows = torch.arange(out_c)
        cols = (rows // cout * cin)[:, None] + torch.arange(cin)[None, :]
        packed = weight[rows[:, None], cols]
        pads = []
        for before, after in zip(reversed(values["padding"]), reversed(values["padding_after"])):
            pads += [before, after]
        return conv(F.pad(x, pads), packed, bias, values["stride"], 0, values["dilation"], groups)

    return run


def _pool(case, kind):
    props = case.body
    kernel = [int(v) for v in props.split("kernel = array<i64: ")[1].split(">")[0].split(", ")]
    stride = [int(v) for v in props.split("stride = array<i64: ")[1].split(">")[0].split(", ")]
    padding = [int(v) for v in props.split("padding = array<i64: ")[1].split(">")[0].split(", ")]
    pool = {
        ("max", 1): F.max_pool1d, ("max", 2): F.max_pool2d,
        ("avg", 1): F.avg_pool1d, ("avg", 2): F.avg_pool2d, ("avg", 3): F.avg_pool3d,
    }[(kind, len(kernel))]  # fmt: skip

    def run(x):
        flat = x.unsqueeze(0) if x.dim() == len(kernel) else x
        y = pool(flat, kernel, stride, padding)
        return y.squeeze(0) if x.dim() == len(kernel) else y

    return run


def _axis(case) -> int:
    return int(case.body.split("axis = ")[1].split(" ")[0].rstrip("}:"))


def _torch_function(case):
    op = case.op
    if op == "matmul":
        return torch.matmul
    if op == "linear":
        return F.linear
    if op == "conv":
        return _conv(case)
    if op in ("max_pool", "avg_pool"):
        return _pool(case, op.split("_")[0])
    if op == "softmax":
        return lambda x: torch.softmax(x, _axis(case))
    if op == "layernorm":
        eps = float(case.body.split("eps = ")[1].split(" ")[0])
        axis = _axis(case)
        return lambda x, *affine: F.layer_norm(x, x.shape[axis:], *affine, eps=eps)
    if op == "batch_norm_eval":
        return lambda x, g, b, m, v: F.batch_norm(x, m, v, g, b, training=False, eps=1e-5)
    if op == "mse_loss":
        return F.mse_loss
    if op == "reduce_sum":
        return lambda x: torch.sum(x, _axis(case))
    if op == "reduce_mean":
        return lambda x: torch.mean(x, _axis(case))
    if op == "sum":
        return torch.sum
    return None


CHECKED = [
    c
    for c in CASES
    if _torch_function(c) is not None
    and not any(0 in s for s in (*c.arg_shapes, c.out_shape))
    and (not c.special or c.op == "batch_norm_eval")
]


def _inputs(case) -> list[np.ndarray]:
    xs = case.inputs("f64", seed=3)
    if case.op == "batch_norm_eval":
        xs[4] = np.abs(xs[4]) + 0.5  # PyTorch does not clamp a negative variance
    return xs


@pytest.mark.parametrize("case", CHECKED, ids=[c.name for c in CHECKED])
def test_reference_matches_torch_autograd(case):
    module = tlir.parse_module(case.text("f64"))
    fn = _torch_function(case)
    xs = _inputs(case)
    dxs = [normal(x.shape, "f64", seed=40 + i) for i, x in enumerate(xs)]
    if case.op == "batch_norm_eval":  # running statistics: no derivative in either
        dxs[3] = np.zeros_like(dxs[3])
        dxs[4] = np.zeros_like(dxs[4])
    (dy,) = [normal(s, "f64", seed=50) for s in output_shapes(module)]

    statistics = {3, 4} if case.op == "batch_norm_eval" else set()
    leaves = [torch.tensor(x, requires_grad=i not in statistics) for i, x in enumerate(xs)]
    y = fn(*leaves)
    differentiable = [t for i, t in enumerate(leaves) if i not in statistics]
    grads = torch.autograd.grad(y, differentiable, torch.tensor(dy))
    ours = vjp(module, xs, [dy], wrt="inputs")[1:]
    for mine, theirs in zip(ours, grads):
        assert np.allclose(mine, theirs.numpy(), rtol=1e-9, atol=1e-11)

    moving = [i for i in range(len(xs)) if i not in statistics]

    def along(*values):  # the running statistics held fixed
        args = [torch.tensor(x) for x in xs]
        for i, value in zip(moving, values):
            args[i] = value
        return fn(*args)

    primals = tuple(torch.tensor(xs[i]) for i in moving)
    _, tangent = torch.func.jvp(along, primals, tuple(torch.tensor(dxs[i]) for i in moving))
    assert np.allclose(jvp(module, xs, dxs)[1], tangent.numpy(), rtol=1e-9, atol=1e-11)
