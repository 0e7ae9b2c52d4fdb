"""`tlir-run`: run a model on NumPy inputs.

  tlir-run MODEL (.json | .mlir) --reference --input X.npy [--input Y.npy ...]
           [--dtype f32|f64] [--output OUT.npz]

Outputs go to OUT.npz as `output0`, `output1`, ... in output order; without
`--output`, each output's shape and first values are printed.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

import numpy as np

from tlir.diagnostics import TlirError
from tlir.tools.common import atomic_write, run_tool


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tlir-run", description=__doc__.split("\n")[0])
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
    parser.add_argument(
        "--reference",
        action="store_true",
        help="evaluate with the reference evaluator of TorchLean's semantics",
    )
    return parser


def load_inputs(paths: Sequence[str]) -> list[np.ndarray]:
    arrays = []
    for path in paths:
        try:
            arrays.append(np.load(path, allow_pickle=False))
        except FileNotFoundError:
            raise TlirError(path, "no such input file") from None
        except (OSError, ValueError) as err:
            raise TlirError(path, f"not a .npy array: {err}") from None
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
    atomic_write(path, buffer.getvalue())


def run(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    from tlir.api import load_model
    from tlir.reference import evaluate

    if not args.reference:
        raise TlirError("tlir-run", "compiled execution is not yet supported; use --reference")
    module = load_model(args.model, args.dtype)
    inputs = load_inputs(args.input)
    where = args.input[0] if len(args.input) == 1 else args.model
    outputs = evaluate(module, inputs, where=where)
    if args.output:
        write_npz(args.output, outputs)
    else:
        sys.stdout.write(describe(outputs))


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("tlir-run", lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
