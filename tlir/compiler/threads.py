"""How many threads a compiled model's calls use.

`threads=` (the API, `tlir-run --threads`), else `TLIR_NUM_THREADS`, else one
per core this process may use. A count above `MAX_THREADS_PER_CORE` threads per
usable core is capped there, with a one-line warning: threads beyond the cores
only wait for each other, and a count in the thousands would exhaust memory
for thread stacks.
"""

from __future__ import annotations

import ctypes
import os
import sys

from tlir.diagnostics import TlirError
from tlir.settings import env_int

ENV_NUM_THREADS = "TLIR_NUM_THREADS"

MAX_THREADS_PER_CORE = 4


def available() -> bool:
    """Whether this process can start POSIX threads through the C library, as
    tlir's thread pool (`tlir.compiler.pool`) does."""
    if not sys.platform.startswith("linux"):  # SCHED_BATCH, glibc's zeroed initializers
        return False
    try:
        return hasattr(ctypes.CDLL(None), "pthread_create")
    except (OSError, AttributeError):
        return False


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where there is one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def max_threads() -> int:
    return MAX_THREADS_PER_CORE * usable_cores()


def capped(threads: int, what: str) -> int:
    """`threads`, at most `max_threads()` (a warning names `what` when it is cut)."""
    limit = max_threads()
    if threads <= limit:
        return threads
    print(
        f"tlir: warning: {what} asks for {threads} threads, more than {MAX_THREADS_PER_CORE} "
        f"per usable core: using {limit}",
        file=sys.stderr,
    )
    return limit


def default_threads() -> int:
    """`TLIR_NUM_THREADS` (capped), else every core this process may use."""
    configured = env_int(ENV_NUM_THREADS)
    if configured is None:
        return usable_cores()
    return capped(configured, f"{ENV_NUM_THREADS}={configured}")


def check_threads(threads: object, where: str) -> int:
    """A thread count given to the API: a positive int (capped), else an error."""
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TlirError(where, f"threads must be a positive integer, got {threads!r}")
    if threads < 1:
        raise TlirError(where, f"threads must be a positive integer, got {threads}")
    return capped(threads, f"threads={threads}")


__all__ = ["check_threads", "default_threads", "max_threads", "usable_cores"]
