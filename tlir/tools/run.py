"""`tlir-run`: compile a model for this CPU and run it on NumPy inputs.

  tlir-run MODEL (.json | .tlz | .onnx | .mlir | - for stdin) --input X.npy [--input Y.npy ...]
           [--dtype f32|f64] [--output OUT.npz] [--backend xdsl|mlir] [-O N]
           [--threads N] [--no-cache] [--no-fuse] [--quiet] [--reference | --compare]
           [--jvp DX.npy ... [--param-tangents P.npz]] [--vjp DY.npz|DY.npy]
           [--ibp EPS [--rules torchlean|tight] [--certificate C.json | --check-certificate C.json]]
           [--crown EPS [--crown-mode torchlean|relu] [--objective C.npy]]

Outputs go to OUT.npz as `output0`, `output1`, ... in output order; without
`--output`, each output's shape and first values are printed. `--reference`
evaluates with the reference evaluator instead of compiling; `--compare` does
both and reports, per output, the largest difference and whether the results
are bit-identical, and exits with 1 when they differ (NaN's sign and payload
aside, which the numerics contract leaves open).

An input of another float dtype than the model's (a float64 .npy for an f32
model) is cast when every value survives the cast unchanged, else refused.

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
import sys
from collections.abc import Sequence

import numpy as np

from tlir.diagnostics import TlirError
from tlir.tools.common import STDIN, ToolArgumentParser, dtype_argument, run_tool
from tlir.tools.running import (
    check_agreement,
    compare,
    compile_from_args,
    compile_options,
    describe,
    load_inputs,
    write_npz,
)


def _parser() -> argparse.ArgumentParser:
    parser = ToolArgumentParser(prog="tlir-run", description=__doc__.split("\n")[0])
    parser.add_argument(
        "model",
        help="a torchlean.ir.v1 .json graph, a .tlz container, an ONNX model or a tlir .mlir "
        "module ('-': stdin)",
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="X.npy",
        help="an input array, in argument order (repeatable)",
    )
    parser.add_argument(
        "--dtype",
        type=dtype_argument,
        metavar="f32|f64",
        help="carrier: f32 (float32) or f64 (float64) (default: the model's, f64 for JSON)",
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
        help="run compiled and reference, report the largest difference per output; "
        "exit code 1 if they differ",
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
        help="threads per kernel (default: TLIR_NUM_THREADS, else all cores; at most 4 "
        "per core); results do not depend on it",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="do not read or write the compile cache"
    )
    parser.add_argument("--no-fuse", action="store_true", help="one kernel per op (no fusion)")
    parser.add_argument(
        "--numerics",
        choices=("exact", "fma"),
        default="exact",
        help="exact: TorchLean's rounding, bit for bit (default); fma: each multiply-add of "
        "a matmul, linear or conv rounds once (faster, deterministic, not TorchLean's)",
    )
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


def load_model_argument(args: argparse.Namespace):
    """The model named on the command line, or read from stdin for `-`, as the
    front end's checked model (`tlir.frontend.load`); from here on `args.model`
    is the name messages use ("stdin" for `-`)."""
    from tlir.frontend.load import checked, read_model, read_model_text
    from tlir.tools.common import read_input_text

    if args.model != STDIN:
        module = read_model(args.model, args.dtype)
    else:
        text, args.model = read_input_text(STDIN)
        module = read_model_text(text, args.model, args.dtype)
    return checked(module, args.model)


def model_file(args: argparse.Namespace):
    """The model file (`tlir.api.ModelFile`, read once) of a run that needs
    nothing but the model's forward call, so that a warm compile may link it
    from the compile cache without building its module; None for any other run
    (standard input, no cache, the reference, bounds, derivatives)."""
    from tlir.api import ModelFile, model_file_path

    needs_module = args.reference or args.compare or args.jvp or args.vjp or args.param_tangents
    needs_module = needs_module or args.ibp is not None or args.crown is not None
    if needs_module or args.no_cache or model_file_path(args.model) is None:
        return None
    return ModelFile(args.model, args.dtype, compile_options(args))


def check_input_count(name: str, function_type, count: int, where: str) -> None:
    """As many --input arrays as the function `name` takes, or a line saying how to give them."""
    expected = len(function_type.inputs.data)
    if count != expected:
        plural = "s" if expected != 1 else ""
        raise TlirError(
            where,
            f"@{name} takes {expected} input{plural}, got {count}: "
            "give one --input X.npy per input, in argument order",
        )


def exact_cast(value: np.ndarray, dtype: np.dtype, name: str, where: str) -> np.ndarray:
    """A float array in the model's float dtype `dtype`, when every value
    survives the cast and the cast back unchanged (NaN's payload aside, as the
    numerics contract); else a one-line error counting the values that would
    change. Other arrays are returned as they are (and refused by the input
    check)."""
    if value.dtype == dtype or value.dtype.kind != "f" or dtype.kind != "f":
        return value
    with np.errstate(over="ignore"):  # an overflow to infinity is counted below
        cast = value.astype(dtype)
        back = cast.astype(value.dtype)
    changed = int(np.count_nonzero((back != value) & ~(np.isnan(back) & np.isnan(value))))
    if changed:
        raise TlirError(
            where,
            f"{name} is {value.dtype} and the model takes {dtype}: the cast would change "
            f"{changed} of {value.size} values (give {dtype} values)",
        )
    return cast


def cast_arrays(types, arrays: Sequence[np.ndarray], what: str, paths: Sequence[str]) -> list:
    """`exact_cast` of each array to the dtype of its type, named by its file."""
    from tlir.interface import numpy_dtype

    return [
        exact_cast(value, numpy_dtype(typ), f"{what} {index}", path)
        for index, (value, typ, path) in enumerate(zip(arrays, types, paths, strict=True))
    ]


def at_input_batch(module, args: argparse.Namespace):
    """A module whose batch is `?`, at the batch of the first --input (any batch ≥ 1)."""
    from tlir.interface import find_function
    from tlir.passes.tlir_specialize_batch import is_dynamic, specialize

    if not is_dynamic(module):
        return module
    function = find_function(module, dynamic=True)
    check_input_count(function.sym_name.data, function.function_type, len(args.input), args.model)
    first = load_inputs(args.input[:1])[0]
    if first.ndim == 0 or first.shape[0] < 1:
        raise TlirError(
            args.input[0],
            f"input 0 has shape {list(first.shape)}: the model's batch '?' is its leading "
            "extent, at least 1",
        )
    return specialize(module, int(first.shape[0]), args.model)


def run(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    from tlir.interface import find_function
    from tlir.tools.crown import check_arguments, run_crown

    where = args.input[0] if len(args.input) == 1 else args.model
    source = model_file(args)
    warm = source.cached() if source is not None else None
    if warm is not None:  # linked from the compile cache: no module built
        check_input_count(warm.function, warm.function_type, len(args.input), args.model)
        check_arguments(args)
        write_outputs(args, warm(*forward_inputs(args, warm.function_type, where)))
        return
    loaded = source.load() if source is not None else load_model_argument(args)
    module = at_input_batch(loaded.module, args)
    main = find_function(module)
    check_input_count(main.sym_name.data, main.function_type, len(args.input), args.model)
    check_arguments(args)
    if args.crown is not None:
        run_crown(args, module, load_inputs(args.input), where)
        return
    if args.ibp is not None:
        # the centre is rounded to the carrier (a float64 input of an f32 model too)
        from tlir.tools.bounds import run_bounds

        run_bounds(args, module, load_inputs(args.input), where)
        return
    inputs = forward_inputs(args, main.function_type, where)
    if args.jvp or args.vjp or args.param_tangents:
        from tlir.tools.derivatives import run_derivatives

        run_derivatives(args, module, inputs, where)
        return
    from tlir.reference import evaluate  # not on the warm path: 0.3 s of imports

    if args.reference:
        outputs = evaluate(module, inputs, where=where)
    else:
        model = compile_from_args(args, module)
        if source is not None:
            source.remember(model, loaded)  # the next run of these bytes links it
        outputs = model(*inputs)
    write_outputs(args, outputs)
    if args.compare:
        names = [f"output{index}" for index in range(len(outputs))]
        text, differing = compare(names, outputs, evaluate(module, inputs, where=where))
        sys.stdout.write(text)
        sys.stdout.flush()  # the verdict on stderr comes after the lines it sums up
        check_agreement(differing, len(names), args.model)


def forward_inputs(args: argparse.Namespace, function_type, where: str) -> list[np.ndarray]:
    """The --input arrays, cast to the model's dtype where exact and checked
    (before the compile, to fail fast), once the options that go with --ibp
    only are refused."""
    from tlir.interface import check_arrays

    types = function_type.inputs.data
    inputs = cast_arrays(types, load_inputs(args.input), "input", args.input)
    check_arrays(types, inputs, "input", where)
    if args.certificate or args.check_certificate:
        raise TlirError("tlir-run", "--certificate and --check-certificate go with --ibp")
    if args.rules != "torchlean":
        raise TlirError("tlir-run", "--rules goes with --ibp or --crown")
    return inputs


def write_outputs(args: argparse.Namespace, outputs: list[np.ndarray]) -> None:
    """The outputs to --output, else described on stdout."""
    if args.output:
        write_npz(args.output, outputs)
    else:
        sys.stdout.write(describe(outputs))


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("tlir-run", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
