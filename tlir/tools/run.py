"""`tlir-run`: compile a model for this CPU and run it on NumPy inputs.

  tlir-run MODEL (.json | .mlir) --input X.npy [--input Y.npy ...]
           [--dtype f32|f64] [--output OUT.npz] [--backend xdsl|mlir] [-O N]
           [--threads N] [--no-cache] [--no-fuse] [--quiet] [--reference | --compare]
           [--jvp DX.npy ... [--param-tangents P.npz]] [--vjp DY.npz|DY.npy]
           [--ibp EPS [--certificate C.json | --check-certificate C.json]]
           [--crown EPS [--crown-mode torchlean|relu] [--objective C.npy]]

Outputs go to OUT.npz as `output0`, `output1`, ... in output order; without
`--output`, each output's shape and first values are printed. `--reference`
evaluates with the reference evaluator instead of compiling; `--compare` does
both and reports, per output, the largest difference and whether the results
are bit-identical.

Derivatives: `--jvp DX.npy` (one per input, in order; `--param-tangents P.npz`
adds parameter tangents keyed by parameter name, missing ones +0) runs forward
mode and writes `output_tangent0`, …; `--vjp DY.npz` (one cotangent per output,
keyed `output0`, … or `dy0`, …; a .npy for a single output) runs reverse mode
and writes `input_grad0`, … and `param_grad:NAME` per parameter (e.g.
`param_grad:node3.weight`). The outputs `output0`, … are written too;
`--compare` checks every array against the reference JVP/VJP.

Bounds: `--ibp EPS` prints (or writes) interval bounds of every output over
TorchLean's ℓ∞ box of radius EPS around the inputs; `--certificate C.json`
writes TorchLean's IBP output certificate, `--check-certificate C.json` checks
one (see `tlir.tools.bounds`). `--crown EPS` prints (or writes, as `lower` and
`upper`) CROWN bounds of a one-input, one-output model's output, or of `C·y`
with `--objective C.npy` (see `tlir.tools.crown`).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

import numpy as np

from tlir.diagnostics import TlirError
from tlir.tools.common import ToolArgumentParser, run_tool, write_output


def _parser() -> argparse.ArgumentParser:
    parser = ToolArgumentParser(prog="tlir-run", description=__doc__.split("\n")[0])
    parser.add_argument("model", help="a torchlean.ir.v1 .json graph or a tlir .mlir module")
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="X.npy",
        help="an input array, in argument order (repeatable)",
    )
    parser.add_argument(
        "--dtype",
        choices=("f32", "f64"),
        help="carrier: float32 or float64 (default: the model's, f64 for JSON)",
    )
    parser.add_argument("--output", metavar="OUT.npz", help="write the outputs here")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--reference",
        action="store_true",
        help="evaluate with the reference evaluator of TorchLean's semantics",
    )
    mode.add_argument(
        "--compare",
        action="store_true",
        help="run compiled and reference, report the largest difference per output",
    )
    parser.add_argument(
        "--backend",
        choices=("xdsl", "mlir"),
        default="xdsl",
        help="xdsl: tlir's own route (default); mlir: upstream mlir-opt/mlir-translate",
    )
    parser.add_argument(
        "-O",
        "--opt-level",
        type=int,
        choices=(0, 1, 2, 3),
        default=2,
        help="LLVM optimisation level (default 2)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="threads per kernel (default: TLIR_NUM_THREADS, else all cores); "
        "results do not depend on it",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="do not read or write the compile cache"
    )
    parser.add_argument("--no-fuse", action="store_true", help="one kernel per op (no fusion)")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar during a long compile"
    )
    parser.add_argument(
        "--jvp",
        action="append",
        default=[],
        metavar="DX.npy",
        help="forward mode: a tangent per input, in argument order (repeatable)",
    )
    parser.add_argument(
        "--param-tangents",
        metavar="P.npz",
        help="with --jvp: parameter tangents keyed by parameter name (others +0)",
    )
    parser.add_argument(
        "--vjp",
        metavar="DY.npz",
        help="reverse mode: one cotangent per output (.npz keyed output0, … or dy0, …; "
        ".npy for one output)",
    )
    from tlir.tools.bounds import add_arguments

    add_arguments(parser)
    from tlir.tools.crown import add_arguments as add_crown_arguments

    add_crown_arguments(parser)
    return parser


def load_inputs(paths: Sequence[str]) -> list[np.ndarray]:
    arrays = []
    for path in paths:
        try:
            arrays.append(np.load(path, allow_pickle=False))
        except FileNotFoundError:
            raise TlirError(path, "no such input file") from None
        except (OSError, ValueError) as err:
            raise TlirError(path, f"not a .npy array: {' '.join(str(err).split())}") from None
        except EOFError:
            raise TlirError(path, "not a .npy array: the file is empty or cut short") from None
        if not isinstance(arrays[-1], np.ndarray):
            raise TlirError(path, "expected a .npy array, not an .npz archive")
    return arrays


def describe(outputs: Sequence[np.ndarray]) -> str:
    lines = []
    for index, value in enumerate(outputs):
        flat = value.reshape(-1)[:6]
        more = " ..." if value.size > 6 else ""
        values = " ".join(repr(float(v)) for v in flat)
        lines.append(f"output{index}: shape {list(value.shape)} {value.dtype}: {values}{more}")
    return "\n".join(lines) + "\n"


def write_npz(path: str, outputs: Sequence[np.ndarray]) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **{f"output{i}": v for i, v in enumerate(outputs)})
    write_output(path, buffer.getvalue())


def compare(compiled: Sequence[np.ndarray], reference: Sequence[np.ndarray]) -> str:
    """Per output: bit-identical, or the largest absolute and relative difference."""
    lines = []
    for index, (got, want) in enumerate(zip(compiled, reference, strict=True)):
        if got.tobytes() == want.tobytes():
            lines.append(f"output{index}: bit-identical to the reference ({got.size} values)")
            continue
        both_nan = np.isnan(got) & np.isnan(want)
        diff = np.where(both_nan, 0.0, np.abs(got.astype(np.float64) - want.astype(np.float64)))
        scale = np.maximum(np.abs(want.astype(np.float64)), np.finfo(want.dtype).tiny)
        differing = int(np.count_nonzero(got != want) - np.count_nonzero(both_nan))
        lines.append(
            f"output{index}: largest difference {float(np.max(diff)):.3e} "
            f"(relative {float(np.max(diff / scale)):.3e}), {differing} of {got.size} differ"
        )
    return "\n".join(lines) + "\n"


def describe_named(results: dict[str, np.ndarray]) -> str:
    """`describe`, for named arrays (derivatives)."""
    lines = []
    for name, value in results.items():
        flat = value.reshape(-1)[:6]
        more = " ..." if value.size > 6 else ""
        values = " ".join(repr(float(v)) for v in flat)
        lines.append(f"{name}: shape {list(value.shape)} {value.dtype}: {values}{more}")
    return "\n".join(lines) + "\n"


def compare_named(compiled: dict[str, np.ndarray], reference: dict[str, np.ndarray]) -> str:
    """`compare`, for named arrays; ends with a count of the arrays that differ."""
    names = list(compiled)
    text = compare([compiled[n] for n in names], [reference[n] for n in names])
    lines = [
        f"{name}:{line.split(':', 1)[1]}"
        for name, line in zip(names, text.splitlines(), strict=True)
    ]
    differing = sum("bit-identical" not in line for line in lines)
    if differing:
        lines.append(f"{differing} of {len(names)} arrays differ from the reference")
    else:
        lines.append(f"all {len(names)} arrays bit-identical to the reference")
    return "\n".join(lines) + "\n"


def compile_from_args(args, module):
    """The model compiled as the command line asks (back end, -O, threads, cache, …)."""
    from tlir.compiler import CompiledModel

    return CompiledModel(
        module,
        args.backend,
        args.opt_level,
        args.model,
        threads=args.threads,
        cache=not args.no_cache,
        progress=not args.quiet,
        fuse=not args.no_fuse,
    )


def run(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    from tlir.api import load_model
    from tlir.interface import check_inputs, find_function
    from tlir.reference import evaluate

    module = load_model(args.model, args.dtype)
    inputs = load_inputs(args.input)
    where = args.input[0] if len(args.input) == 1 else args.model
    from tlir.tools.crown import check_arguments, run_crown

    check_arguments(args)
    if args.crown is not None:
        run_crown(args, module, inputs, where)
        return
    check_inputs(find_function(module), inputs, where)  # before the compile, to fail fast
    if args.ibp is not None:
        from tlir.tools.bounds import run_bounds

        run_bounds(args, module, inputs, where)
        return
    if args.certificate or args.check_certificate:
        raise TlirError("tlir-run", "--certificate and --check-certificate go with --ibp")
    if args.jvp or args.vjp or args.param_tangents:
        from tlir.tools.derivatives import run_derivatives

        run_derivatives(args, module, inputs, where)
        return
    if args.reference:
        outputs = evaluate(module, inputs, where=where)
    else:
        outputs = compile_from_args(args, module)(*inputs)
    if args.output:
        write_npz(args.output, outputs)
    else:
        sys.stdout.write(describe(outputs))
    if args.compare:
        sys.stdout.write(compare(outputs, evaluate(module, inputs, where=where)))


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("tlir-run", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
