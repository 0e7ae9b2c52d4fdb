"""Small tlir functions written as text from NumPy weights, for the CROWN tests."""

from __future__ import annotations

import numpy as np

import tlir


def number(v: float) -> str:
    text = repr(float(v))
    return text.replace("e", ".0e") if "e" in text and "." not in text else text


def nested(a: np.ndarray) -> str:
    if a.ndim == 0:
        return number(a[()])
    return "[" + ", ".join(nested(x) for x in a) + "]"


class Net:
    """One input, ops appended in order, the last value returned."""

    def __init__(self, shape: tuple[int, ...], dtype: str = "f64"):
        self.dtype = dtype
        self.np = np.dtype(np.float32 if dtype == "f32" else np.float64)
        self.lines: list[str] = []
        self.input_shape = tuple(shape)
        self.value, self.shape = "%x", tuple(shape)
        self.count = 0

    def ty(self, shape) -> str:
        return "tensor<" + "".join(f"{d}x" for d in shape) + self.dtype + ">"

    def _name(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def const(self, a) -> tuple[str, tuple[int, ...]]:
        a = np.asarray(a, self.np)
        name, t = self._name(), self.ty(a.shape)
        self.lines.append(f"{name} = tlir.const {{value = dense<{nested(a)}> : {t}}} : {t}")
        return name, a.shape

    def emit(self, text: str, operands, out_shape, attrs: str = "") -> tuple[str, tuple]:
        name = self._name()
        names = ", ".join(v for v, _ in operands)
        types = ", ".join(self.ty(s) for _, s in operands)
        self.lines.append(
            f"{name} = tlir.{text} {names} {attrs}: ({types}) -> {self.ty(out_shape)}"
        )
        return name, tuple(out_shape)

    def then(self, text: str, out_shape, *params, attrs: str = "") -> Net:
        """`self.value = op(self.value, *params)`."""
        operands = [(self.value, self.shape), *params]
        self.value, self.shape = self.emit(text, operands, out_shape, attrs)
        return self

    def linear(self, w, b) -> Net:
        w, b = np.asarray(w), np.asarray(b)
        return self.then("linear", self.shape[:-1] + (w.shape[0],), self.const(w), self.const(b))

    def relu(self) -> Net:
        return self.then("relu", self.shape)

    def conv(self, w, b, stride: int = 1, padding: int = 0) -> Net:
        w = np.asarray(w)
        c, h, wd = self.shape
        k = w.shape[2]
        oh, ow = (h + 2 * padding - k) // stride + 1, (wd + 2 * padding - k) // stride + 1
        attrs = (
            f"{{kernel = array<i64: {k}, {k}>, stride = array<i64: {stride}, {stride}>, "
            f"padding = array<i64: {padding}, {padding}>, "
            f"padding_after = array<i64: {padding}, {padding}>, dilation = array<i64: 1, 1>, "
            f"groups = 1 : i64, channel_axis = 0 : i64, in_channels = {c} : i64, "
            f"out_channels = {w.shape[0]} : i64}} "
        )
        out = (w.shape[0], oh, ow)
        return self.then("conv", out, self.const(w), self.const(b), attrs=attrs)

    def batch_norm(self, gamma, beta, mean, var, eps: float = 1e-5) -> Net:
        params = [self.const(p) for p in (gamma, beta, mean, var)]
        attrs = (
            f"{{channel_axis = 0 : i64, channels = {len(gamma)} : i64, eps = {number(eps)} : f64}} "
        )
        return self.then("batch_norm_eval", self.shape, *params, attrs=attrs)

    def avg_pool(self, k: int, stride: int, padding: int = 0) -> Net:
        c, h, w = self.shape
        out = (c, (h + 2 * padding - k) // stride + 1, (w + 2 * padding - k) // stride + 1)
        attrs = (
            f"{{kernel = array<i64: {k}, {k}>, stride = array<i64: {stride}, {stride}>, "
            f"padding = array<i64: {padding}, {padding}>}} "
        )
        return self.then("avg_pool", out, attrs=attrs)

    def flatten(self) -> Net:
        return self.then("flatten", (int(np.prod(self.shape)),))

    def text(self) -> str:
        body = "\n  ".join(self.lines)
        return (
            f"func.func @main(%x: {self.ty(self.input_shape)}) -> {self.ty(self.shape)} {{\n"
            f"  {body}\n  func.return {self.value} : {self.ty(self.shape)}\n}}\n"
        )

    def module(self):
        return tlir.parse_module(self.text())


def random_mlp(widths, dtype: str = "f64", seed: int = 0) -> Net:
    """Linear layers of `widths`, a ReLU between each two; weights ~ N(0, 1/fan_in)."""
    rng = np.random.default_rng(seed)
    net = Net((widths[0],), dtype)
    for i in range(len(widths) - 1):
        if i:
            net.relu()
        fan_in, fan_out = widths[i], widths[i + 1]
        net.linear(rng.normal(0, fan_in**-0.5, (fan_out, fan_in)), rng.normal(0, 0.1, fan_out))
    return net


def random_cnn(shape=(1, 8, 8), channels=(4, 6), classes=5, dtype="f64", seed=0,
               extras: bool = False) -> Net:  # fmt: skip
    """conv(s2, p1) → relu → [batch_norm →] conv(s1, p1) → relu → [avg_pool →]
    flatten → linear."""
    rng = np.random.default_rng(seed)
    net = Net(shape, dtype)
    c = shape[0]
    net.conv(rng.normal(0, (9 * c) ** -0.5, (channels[0], c, 3, 3)),
             rng.normal(0, 0.1, channels[0]), stride=2, padding=1)  # fmt: skip
    net.relu()
    if extras:
        k = channels[0]
        net.batch_norm(rng.uniform(0.5, 1.5, k), rng.normal(0, 0.1, k),
                       rng.normal(0, 0.1, k), rng.uniform(0.5, 2, k))  # fmt: skip
    net.conv(rng.normal(0, (9 * channels[0]) ** -0.5, (channels[1], channels[0], 3, 3)),
             rng.normal(0, 0.1, channels[1]), stride=1, padding=1)  # fmt: skip
    net.relu()
    if extras:
        net.avg_pool(2, 2)
    net.flatten()
    n = net.shape[0]
    return net.linear(rng.normal(0, n**-0.5, (classes, n)), rng.normal(0, 0.1, classes))
