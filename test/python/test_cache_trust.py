"""The compile cache links what it reads into the process, so no one but the
user may write it, nothing in it is ever unpickled, and an entry is used only
for what it was made for: a cache another user could write is refused (one
warning line, then the compile runs uncached); a value of the wrong kind, an
entry moved under another key or made for another model, and an object that
would call a function compiled code may not call are misses, recompiled, with
the right results."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import fuzz_cache
import numpy as np
import pytest
from test_compile_cache import INPUTS, MODEL  # the model both cache suites compile

import tlir
from tlir.compiler import jit
from tlir.compiler.cache import DATABASE
from tlir.compiler.elf import undefined_symbols
from tlir.reference import evaluate

OTHER_UID = 54321

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file away takes root")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TLIR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _want(text: str = MODEL, inputs=INPUTS) -> list[bytes]:
    return [a.tobytes() for a in evaluate(tlir.parse_module(text), inputs)]


def _bits(outputs) -> list[bytes]:
    return [o.tobytes() for o in outputs]


RUN = """
import json, sys
import numpy as np
import tlir
from tlir.reference import evaluate
text = open(sys.argv[1]).read()
inputs = [np.load(p) for p in sys.argv[2:]]
model = tlir.compile(text)
got = [o.tobytes() for o in model(*inputs)]
want = [o.tobytes() for o in evaluate(tlir.parse_module(text), inputs)]
print(json.dumps({"cache": model.stats["cache"], "right": got == want}))
"""


def _compile_elsewhere(tmp_path, cache: str) -> tuple[dict, list[str]]:
    """MODEL compiled in a new process with TLIR_CACHE_DIR=cache: (its cache
    state and whether its results are right, its stderr lines)."""
    model = tmp_path / "m.mlir"
    model.write_text(MODEL)
    paths = []
    for i, x in enumerate(INPUTS):
        paths.append(str(tmp_path / f"x{i}.npy"))
        np.save(paths[-1], x)
    env = {**os.environ, "TLIR_CACHE_DIR": cache}
    proc = subprocess.run(
        [sys.executable, "-c", RUN, str(model), *paths], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr.splitlines()


def _assert_refused(tmp_path, cache, reason: str) -> None:
    result, lines = _compile_elsewhere(tmp_path, str(cache))
    assert result == {"cache": "off", "right": True}
    assert len(lines) == 1, lines
    assert lines[0].startswith("tlir: warning: compile cache disabled: ") and reason in lines[0]


# --- who may write the cache ------------------------------------------------------


def test_the_directory_and_the_database_are_private(cache_dir):
    tlir.compile(MODEL)
    assert cache_dir.stat().st_mode & 0o777 == 0o700
    files = list(cache_dir.iterdir())
    assert cache_dir / DATABASE in files
    for path in files:  # the database, and its -wal and -shm while it is open
        assert path.stat().st_mode & 0o777 == 0o600, path


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_a_directory_others_may_write_is_refused(tmp_path, mode):
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(mode)
    _assert_refused(tmp_path, cache, "is writable by group or others")
    assert list(cache.iterdir()) == []  # nothing written to it either


@as_root
def test_a_directory_of_another_user_is_refused(tmp_path):
    cache = tmp_path / "theirs"
    cache.mkdir(mode=0o700)
    os.chown(cache, OTHER_UID, -1)
    _assert_refused(tmp_path, cache, f"is owned by uid {OTHER_UID}, not by this user")


@pytest.mark.parametrize("owner", ["mode", pytest.param("uid", marks=as_root)])
def test_a_database_others_may_write_is_refused(tmp_path, owner):
    cache = tmp_path / "cache"
    assert _compile_elsewhere(tmp_path, str(cache))[0]["cache"] == "miss"
    if owner == "mode":
        (cache / DATABASE).chmod(0o666)
        reason = "is writable by group or others"
    else:
        os.chown(cache / DATABASE, OTHER_UID, -1)
        reason = f"is owned by uid {OTHER_UID}"
    _assert_refused(tmp_path, cache, reason)


def test_a_database_that_is_a_symbolic_link_is_refused(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / DATABASE).symlink_to(tmp_path / "elsewhere.db")
    _assert_refused(tmp_path, cache, "is not a regular file")
    assert not (tmp_path / "elsewhere.db").exists()


def test_a_directory_others_could_swap_is_refused(tmp_path):
    """Under a directory others may write (no sticky bit), the cache directory
    itself could be renamed away and replaced; under a sticky one it cannot."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    _assert_refused(tmp_path, shared / "cache", "above the cache is writable by others")
    assert list(shared.iterdir()) == []  # the cache directory was not made there
    shared.chmod(0o1777)  # as /tmp
    assert _compile_elsewhere(tmp_path, str(shared / "cache"))[0]["cache"] == "miss"
    assert _compile_elsewhere(tmp_path, str(shared / "cache"))[0]["cache"] == "hit"


def test_a_refusal_quotes_the_directory_on_one_line(tmp_path):
    cache = tmp_path / "two\nlines"
    cache.mkdir()
    cache.chmod(0o777)
    _assert_refused(tmp_path, cache, "two\\nlines")


# --- what is read from it ---------------------------------------------------------


class _Payload:
    """A pickle that, loaded, would create `path`."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_no_stored_value_is_unpickled(cache_dir, tmp_path, monkeypatch):
    tlir.compile(MODEL)
    marker = tmp_path / "ran"
    for key in fuzz_cache.entries(cache_dir):
        fuzz_cache.write_raw(cache_dir, key, pickle.dumps(_Payload(marker)))

    def refuse(*args, **kwargs):
        raise AssertionError("the compile cache unpickled a value")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    monkeypatch.setenv("TLIR_COMPILE_PROCESSES", "1")  # (helpers send their results pickled)
    model = tlir.compile(MODEL)
    assert model.stats["cache"] == "miss"
    assert _bits(model(*INPUTS)) == _want()
    assert not marker.exists()


def test_tlir_run_with_a_poisoned_shared_cache_runs_nothing_of_it(tmp_path):
    """The attack: another user's cache directory (mode 777) whose entries are
    pickles. tlir-run warns, compiles without it, and runs only the model."""
    cache = tmp_path / "shared"
    assert _compile_elsewhere(tmp_path, str(cache))[0]["cache"] == "miss"
    marker = tmp_path / "ran"
    for key in fuzz_cache.entries(cache):
        fuzz_cache.write_raw(cache, key, pickle.dumps(_Payload(marker)))
    cache.chmod(0o777)
    (cache / DATABASE).chmod(0o666)
    args = ["tlir-run", str(tmp_path / "m.mlir"), "--compare", "-q"]
    args += ["--input", str(tmp_path / "x0.npy"), "--input", str(tmp_path / "x1.npy")]
    proc = subprocess.run(
        args, capture_output=True, text=True, env={**os.environ, "TLIR_CACHE_DIR": str(cache)}
    )
    assert proc.returncode == 0 and "bit-identical" in proc.stdout, proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "compile cache disabled" in proc.stderr
    assert not marker.exists()


def test_a_forged_object_is_not_linked(cache_dir, tmp_path):
    """A kernel entry with a valid checksum and header whose object calls
    `system`: refused before linking, recompiled, never run."""
    tlir.compile(MODEL)
    marker = tmp_path / "ran"
    for key in fuzz_cache.kinds(cache_dir)["kernel"]:
        header = fuzz_cache.header_of(fuzz_cache.entries(cache_dir)[key])
        abi = header["abi"]
        arity = abi["num_inputs"] + abi["num_outputs"] + len(abi["scratch_bytes"])
        forged = fuzz_cache.foreign_object(header["name"], arity, f"touch {marker}")
        fuzz_cache.write_entry(cache_dir, key, fuzz_cache.pack(header, forged))
    model = tlir.compile(MODEL)
    assert model.stats["cache"] == "miss"
    assert _bits(model(*INPUTS)) == _want()
    assert not marker.exists()
    assert tlir.compile(MODEL).stats["cache"] == "hit"  # rewritten


def test_a_kernel_entry_under_the_model_key_is_a_miss(cache_dir):
    tlir.compile(MODEL)
    found = fuzz_cache.kinds(cache_dir)
    (model_key,), kernel_key = found["model"], found["kernel"][0]
    fuzz_cache.write_raw(cache_dir, model_key, fuzz_cache.entries(cache_dir)[kernel_key])
    for _ in range(2):  # discarded, not met again
        model = tlir.compile(MODEL)
        assert _bits(model(*INPUTS)) == _want()
    assert model.stats["cache"] == "hit"


def test_swapped_kernel_entries_are_misses(cache_dir):
    tlir.compile(MODEL)
    a, b = fuzz_cache.kinds(cache_dir)["kernel"][:2]
    values = fuzz_cache.entries(cache_dir)
    fuzz_cache.write_raw(cache_dir, a, values[b])
    fuzz_cache.write_raw(cache_dir, b, values[a])
    model = tlir.compile(MODEL)
    assert model.stats["cache"] == "miss"
    assert _bits(model(*INPUTS)) == _want()


def _with_constant(shape: str, values: str) -> str:
    typ = f"tensor<{shape}xf64>"
    return f"""func.func @main(%x: {typ}) -> {typ} {{
  %c = tlir.const {{value = dense<{values}> : {typ}}} : {typ}
  %0 = tlir.mul_elem %x, %c : ({typ}, {typ}) -> {typ}
  func.return %0 : {typ}
}}"""


def test_a_model_entry_under_another_models_key_is_a_miss(cache_dir):
    """Two models with one constant each, of other shapes: B's entry under A's
    key once ran with A's arrays and returned NaNs."""
    a, b = _with_constant("4", "[1.0, 2.0, 3.0, 4.0]"), _with_constant("64", "2.0")
    tlir.compile(a)
    keys_a = set(fuzz_cache.kinds(cache_dir)["model"])
    tlir.compile(b)
    (key_b,) = set(fuzz_cache.kinds(cache_dir)["model"]) - keys_a
    (key_a,) = keys_a
    fuzz_cache.write_raw(cache_dir, key_a, fuzz_cache.entries(cache_dir)[key_b])
    model = tlir.compile(a)
    x = np.array([0.5, -1.0, 2.0, 0.0])
    assert model.stats["cache"] == "miss"
    assert _bits(model(x)) == _want(a, [x])


def test_a_fresh_object_the_load_check_would_refuse_is_not_stored(cache_dir, monkeypatch):
    """Were a function LLVM calls missing from what cached objects may call, the
    entry would be refused at every load: it is not written at all. (At least
    one of MODEL's two kernels calls memcpy or memset, LLVM's own calls; which
    ones depends on the tiling chosen for the host.)"""
    codegen = jit.CODEGEN_FUNCTIONS
    monkeypatch.setattr(jit, "CODEGEN_FUNCTIONS", frozenset())
    model = tlir.compile(MODEL)
    assert _bits(model(*INPUTS)) == _want()
    stored, values = fuzz_cache.kinds(cache_dir)["kernel"], fuzz_cache.entries(cache_dir)
    assert len(stored) < 2  # a kernel calling LLVM's own functions was refused
    for key in stored:  # and any written calls none of them
        assert not undefined_symbols(fuzz_cache.unpack(values[key][32:])[1]) & codegen
    monkeypatch.undo()
    monkeypatch.setenv("TLIR_CACHE_DIR", str(cache_dir))
    tlir.compile(MODEL)
    assert len(fuzz_cache.kinds(cache_dir)["kernel"]) == 2
    assert tlir.compile(MODEL).stats["cache"] == "hit"


# --- the object check ---------------------------------------------------------------


def test_the_undefined_symbols_of_an_object():
    ir = """
declare double @exp(double)
declare void @k_other(ptr, i64, i64)
define double @k_mine(double %x) {
  %y = call double @exp(double %x)
  call void @k_other(ptr null, i64 0, i64 1)
  ret double %y
}
"""
    data = jit.compile_object(ir, 0, provided=frozenset({"k_other"}))
    assert undefined_symbols(data) == {"exp", "k_other"}
    assert jit.foreign_symbols(data, frozenset({"k_other"})) == set()
    assert jit.foreign_symbols(data) == {"k_other"}
    assert jit.foreign_symbols(fuzz_cache.foreign_object()) == {"system"}


@pytest.mark.parametrize(
    "data", [b"", b"\x7fELF", b"MZ" + bytes(100), b"\x7fELF\x02\x01" + bytes(58)]
)
def test_what_is_not_a_readable_object_is_an_error(data):
    with pytest.raises(ValueError, match="not a readable ELF object"):
        undefined_symbols(data)


def test_extended_section_numbering_is_an_error():
    """With a section count of 0 the count is in section 0 (as linkers read
    it): refused rather than read as an object without symbols."""
    data = bytearray(fuzz_cache.foreign_object())
    data[0x3C:0x3E] = bytes(2)  # e_shnum of a 64-bit little-endian object
    with pytest.raises(ValueError, match="unexpected section headers"):
        undefined_symbols(bytes(data))


def test_a_truncated_object_is_an_error():
    data = fuzz_cache.foreign_object()
    for end in range(0, len(data), 97):
        with pytest.raises(ValueError):
            undefined_symbols(data[:end])
