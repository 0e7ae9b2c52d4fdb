"""`tlir-run --ibp EPS`: interval bounds of a model's outputs over TorchLean's
ℓ∞ box around the inputs (docs/verification.md).

Each output's bounds are printed (`lower0`, `upper0`, …) or written to
`--output B.npz` under those keys; an output the rules leave unresolved is one
line `output0: unresolved: model.json: node 4 (tlir.exp): …` (and has no keys).
`--reference` computes them with the reference rules, `--compare` both;
`--rules tight` uses the tight rules.
`--certificate C.json` writes TorchLean's IBP output certificate of one
output (`--certificate-output K`, default 0); `--check-certificate C.json`
checks that the computed box lies inside the certificate's.
"""

from __future__ import annotations

import argparse
import io
import re
import sys

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import TlirError
from tlir.tools.common import write_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ibp", type=float, metavar="EPS",
        help="interval bounds of the outputs over [x - EPS, x + EPS] (TorchLean's rules)",
    )  # fmt: skip
    parser.add_argument(
        "--rules", choices=("torchlean", "tight"), default="torchlean",
        help="with --ibp or --crown: TorchLean's interval rules, bit for bit (default), or "
        "the sound, tighter ones (docs/verification.md#tight-rules)",
    )  # fmt: skip
    parser.add_argument(
        "--certificate", metavar="C.json", help="with --ibp: write an IBP output certificate"
    )
    parser.add_argument(
        "--certificate-output", type=int, default=0, metavar="K",
        help="the output the certificate is about (default 0)",
    )  # fmt: skip
    parser.add_argument(
        "--check-certificate", metavar="C.json",
        help="with --ibp: check that the computed output box lies inside the certificate's",
    )  # fmt: skip


def run_bounds(args, module: ModuleOp, inputs: list[np.ndarray], where: str) -> None:
    from tlir.interface import find_function
    from tlir.tight import check_rules
    from tlir.verification import ball_boxes

    main = find_function(module)
    rules = check_rules(args.rules, "tlir-run")
    lows, highs = ball_boxes(main, inputs, args.ibp, where, rules)
    result = None
    if not args.reference:
        from tlir.tools.running import compile_from_args

        result = compile_from_args(args, module).bounds(lows, highs, rules)
    if args.reference or args.compare:
        reference = _reference(module, lows, highs, rules)
        if args.reference:
            result = reference
    if args.output:
        arrays = {}
        for k, (lo, hi) in enumerate(zip(result.lowers, result.uppers, strict=True)):
            if lo is not None:
                arrays[f"lower{k}"], arrays[f"upper{k}"] = lo, hi
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        write_output(args.output, buffer.getvalue())
    sys.stdout.write(_describe(result, bool(args.output)))
    if args.compare:
        sys.stdout.write(_compare(result, reference))
    if args.certificate:
        _write_certificate(args, module, main, lows, highs, result)
    if args.check_certificate:
        _check_certificate(args, result)


def _reference(module, lows, highs, rules: str = "torchlean"):
    from tlir.reference.ibp import boxes
    from tlir.verification import IbpResult

    found = boxes(module, lows, highs, rules=rules)
    out = IbpResult([], [], [])
    for box, cause in zip(found.output_boxes(), found.output_causes(), strict=True):
        out.lowers.append(None if box is None else box[0])
        out.uppers.append(None if box is None else box[1])
        out.reasons.append(None if cause is None else cause.message())
    return out


def _values(value: np.ndarray) -> str:
    flat = value.reshape(-1)[:6]
    more = " ..." if value.size > 6 else ""
    return " ".join(repr(float(v)) for v in flat) + more


def _describe(result, written: bool) -> str:
    lines = []
    for k, (lo, hi, why) in enumerate(
        zip(result.lowers, result.uppers, result.reasons, strict=True)
    ):
        if lo is None:
            lines.append(f"output{k}: unresolved: {why}")
        elif not written:
            lines.append(f"lower{k}: shape {list(lo.shape)} {lo.dtype}: {_values(lo)}")
            lines.append(f"upper{k}: shape {list(hi.shape)} {hi.dtype}: {_values(hi)}")
    return "".join(line + "\n" for line in lines)


def _compare(result, reference) -> str:
    lines, differing = [], 0
    for k in range(len(result.lowers)):
        got = (result.lowers[k], result.uppers[k])
        want = (reference.lowers[k], reference.uppers[k])
        if got[0] is None or want[0] is None:
            same = got[0] is None and want[0] is None and result.reasons[k] == reference.reasons[k]
        else:
            same = all(g.tobytes() == w.tobytes() for g, w in zip(got, want, strict=True))
        differing += not same
        lines.append(f"output{k}: {'bit-identical to' if same else 'differs from'} the reference")
    total = len(result.lowers)
    tail = f"{differing} of {total} outputs differ" if differing else f"all {total} outputs"
    lines.append(f"{tail} bit-identical to the reference" if not differing else tail)
    return "".join(line + "\n" for line in lines)


def _node_id(module_op, index: int) -> int:
    """The JSON node id of an op (its `model.json: node N` location), else its index."""
    from tlir.diagnostics import describe_location

    match = re.search(r"node (\d+)$", describe_location(module_op.location, ""))
    return int(match.group(1)) if match else index


def _write_certificate(args, module, main, lows, highs, result) -> None:
    from tlir.verification import certificate, certificate_text

    k = args.certificate_output
    if not 0 <= k < len(result.lowers):
        raise TlirError("tlir-run", f"--certificate-output {k}: the model has "
                        f"{len(result.lowers)} outputs")  # fmt: skip
    if result.lowers[k] is None:
        raise TlirError(args.certificate, f"output {k} is unresolved: {result.reasons[k]}")
    if len(lows) != 1:
        raise TlirError(args.certificate, "a certificate holds one input box; the model has "
                        f"{len(lows)} inputs")  # fmt: skip
    value = main.body.block.last_op.operands[k]
    ops = list(main.body.block.ops)
    node = _node_id(value.owner, ops.index(value.owner)) if value.owner in ops else 0
    document = certificate(args.model, lows[0], highs[0], result.lowers[k], result.uppers[k], node)
    write_output(args.certificate, certificate_text(document))


def _check_certificate(args, result) -> None:
    from tlir.verification import check_certificate, read_certificate

    try:
        with open(args.check_certificate) as handle:
            text = handle.read()
    except OSError as err:
        raise TlirError(args.check_certificate, f"cannot read: {err.strerror}") from None
    claimed = read_certificate(text, args.check_certificate)
    k = args.certificate_output
    if not 0 <= k < len(result.lowers):
        raise TlirError("tlir-run", f"--certificate-output {k}: the model has "
                        f"{len(result.lowers)} outputs")  # fmt: skip
    check_certificate(claimed, result.lowers[k], result.uppers[k], args.check_certificate)
    sys.stdout.write(f"{args.check_certificate}: certificate accepted (output {k})\n")
