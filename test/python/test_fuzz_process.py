"""The process-level contract under fuzzing: environment variables, fork and SIGCHLD.

* Any text in a `TLIR_*` variable: reading it gives a usable value, or a
  one-line `TlirError` naming the variable with the value escaped (the cache's
  own variables: a warning line and no cache, or the default) — never another
  exception, never a line that is not printable.
* A compiled model called on any thread count, in a child forked after the
  parent ran it threaded (or never ran it), in a process that ignores SIGCHLD
  or reaps its own children: the child's results are the parent's bits, and the
  child does not hang.

CI runs a short budget (`TLIR_FUZZ_EXAMPLES` or `--long` for more).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from fuzz_graphs import budget
from hypothesis import given
from hypothesis import strategies as st

from tlir import limits
from tlir.compiler import cache, helper, threads
from tlir.diagnostics import TlirError

ROOT = Path(__file__).resolve().parents[2]

READERS = {
    "TLIR_NUM_THREADS": threads.default_threads,
    "TLIR_COMPILE_PROCESSES": helper.processes,
    "TLIR_MAX_TENSOR_BYTES": limits.max_tensor_bytes,
}

# what an environment variable can hold: any text but NUL and lone surrogates
ENV_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
) | st.sampled_from(["²", "٣", "1e400", "nan", "-1", "0", "99999999999999999999", " 7 ", "1_0"])


def _with_env(name: str, value: str, call):
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        return call()
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


@budget(ci=300, long=60_000)
@given(name=st.sampled_from(sorted(READERS)), value=ENV_TEXT)
def test_any_number_variable_is_a_value_or_one_line(name, value):
    try:
        result = _with_env(name, value, READERS[name])
    except TlirError as err:
        line = str(err)
        assert line.startswith(f"{name}: error: ") and line.isprintable(), line
        return
    assert isinstance(result, int) and result >= 1


@budget(ci=200, long=40_000)
@given(value=ENV_TEXT)
def test_any_cache_size_is_a_size_or_a_warning(value):
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        size = cache._max_bytes(value)
    assert isinstance(size, int) and size >= 0
    for line in err.getvalue().splitlines():
        assert line.startswith("tlir: warning: TLIR_CACHE_MAX_MB") and line.isprintable()


@budget(ci=100, long=20_000)
@given(value=ENV_TEXT)
def test_any_cache_directory_is_a_cache_or_one_warning(tmp_path_factory, value):
    import contextlib
    import io

    base = tmp_path_factory.mktemp("cache-dir")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        store = _with_env("TLIR_CACHE_DIR", str(base / value) if value else "", cache.open_cache)
    lines = err.getvalue().splitlines()
    assert len(lines) <= 1 and all(line.isprintable() for line in lines)
    assert store is None or lines == []


CHILD = textwrap.dedent(
    """
    import os, signal, sys
    import numpy as np
    import tlir
    model_path, input_path, threads, before, sigchld = sys.argv[1:6]
    if sigchld == "ignore":
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    elif sigchld == "reap":
        def reap(signum, frame):
            try:
                while os.waitpid(-1, os.WNOHANG) != (0, 0):
                    pass
            except ChildProcessError:
                pass
        signal.signal(signal.SIGCHLD, reap)
    model = tlir.compile(model_path, threads=int(threads))
    x = np.load(input_path)
    want = b"".join(y.tobytes() for y in model(x)) if before == "yes" else None
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        got = b"".join(y.tobytes() for y in model(x))
        os.write(write, got[:65536])
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    if want is None:
        want = b"".join(y.tobytes() for y in model(x))
    print("same" if b"".join(chunks) == want[:65536] else "differs")
    """
)


@budget(ci=4, long=400)
@given(
    model=st.sampled_from(["cnn", "transformer_block"]),
    thread_count=st.integers(1, 4),
    before=st.sampled_from(["yes", "no"]),
    sigchld=st.sampled_from(["default", "ignore", "reap"]),
)
def test_a_forked_child_runs_the_model_with_the_parents_bits(model, thread_count, before, sigchld):
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(ROOT / "examples" / f"{model}.json"),
            str(ROOT / "examples" / f"{model}_input.npy"),
            str(thread_count),
            before,
            sigchld,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "same", proc.stdout + proc.stderr
