"""What every tlir tool shares: one-line errors, exit codes, safe output files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import NoReturn

from tlir.diagnostics import TlirError, printable
from tlir.files import write_output as write_output  # the tools' writer, also here

STDIN = "-"
"""The file name that means standard input, as for most Unix tools."""


class ToolArgumentParser(argparse.ArgumentParser):
    """argparse whose errors are tlir errors: one line `tool: error: …`, exit 1
    (argparse's own prints the usage and exits 2); with `--version`."""

    def __init__(self, *args, **kwargs):
        # "resolve": an option added again replaces the first (tlir-opt's
        # --version replaces xDSL's, which would name xdsl-opt)
        super().__init__(*args, conflict_handler="resolve", **kwargs)
        self.add_version()

    def add_version(self) -> None:
        self.add_argument(
            "--version", action=_VersionAction, help="print the versions of tlir and xDSL"
        )

    def error(self, message: str) -> NoReturn:
        raise TlirError(self.prog, " ".join(message.split()))


def version_line(tool: str) -> str:
    """`tool 0.1.0 (xDSL 0.74.0, llvmlite 0.46.0)`: the installed distributions'
    versions (importlib.metadata, imported only when asked)."""
    from importlib.metadata import PackageNotFoundError, version

    def of(distribution: str) -> str:
        try:
            return version(distribution)
        except PackageNotFoundError:
            return "(not installed)"

    return f"{tool} {of('tlir')} (xDSL {of('xdsl')}, llvmlite {of('llvmlite')})"


class _VersionAction(argparse.Action):
    """argparse's `version` action, with the version looked up only when asked."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> NoReturn:
        sys.stdout.write(version_line(parser.prog) + "\n")
        parser.exit()


def dtype_argument(text: str) -> str:
    """A `--dtype` value: 'f32' or 'f64', or NumPy's 'float32' or 'float64'."""
    from tlir.interface import element_type_name

    try:
        return element_type_name(text, "--dtype")
    except TlirError:
        raise argparse.ArgumentTypeError(
            f"invalid choice: '{text}' (choose from f32, f64, float32, float64)"
        ) from None


def read_input_text(path: str | None) -> tuple[str, str]:
    """A tool's input text and the name its messages use: standard input when
    `path` is absent or `-` (named "stdin"), else the file."""
    from tlir.limits import read_stdin_limited, read_text_file

    if path is not None and path != STDIN:
        return read_text_file(path), path
    try:
        return read_stdin_limited().decode("utf-8"), "stdin"
    except UnicodeDecodeError:
        raise TlirError("stdin", "the input is not UTF-8 text") from None


def report(line: str) -> None:
    """Print one line to stderr, made printable: it may quote a model's text, a
    file name or an environment variable."""
    print(printable(line), file=sys.stderr)


def run_tool(tool: str, body: Callable[[], object]) -> int:
    """Run a tool's body; any error becomes one line on stderr and exit code 1.
    With TLIR_DEBUG set, internal errors keep their traceback (for developers)."""
    try:
        body()
    except TlirError as err:
        report(str(err))
        return 1
    except KeyboardInterrupt:
        report(f"{tool}: error: interrupted")
        return 1
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    except BrokenPipeError:
        return 1
    except RecursionError:
        # a pathologically deep input (nesting, chains) that slipped past the readers' checks
        report(f"{tool}: error: the input is nested too deeply to process")
        return 1
    except MemoryError:
        report(f"{tool}: error: out of memory")
        return 1
    except Exception as err:  # noqa: BLE001 - the contract is: never a traceback
        if os.environ.get("TLIR_DEBUG"):
            raise
        message = " ".join(f"{type(err).__name__}: {err}".split())
        report(f"{tool}: error: internal error: {message}")
        return 1
    except BaseException as err:  # xDSL raises some of its errors as BaseException
        if os.environ.get("TLIR_DEBUG"):
            raise
        message = " ".join(f"{type(err).__name__}: {err}".split())
        report(f"{tool}: error: internal error: {message}")
        return 1
    return 0
