"""tlir's thread pool (`tlir.compiler.pool`): a forked child runs threaded models, a
call never waits for a worker that has not started, concurrent callers each
get their own results, and the workers are invisible to Python and deaf to
signals. Every result is compared with the reference evaluator."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tlir
from tlir.compiler import helper, jit, pool
from tlir.reference import evaluate

pytestmark = pytest.mark.skipif(not jit.host().threads, reason="no POSIX threads")

N = 192
T = f"tensor<{N}x{N}xf64>"
MODEL = f"""func.func @main(%x: {T}, %w: {T}) -> ({T}, {T}) {{
  %0 = tlir.matmul %x, %w : ({T}, {T}) -> {T}
  %1 = tlir.tanh %0 : ({T}) -> {T}
  %2 = tlir.softmax %1 axis = 1 : ({T}) -> {T}
  func.return %1, %2 : {T}, {T}
}}"""


def _inputs(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs = [rng.normal(size=(N, N)) for _ in range(2)]
    inputs[0][1, 2] = np.nan
    return inputs


def _expected(inputs) -> list[bytes]:
    return [np.asarray(r).tobytes() for r in evaluate(tlir.parse_module(MODEL), inputs)]


@pytest.fixture(scope="module")
def model():
    compiled = tlir.compile(MODEL, threads=2)
    assert sum(step.threaded for step in compiled.plan.steps) >= 2
    return compiled


def _bits(outputs) -> list[bytes]:
    return [o.tobytes() for o in outputs]


FORK = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    import tlir
    sys.path.insert(0, sys.argv[1])
    from test_pool import MODEL, _inputs, _bits, _expected
    model = tlir.compile(MODEL, threads=2)
    for seed in range(3):  # the parent's pool started and used
        assert _bits(model(*_inputs(seed))) == _expected(_inputs(seed))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        ok = all(_bits(model(*_inputs(s))) == _expected(_inputs(s)) for s in (5, 6))
        more = tlir.compile(MODEL.replace("tanh", "sigmoid"), threads=2, cache=False)
        ok = ok and len(more(*_inputs(7))) == 2
        os.write(write, b"ok" if ok else b"differs")
        os._exit(0)
    os.close(write)
    answer = os.read(read, 16)
    os.waitpid(pid, 0)
    assert _bits(model(*_inputs(8))) == _expected(_inputs(8))  # the parent's pool still works
    print(answer.decode())
    """
)


def test_a_forked_child_runs_a_threaded_model_the_parent_ran():
    """libgomp's pool does not survive fork: such a child hung on its first call."""
    proc = subprocess.run(
        [sys.executable, "-c", FORK, os.path.dirname(__file__)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"


def _child_call(model, seed, queue):
    queue.put(_bits(model(*_inputs(seed))))


def test_multiprocessing_fork_workers_run_the_model(model):
    model(*_inputs(0))  # the pool runs in this process
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    children = [context.Process(target=_child_call, args=(model, s, queue)) for s in (1, 2)]
    for child in children:
        child.start()
    results = sorted(queue.get(timeout=60) for _ in children)
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    assert results == sorted(_expected(_inputs(s)) for s in (1, 2))


PHANTOM = textwrap.dedent(
    """
    import sys
    import tlir
    from tlir.compiler import pool
    sys.path.insert(0, sys.argv[1])
    from test_pool import MODEL, _inputs, _bits, _expected
    runtime = pool.runtime()
    runtime.set_workers(3)  # three workers the pool will never see run
    runtime.workers = 3
    model = tlir.compile(MODEL, threads=4)
    steps = sum(step.threaded for step in model.plan.steps)
    inputs = _inputs(1)
    expected = _expected(inputs)
    same = _bits(model(*inputs)) == expected
    counts = runtime.counts()
    print(same, steps, counts["pool"], counts["stalled"], counts["alone"])
    """
)


def test_a_call_does_not_wait_for_workers_that_never_start():
    """The pool believes in workers that never run (as if the OS never gave
    them a core): the caller claims every chunk and returns, without waiting
    (no step counts as stalled: workers that never came delayed nothing)."""
    proc = subprocess.run(
        [sys.executable, "-c", PHANTOM, os.path.dirname(__file__)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    same, steps, on_pool, stalled, alone = proc.stdout.split()
    assert same == "True" and int(steps) >= 2
    assert (int(on_pool), int(stalled), int(alone)) == (int(steps), 0, 0)


def test_concurrent_callers_get_their_own_results(model):
    """One job at a time: a caller that finds the pool busy runs on its own thread."""
    inputs = {seed: _inputs(seed) for seed in range(4)}
    results: dict[int, list[bytes]] = {}

    def run(seed):
        for _ in range(5):
            results[seed] = _bits(model(*inputs[seed]))

    threads = [threading.Thread(target=run, args=(seed,)) for seed in inputs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert results == {seed: _expected(inputs[seed]) for seed in inputs}


def _blocked_signals(task: str) -> int:
    with open(f"/proc/self/task/{task}/status") as status:
        for line in status:
            if line.startswith("SigBlk:"):
                return int(line.split()[1], 16)
    raise AssertionError("no SigBlk line")


def test_the_workers_are_invisible_to_python_and_block_signals(model):
    model(*_inputs(0))
    workers = pool.runtime().workers
    assert workers >= 1
    assert threading.active_count() == 1
    if len(os.sched_getaffinity(0)) > 1:
        assert helper.processes() > 1  # compile helpers may still be forked
    me = str(threading.get_native_id())
    others = [t for t in os.listdir("/proc/self/task") if t != me]
    assert _blocked_signals(me) == 0  # the caller's mask is restored
    # every worker blocks every signal (SIGKILL and SIGSTOP cannot be blocked)
    assert sum(_blocked_signals(t) != 0 for t in others) >= workers


def _other_threads_policies() -> set[int]:
    me = threading.get_native_id()
    return {os.sched_getscheduler(int(t)) for t in os.listdir("/proc/self/task") if int(t) != me}


def test_the_workers_run_under_sched_batch(model):
    model(*_inputs(0))
    # A worker takes its policy when it first runs, and the call does not wait
    # for it: the workers this call started (the first threaded call of the
    # process, when no test before it in this process ran one) may not have run
    # yet on a loaded machine.
    start = time.monotonic()
    while os.SCHED_BATCH not in _other_threads_policies() and time.monotonic() - start < 60:
        time.sleep(0.01)
    assert os.SCHED_BATCH in _other_threads_policies()
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the caller's own is untouched


RECORD = """
declare i64 @pthread_self()
define void @record(ptr %args, i64 %lo, i64 %hi) {
entry:
  %counts = load ptr, ptr %args
  %owners.p = getelementptr ptr, ptr %args, i64 1
  %owners = load ptr, ptr %owners.p
  %me = call i64 @pthread_self()
  br label %loop
loop:
  %i = phi i64 [ %lo, %entry ], [ %next, %next.i ]
  %more = icmp ult i64 %i, %hi
  br i1 %more, label %work, label %done
work:
  %c = getelementptr i64, ptr %counts, i64 %i
  %old = atomicrmw add ptr %c, i64 1 monotonic
  %o = getelementptr i64, ptr %owners, i64 %i
  store i64 %me, ptr %o
  br label %delay
delay:  ; a few microseconds of work when args[2] is not null
  %k = phi i64 [ 0, %work ], [ %k1, %delay ]
  %slow.p = getelementptr ptr, ptr %args, i64 2
  %slow = load volatile i64, ptr %slow.p
  %k1 = add i64 %k, 1
  %busy = icmp ult i64 %k1, %slow
  br i1 %busy, label %delay, label %next.i
next.i:
  %next = add i64 %i, 1
  br label %loop
done:
  ret void
}
"""


def _record_jobs(jobs: int, n: int, delay: int, until_shared: float = 0.0):
    """`jobs` jobs of `n` iterations through `tlir_rt_parallel` on 3 threads:
    (how often each iteration ran, the threads that ran any)."""
    import ctypes

    engine = jit.Engine([jit.compile_object(RECORD, 2, "test", frozenset({"pthread_self"}))])
    record = engine.engine.get_function_address("record")
    signature = ctypes.CFUNCTYPE(
        None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
    )
    parallel = signature(pool.runtime().parallel)
    pool.prepare(3)
    pool.runtime().set_penalty(0)  # every job on the pool, stalled or not
    counts = np.zeros(n, np.int64)
    owners = np.zeros(n, np.int64)
    args = (ctypes.c_void_p * 3)(counts.ctypes.data, owners.ctypes.data, delay)
    seen: set[int] = set()
    start = time.monotonic()
    try:
        for _ in range(jobs):
            parallel(record, ctypes.addressof(args), n, 3)
            seen.update(owners.tolist())
            if until_shared and (len(seen) > 1 or time.monotonic() - start > until_shared):
                break
    finally:
        pool.runtime().set_penalty(pool.PENALTY)
    return counts, seen


def test_every_iteration_of_every_job_runs_once():
    """`tlir_rt_parallel` called directly, thousands of jobs of a few short
    iterations (workers racing the caller for chunks)."""
    jobs, n = 3000, 37
    counts, _ = _record_jobs(jobs, n, 0)
    assert counts.tolist() == [jobs] * n


@pytest.mark.alone
def test_workers_take_part():
    """Jobs of a few milliseconds, until a worker (not only the caller) ran
    some iterations (on a loaded machine it may take a while)."""
    counts, seen = _record_jobs(100_000, 16, 200_000, until_shared=60.0)
    assert len(seen) >= 2
    assert len(set(counts.tolist())) == 1  # every iteration as often as the others


EXIT_WHILE_CALLING = textwrap.dedent(
    """
    import sys, threading, time
    import numpy as np
    import tlir
    sys.path.insert(0, sys.argv[1])
    from test_pool import MODEL, _inputs
    model = tlir.compile(MODEL, threads=2)
    inputs = _inputs(0)

    def forever():
        while True:
            model(*inputs)

    threading.Thread(target=forever, daemon=True).start()
    time.sleep(0.05)
    """
)


def test_the_process_exits_cleanly_while_a_daemon_thread_calls():
    """The interpreter shuts down while steps run on the pool: the runtime's
    code stays where the workers run it."""
    for _ in range(3):
        proc = subprocess.run(
            [sys.executable, "-c", EXIT_WHILE_CALLING, os.path.dirname(__file__)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (proc.returncode, proc.stderr) == (0, "")


SLOW_WORKER = """
declare i64 @pthread_self()
define void @slow_worker(ptr %args, i64 %lo, i64 %hi) {
entry:
  %counts = load ptr, ptr %args
  %caller.p = getelementptr ptr, ptr %args, i64 1
  %caller = load i64, ptr %caller.p
  %rounds.p = getelementptr ptr, ptr %args, i64 2
  %rounds = load i64, ptr %rounds.p
  %me = call i64 @pthread_self()
  %mine = icmp eq i64 %me, %caller
  %slow = mul i64 %rounds, 50
  %delay = select i1 %mine, i64 %rounds, i64 %slow
  br label %loop
loop:
  %i = phi i64 [ %lo, %entry ], [ %next, %spun ]
  %more = icmp ult i64 %i, %hi
  br i1 %more, label %work, label %done
work:
  %c = getelementptr i64, ptr %counts, i64 %i
  %old = atomicrmw add ptr %c, i64 1 monotonic
  br label %spin
spin:
  %k = phi i64 [ 0, %work ], [ %k1, %spin ]
  %v = load volatile i64, ptr %rounds.p
  %k1 = add i64 %k, 1
  %busy = icmp ult i64 %k1, %delay
  br i1 %busy, label %spin, label %spun
spun:
  %next = add i64 %i, 1
  br label %loop
done:
  ret void
}
"""


@pytest.mark.alone
def test_a_step_held_up_by_a_worker_makes_the_next_ones_run_alone():
    """A worker whose chunks take 50 times the caller's holds the caller up:
    the step counts as stalled, and the steps right after it run on the
    caller alone (it does not wait for that worker again)."""
    import ctypes

    engine = jit.Engine([jit.compile_object(SLOW_WORKER, 2, "test", frozenset({"pthread_self"}))])
    slow_worker = engine.engine.get_function_address("slow_worker")
    signature = ctypes.CFUNCTYPE(
        None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
    )
    parallel = signature(pool.runtime().parallel)
    pool.prepare(2)
    runtime = pool.runtime()
    libc = ctypes.CDLL(None)
    libc.pthread_self.restype = ctypes.c_ulong
    n = 6
    counts = np.zeros(n, np.int64)
    args = (ctypes.c_void_p * 3)(counts.ctypes.data, libc.pthread_self(), 100_000)
    start, jobs = time.monotonic(), 0
    while time.monotonic() - start < 60:  # until a worker took a chunk (a loaded machine)
        before = runtime.counts()
        parallel(slow_worker, ctypes.addressof(args), n, 2)
        jobs += 1
        if runtime.counts()["stalled"] > before["stalled"]:
            break
    parallel(slow_worker, ctypes.addressof(args), n, 2)  # right after the stall
    after = runtime.counts()
    runtime.set_penalty(pool.PENALTY)  # the back-off forgotten for the tests after this
    assert counts.tolist() == [jobs + 1] * n
    assert (after["stalled"] - before["stalled"], after["alone"] - before["alone"]) == (1, 1)


@pytest.mark.alone
def test_a_step_whose_every_chunk_ran_slower_is_no_stall():
    """Steps whose iterations all take 4 times as long as before (every thread
    slowed alike: another process's threads sharing the caches or spinning
    beside them) are not stalls: two threads still beat one, and the steps
    after them keep their threads. The rule counts them as `slow`."""
    import ctypes

    engine = jit.Engine([jit.compile_object(SLOW_WORKER, 2, "test", frozenset({"pthread_self"}))])
    slow_worker = engine.engine.get_function_address("slow_worker")
    signature = ctypes.CFUNCTYPE(
        None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
    )
    parallel = signature(pool.runtime().parallel)
    pool.prepare(2)
    runtime = pool.runtime()
    runtime.set_penalty(pool.PENALTY)  # a fresh table: no best pace, no back-off
    n = 8
    counts = np.zeros(n, np.int64)
    # caller 0: no thread is "the caller", every iteration takes 50 * rounds
    args = (ctypes.c_void_p * 3)(counts.ctypes.data, 0, 10_000)  # 0.5 ms an iteration
    for _ in range(10):  # the best pace
        parallel(slow_worker, ctypes.addressof(args), n, 2)
    args[2] = 40_000
    start, found, joined = time.monotonic(), None, 0
    while time.monotonic() - start < 60 and found is None:  # a loaded machine: until on time
        before = runtime.counts()
        parallel(slow_worker, ctypes.addressof(args), n, 2)
        after = runtime.counts()
        joined += after["unhelped"] == before["unhelped"]
        if after["slow"] > before["slow"]:
            found = before, after
    runtime.set_penalty(pool.PENALTY)
    if found is None and not joined:
        pytest.skip("no worker ran in 60 s: the machine's other cores are taken")
    assert found is not None, "no step ran with both threads on time"
    before, after = found
    assert after["stalled"] == before["stalled"] and after["alone"] == before["alone"]
