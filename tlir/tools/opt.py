"""`tlir-opt`: xDSL's optimizer driver with tlir's dialects and passes.

Differences from plain `xdsl-opt`: every error is one line
`file:line:col: error: message` with exit code 1 (never a traceback), ops are
verified one by one so the error points at the failing op, and `-o` is written
only when the whole run succeeded.

A `.json` (`torchlean.ir.v1`) or `.tlz` model is imported first, as
`tlir-translate --import-torchlean` would (float64 for JSON, a `.tlz` in the
element type it was written in).

Only tlir's passes and `SAFE_XDSL_PASSES` are available, and only the `mlir`
output target: xDSL's `mlir-opt` pass runs a program named by a pass option (or
`XDSL_MLIR_OPT`), which a tool reading untrusted pipelines must not offer.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms import get_all_passes
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tlir import limits
from tlir.diagnostics import TlirError, parse_error, verify_module
from tlir.frontend.mlir import LocatingParser
from tlir.tools.common import STDIN, ToolArgumentParser, run_tool, write_output
from tlir.universe import tlir_dialects, tlir_passes

SAFE_XDSL_PASSES = (
    "canonicalize",
    "cse",
    "dce",
    "licm",
    "control-flow-hoist",
    "convert-linalg-to-loops",
    "convert-scf-to-cf",
    "linalg-generalize-named-ops",
    "lower-affine",
    "reconcile-unrealized-casts",
    "scf-for-loop-flatten",
    "scf-for-loop-range-folding",
)
"""The xDSL passes tlir-opt offers besides tlir's own: generic clean-ups and
lowerings whose options are plain values. Never `mlir-opt` (its options name a
program to run) nor passes that read files or interpret IR given in the input."""

MODEL_FRONTENDS = ("json", "tlz")
"""Input extensions read by the TorchLean importer, not the MLIR parser."""


class TlirOptMain(xDSLOptMain):
    """The driver: xDSL's arguments and passes plus tlir's."""

    def __init__(self, args: Sequence[str] | None = None):
        # xDSLOptMain.__init__, with an argument parser whose errors are one
        # line, only the `mlir` target, and no global switch-off of attribute
        # verification for --disable-verify (which would outlive this run).
        self.available_frontends = {}
        self.available_passes = {}
        self.available_targets = {}
        self.ctx = Context()
        self.register_all_dialects()
        self.register_all_frontends()
        self.register_all_passes()
        self.register_all_targets()
        arg_parser = ToolArgumentParser(
            prog="tlir-opt", description="tlir modular optimizer driver"
        )
        self.register_all_arguments(arg_parser)
        arg_parser.add_version()  # tlir's, in place of xDSL's `xdsl-opt built from …`
        self.args = arg_parser.parse_args(args=args)
        if self.args.target not in self.available_targets:
            arg_parser.error(
                f"argument -t/--target: invalid choice: '{self.args.target}' "
                f"(choose from {', '.join(self.available_targets)})"
            )
        self.ctx.allow_unregistered = self.args.allow_unregistered_dialect
        if self.args.syntax_highlight:
            Diagnostic.colored = True
        self.setup_pipeline()

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in tlir_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        for extension in MODEL_FRONTENDS:  # read in parse_chunk
            self.available_frontends[extension] = self.import_model

    def import_model(self, chunk: IO[bytes], extension: str = "tlz") -> ModuleOp:
        from tlir.torchlean import import_file

        name = self.get_input_name()
        if self.args.split_input_file:
            raise TlirError(name, "--split-input-file splits MLIR text, not a model file")
        path = name if name.endswith(f".{extension}") else f"{name}.{extension}"
        return import_file(path, data=chunk.read())

    def register_all_passes(self) -> None:
        xdsl_passes = get_all_passes()
        for name in SAFE_XDSL_PASSES:
            self.register_pass(name, xdsl_passes[name])
        for name, factory in tlir_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets = {"mlir": self.available_targets["mlir"]}

    def get_input_name(self) -> str:
        return "stdin" if self.args.input_file in (None, STDIN) else self.args.input_file

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input, read whole up to `MAX_INPUT_BYTES` (stdin included: no
        file or `-`)."""
        if self.args.input_file in (None, STDIN):
            return io.BytesIO(limits.read_stdin_limited()), "mlir"
        path = self.args.input_file
        extension = path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
        return io.BytesIO(limits.read_limited(path)), extension

    def setup_pipeline(self) -> None:
        def verify_between(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            if previous is not None and not self.args.disable_verify:
                verify_module(module, self.get_input_name())

        try:
            self._check_pass_names()
            self.pipeline = PassPipeline.parse_spec(
                self.available_passes, self.args.passes, verify_between
            )
        except (ValueError, KeyError) as err:
            message = " ".join(str(err).split())
            raise TlirError(
                "tlir-opt", f"bad pass pipeline '{self.args.passes}': {message}"
            ) from None
        except ArgSpecParseError as err:  # a BaseException in xDSL 0.74
            raise TlirError(
                "tlir-opt", f"bad pass pipeline '{self.args.passes}': {_spec_message(err)}"
            ) from None

    def _check_pass_names(self) -> None:
        """An unknown pass is named, with the passes there are (xDSL gives the
        unknown ones only)."""
        for spec in parse_pipeline(self.args.passes):
            if spec.name not in self.available_passes:
                known = ", ".join(sorted(self.available_passes))
                raise TlirError(
                    "tlir-opt",
                    f"bad pass pipeline '{self.args.passes}': unknown pass '{spec.name}' "
                    f"(known passes: {known})",
                )

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp:
        if file_extension in MODEL_FRONTENDS:
            return self.import_model(chunk, file_extension)
        if file_extension != "mlir" and self.args.frontend is None:
            raise TlirError(self.get_input_name(), f"unknown file extension '.{file_extension}'")
        try:
            text = chunk.read().decode("utf-8")
        except UnicodeDecodeError:
            raise TlirError(self.get_input_name(), "the input is not UTF-8 text") from None
        try:  # the parser reads its first token when it is made
            parser = LocatingParser(self.ctx, text, self.get_input_name(), start_offset)
            return parser.parse_module(not self.args.no_implicit_module)
        except ParseError as err:
            raise parse_error(err, start_offset) from None
        except RecursionError:
            raise TlirError(
                self.get_input_name(), "the input is nested too deeply to parse"
            ) from None

    def process_chunk(self, chunk: IO[bytes], extension: str, offset: int) -> str:
        module = self.parse_chunk(chunk, extension, offset)
        if not self.args.disable_verify:
            verify_module(module, self.get_input_name())
        elif self.pipeline.passes:
            unchanged = module.clone()
        try:
            self.apply_passes(module)
        except TlirError:
            raise
        except DiagnosticException as err:
            message = " ".join(str(err).split())
            raise TlirError(self.get_input_name(), message) from None
        except Exception:
            if self.args.disable_verify:
                # a pass tripped over invalid IR that --disable-verify let through:
                # the verifier's message about the input is the error
                verify_module(unchanged, self.get_input_name())
            raise
        return self.output_resulting_program(module)

    def run(self) -> None:
        try:
            chunks, extension = self.prepare_input()
        except OSError as err:
            raise TlirError(
                self.get_input_name(), f"cannot read the file: {err.strerror}"
            ) from None
        except ValueError as err:
            raise TlirError(self.get_input_name(), str(err)) from None
        pieces: list[str] = []
        for chunk, offset in chunks:
            try:
                pieces.append(self.process_chunk(chunk, extension, offset))
            except TlirError as err:
                if not self.args.verify_diagnostics:
                    raise
                pieces.append(f"{err}\n")
            finally:
                chunk.close()
        text = "// -----\n".join(pieces)
        if self.args.output_file is None:
            sys.stdout.write(text)
        else:
            write_output(self.args.output_file, text)


def _spec_message(err: BaseException) -> str:
    """xDSL's multi-line pipeline syntax error as `message (column N)`."""
    lines = [line for line in str(err).splitlines() if line.strip()]
    column = re.search(r"pass-pipeline:\d+:(\d+)", str(err))
    where = f" (at column {column.group(1)})" if column else ""
    return (lines[-1].strip() if lines else "syntax error") + where


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("tlir-opt", lambda: TlirOptMain(argv).run())


if __name__ == "__main__":
    sys.exit(main())
