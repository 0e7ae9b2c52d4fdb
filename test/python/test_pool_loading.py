"""When the thread runtime (`tlir.compiler.pool`) is loaded, and from where: a compile
and calls on one thread never load it, the first call on more threads does;
a process that finds it in the compile cache links it without running LLVM;
a cache entry that is not what it claims is refused and compiled again.
Results are compared with the reference evaluator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tlir.compiler import cache, cache_entry, jit, pool

pytestmark = pytest.mark.skipif(not jit.host().threads, reason="no POSIX threads")

CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tlir
    from tlir.compiler import jit, pool
    from tlir.reference import evaluate

    compiled = []  # what LLVM compiled in this process
    original = jit._compile_object
    def spy(llvm_ir, opt_level, where, *rest):
        compiled.append(where)
        return original(llvm_ir, opt_level, where, *rest)
    jit._compile_object = spy

    T = "tensor<96x96xf64>"
    text = (f"func.func @main(%x: {T}, %w: {T}) -> {T} {{\\n"
            f"  %0 = tlir.matmul %x, %w : ({T}, {T}) -> {T}\\n"
            f"  %1 = tlir.tanh %0 : ({T}) -> {T}\\n  func.return %1 : {T}\\n}}")
    rng = np.random.default_rng(0)
    inputs = [rng.normal(size=(96, 96)) for _ in range(2)]
    expected = evaluate(tlir.parse_module(text), inputs)[0].tobytes()
    model = tlir.compile(text, threads=1)
    after_compile = pool.loaded()
    same = model(*inputs)[0].tobytes() == expected
    after_one = pool.loaded()
    model.threads = 2
    same = same and model(*inputs)[0].tobytes() == expected
    print(json.dumps({"compile": after_compile, "one": after_one, "two": pool.loaded(),
                      "same": same, "compiled": compiled}))
    """
)


def _child(cache_dir: str) -> dict:
    env = {**os.environ, "TLIR_CACHE_DIR": cache_dir}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_runtime_is_loaded_by_the_first_call_on_more_threads(tmp_path):
    result = _child(str(tmp_path / "cache"))
    assert (result["compile"], result["one"], result["two"]) == (False, False, True)
    assert result["same"]


def test_a_warm_process_links_the_runtime_without_compiling_it(tmp_path):
    cold = _child(str(tmp_path / "cache"))
    assert {"thread runtime", "thread stub"} <= set(cold["compiled"])
    warm = _child(str(tmp_path / "cache"))
    assert warm["same"] and warm["two"]
    assert warm["compiled"] == []  # kernels, entry, stub and runtime all from the cache


def test_without_a_cache_the_runtime_is_compiled(tmp_path):
    result = _child("")  # TLIR_CACHE_DIR= : no cache
    assert result["same"] and "thread runtime" in result["compiled"]


FOREIGN = """
declare i32 @system(ptr)
define void @tlir_rt_pool_parallel(ptr %f, ptr %args, i64 %n, i32 %threads) {
  %r = call i32 @system(ptr null)
  ret void
}
"""


def test_a_runtime_entry_calling_a_foreign_function_is_refused_and_recompiled(
    tmp_path, monkeypatch
):
    """An entry under the runtime's key whose object calls `system` (a cache
    another process of this user wrote into): refused, discarded, and the
    runtime compiled from its IR instead."""
    import llvmlite.binding as llvm

    monkeypatch.setenv("TLIR_CACHE_DIR", str(tmp_path / "cache"))
    machine = jit.target_machine(0)
    hostile = machine.emit_object(llvm.parse_assembly(FOREIGN))
    ir, level = pool.runtime_ir(), pool.RUNTIME_OPT_LEVEL
    key = cache.digest("runtime", "thread runtime", jit.host().describe(), f"-O{level}", ir)
    store = cache.open_cache()
    store.put(key, cache_entry.runtime_entry(key, "thread runtime", hostile))
    with pytest.raises(ValueError, match="system"):
        cache_entry.read_runtime(store.get(key), key, "thread runtime", pool.PTHREAD_FUNCTIONS)
    data = pool.load_object("thread runtime", ir, level, pool.PTHREAD_FUNCTIONS)
    assert "system" not in jit.foreign_symbols(data, pool.PTHREAD_FUNCTIONS)
    assert data == jit.compile_object(ir, level, "thread runtime", pool.PTHREAD_FUNCTIONS)
    stored = cache_entry.read_runtime(store.get(key), key, "thread runtime", pool.PTHREAD_FUNCTIONS)
    assert stored == data  # the good object replaced the hostile one


def test_a_runtime_entry_under_another_key_is_refused():
    entry = cache_entry.runtime_entry("a" * 64, "thread runtime", b"\x7fELF")
    with pytest.raises(ValueError, match="another key"):
        cache_entry.read_runtime(entry, "b" * 64, "thread runtime", frozenset())
