"""A training step, tlir against PyTorch eager, in the same run.

  python bench/train.py [--repeat 50] [--dtypes f64 f32] [--optimizers sgd adam] [--profile]
                        [--steps] [--numerics exact fma] [--threads 1]

The model is the MLP 1024-256-256-10 (relu between the layers) at batch 128.
A step is, for tlir, `model.vjp([x], [seed], wrt="params")` then
`optimizer.step(grads)` (tlir.optim, which updates `model.parameters()` in
place); for PyTorch, the forward, `out.backward(seed)` and `torch.optim`'s
`zero_grad` and `step` (foreach off: one thread, plain loops, as tlir).
The seed is the same fixed cotangent for both (a loss's gradient would add the
same small elementwise work to both). Calls interleaved round by round;
minimum and median of `--repeat` steps each: with one thread (the default) the
calling thread's CPU time, with `--threads N` (tlir's and PyTorch's) wall time.
`--numerics fma` adds tlir with the opt-in fused multiply-adds. The ratio is
tlir / PyTorch (below 1: tlir is faster). `--profile` also times the parts of
tlir's step: the VJP alone and the update alone. `--steps` prints the
VJP's plan step by step, in each of `--numerics`: each kernel called alone on
the plan's buffers (minimum of `--repeat` calls, one thread), what it computes
(its ops, a contraction's operand shapes, its arguments' sizes) and its share.

Note that PyTorch's Adam is not TorchLean's (bias corrections differ in order
and form): the work is the same kind (a few elementwise passes per parameter),
so the timing comparison stands; results are not compared with PyTorch's.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import graphs  # noqa: E402
from autodiff import interleaved_samples  # noqa: E402

import tlir  # noqa: E402
import tlir.optim  # noqa: E402

BATCH, WIDTHS = 128, [1024, 256, 256, 10]


def interleaved(
    functions: list[Callable[[], object]], repeat: int, clock: Callable[[], float]
) -> list[tuple[float, float]]:
    """(minimum, median) time of each function on `clock`, calls interleaved."""
    times = interleaved_samples(functions, repeat, clock)
    return [(min(s), statistics.median(s)) for s in times]


def mlp(dtype: str) -> tuple[str, graphs.Builder]:
    b = graphs.Builder([BATCH, WIDTHS[0]], seed=3)
    out = b.mlp(0, BATCH, WIDTHS)
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"tlir-bench-train-{dtype}.json"
    path.write_text(json.dumps(b.graph(out)))
    return str(path), b


def make_optimizer(kind: str, params, lr: float):
    return tlir.optim.SGD(params, lr=lr) if kind == "sgd" else tlir.optim.Adam(params, lr=lr)


def tlir_step(path: str, dtype: str, kind: str, x, seed, numerics: str, threads: int):
    model = tlir.compile(path, dtype, threads=threads, numerics=numerics)
    optimizer = make_optimizer(kind, model.parameters(), 1e-3)

    def vjp():
        return model.vjp([x], [seed], wrt="params")[2]

    def step():
        optimizer.step(vjp())

    grads = vjp()
    return step, vjp, lambda: optimizer.step(grads)


def torch_step(builder: graphs.Builder, dtype: str, kind: str, x, seed):
    import torch

    torch_type = torch.float64 if dtype == "f64" else torch.float32
    linears = [n for n in builder.nodes if n["kind"] == "linear"]
    params = []
    for n in linears:
        params += [
            torch.tensor(n["weight"], dtype=torch_type, requires_grad=True),
            torch.tensor(n["bias"], dtype=torch_type, requires_grad=True),
        ]
    options = {"lr": 1e-3, "foreach": False}
    optimizer = (
        torch.optim.SGD(params, **options) if kind == "sgd" else torch.optim.Adam(params, **options)
    )
    tx, tseed = torch.from_numpy(x), torch.from_numpy(seed)

    def step():
        optimizer.zero_grad()
        h = tx
        for i in range(0, len(params), 2):
            h = torch.nn.functional.linear(h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = torch.relu(h)
        h.backward(tseed)
        optimizer.step()

    return step


def step_times(model, arrays: list[np.ndarray], repeat: int) -> list[tuple[str, float, str]]:
    """(kernel, minimum seconds, arguments) of each step of `model`'s plan, every
    kernel called on its own over its whole range, on the buffers of one call."""
    import ctypes

    plan = model.plan
    outputs = [np.empty(shape, dtype) for shape, dtype in plan.outputs]
    workspace = np.empty(max(plan.workspace_bytes, 1) + 64, np.uint8)
    base = workspace.ctypes.data + (-workspace.ctypes.data % 64)
    buffers = {"input": arrays, "output": outputs, "const": plan.constants}

    def pointer(storage) -> int:
        if storage.kind == "workspace":
            return base + storage.index
        return buffers[storage.kind][storage.index].ctypes.data

    model(*arrays)  # fills the workspace like a call
    rows = []
    for step in plan.steps:
        kernel = model.engine.function(
            step.kernel, None, [ctypes.c_void_p] * len(step.args) + [ctypes.c_int64] * 2
        )
        args = [pointer(s) for s in step.args] + [0, step.extent]
        samples = []
        for _ in range(repeat):
            start = time.perf_counter()
            kernel(*args)
            samples.append(time.perf_counter() - start)
        shapes = " ".join(f"{s.kind[0]}{s.nbytes // 1024}K" for s in step.args)
        rows.append((step.kernel, min(samples), shapes))
    return rows


def kernel_labels(model) -> dict[str, str]:
    """What each kernel of a compiled model computes: its ops, with the operand
    shapes of a contraction (`matmul 256x128·128x1024`)."""
    from xdsl.dialects import func

    from tlir.compiler.build import _entry_module

    work, _ = _entry_module(model._module, model.function, True, model.numerics)
    labels = {}
    for kernel in work.ops:
        if not isinstance(kernel, func.FuncOp):
            continue
        parts = []
        for op in kernel.body.block.ops:
            if isinstance(op, func.ReturnOp):
                continue
            part = op.name.split(".")[-1]
            if part in ("matmul", "linear"):
                shapes = ("x".join(map(str, v.type.get_shape())) for v in op.operands[:2])
                part += " " + "·".join(shapes)
            parts.append(part)
        labels[kernel.sym_name.data] = "+".join(dict.fromkeys(parts))
    return labels


def print_steps(path: str, dtype: str, x, seed, repeat: int, numerics: str = "exact") -> None:
    model = tlir.compile(path, dtype, threads=1, numerics=numerics)
    model.vjp([x], [seed], wrt="params")
    vjp = model._derivative("vjp", "params")
    rows = step_times(vjp, [x, seed], repeat)
    labels = kernel_labels(vjp)
    total = sum(t for _, t, _ in rows)
    print(f"{dtype} {numerics} VJP wrt params, step by step (sum {total * 1e3:.3f}ms):")
    for name, seconds, shapes in rows:
        print(f"  {seconds * 1e3:7.3f}ms {seconds / total:6.1%}  {labels[name]:40} {shapes}")


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--dtypes", nargs="+", default=["f64", "f32"], choices=["f64", "f32"])
    parser.add_argument("--optimizers", nargs="+", default=["sgd", "adam"], choices=["sgd", "adam"])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--steps", action="store_true")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--numerics", nargs="+", default=["exact"], choices=["exact", "fma"])
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    # One thread: the calling thread's CPU time, which other processes of a busy
    # machine do not inflate; more: wall time.
    clock, clock_name = (time.thread_time, "thread CPU time")
    if args.threads > 1:
        clock, clock_name = (time.perf_counter, "wall time")
    model = f"MLP {'-'.join(map(str, WIDTHS))} b{BATCH}"
    print(f"{model}, {args.threads} thread(s), {args.repeat} steps, {clock_name}")
    header = f"{'case':16} {'tlir min':>9} {'med':>9} {'torch min':>9} {'med':>9} {'ratio':>6}"
    if args.profile:
        header += f" {'vjp min':>9} {'update min':>10}"
    print(header)
    rows = []
    for dtype in args.dtypes:
        path, builder = mlp(dtype)
        np_type = np.float64 if dtype == "f64" else np.float32
        rng = np.random.default_rng(2)
        x = rng.normal(size=(BATCH, WIDTHS[0])).astype(np_type)
        seed = (rng.normal(size=(BATCH, WIDTHS[-1])) / BATCH).astype(np_type)
        if args.steps:
            for numerics in args.numerics:
                print_steps(path, dtype, x, seed, args.repeat, numerics)
        for kind, numerics in itertools.product(args.optimizers, args.numerics):
            step, vjp, update = tlir_step(path, dtype, kind, x, seed, numerics, args.threads)
            functions = [step, torch_step(builder, dtype, kind, x, seed)]
            if args.profile:
                functions += [vjp, update]
            timed = interleaved(functions, args.repeat, clock)
            (t_min, t_med), (p_min, p_med) = timed[:2]
            label = f"{dtype} {kind}" + ("" if numerics == "exact" else " fma")
            row = {"case": label, "tlir": t_min, "torch": p_min, "ratio": t_min / p_min}
            line = (
                f"{row['case']:16} {t_min * 1e3:7.3f}ms {t_med * 1e3:7.3f}ms "
                f"{p_min * 1e3:7.3f}ms {p_med * 1e3:7.3f}ms {row['ratio']:5.2f}x"
            )
            if args.profile:
                row["vjp"], row["update"] = timed[2][0], timed[3][0]
                line += f" {row['vjp'] * 1e3:7.3f}ms {row['update'] * 1e3:8.3f}ms"
            print(line, flush=True)
            rows.append(row)
    return rows


if __name__ == "__main__":
    main()
