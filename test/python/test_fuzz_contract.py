"""The error contract under fuzzing: mutated JSON graphs and mutated MLIR
modules go through the importer (or parser), the verifier, the reference
evaluator and the compiler in-process; each stage succeeds or raises a one-line
`TlirError` that starts with a location — never another exception, never a
hang. The command-line tools get a few of the same inputs: exit code 0 or 1,
one line on stderr, no traceback, no internal error.

The compile cache is fuzzed too: an entry corrupted, truncated, swapped or forged
(`fuzz_cache`) is always a miss, and the results stay right.

CI runs a short budget; `pytest test/python/test_fuzz_contract.py --long` (or
`TLIR_FUZZ_LONG=1`) runs for hours.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zlib

import fuzz_cache
import fuzz_mutations as fm
import numpy as np
from fuzz_graphs import budget
from hypothesis import event, given
from hypothesis import strategies as st

MLIR_SOURCES = fm.mlir_sources()


def _stats(outcome: dict[str, str]) -> None:
    for stage, result in outcome.items():
        event(f"{stage}: {result}")


@budget(ci=1000, long=100_000)
@given(text=fm.json_documents(), dtype=st.sampled_from(["f32", "f64"]), compile_it=st.booleans())
def test_mutated_json_keeps_the_error_contract(tmp_path_factory, text, dtype, compile_it):
    from tlir.torchlean import import_file

    path = tmp_path_factory.mktemp("json") / "model.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    _stats(fm.run_stages(lambda: import_file(str(path), dtype), text, compile_it))


@budget(ci=1000, long=100_000)
@given(source=fm.mlir_texts(MLIR_SOURCES), compile_it=st.integers(0, 3))
def test_mutated_mlir_keeps_the_error_contract(source, compile_it):
    from tlir.api import parse_module_checked
    from tlir.diagnostics import verify_module

    name, text = source

    def load():
        module = parse_module_checked(text, f"{name}.mlir")
        verify_module(module, f"{name}.mlir")
        return module

    _stats(fm.run_stages(load, text, compile_it == 0, seed=zlib.crc32(text.encode())))


def _tool(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    env.pop("TLIR_DEBUG", None)
    script = f"import sys; from tlir.tools.{args[0]} import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", script, *args[1:]],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        preexec_fn=fm.limit_child_memory,
    )


def _assert_tool_contract(proc: subprocess.CompletedProcess, source: str) -> None:
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr, source)
    assert "Traceback" not in proc.stderr, (proc.stderr, source)
    for name, pattern in fm.KNOWN.items():
        if pattern.search(proc.stderr.rstrip("\n")):
            event(f"known issue: {name} (tool)")
            return
    for name, (kind, pattern) in fm.KNOWN_EXCEPTIONS.items():
        if f"internal error: {kind.__name__}" in proc.stderr and pattern.search(proc.stderr):
            event(f"known issue: {name} (tool)")
            return
    assert "internal error" not in proc.stderr, (proc.stderr, source)
    assert "Warning" not in proc.stderr, (proc.stderr, source)
    if proc.returncode == 1:
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and fm.ERROR_LINE.match(lines[0]), (proc.stderr, source)
        assert lines[0].isprintable(), (proc.stderr, source)


@budget(ci=8, long=2000)
@given(text=fm.json_documents(), source=fm.mlir_texts(MLIR_SOURCES))
def test_tools_keep_the_error_contract_on_mutated_inputs(tmp_path_factory, text, source):
    """tlir-run on a mutated graph (with an input of the right shape when it
    imports), tlir-opt and tlir-translate on a mutated module."""
    directory = tmp_path_factory.mktemp("tools")
    model = directory / "model.json"
    model.write_text(text, encoding="utf-8", errors="surrogatepass")
    args = ["run", str(model), "-q", "--no-cache"]
    try:
        import json

        shape = json.loads(text)["nodes"][0]["shape"]
        array = np.linspace(-2, 2, int(np.prod(shape))).reshape(shape)
        if array.size <= fm.MAX_ELEMENTS:
            np.save(directory / "x.npy", array)
            args += ["--input", str(directory / "x.npy")]
    except Exception:  # noqa: BLE001 - a mutated graph may have no usable input shape
        pass
    _assert_tool_contract(_tool(*args), text)
    module = directory / "module.mlir"
    module.write_text(source[1])
    _assert_tool_contract(_tool("opt", str(module), "-p", "convert-tlir-to-linalg"), source[1])
    _assert_tool_contract(_tool("translate", "--export-torchlean", str(module)), source[1])


CACHED_MODEL = """func.func @main(%x: tensor<8x16xf64>, %w: tensor<16x16xf64>) -> tensor<8x16xf64> {
  %c = tlir.const {value = dense<0.5> : tensor<8x16xf64>} : tensor<8x16xf64>
  %0 = tlir.matmul %x, %w : (tensor<8x16xf64>, tensor<16x16xf64>) -> tensor<8x16xf64>
  %1 = tlir.tanh %0 : (tensor<8x16xf64>) -> tensor<8x16xf64>
  %2 = tlir.add %1, %c : (tensor<8x16xf64>, tensor<8x16xf64>) -> tensor<8x16xf64>
  %3 = tlir.softmax %2 axis = 1 : (tensor<8x16xf64>) -> tensor<8x16xf64>
  func.return %3 : tensor<8x16xf64>
}"""


@budget(ci=60, long=6000)
@given(tampering=fuzz_cache.tamperings())
def test_a_tampered_cache_entry_is_a_miss_with_the_right_results(tmp_path_factory, tampering):
    """One cache for every example: each tampering is followed by a compile that
    misses and rewrites what it touched, so the next example meets a whole cache."""
    import tlir
    from tlir.reference import evaluate

    directory = tmp_path_factory.getbasetemp() / "tampered-cache"
    previous = os.environ.get("TLIR_CACHE_DIR")
    os.environ["TLIR_CACHE_DIR"] = str(directory)
    try:
        rng = np.random.default_rng(0)
        inputs = [rng.normal(size=(8, 16)), rng.normal(size=(16, 16))]
        want = [a.tobytes() for a in evaluate(tlir.parse_module(CACHED_MODEL), inputs)]
        if tlir.compile(CACHED_MODEL).stats["cache"] == "miss":  # the first example's
            assert tlir.compile(CACHED_MODEL).stats["cache"] == "hit"
        what = tampering.apply(directory)
        event(f"cache: {tampering.how} ({tampering.kind})")
        model = tlir.compile(CACHED_MODEL)
        assert model.stats["cache"] == "miss", what
        assert [a.tobytes() for a in model(*inputs)] == want, what
    finally:
        if previous is None:
            os.environ.pop("TLIR_CACHE_DIR", None)
        else:
            os.environ["TLIR_CACHE_DIR"] = previous


@budget(ci=40, long=4000)
@given(tampering=fuzz_cache.tamperings(kinds=("source", "model", "kernel")))
def test_a_tampered_entry_of_a_model_file_is_a_miss_with_the_right_results(
    tmp_path_factory, tampering
):
    """A file's compile goes through its source entry (`tlir.compiler.warm`)
    first: tampering with it, or with the model and kernels it names, is a
    miss (of the source entry, or of the compiled model) with the right
    results. A parameter list the model could have (an empty one) is the one
    change of a source entry that cannot be checked without the module."""
    import tlir
    from tlir.reference import evaluate

    base = tmp_path_factory.getbasetemp()
    directory = base / "tampered-source-cache"
    path = base / "cached-model.mlir"
    previous = os.environ.get("TLIR_CACHE_DIR")
    os.environ["TLIR_CACHE_DIR"] = str(directory)
    try:
        path.write_text(CACHED_MODEL)
        rng = np.random.default_rng(0)
        inputs = [rng.normal(size=(8, 16)), rng.normal(size=(16, 16))]
        want = [a.tobytes() for a in evaluate(tlir.parse_module(CACHED_MODEL), inputs)]
        if tlir.compile(str(path)).stats["source"] == "miss":  # the first example's
            assert tlir.compile(str(path)).stats["source"] == "hit"
        what = tampering.apply(directory)
        event(f"cache: {tampering.how} ({tampering.kind})")
        model = tlir.compile(str(path))
        if tampering.kind != "source":
            assert model.stats["cache"] == "miss", what
        elif "parameters: []" not in what:
            assert model.stats["source"] == "miss", what
        assert [a.tobytes() for a in model(*inputs)] == want, what
        assert list(model.parameters()) in (["const0"], []), what
    finally:
        if previous is None:
            os.environ.pop("TLIR_CACHE_DIR", None)
        else:
            os.environ["TLIR_CACHE_DIR"] = previous


DYNAMIC_MODEL = """func.func @main(%x: tensor<?x16xf64>, %w: tensor<16x16xf64>)
    -> (tensor<?x16xf64>, tensor<?x16xf64>) {
  %c = tlir.const {value = dense<0.5> : tensor<16xf64>} : tensor<16xf64>
  %b = tlir.broadcast_to %c : (tensor<16xf64>) -> tensor<?x16xf64>
  %0 = tlir.matmul %x, %w : (tensor<?x16xf64>, tensor<16x16xf64>) -> tensor<?x16xf64>
  %1 = tlir.tanh %0 : (tensor<?x16xf64>) -> tensor<?x16xf64>
  %2 = tlir.add %1, %b : (tensor<?x16xf64>, tensor<?x16xf64>) -> tensor<?x16xf64>
  %3 = tlir.softmax %2 axis = 1 : (tensor<?x16xf64>) -> tensor<?x16xf64>
  %4 = tlir.concat %3, %x axis = 0 : (tensor<?x16xf64>, tensor<?x16xf64>) -> tensor<?x16xf64>
  func.return %3, %4 : tensor<?x16xf64>, tensor<?x16xf64>
}"""
"""Its concat along the batch is compiled per batch (a "kernel" entry at each)."""


@budget(ci=60, long=6000)
@given(tampering=fuzz_cache.tamperings(kinds=("batch entry", "batch kernel", "kernel")))
def test_a_tampered_entry_of_a_dynamic_model_is_a_miss_with_the_right_results(
    tmp_path_factory, tampering
):
    """A dynamic model's kernels, entry function and kernel compiled at a batch
    (`tlir.compiler.batch_model`): a tampered one is a miss, with the right results."""
    import tlir
    from tlir.passes.tlir_specialize_batch import specialize
    from tlir.reference import evaluate

    directory = tmp_path_factory.getbasetemp() / "tampered-dynamic-cache"
    previous = os.environ.get("TLIR_CACHE_DIR")
    os.environ["TLIR_CACHE_DIR"] = str(directory)
    try:
        rng = np.random.default_rng(0)
        inputs = [rng.normal(size=(5, 16)), rng.normal(size=(16, 16))]
        module = specialize(tlir.parse_module(DYNAMIC_MODEL), 5)
        want = [a.tobytes() for a in evaluate(module, inputs)]

        def first_call() -> tuple[str, list[bytes]]:
            model = tlir.compile(DYNAMIC_MODEL)
            got = [a.tobytes() for a in model(*inputs)]  # (the one compile)
            return model.stats["cache"], got

        if first_call()[0] == "miss":  # the first example's
            assert first_call()[0] == "hit"
        what = tampering.apply(directory)
        event(f"cache: {tampering.how} ({tampering.kind})")
        assert first_call() == ("miss", want), what
    finally:
        if previous is None:
            os.environ.pop("TLIR_CACHE_DIR", None)
        else:
            os.environ["TLIR_CACHE_DIR"] = previous
