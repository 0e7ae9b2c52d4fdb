"""A hash of every distinct kernel's lowering, to check that a change to the
passes leaves their output byte-identical.

  python -P bench/lowering_hashes.py [--out hashes.txt] [--quick]

Compiles the bundled examples, bench/run_time.py's and bench/autodiff.py's
models, their IBP and derivative programs and the dynamic-batch MLP and CNN, in
f32 and f64, exact and fma, with 1 and 2 threads, and writes one line per kernel
lowered: the model and options, the kernel's name, and hashes of the kernel at
the tlir level, of its loops on buffers (printed MLIR), of the xdsl back end's
LLVM IR and of the mlir back end's input text. Run it on two checkouts and
`diff` the files: any line that differs is a kernel whose code changed.
(`--quick`: f64, exact and one thread only.)
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

RECORDS: list[str] = []
LABEL = [""]


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _printed(op) -> str:
    from xdsl.printer import Printer

    stream = io.StringIO()
    Printer(stream=stream).print_op(op)
    return stream.getvalue()


def hook() -> None:
    """Wrap `kernel_to_loops` (every route from a kernel to loops goes through it)
    to record the hashes of what each back end makes of the loops."""
    from tlir.compiler import backend
    from tlir.compiler.backend import mlir, xdsl

    original = backend.kernel_to_loops

    def recorded(kernel, *rest):
        source = _printed(kernel)
        loops = original(kernel, *rest)
        llvm_ir = xdsl.kernel_llvm_ir(loops.clone())
        mlir_text = mlir.kernel_loops_text(loops.clone())
        RECORDS.append(
            f"{LABEL[0]} {kernel.sym_name.data} {_hash(source)} {_hash(_printed(loops))}"
            f" {_hash(llvm_ir)} {_hash(mlir_text)}"
        )
        return loops

    backend.kernel_to_loops = recorded


def _inputs(model, np_type, rng):
    shapes = [t.get_shape() for t in model.function_op.function_type.inputs.data]
    return [rng.normal(size=s).astype(np_type) for s in shapes]


def _programs(model, np_type) -> None:
    """The forward, IBP, JVP and VJP programs of a static model."""
    rng = np.random.default_rng(0)
    xs = _inputs(model, np_type, rng)
    model(*xs)
    model.ibp([x - np_type(0.01) for x in xs], [x + np_type(0.01) for x in xs])
    model.jvp(xs, [rng.normal(size=x.shape).astype(np_type) for x in xs])
    dys = [rng.normal(size=s).astype(np_type) for s, _ in model.plan.outputs]
    model.vjp(xs, dys)
    model.vjp(xs, dys, wrt="params")


def static_models(quick: bool):
    """(label, source, dtype or None) of the static models."""
    import autodiff
    import run_time

    root = Path(__file__).resolve().parent.parent
    dtypes = ("f64",) if quick else ("f32", "f64")
    for name in ("cnn", "legacy_cnn", "transformer_block"):
        for dtype in dtypes:
            yield f"{name}.{dtype}", str(root / "examples" / f"{name}.json"), dtype
    for label, path in (autodiff.mlp_graph(), autodiff.cnn_graph()):
        for dtype in dtypes:
            yield f"{label.split()[0]}-ad.{dtype}", path, dtype
    for dtype in dtypes:
        cases = [run_time.mlp_case(dtype), run_time.matmul_case(dtype)]
        cases += [run_time.conv_case(dtype), run_time.chain_case(dtype)]
        cases += [*run_time.rows_cases(dtype), *run_time.pool_cases(dtype)]
        for case in cases:
            yield case.name.replace(" ", "_"), case.source, case.dtype


def main(argv=None) -> None:
    import tlir

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", default="-")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    os.environ["TLIR_COMPILE_PROCESSES"] = "1"  # every kernel lowered in this process
    hook()
    variants = [("exact", 1)] if args.quick else [("exact", 1), ("fma", 1), ("exact", 2)]
    for label, source, dtype in static_models(args.quick):
        for numerics, threads in variants:
            LABEL[0] = f"{label}.{numerics}.t{threads}"
            model = tlir.compile(
                source, dtype, numerics=numerics, threads=threads, cache=False, opt_level=0
            )
            element = model.function_op.function_type.inputs.data[0].element_type
            _programs(model, np.float32 if str(element) == "f32" else np.float64)
    from dynamic_models import dynamic_models

    with tempfile.TemporaryDirectory() as out:
        for dtype in ("f64",) if args.quick else ("f32", "f64"):
            for threads in (1,) if args.quick else (1, 2):
                LABEL[0] = f"dynamic.{dtype}.t{threads}"
                np_type = np.float32 if dtype == "f32" else np.float64
                for _, model, _, shape in dynamic_models(Path(out), threads, dtype):
                    x = np.random.default_rng(0).normal(size=(5, *shape)).astype(np_type)
                    model(x)
                    model.ibp([x - np_type(0.01)], [x + np_type(0.01)])
    text = "\n".join(RECORDS) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text)
    print(f"{len(RECORDS)} kernels lowered", file=sys.stderr)


if __name__ == "__main__":
    main()
