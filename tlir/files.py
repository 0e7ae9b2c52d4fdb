"""Output files written whole or not at all (`write_output`): the tools' `-o`
and `--output`, and `tlir.save`."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from tlir.diagnostics import TlirError


def write_output(path: str, data: str | bytes) -> None:
    """Write a tool's output file whole or not at all, as the user means it:

    * a symbolic link is followed: its target is written (and a missing target created);
    * a regular file is replaced atomically (a temporary file in its directory renamed
      over it) and keeps its permission bits;
    * anything else that exists (a device such as /dev/null, a pipe, /dev/stdout) is
      written in place, never replaced;
    * a new file gets the mode the umask allows (0666 & ~umask), as `open` would.

    Any failure is one line naming `path` as the user gave it.
    """
    raw = data.encode() if isinstance(data, str) else data
    try:
        try:
            info: os.stat_result | None = os.stat(path)  # follows symbolic links
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise TlirError(path, "cannot write the output file: it is a directory")
        if info is not None and (not stat.S_ISREG(info.st_mode) or _is_special(path)):
            # a device, pipe, terminal or /dev/stdout: write through, never replace
            with open(path, "wb") as handle:
                handle.write(raw)
            return
        mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
        _replace_atomically(os.path.realpath(path), raw, mode)
    except OSError as err:
        raise TlirError(path, f"cannot write the output file: {err.strerror or err}") from None


def _is_special(path: str) -> bool:
    """/dev/stdout, /proc/self/fd/N and the like name an open file: never replaced."""
    absolute = os.path.abspath(path)
    return absolute.startswith(("/dev/", "/proc/"))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _replace_atomically(target: str, data: bytes, mode: int) -> None:
    directory = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tlir-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            os.fchmod(handle.fileno(), mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
