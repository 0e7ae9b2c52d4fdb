"""`tlir-opt`: xDSL's optimizer driver with tlir's dialects and passes.

Differences from plain `xdsl-opt`: every error is one line
`file:line:col: error: message` with exit code 1 (never a traceback), ops are
verified one by one so the error points at the failing op, and `-o` is written
only when the whole run succeeded.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms import get_all_passes
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tlir.diagnostics import LocatingParser, TlirError, parse_error, verify_module
from tlir.tools.common import atomic_write, run_tool
from tlir.universe import tlir_dialects, tlir_passes


class TlirOptMain(xDSLOptMain):
    """The driver: xDSL's arguments and passes plus tlir's."""

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="tlir modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in tlir_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        for name, factory in {**get_all_passes(), **tlir_passes()}.items():
            self.register_pass(name, factory)

    def setup_pipeline(self) -> None:
        def verify_between(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            if previous is not None and not self.args.disable_verify:
                verify_module(module, self.get_input_name())

        try:
            self.pipeline = PassPipeline.parse_spec(
                self.available_passes, self.args.passes, verify_between
            )
        except (ValueError, KeyError) as err:
            raise TlirError("tlir-opt", f"bad pass pipeline '{self.args.passes}': {err}") from None

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp:
        if file_extension != "mlir" and self.args.frontend is None:
            raise TlirError(self.get_input_name(), f"unknown file extension '.{file_extension}'")
        text = chunk.read()
        parser = LocatingParser(self.ctx, text, self.get_input_name(), start_offset)
        try:
            return parser.parse_module(not self.args.no_implicit_module)
        except ParseError as err:
            raise parse_error(err, start_offset) from None

    def process_chunk(self, chunk: IO[bytes], extension: str, offset: int) -> str:
        module = self.parse_chunk(chunk, extension, offset)
        if not self.args.disable_verify:
            verify_module(module, self.get_input_name())
        try:
            self.apply_passes(module)
        except TlirError:
            raise
        except DiagnosticException as err:
            message = " ".join(str(err).split())
            raise TlirError(self.get_input_name(), message) from None
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
            atomic_write(self.args.output_file, text)


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool("tlir-opt", lambda: TlirOptMain(argv).run())


if __name__ == "__main__":
    sys.exit(main())
