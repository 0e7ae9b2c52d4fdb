"""CROWN (mode="relu", and "torchlean" as `tl`) on an MLP and a CNN, timed,
against the compiled IBP (checked bit for bit against the reference's) and,
when its source is at hand, auto_LiRPA's IBP and CROWN on the same model in
the same run.

    python bench/crown.py [--lirpa DIR] [--repeat N]

The models are PyTorch modules (PyTorch is needed). DIR (default: the
TLIR_AUTO_LIRPA environment variable) holds auto_LiRPA's source tree (its
`auto_LiRPA` package; several directories separated by the path separator
for the packages it imports); it is never a dependency of tlir. Times are the
best of N calls, wall clock and CPU time of the process (on a shared machine
the CPU time is the steadier figure); widths are mean output-bound widths. In
the last table a ratio below 1 means tlir is faster, a width ratio above 1
that tlir's CROWN is wider.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import tlir
from tlir.bounds import ball
from tlir.reference.crown import crown
from tlir.reference.ibp import ibp


def number(v: float) -> str:
    text = repr(float(v))
    return text.replace("e", ".0e") if "e" in text and "." not in text else text


def nested(a: np.ndarray) -> str:
    return number(a[()]) if a.ndim == 0 else "[" + ", ".join(nested(x) for x in a) + "]"


def ty(shape) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f64>"


def to_tlir(layers, input_shape) -> str:
    """A torch Sequential of Linear / Conv2d / ReLU / Flatten as a tlir function
    on one unbatched input (channels first)."""
    import torch

    lines, value, shape, count = [], "%x", tuple(input_shape), 0

    def emit(text: str) -> str:
        nonlocal count
        count += 1
        lines.append(f"%v{count} = {text}")
        return f"%v{count}"

    def const(a: np.ndarray) -> str:
        return emit(f"tlir.const {{value = dense<{nested(a)}> : {ty(a.shape)}}} : {ty(a.shape)}")

    for layer in layers:
        if isinstance(layer, torch.nn.Linear):
            w, b = layer.weight.detach().double().numpy(), layer.bias.detach().double().numpy()
            out = shape[:-1] + (w.shape[0],)
            value = emit(
                f"tlir.linear {value}, {const(w)}, {const(b)} : ({ty(shape)}, {ty(w.shape)}, "
                f"{ty(b.shape)}) -> {ty(out)}"
            )
        elif isinstance(layer, torch.nn.Conv2d):
            w, b = layer.weight.detach().double().numpy(), layer.bias.detach().double().numpy()
            (k, _), (s, _), (p, _) = layer.kernel_size, layer.stride, layer.padding
            out = (w.shape[0], (shape[1] + 2 * p - k) // s + 1, (shape[2] + 2 * p - k) // s + 1)
            attrs = (
                f"kernel = array<i64: {k}, {k}>, stride = array<i64: {s}, {s}>, "
                f"padding = array<i64: {p}, {p}>, padding_after = array<i64: {p}, {p}>, "
                f"dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 0 : i64, "
                f"in_channels = {shape[0]} : i64, out_channels = {w.shape[0]} : i64"
            )
            value = emit(
                f"tlir.conv {value}, {const(w)}, {const(b)} {{{attrs}}} : ({ty(shape)}, "
                f"{ty(w.shape)}, {ty(b.shape)}) -> {ty(out)}"
            )
        else:
            kind = "relu" if isinstance(layer, torch.nn.ReLU) else "flatten"
            out = shape if kind == "relu" else (int(np.prod(shape)),)
            value = emit(f"tlir.{kind} {value} : ({ty(shape)}) -> {ty(out)}")
        shape = out
    body = "\n  ".join(lines)
    return (
        f"func.func @main(%x: {ty(input_shape)}) -> {ty(shape)} {{\n  {body}\n"
        f"  func.return {value} : {ty(shape)}\n}}\n"
    )


def models():
    import torch

    torch.manual_seed(0)
    nn = torch.nn
    mlp = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 24), nn.ReLU(),
                        nn.Linear(24, 4))  # fmt: skip
    cnn = nn.Sequential(
        nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.Flatten(0), nn.Linear(16 * 7 * 7, 10),
    )  # fmt: skip
    return [("mlp 12-24-24-4", mlp.double(), (12,), 0.05),
            ("cnn 1x28x28 -> 10", cnn.double(), (1, 28, 28), 0.01)]  # fmt: skip


def timed(function, repeat: int):
    """(best wall seconds, best CPU seconds, the last result)."""
    wall = cpu = float("inf")
    result = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = function()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu, result


def lirpa_crown(net, x: np.ndarray, eps: float, repeat: int):
    """auto_LiRPA's IBP and CROWN on a batch of one (None if it cannot be imported)."""
    try:
        import torch
        from auto_LiRPA import BoundedModule, BoundedTensor, PerturbationLpNorm
    except ImportError:
        return None
    batched = torch.nn.Sequential(*[torch.nn.Flatten(1) if isinstance(m, torch.nn.Flatten)
                                    else m for m in net])  # fmt: skip
    xt = torch.tensor(x[np.newaxis])
    module = BoundedModule(batched, torch.zeros_like(xt), verbose=0)
    bounded = BoundedTensor(xt, PerturbationLpNorm(norm=float("inf"), eps=eps))
    out = {}
    for method in ("IBP", "CROWN"):
        wall, cpu, (lb, ub) = timed(
            lambda m=method: module.compute_bounds(x=(bounded,), method=m), repeat
        )
        out[method] = (wall, cpu, (ub - lb).detach().numpy().reshape(-1))
    return out


def row(label: str, wall: float, cpu: float, width: float) -> str:
    return f"  {label:<20} {wall * 1e3:9.2f} ms {cpu * 1e3:9.2f} ms   width {width:.6g}"


def main() -> None:
    parser = argparse.ArgumentParser(description="CROWN against IBP and auto_LiRPA")
    parser.add_argument("--lirpa", default=os.environ.get("TLIR_AUTO_LIRPA"),
                        help="directory holding auto_LiRPA's source")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    if args.lirpa:
        sys.path[:0] = args.lirpa.split(os.pathsep)
    summary = []
    for name, net, shape, eps in models():
        module = tlir.parse_module(to_tlir(list(net), shape))
        x = np.random.default_rng(0).uniform(0, 1, shape)
        lo, hi = ball(x, eps, np.dtype(np.float64), "x")
        model = tlir.compile(module)
        ibp_run = timed(lambda m=model, lo=lo, hi=hi: m.ibp([lo], [hi]), args.repeat)
        want = ibp(module, [lo], [hi])  # the compiled bounds are the reference's bits
        pairs = zip([*ibp_run[2][0], *ibp_run[2][1]], [*want[0], *want[1]], strict=True)
        assert all(g.tobytes() == w.tobytes() for g, w in pairs)
        relu_run = timed(lambda m=module, lo=lo, hi=hi: crown(m, lo, hi, mode="relu"), args.repeat)
        tl_run = timed(lambda m=module, lo=lo, hi=hi: crown(m, lo, hi), args.repeat)
        (il,), (ih,) = ibp_run[2]
        ibp_width = np.mean(ih - il)
        crown_width = np.mean(relu_run[2][1] - relu_run[2][0])
        print(f"{name}, eps {eps}                 wall          CPU")
        print(row("tlir IBP (compiled)", *ibp_run[:2], ibp_width))
        print(row("tlir CROWN (tl)", *tl_run[:2], np.mean(tl_run[2][1] - tl_run[2][0])))
        print(row("tlir CROWN (relu)", *relu_run[:2], crown_width)
              + f"   IBP/CROWN {ibp_width / crown_width:.3f}")  # fmt: skip
        lirpa = lirpa_crown(net, x, eps, args.repeat)
        if lirpa is None:
            print("  auto_LiRPA: not importable (pass --lirpa DIR or set TLIR_AUTO_LIRPA)")
            continue
        for method, (wall, cpu, width) in lirpa.items():
            print(row(f"auto_LiRPA {method}", wall, cpu, np.mean(width)))
        theirs = lirpa["CROWN"]
        summary.append((name, relu_run[0] / theirs[0], relu_run[1] / theirs[1],
                        crown_width / np.mean(theirs[2])))  # fmt: skip
    if summary:
        print("\ntlir CROWN (relu) / auto_LiRPA CROWN    time (wall)  time (CPU)  width")
        for name, wall, cpu, width in summary:
            print(f"  {name:<36} {wall:9.3f} {cpu:11.3f} {width:12.9f}")


if __name__ == "__main__":
    main()
