"""Helper processes that compile a share of a model's kernels: the same objects
and results as one process, errors that reach the caller as one line, no
process left behind, and nothing forked while another Python thread runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tlir
from tlir.compiler import helper
from tlir.diagnostics import TlirError

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
EXAMPLES = os.path.join(ROOT, "examples")


def _pid_job(tag: str):
    return lambda: ({"tag": tag, "pid": os.getpid()}, tag.encode() * 3)


def test_results_come_from_other_processes_in_job_order():
    helpers = helper.start_helpers([[_pid_job("a"), _pid_job("b")], [_pid_job("c")]], "m.json")
    try:
        results = [f.result(timeout=60) for h in helpers for f in h.futures]
    finally:
        for h in helpers:
            h.close()
    assert [(header["tag"], data) for header, data in results] == [
        ("a", b"aaa"),
        ("b", b"bbb"),
        ("c", b"ccc"),
    ]
    pids = {header["pid"] for header, _ in results}
    assert os.getpid() not in pids and len(pids) == 2  # one process per share


def _raise(error: BaseException):
    def job():
        raise error

    return job


def _run_one_share(jobs) -> list:
    (h,) = helper.start_helpers([jobs], "m.json")
    assert h is not None
    outcomes = []
    try:
        for future in h.futures:
            try:
                outcomes.append(future.result(timeout=60))
            except TlirError as err:
                outcomes.append(err)
    finally:
        h.close()
    return outcomes


def test_a_located_error_in_a_helper_reaches_the_caller_unchanged():
    outcomes = _run_one_share(
        [_pid_job("a"), _raise(TlirError("m.json:3:5", "LLVM rejected it")), _pid_job("c")]
    )
    assert outcomes[0][1] == b"aaa"
    # the failing job's error, and the same for the job it stopped
    for err in outcomes[1:]:
        assert isinstance(err, TlirError)
        assert (err.where, err.message) == ("m.json:3:5", "LLVM rejected it")


def test_an_unexpected_exception_is_an_internal_error_naming_it():
    (err,) = _run_one_share([_raise(ValueError("bad width"))])
    assert isinstance(err, TlirError)
    assert err.where == "m.json"
    assert err.message == "internal error in a compile helper: ValueError: bad width"


def test_a_helper_that_dies_is_an_error_not_a_hang():
    (err,) = _run_one_share([lambda: os._exit(3)])
    assert isinstance(err, TlirError) and "stopped" in err.message


def test_close_stops_a_helper_still_at_work():
    (h,) = helper.start_helpers([[lambda: time.sleep(120) or ({}, b"")]], "m.json")
    assert h is not None
    pid = h.pid
    start = time.monotonic()
    h.close()
    assert time.monotonic() - start < 30
    with pytest.raises(TlirError):
        h.futures[0].result(timeout=10)
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(pid, os.WNOHANG)


def test_a_failed_fork_leaves_the_share_to_the_caller(monkeypatch):
    def no_memory():
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(os, "fork", no_memory)
    open_files = len(os.listdir("/proc/self/fd"))
    assert helper.start_helpers([[_pid_job("a")]], "m.json") == [None]
    assert len(os.listdir("/proc/self/fd")) == open_files  # the pipe is closed again


def test_an_interrupt_between_forks_leaves_no_helper_running(monkeypatch):
    real_fork, forked = os.fork, []

    def fork_once():
        if forked:
            raise KeyboardInterrupt
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork_once)
    slow = [lambda: time.sleep(120) or ({}, b"")]
    open_files = len(os.listdir("/proc/self/fd"))
    with pytest.raises(KeyboardInterrupt):
        helper.start_helpers([slow, slow], "m.json")
    assert len(os.listdir("/proc/self/fd")) == open_files  # every pipe closed
    with pytest.raises(ChildProcessError):  # the first helper was killed and reaped
        os.waitpid(forked[0], os.WNOHANG)


def test_processes_follows_the_environment(monkeypatch):
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "1")
    assert helper.processes() == 1
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "3")
    assert helper.processes() == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("TLIR_COMPILE_PROCESSES", bad)
        with pytest.raises(TlirError, match="TLIR_COMPILE_PROCESSES: error: must be a positive"):
            helper.processes()


def test_nothing_is_forked_while_another_python_thread_runs(monkeypatch):
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "3")
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert helper.processes() == 1
    finally:
        release.set()
        other.join()
    assert helper.processes() == 3


COMPILE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tlir
    model = tlir.compile(sys.argv[1], cache=False, backend=sys.argv[2])
    x = np.load(sys.argv[3])
    print(json.dumps({
        "helpers": model.stats["helper kernels"],
        "digests": model.object_digests,
        "out": [o.tobytes().hex() for o in model(x)],
    }))
    """
)


def _compile_in_subprocess(processes: str, backend: str) -> dict:
    env = {**os.environ, "TLIR_COMPILE_PROCESSES": processes}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            COMPILE,
            os.path.join(EXAMPLES, "transformer_block.json"),
            backend,
            os.path.join(EXAMPLES, "transformer_block_input.npy"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
def test_helpers_give_the_objects_and_results_of_one_process(backend):
    from tlir.compiler.backend import mlir

    if backend == "mlir" and not mlir.find_tool("mlir-opt"):
        pytest.skip("no mlir-opt")
    alone = _compile_in_subprocess("1", backend)
    shared = _compile_in_subprocess("3", backend)
    assert alone["helpers"] == 0
    assert shared["helpers"] > 0  # the helpers really compiled some kernels
    assert shared["digests"] == alone["digests"]
    assert shared["out"] == alone["out"]


PRELOAD = textwrap.dedent(
    """
    import sys
    import tlir
    from xdsl.dialects import func
    from tlir.compiler.backend import preload
    from tlir.compiler.build import _entry_module, start_lowering
    from tlir.passes.tlir_form_kernels import is_kernel

    work, _ = _entry_module(tlir.load_model(sys.argv[1]), "main", True)
    preload(sys.argv[2])
    before = set(sys.modules)
    for kernel in work.ops:
        if isinstance(kernel, func.FuncOp) and is_kernel(kernel):
            start_lowering(kernel, sys.argv[2], "m")
    print(sorted(m for m in set(sys.modules) - before if m.startswith(("tlir", "xdsl"))))
    """
)


@pytest.mark.parametrize("example", ["cnn.json", "transformer_block.json"])
@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
def test_preload_imports_what_lowering_imports(backend, example):
    """Helpers are forked after `preload`: a module lowering imported later
    would be imported again by every process."""
    proc = subprocess.run(
        [sys.executable, "-c", PRELOAD, os.path.join(EXAMPLES, example), backend],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_tlir_run_rejects_a_bad_process_count_in_one_line():
    proc = subprocess.run(
        ["tlir-run", "examples/cnn.json", "--input", "examples/cnn_input.npy", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "TLIR_COMPILE_PROCESSES": "two"},
        timeout=300,
    )
    assert proc.returncode == 1
    assert proc.stderr == ("TLIR_COMPILE_PROCESSES: error: must be a positive integer, got 'two'\n")


def _future_job(tag: str, delay: float, error: BaseException | None = None):
    """A job that returns at once with its object still being made by a thread."""

    def job():
        from concurrent.futures import Future

        future: Future = Future()

        def finish():
            time.sleep(delay)
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(tag.encode() * 2)

        threading.Thread(target=finish).start()
        return {"tag": tag, "started": time.monotonic()}, future

    return job


def test_a_job_may_finish_on_a_thread_while_the_next_one_runs():
    """Results still come in job order; the second job started before the
    first one's object was done (the helper does not wait for it)."""
    outcomes = _run_one_share([_future_job("a", 1.0), _future_job("b", 0.0), _pid_job("c")])
    assert [(header["tag"], data) for header, data in outcomes] == [
        ("a", b"aa"),
        ("b", b"bb"),
        ("c", b"ccc"),
    ]
    assert outcomes[1][0]["started"] - outcomes[0][0]["started"] < 0.5


def test_an_error_finishing_a_job_reaches_the_caller_after_the_results_before_it():
    error = TlirError("m.json:7:1", "LLVM rejected it")
    outcomes = _run_one_share([_pid_job("a"), _future_job("b", 0.2, error), _future_job("c", 0.0)])
    assert outcomes[0][1] == b"aaa"
    for err in outcomes[1:]:
        assert isinstance(err, TlirError)
        assert (err.where, err.message) == ("m.json:7:1", "LLVM rejected it")


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_lowering_bug_is_a_one_line_internal_error_in_every_process(processes, monkeypatch):
    """An unexpected exception of the kernel lowering reaches `tlir.compile` as a
    located TlirError naming it, whether this process or a helper lowered the kernel."""
    import tlir
    import tlir.compiler.backend

    def broken(kernel, *rest):
        raise ValueError("unsupported affine expression None")

    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", processes)
    monkeypatch.setattr(tlir.compiler.backend, "kernel_to_loops", broken)
    text = """func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %a = tlir.tanh %x : (tensor<4xf64>) -> tensor<4xf64>
  %b = tlir.exp %a : (tensor<4xf64>) -> tensor<4xf64>
  func.return %b : tensor<4xf64>
}
"""
    with pytest.raises(TlirError) as caught:
        tlir.compile(text, fuse=False, cache=False)
    assert "internal error" in caught.value.message
    assert "ValueError: unsupported affine expression None" in caught.value.message
    assert "\n" not in str(caught.value)


def test_a_huge_process_count_is_capped(monkeypatch):
    """Not one process per kernel: at most the usable cores (or the default's
    bound, if more)."""
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", str(10**6))
    cores = len(os.sched_getaffinity(0))
    assert helper.processes() == max(cores, helper.MAX_PROCESSES)


REAPED = textwrap.dedent(
    """
    import os, signal, sys
    import numpy as np
    import tlir
    if sys.argv[2] == "ignore":
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    else:  # the program reaps every child itself, as it exits
        def reap(signum, frame):
            while True:
                try:
                    if os.waitpid(-1, os.WNOHANG) == (0, 0):
                        return
                except ChildProcessError:
                    return
        signal.signal(signal.SIGCHLD, reap)
    model = tlir.compile(sys.argv[1], cache=False)
    x = np.load(sys.argv[3])
    print(model.stats["helper kernels"], model(x)[0].tobytes().hex())
    """
)


@pytest.mark.parametrize("how", ["ignore", "reap"])
def test_a_program_that_ignores_or_reaps_its_children_compiles_with_helpers(how):
    """With SIGCHLD ignored the kernel reaps the helpers, with a handler the
    program does: the compile must not depend on waiting for them."""
    from tlir.reference import evaluate

    path = os.path.join(EXAMPLES, "transformer_block.json")
    x_path = os.path.join(EXAMPLES, "transformer_block_input.npy")
    proc = subprocess.run(
        [sys.executable, "-c", REAPED, path, how, x_path],
        capture_output=True,
        text=True,
        env={**os.environ, "TLIR_COMPILE_PROCESSES": "3"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    helpers, out = proc.stdout.split()
    assert int(helpers) > 0
    (want, *_) = evaluate(tlir.load_model(path), [np.load(x_path)])
    assert out == np.asarray(want).tobytes().hex()


def test_a_progress_bar_leaves_no_thread_behind():
    """tqdm starts a monitor thread that outlives its bar; while it runs, no
    later compile in the process may fork helpers (`helper.processes()` is 1)."""
    import threading

    from tlir.compiler.build import _progress

    before = threading.active_count()
    bar = _progress(3, True)
    bar.update()
    bar.close()
    assert threading.active_count() == before
