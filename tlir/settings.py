"""Numbers from environment variables, read one way everywhere.

An environment variable is untrusted text: `str.isdigit` accepts '²' and
'٣' (which `int` refuses or reads as another digit), `float` accepts 'nan'
and 'inf'. A value is a number only in ASCII digits (underscores between
them allowed, as in `1_000_000`); anything else is a one-line error naming
the variable, the value shown escaped (`ascii`): it may hold terminal
control sequences. (`TLIR_CACHE_MAX_MB`, a size in megabytes that may be
fractional, is the cache's own: `tlir.compiler.cache`.)
"""

from __future__ import annotations

import os
import re

from tlir.diagnostics import TlirError

_INTEGER = re.compile(r"[0-9]+(?:_[0-9]+)*")


def positive_int(text: str) -> int | None:
    """The positive integer `text` spells in ASCII digits (surrounding blanks
    ignored), else None: the one reading of numbers from untrusted text, for
    environment variables and command-line options alike."""
    text = text.strip()
    if _INTEGER.fullmatch(text) and int(text) >= 1:
        return int(text)
    return None


def env_int(name: str, unit: str = "", empty_is_unset: bool = True) -> int | None:
    """The positive integer in the environment variable `name`, None when it is
    unset (or empty, if `empty_is_unset`); `unit` ("bytes") names what it
    counts in the error."""
    value = os.environ.get(name)
    if value is None or (empty_is_unset and not value.strip()):
        return None
    number = positive_int(value)
    if number is not None:
        return number
    what = f"a positive integer ({unit})" if unit else "a positive integer"
    raise TlirError(name, f"must be {what}, got {ascii(value)}")


__all__ = ["env_int", "positive_int"]
