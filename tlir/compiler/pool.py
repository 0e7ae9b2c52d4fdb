"""tlir's thread pool: the runtime behind every threaded step of an entry function.

`tlir_rt_parallel(f, args, n, threads)` runs `f(args, lo, hi)` over chunks of
[0, n) on the calling thread and on up to `threads - 1` pool workers, and
returns when every iteration has run. It replaces an OpenMP runtime (libgomp),
whose parallel region ends with a barrier of the whole team: on this 2-core
machine, beside another busy process, libgomp's two threads took 10-30 ms for
calls that one thread ran in 1-2 ms (its workers spin for milliseconds, then
the call waits for the one that lost its core).

* **The caller works, and never waits for a worker that has not started.**
  Chunks are claimed from one atomic word (the job's generation and the next
  iteration) with a compare-and-swap; each claim takes max(1, ⌊R/T⌋) of the R
  iterations left (guided: large chunks first, single iterations at the end).
  The caller claims too, and returns as soon as every *claimed* iteration is
  done. A worker that was not woken in time has claimed nothing, so nobody
  waits for it; when it runs at last it finds the job closed.
* **Workers yield to the caller.** They run under `SCHED_BATCH` (same
  priority, no wake-up preemption): a worker woken on a busy machine never
  takes the core of the thread that woke it.
* **A stall is not repeated.** A step that took half as long again as its
  caller's thread alone would have needed at the pace its own chunks just
  ran (a worker holding a chunk lost its core to another process, or shared
  the caller's; or the step is too small for the wake-up to pay), or in
  which the caller got no chunk, makes the next steps *of that function* run
  on their caller's thread alone for `PENALTY` times what that step takes on
  one thread, twice as long after each further stall (up to `MAX_BACKOFF`
  times as long), half as long again after each step the workers sped up. (A
  small step that threads cannot speed up thus runs alone, and the large
  steps of the same call keep their threads.) A step whose every chunk ran
  slower, up to twice the best pace seen for its function (another
  process's threads — PyTorch's OpenMP workers spin after each op — sharing
  the caches or the clock), is no stall: compared with the best pace it
  would be, and it would take the threads from steps they still speed up.
  `_Runtime.counts` counts each kind of step (`COUNTS`).
* **No lasting busy waiting.** An idle worker checks for a new job for `SPIN`
  rounds (about 40 µs here: the next step of a call usually comes by then),
  a caller waiting for a worker's last chunk for `CALLER_SPIN` (about 0.2 ms),
  then each sleeps on a condition variable (libgomp's default spins for
  milliseconds). A process that stops calling uses no CPU.
* **Results do not depend on any of it**: each iteration runs whole on one
  thread, in the same order as on one thread (see `tlir.compiler.plan`).
* **Concurrent callers**: one job runs at a time; a call that finds the pool
  busy runs its step on its own thread rather than wait.
* **fork**: a child has none of the parent's workers. After `os.fork` (and,
  for a fork Python did not see, at the first call in a new process) the pool's
  state is reset, and workers are started again when a call asks for them.

The workers are POSIX threads started through the C library (invisible to
Python, so compile helpers may still be forked; all signals blocked in them),
at most `tlir.compiler.threads.max_threads() - 1`, started when a call first asks.

Loading: entry functions link against a stub (`tlir.compiler.pool_ir.STUB`) that runs every step on
the calling thread until the runtime is loaded — at the first call with more
than one thread (`prepare`), from the compile cache when it holds the
runtime's object for this LLVM and CPU, else compiled by LLVM (about 30 ms)
and stored. A compile never waits for it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading

from tlir.compiler import pool_ir
from tlir.compiler.pool_ir import (  # noqa: F401 - the pool's numbers, named here too
    CALLER_SPIN,
    CLOSED,
    COUNTS,
    MAX_BACKOFF,
    PENALTY,
    PTHREAD_FUNCTIONS,
    SPIN,
    STUB,
)

WORKER_BATCH = True
"""Workers under `SCHED_BATCH` (no wake-up preemption: see above); False starts
them under the caller's policy (`bench/threads.py --worker-policy other`
compares the two). Read when the runtime is loaded."""

STUB_OPT_LEVEL = 0
"""Seven instructions: LLVM's fast path compiles them in 2 ms instead of 4."""


def runtime_ir() -> str:
    """The runtime's LLVM IR for this host, its workers under `WORKER_BATCH`'s policy."""
    return pool_ir.runtime_ir(WORKER_BATCH)


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.pthread_create.argtypes = [ctypes.c_void_p] * 4
    libc.pthread_create.restype = ctypes.c_int
    libc.pthread_detach.argtypes = [ctypes.c_ulong]
    libc.pthread_detach.restype = ctypes.c_int
    return libc


class _Runtime:
    """The compiled runtime (one per process), and its workers."""

    def __init__(self, cache: bool) -> None:
        from tlir.compiler import jit

        data = load_object(
            "thread runtime", runtime_ir(), RUNTIME_OPT_LEVEL, PTHREAD_FUNCTIONS, cache
        )
        self.engine = jit.Engine([data])
        self.parallel = self.engine.engine.get_function_address("tlir_rt_pool_parallel")
        self.worker = self.engine.engine.get_function_address("tlir_rt_worker")
        self.set_workers = self.engine.function("tlir_rt_set_workers", None, [ctypes.c_int32])
        self.reset = self.engine.function("tlir_rt_reset", None, [])
        self.set_spin = self.engine.function(
            "tlir_rt_set_spin", None, [ctypes.c_int32, ctypes.c_int32]
        )
        self.set_penalty = self.engine.function("tlir_rt_set_penalty", None, [ctypes.c_int64])
        self._counts = self.engine.function("tlir_rt_counts", None, [ctypes.c_void_p])

        self.libc = _libc()
        self.workers = 0
        self.pid = os.getpid()
        self.lock = threading.Lock()

    def counts(self) -> dict[str, int]:
        """Threaded steps so far: run on the pool, stalled, run alone after a stall."""
        values = (ctypes.c_int64 * len(COUNTS))()
        self._counts(ctypes.addressof(values))
        return dict(zip(COUNTS, values, strict=True))

    def start(self, count: int) -> None:
        """At least `count` workers (as many as the system lets start)."""
        with self.lock:
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
            try:
                while self.workers < count:
                    handle = ctypes.c_ulong()
                    number = ctypes.c_void_p(self.workers + 1)
                    if self.libc.pthread_create(ctypes.byref(handle), None, self.worker, number):
                        break  # no more threads: the pool keeps those it has
                    self.libc.pthread_detach(handle.value)
                    self.workers += 1
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            self.set_workers(self.workers)

    def after_fork(self) -> None:
        self.reset()
        self.workers = 0
        self.pid = os.getpid()
        self.lock = threading.Lock()


RUNTIME_OPT_LEVEL = 2


def load_object(
    name: str, llvm_ir: str, opt_level: int, calls: frozenset[str], cache: bool = True
) -> bytes:
    """The object code of a piece of the runtime: from the compile cache when it
    holds it (keyed by the IR, the level and the host: LLVM's version, the CPU
    and its features; checked like any entry), else compiled by LLVM and stored
    (`cache=False`, as for a model compiled with it: no cache at all).
    `calls`: what it may call beyond what compiled code may (`tlir.compiler.jit`)."""
    from tlir.compiler import jit
    from tlir.compiler.cache import digest, open_cache
    from tlir.compiler.cache_entry import read_runtime, runtime_entry

    store = open_cache(cache)
    key = digest("runtime", name, jit.host().describe(), f"-O{opt_level}", llvm_ir)
    found = store.read(key, lambda entry: read_runtime(entry, key, name, calls)) if store else None
    if found is not None:
        return found
    data = jit.compile_object(llvm_ir, opt_level, name, calls)
    if store is not None and not jit.foreign_symbols(data, calls):
        store.put(key, runtime_entry(key, name, data))
    return data


_LOADING = threading.Lock()
"""One load of the stub and of the runtime per process, whichever thread asks first."""


class _Stub:
    """The linked stub: its address, and the call that points it at the pool."""

    def __init__(self, cache: bool) -> None:
        from tlir.compiler import jit

        data = load_object("thread stub", STUB, STUB_OPT_LEVEL, frozenset(), cache)
        self.engine = jit.Engine([data])
        self.parallel = self.engine.engine.get_function_address("tlir_rt_parallel")
        self.attach = self.engine.function("tlir_rt_attach", None, [ctypes.c_void_p])


_loaded: dict[str, object] = {}


def stub(cache: bool = True) -> _Stub:
    """The process's stub, loaded on first use (the first engine linked; from the
    compile cache if `cache`): its `tlir_rt_parallel` is a symbol every entry
    function links against."""
    import llvmlite.binding as llvm

    with _LOADING:
        if "stub" not in _loaded:
            built = _Stub(cache)
            # Never freed: entry functions and the workers hold its address.
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(built))
            llvm.add_symbol("tlir_rt_parallel", built.parallel)
            _loaded["stub"] = built
        return _loaded["stub"]


def loaded() -> bool:
    """Whether this process has loaded the runtime (a call used more than one thread)."""
    return "runtime" in _loaded


def runtime(cache: bool = True) -> _Runtime:
    """The process's runtime, loaded on first use (the first call with more
    than one thread; from the compile cache if `cache`) and attached to the stub."""
    entry = stub(cache)
    with _LOADING:
        if "runtime" not in _loaded:
            built = _Runtime(cache)
            # Never freed, not even when the interpreter shuts down: the workers run
            # (or sleep inside) its code until the process ends.
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(built))
            os.register_at_fork(after_in_child=_after_fork_in_child)
            entry.attach(built.parallel)
            _loaded["runtime"] = built
        return _loaded["runtime"]


def _after_fork_in_child() -> None:
    if loaded():
        runtime().after_fork()


def prepare(threads: int, cache: bool = True) -> int:
    """Before a call with `threads` > 1 (already capped: `tlir.compiler.threads`): the
    runtime loaded (from the compile cache if `cache`) and the workers it needs
    started (again in a forked process); the threads the call may use."""
    pool = runtime(cache)
    if pool.pid != os.getpid():  # forked where Python's fork hooks did not run
        pool.after_fork()
    if pool.workers < threads - 1:
        pool.start(threads - 1)
    return threads


__all__ = ["load_object", "loaded", "prepare", "runtime", "runtime_ir", "stub"]
