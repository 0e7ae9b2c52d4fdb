"""`tlir-run --crown EPS`: CROWN bounds of a model's output over TorchLean's ℓ∞
box around its input (docs/verification.md#crown).

`--crown-mode torchlean` (default) is TorchLean's directed backward sweep,
`relu` adds ReLU relaxations; `--objective C.npy` (rows × output size) bounds
`C·y` instead of `y`. The bounds are printed (`lower`, `upper`) or written to
`--output B.npz` under those keys. The model must have one input and one
output. Nothing is compiled: the sweeps run on the reference rules.
"""

from __future__ import annotations

import argparse
import io
import sys

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import TlirError
from tlir.tools.common import write_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--crown", type=float, metavar="EPS",
        help="CROWN bounds of the output over [x - EPS, x + EPS] (one input, one output)",
    )  # fmt: skip
    parser.add_argument(
        "--crown-mode", choices=("torchlean", "relu"),
        help="with --crown: torchlean (TorchLean's directed sweep, default) or relu "
        "(ReLU relaxations)",
    )  # fmt: skip
    parser.add_argument(
        "--objective", metavar="C.npy",
        help="with --crown: bound C·y (C: rows × output size) instead of y",
    )  # fmt: skip


def check_arguments(args) -> None:
    """`--crown-mode` and `--objective` need `--crown`, which excludes the other modes."""
    if args.crown is None:
        if args.crown_mode or args.objective:
            raise TlirError("tlir-run", "--crown-mode and --objective go with --crown")
        return
    others = [flag for flag, given in (
        ("--ibp", args.ibp is not None), ("--jvp", bool(args.jvp)), ("--vjp", bool(args.vjp)),
        ("--compare", args.compare),
    ) if given]  # fmt: skip
    if others:
        raise TlirError("tlir-run", f"--crown does not go with {others[0]}")


def _load_objective(path: str) -> np.ndarray:
    try:
        value = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise TlirError(path, "no such objective file") from None
    except (OSError, ValueError, EOFError) as err:
        raise TlirError(path, f"not a .npy array: {' '.join(str(err).split())}") from None
    if not isinstance(value, np.ndarray):
        raise TlirError(path, "expected a .npy array, not an .npz archive")
    return value


def _reason(module: ModuleOp, inputs: list[np.ndarray], eps: float, rules: str) -> str:
    """Why the output has no bound: its IBP box is unresolved (the sweep needed
    a box it could not have, and so is the output's)."""
    from tlir.interface import find_function
    from tlir.reference.ibp import boxes
    from tlir.verification import ball_boxes

    lows, highs = ball_boxes(find_function(module), inputs, eps, "input", rules)
    cause = boxes(module, lows, highs, rules=rules).output_causes()[0]
    return cause.message() if cause else "a box the sweep needs is unresolved"


def run_crown(args, module: ModuleOp, inputs: list[np.ndarray], where: str) -> None:
    from tlir.crown import model_crown_ball
    from tlir.interface import find_function, numpy_dtype
    from tlir.reference.crown import checked_objective, single_input_output

    main = find_function(module)
    single_input_output(main, args.model)
    objective = None
    if args.objective:
        out = main.function_type.outputs.data[0]
        size = int(np.prod(out.get_shape(), dtype=np.int64))
        raw = _load_objective(args.objective)
        objective = checked_objective(raw, size, numpy_dtype(out), args.objective)
    mode = args.crown_mode or "torchlean"
    rules = args.rules
    lo, hi = model_crown_ball(main, module, inputs, args.crown, objective, mode, where, rules)
    if lo is None:
        sys.stdout.write(f"output0: unresolved: {_reason(module, inputs, args.crown, rules)}\n")
        return
    if args.output:
        buffer = io.BytesIO()
        np.savez(buffer, lower=lo, upper=hi)
        write_output(args.output, buffer.getvalue())
        return
    for name, value in (("lower", lo), ("upper", hi)):
        flat = value.reshape(-1)[:6]
        more = " ..." if value.size > 6 else ""
        values = " ".join(repr(float(v)) for v in flat) + more
        sys.stdout.write(f"{name}: shape {list(value.shape)} {value.dtype}: {values}\n")
