"""What every tlir tool shares: one-line errors, exit codes, atomic output."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable

from tlir.diagnostics import TlirError


def run_tool(tool: str, body: Callable[[], object]) -> int:
    """Run a tool's body; any error becomes one line on stderr and exit code 1.
    With TLIR_DEBUG set, internal errors keep their traceback (for developers)."""
    try:
        body()
    except TlirError as err:
        print(err, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{tool}: error: interrupted", file=sys.stderr)
        return 1
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    except BrokenPipeError:
        return 1
    except Exception as err:  # noqa: BLE001 - the contract is: never a traceback
        if os.environ.get("TLIR_DEBUG"):
            raise
        print(f"{tool}: error: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    return 0


def atomic_write(path: str, data: str | bytes) -> None:
    """Write `path` whole or not at all: a temporary file renamed into place."""
    directory = os.path.dirname(os.path.abspath(path))
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tlir-", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
