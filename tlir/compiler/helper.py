"""Forked helper processes that lower and compile shares of a model's distinct
kernels beside this one.

xDSL's passes are pure Python and hold the GIL, so one process lowers one
kernel at a time however many cores there are; LLVM already runs on a worker
thread beside it (`tlir.compiler.build`). A copy of this process made with `fork` once
the model's kernels are formed and the lowering code is imported starts with
all of that in memory (a new interpreter would spend about half a second
importing xDSL again), lowers and compiles its kernels, and sends back each
one's ABI and object code as it is done. Compiling is a pure function of the
kernel, so the objects are the same bits whichever process made them.

Forking a process that runs other threads is unsafe where one of them holds a
lock the copy needs. Helpers are forked only when no other Python thread runs
(one could hold the import lock or a stream's); the threads Python does not
see are the idle pools of OpenBLAS (which shuts them down around a fork) and
tlir's own (`tlir.compiler.pool`, which a helper never calls). It takes Linux's `fork`
and a second core.

`TLIR_COMPILE_PROCESSES` sets how many processes compile (this one included):
by default one per core this process may use, at most `MAX_PROCESSES`; 1 turns
the helpers off. Helpers are collected without depending on `waitpid`: a
program that ignores SIGCHLD or reaps its children itself compiles the same.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import threading
import warnings
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from tlir.diagnostics import TlirError
from tlir.settings import env_int

Job = Callable[[], tuple[dict, "bytes | Future"]]
"""Lowers and compiles one kernel: (its ABI as a dict, its object code, or a
Future of it that a thread of the helper finishes)."""

ENV_PROCESSES = "TLIR_COMPILE_PROCESSES"

MAX_PROCESSES = 4
"""The default's bound: each helper copies the pages it touches (Python's
reference counts write to every object it reads), so a few are worth it. A
larger `TLIR_COMPILE_PROCESSES` is capped at the usable cores (or this, if
more): compiling is CPU-bound, and a process per kernel would only copy memory."""

_HEADER = struct.Struct("<Q")


def processes() -> int:
    """How many processes may compile kernels now (1: this one alone)."""
    configured = env_int(ENV_PROCESSES)
    if not hasattr(os, "fork") or not hasattr(os, "sched_getaffinity"):
        return 1
    if threading.active_count() != 1:
        return 1
    cores = len(os.sched_getaffinity(0))
    if configured is None:
        return min(cores, MAX_PROCESSES)
    return min(configured, max(cores, MAX_PROCESSES))


class Helper:
    """A forked process running `jobs` in order; `futures[i]` gets job i's result
    (or the error that stopped the helper) as soon as it is sent back. Start
    several with `start_helpers`."""

    def __init__(self, jobs: Sequence[Job], where: str):
        self.futures: list[Future] = [Future() for _ in jobs]
        self.where = where
        self._fd, write_end = os.pipe()
        try:
            with warnings.catch_warnings():
                # Python 3.12+ warns of any other OS thread; `processes` has judged them.
                warnings.simplefilter("ignore", DeprecationWarning)
                self.pid = os.fork()
        except BaseException:  # no process: neither end of the pipe is needed
            os.close(self._fd)
            os.close(write_end)
            raise
        if self.pid == 0:  # the helper: never returns
            os.close(self._fd)
            _serve(jobs, write_end)
        os.close(write_end)
        self._reader: threading.Thread | None = None
        # A handle on this very process: a pid that someone else reaped may be
        # reused by an unrelated process, which a kill by pid would hit.
        self._pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self._pidfd = os.pidfd_open(self.pid)

    def _kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)

    def start_reading(self) -> None:
        self._reader = threading.Thread(target=self._read, name="tlir-helper", daemon=True)
        self._reader.start()

    def close(self) -> None:
        """Stop the helper if it still runs (after an error or an interrupt) and reap it."""
        if self.pid:
            if not all(f.done() for f in self.futures):
                self._kill()
            # A program that ignores SIGCHLD (its children are reaped by the
            # kernel) or reaps children itself leaves nothing to wait for: the
            # results came through the pipe, the exit status is not needed.
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        if self._reader is not None:
            self._reader.join()
        else:
            os.close(self._fd)

    def _read(self) -> None:
        with os.fdopen(self._fd, "rb") as stream:
            try:
                for future in self.futures:
                    message = _receive(stream)
                    if message is None:
                        raise TlirError(self.where, "a compile helper process stopped")
                    kind, *payload = message
                    if kind == "tlir":
                        raise TlirError(*payload)
                    if kind != "ok":
                        message = f"internal error in a compile helper: {payload[0]}"
                        raise TlirError(self.where, message)
                    future.set_result(tuple(payload))
            except BaseException as err:  # every waiting caller gets the error
                for future in self.futures:
                    if not future.done():
                        future.set_exception(err)


def start_helpers(shares: Sequence[Sequence[Job]], where: str) -> list[Helper | None]:
    """One helper per share (None where `fork` failed, e.g. for lack of memory:
    the caller then runs that share itself), all forked before any reader
    thread starts (a process is forked only while it runs one thread)."""
    helpers: list[Helper | None] = []
    try:
        for jobs in shares:
            try:
                helpers.append(Helper(jobs, where))
            except OSError:
                helpers.append(None)
    except BaseException:  # an interrupt between forks: no helper is left running
        for helper in helpers:
            if helper is not None:
                helper.close()
        raise
    for helper in helpers:
        if helper is not None:
            helper.start_reading()
    return helpers


def _receive(stream) -> tuple | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def _outcome(produce: Callable[[], tuple]) -> tuple:
    """The message for what `produce` returns or raises."""
    try:
        return ("ok", *produce())
    except TlirError as err:
        return ("tlir", err.where, err.message)
    except BaseException as err:  # noqa: BLE001 - reported to the parent
        return ("error", f"{type(err).__name__}: {err}")


def _serve(jobs: Sequence[Job], fd: int) -> None:
    """A helper's whole life: run the jobs, send each result in job order (a
    job may return its object as a Future that a thread of its own finishes
    while the next job runs), stop at the first error, and exit without
    running the parent's exit handlers or flushing its buffers."""
    status = 1
    try:
        with os.fdopen(fd, "wb") as stream:
            pending: deque[tuple[dict, bytes | Future]] = deque()

            def send_done(wait: bool) -> bool:
                """Send the finished results at the head of `pending` (all of
                them if `wait`); False once an error is sent."""
                while pending:
                    header, data = pending[0]
                    if isinstance(data, Future) and not (wait or data.done()):
                        return True
                    pending.popleft()
                    ready = data.result if isinstance(data, Future) else lambda d=data: d
                    message = _outcome(lambda h=header, r=ready: (h, r()))
                    _send(stream, message)
                    if message[0] != "ok":
                        return False
                return True

            for job in jobs:
                started = _outcome(job)
                if started[0] != "ok":
                    if send_done(wait=True):
                        _send(stream, started)
                    return
                pending.append(started[1:])
                if not send_done(wait=False):
                    return
            if send_done(wait=True):
                status = 0
    finally:
        os._exit(status)


def _send(stream, message: tuple) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()
