"""What `tlir-run`'s modes share (plain runs, derivatives, bounds): input
arrays read, outputs described or written, results compared with the
reference evaluator's, the model compiled as the command line asks."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from tlir.diagnostics import TlirError, printable
from tlir.tools.common import write_output


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


def differing_values(got: np.ndarray, want: np.ndarray) -> int:
    """How many values differ under the numerics contract: every bit (signed
    zeros included), but for the sign and payload of a NaN, whose position only
    counts (docs/numerics.md)."""
    unsigned = np.dtype(f"u{got.dtype.itemsize}")
    bits = got.view(unsigned) != want.view(unsigned)
    return int(np.count_nonzero(bits & ~(np.isnan(got) & np.isnan(want))))


def compare_line(name: str, got: np.ndarray, want: np.ndarray) -> str:
    """Bit-identical, equal but for NaNs' signs or payloads, or the largest
    absolute and relative difference and how many values differ."""
    if got.tobytes() == want.tobytes():
        return f"{name}: bit-identical to the reference ({got.size} values)"
    differing = differing_values(got, want)
    if not differing:
        return (
            f"{name}: identical to the reference but for the sign or payload of NaNs "
            f"({got.size} values)"
        )
    both_nan = np.isnan(got) & np.isnan(want)
    diff = np.where(both_nan, 0.0, np.abs(got.astype(np.float64) - want.astype(np.float64)))
    scale = np.maximum(np.abs(want.astype(np.float64)), np.finfo(want.dtype).tiny)
    return (
        f"{name}: largest difference {float(np.max(diff)):.3e} "
        f"(relative {float(np.max(diff / scale)):.3e}), {differing} of {got.size} differ"
    )


def compare(
    names: Sequence[str], compiled: Sequence[np.ndarray], reference: Sequence[np.ndarray]
) -> tuple[str, list[str]]:
    """One line per array (made printable: names may come from the model), and
    the names of the arrays that differ from the reference."""
    lines, differing = [], []
    for name, got, want in zip(names, compiled, reference, strict=True):
        lines.append(printable(compare_line(name, got, want)))
        if differing_values(got, want):
            differing.append(name)
    return "\n".join(lines) + "\n", differing


def check_agreement(differing: Sequence[str], count: int, where: str) -> None:
    """`--compare`'s verdict: one line naming the first array that differs."""
    if differing:
        others = f" ({len(differing)} of {count} differ)" if count > 1 else ""
        raise TlirError(where, f"{differing[0]} differs from the reference{others}")


def describe_named(results: dict[str, np.ndarray]) -> str:
    """`describe`, for named arrays (derivatives)."""
    lines = []
    for name, value in results.items():
        flat = value.reshape(-1)[:6]
        more = " ..." if value.size > 6 else ""
        values = " ".join(repr(float(v)) for v in flat)
        lines.append(printable(f"{name}: shape {list(value.shape)} {value.dtype}: {values}{more}"))
    return "\n".join(lines) + "\n"


def compare_named(
    compiled: dict[str, np.ndarray], reference: dict[str, np.ndarray]
) -> tuple[str, list[str]]:
    """`compare`, for named arrays; ends with a count of the arrays that differ."""
    names = list(compiled)
    text, differing = compare(names, [compiled[n] for n in names], [reference[n] for n in names])
    if differing:
        text += f"{len(differing)} of {len(names)} arrays differ from the reference\n"
    elif all(compiled[n].tobytes() == reference[n].tobytes() for n in names):
        text += f"all {len(names)} arrays bit-identical to the reference\n"
    else:
        text += f"all {len(names)} arrays agree with the reference (NaN payloads aside)\n"
    return text, differing


def compile_options(args) -> dict:
    """The compile options (`tlir.compile`'s) the command line asks for, with
    live parameters: the tool calls the model once, so weights packed once at
    link (`parameters="frozen"`) would buy that call nothing, and a live model
    shares its cache entries with a plain `tlir.compile(path)` (a frozen one's
    linears are other kernels)."""
    from tlir.compiler.options import CompileOptions

    return CompileOptions(
        backend=args.backend,
        opt_level=args.opt_level,
        threads=args.threads,
        cache=not args.no_cache,
        progress=not args.quiet,
        fuse=not args.no_fuse,
        numerics=args.numerics,
    ).as_dict()


def compile_from_args(args, module):
    """The model (checked by `load_model_argument`) compiled as the command line
    asks (back end, -O, threads, cache, …)."""
    from tlir.compiler.model import CompiledModel

    return CompiledModel(module, where=args.model, **compile_options(args))
