"""`tlir-translate`: TorchLean JSON in and out of tlir; LLVM dialect to LLVM IR.

tlir-translate --import-torchlean [MODEL.json|MODEL.tlz] [--dtype f32|f64] [--batch N] [-o OUT.mlir]
tlir-translate --import-onnx MODEL.onnx [--batch N] [-o OUT.mlir]
tlir-translate --export-torchlean [MODULE.mlir] [-o OUT.json|OUT.tlz]
tlir-translate --mlir-to-llvmir [LOWERED.mlir] [-o OUT.ll]

The input is read from standard input when no file (or `-`) is given. An
imported model whose batch is symbolic (an ONNX model exported with a dynamic
leading axis, a `.tlz` written with its `?`) is a module whose batch is `?`;
`--batch N` gives the static module at batch N instead (as
`tlir-opt -p 'tlir-specialize-batch{batch=N}'` would), and checks a static
model's batch is N.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

from xdsl.printer import Printer

from tlir.diagnostics import TlirError
from tlir.frontend.load import read_mlir
from tlir.tools.common import (
    ToolArgumentParser,
    dtype_argument,
    read_input_text,
    run_tool,
    write_output,
)


def _parser() -> argparse.ArgumentParser:
    parser = ToolArgumentParser(prog="tlir-translate", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--import-torchlean",
        action="store_true",
        help="read a torchlean.ir.v1 JSON graph or a .tlz container, print a tlir module",
    )
    mode.add_argument(
        "--import-onnx",
        action="store_true",
        help="read an ONNX model (opsets 13-20), print a tlir module in its input's precision",
    )
    mode.add_argument(
        "--export-torchlean",
        action="store_true",
        help="read a tlir module, write current-dialect torchlean.ir.v1 JSON "
        "(a .tlz container when -o names a .tlz file)",
    )
    mode.add_argument(
        "--mlir-to-llvmir",
        action="store_true",
        help="translate a module lowered to the LLVM dialect into LLVM IR",
    )
    parser.add_argument("input_file", nargs="?", help="input file (stdin when absent or '-')")
    parser.add_argument(
        "--dtype",
        type=dtype_argument,
        default=None,
        metavar="f32|f64",
        help="element type of the imported module (default: f64 for JSON, a .tlz's own; "
        "float32, float64 too)",
    )
    parser.add_argument(
        "--batch",
        type=_batch_argument,
        metavar="N",
        help="import at batch N: the static module (default: a symbolic batch stays '?')",
    )
    parser.add_argument("-o", "--output-file", help="output file (stdout when absent)")
    parser.add_argument(
        "--no-locations",
        action="store_true",
        help="do not print the node locations of imported ops",
    )
    return parser


def _batch_argument(text: str) -> int:
    from tlir.settings import positive_int

    batch = positive_int(text)
    if batch is None:  # ASCII digits only: `str.isdigit` would take '²'
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return batch


def _at_batch(module, batch: int, where: str):
    """`module` at `batch`: a `?` module specialized, a static one checked."""
    from tlir.interface import find_function
    from tlir.passes.tlir_specialize_batch import is_dynamic, specialize

    if is_dynamic(module):
        return specialize(module, batch, where)
    shape = find_function(module).function_type.inputs.data[0].get_shape()
    if not shape or shape[0] != batch:
        raise TlirError(
            where, f"the model's input shape is fixed at {list(shape)}, not batch {batch}"
        )
    return module


def _import(args: argparse.Namespace) -> str:
    from tlir.torchlean import import_file

    if args.import_onnx:
        from tlir.frontend import from_onnx

        if args.input_file is None:
            raise TlirError("tlir-translate", "--import-onnx needs a .onnx file")
        module = from_onnx(args.input_file)
        name = args.input_file
    elif args.input_file is not None and args.input_file.endswith(".tlz"):
        module = import_file(args.input_file, args.dtype)
        name = args.input_file
    else:
        text, name = read_input_text(args.input_file)
        module = import_file(name, args.dtype, text.encode("utf-8"))
    if args.batch is not None:
        module = _at_batch(module, args.batch, name)
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=not args.no_locations).print_op(module)
    out.write("\n")
    return out.getvalue()


def _export(args: argparse.Namespace) -> str | bytes:
    """JSON text, or the bytes of a `.tlz` when the output file is one."""
    from tlir.torchlean.exporter import dumps, export_bytes, export_module

    text, name = read_input_text(args.input_file)
    module = read_mlir(text, name)
    if args.output_file is None:  # standard output gets JSON text
        return dumps(export_module(module, name))
    return export_bytes(module, args.output_file, name)


def _to_llvm_ir(args: argparse.Namespace) -> str:
    """LLVM IR of a module in the LLVM dialect; a module still in tlir (or any
    stage of the route) is first taken through the rest of `tlir-to-llvm`."""
    from tlir.compiler.backend.xdsl import llvm_dialect_to_ir, lower_to_llvm_dialect

    text, name = read_input_text(args.input_file)
    module = read_mlir(text, name)
    if any(not op.name.startswith("llvm.") for op in module.ops):
        module = lower_to_llvm_dialect(module)
    return llvm_dialect_to_ir(module, name)


def translate(argv: Sequence[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.batch is not None and not (args.import_torchlean or args.import_onnx):
        parser.error("--batch applies to --import-torchlean and --import-onnx")
    if args.mlir_to_llvmir:
        text = _to_llvm_ir(args)
    elif args.import_torchlean or args.import_onnx:
        text = _import(args)
    else:
        text = _export(args)
    if args.output_file:
        write_output(args.output_file, text)
    else:
        sys.stdout.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("tlir-translate", lambda: translate(argv))


if __name__ == "__main__":
    sys.exit(main())
