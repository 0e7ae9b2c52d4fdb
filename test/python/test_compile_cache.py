"""The compile cache: hits lower nothing and give the same machine code and
results; corrupt entries are recompiled; a bad directory is one warning line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import fuzz_cache
import numpy as np
import pytest

import tlir
from tlir.compiler.cache import CompileCache, open_cache, private_directory

MODEL = """func.func @main(%x: tensor<8x16xf64>, %w: tensor<16x16xf64>) -> tensor<8x16xf64> {
  %0 = tlir.matmul %x, %w : (tensor<8x16xf64>, tensor<16x16xf64>) -> tensor<8x16xf64>
  %1 = tlir.tanh %0 : (tensor<8x16xf64>) -> tensor<8x16xf64>
  %2 = tlir.softmax %1 axis = 1 : (tensor<8x16xf64>) -> tensor<8x16xf64>
  func.return %2 : tensor<8x16xf64>
}"""

INPUTS = [
    np.random.default_rng(0).normal(size=(8, 16)),
    np.random.default_rng(1).normal(size=(16, 16)),
]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TLIR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _bits(outputs):
    return [o.tobytes() for o in outputs]


def test_a_hit_gives_the_same_machine_code_and_results(cache_dir):
    uncached = tlir.compile(MODEL, cache=False)
    cold = tlir.compile(MODEL)
    warm = tlir.compile(MODEL)
    assert (uncached.stats["cache"], cold.stats["cache"], warm.stats["cache"]) == (
        "off",
        "miss",
        "hit",
    )
    assert "lowering" not in warm.stats and "tlir" not in warm.stats  # nothing lowered
    assert uncached.object_digests == cold.object_digests == warm.object_digests
    assert _bits(uncached(*INPUTS)) == _bits(cold(*INPUTS)) == _bits(warm(*INPUTS))


def test_kernels_are_shared_between_models(cache_dir):
    tlir.compile(MODEL)
    other = MODEL.replace("%2 = tlir.softmax %1 axis = 1", "%2 = tlir.softmax %1 axis = 0")
    model = tlir.compile(other)
    assert model.stats["cache"] == "miss"
    # the matmul + tanh kernel came from the cache: only the softmax was lowered
    assert model.stats["lowering"] > 0
    assert len(model.object_digests) == 3  # two kernels and the entry function


def test_constants_are_arguments_not_code(cache_dir):
    with_const = textwrap.dedent("""
        func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
          %c = tlir.const {value = dense<[1.0, 2.0]> : tensor<2xf64>} : tensor<2xf64>
          %0 = tlir.add %x, %c : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
          func.return %0 : tensor<2xf64>
        }""")
    a = tlir.compile(with_const)
    b = tlir.compile(with_const.replace("[1.0, 2.0]", "[5.0, -1.0]"))
    assert b.stats["cache"] == "hit"  # same structure, other weights
    x = np.array([0.5, 0.25])
    assert a.stats["cache"] == "miss"
    assert a(x)[0].tolist() == [1.5, 2.25] and b(x)[0].tolist() == [5.5, -0.75]


def test_a_corrupt_entry_is_recompiled_not_loaded(cache_dir):
    want = _bits(tlir.compile(MODEL)(*INPUTS))
    for key, value in fuzz_cache.entries(cache_dir).items():
        fuzz_cache.write_raw(
            cache_dir, key, value[:-7]
        )  # truncated: the checksum no longer matches
    model = tlir.compile(MODEL)
    assert model.stats["cache"] == "miss"
    assert _bits(model(*INPUTS)) == want
    assert tlir.compile(MODEL).stats["cache"] == "hit"  # rewritten


DYNAMIC = MODEL.replace("tensor<8x16xf64>", "tensor<?x16xf64>")


@pytest.mark.parametrize(
    "tampering",
    [
        fuzz_cache.Tampering("batch entry", 0, "truncate", position=0.5),
        fuzz_cache.Tampering("batch entry", 0, "flip", position=0.9),
        fuzz_cache.Tampering("batch entry", 0, "object", byte=0),  # calls `system`
        fuzz_cache.Tampering("batch entry", 0, "object", byte=3),  # not an object
        fuzz_cache.Tampering("batch entry", 0, "forge", field="key"),
        fuzz_cache.Tampering("batch entry", 0, "swap"),  # a kernel's entry under its key
        fuzz_cache.Tampering("batch kernel", 0, "drop field", field="info"),
    ],
    ids=lambda t: f"{t.kind}-{t.how}",
)
def test_a_dynamic_models_bad_entry_is_recompiled_not_loaded(cache_dir, tampering):
    """A dynamic model's entry function and kernels in the cache: one that does
    not check out is discarded and compiled again (and stored: the next compile hits)."""
    x = INPUTS[0][:5]

    def first_call(**options) -> tuple[list[bytes], str]:
        model = tlir.compile(DYNAMIC, **options)
        bits = _bits(model(x, INPUTS[1]))  # (the one compile for every batch)
        return bits, model.stats.get("cache")

    want, _ = first_call(cache=False)
    assert first_call() == (want, "miss")
    assert len(fuzz_cache.kinds(cache_dir)["batch entry"]) == 1
    assert first_call() == (want, "hit")
    what = tampering.apply(cache_dir)
    assert first_call() == (want, "miss"), what
    assert first_call() == (want, "hit"), what


def _compile_in_subprocess(env: dict, model_path: str) -> subprocess.CompletedProcess:
    code = (
        "import json, sys, tlir; m = tlir.compile(sys.argv[1]); print(json.dumps(m.stats['cache']))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, model_path],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )


def test_a_hit_in_a_new_process(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    env = {"TLIR_CACHE_DIR": str(tmp_path / "c")}
    first, second = (_compile_in_subprocess(env, str(path)) for _ in range(2))
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert json.loads(first.stdout) == "miss" and json.loads(second.stdout) == "hit"


def test_two_processes_compiling_at_once(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    env = {**os.environ, "TLIR_CACHE_DIR": str(tmp_path / "c")}
    code = "import sys, tlir, numpy as np; m = tlir.compile(sys.argv[1]); print('ok')"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(3)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and out.strip() == "ok", err


def test_an_unusable_directory_is_one_warning_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    proc = _compile_in_subprocess({"TLIR_CACHE_DIR": str(blocker / "cache")}, str(path))
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == "off"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tlir: warning: compile cache disabled"), lines


def test_an_empty_cache_dir_turns_the_cache_off(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    proc = _compile_in_subprocess({"TLIR_CACHE_DIR": ""}, str(path))
    assert proc.returncode == 0 and json.loads(proc.stdout) == "off", proc.stderr


def test_the_size_cap_evicts(cache_dir, monkeypatch):
    monkeypatch.setenv("TLIR_CACHE_MAX_MB", "0.01")  # 10 KB: less than one model
    for axis in (0, 1):
        tlir.compile(MODEL.replace("axis = 1", f"axis = {axis}"))
    assert open_cache().volume() <= 10 * 1024
    assert tlir.compile(MODEL)(*INPUTS)  # still compiles and runs


def test_eviction_takes_the_least_recently_used_entries(tmp_path):
    store = CompileCache(private_directory(str(tmp_path / "c")), max_bytes=3 * 1100)
    for key in "ab":
        store.put(key, bytes(1000))
    assert store.get("a") == bytes(1000)  # now "b" is the least recently used
    store.put("c", bytes(1000))
    assert sorted(store.keys()) == ["a", "b", "c"]  # 3 x 1032 bytes: within the cap
    store.put("d", bytes(1000))
    assert sorted(store.keys()) == ["a", "c", "d"]
    assert store.volume() == 3 * 1032


def test_read_discards_what_its_reader_refuses(tmp_path):
    store = CompileCache(private_directory(str(tmp_path / "c")), max_bytes=1 << 20)
    for key in ("good", "bad"):
        store.put(key, key.encode())

    def reader(payload: bytes) -> str:
        if payload == b"bad":
            raise ValueError("made for something else")
        return payload.decode()

    assert store.read("good", reader) == "good"
    assert store.read("missing", reader) is None
    readers = dict.fromkeys(["good", "bad", "missing"], reader)
    assert store.read_many(readers) == {"good": "good", "bad": None, "missing": None}
    assert store.keys() == ["good"]  # the refused entry is gone: the next compile replaces it


def test_a_lowered_cap_shrinks_the_file(tmp_path):
    directory = private_directory(str(tmp_path / "c"))
    store = CompileCache(directory, max_bytes=10 << 20)
    for i in range(20):
        store.put(f"k{i}", os.urandom(100_000))
    database = tmp_path / "c" / "cache.sqlite3"

    def size() -> int:
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return database.stat().st_size

    assert size() > 2_000_000
    store = CompileCache(directory, max_bytes=300_000)
    store.put("small", b"1")
    assert len(store.keys()) == 3 and size() < 600_000


def test_an_entry_larger_than_the_cap_is_not_kept(tmp_path):
    store = CompileCache(private_directory(str(tmp_path / "c")), max_bytes=100)
    store.put("big", bytes(200))
    assert store.get("big") is None and store.keys() == []


def test_tlir_run_no_cache_flag(tmp_path, cache_dir):
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    for i, x in enumerate(INPUTS):
        np.save(tmp_path / f"x{i}.npy", x)
    args = [
        "tlir-run",
        str(path),
        "--input",
        str(tmp_path / "x0.npy"),
        "--input",
        str(tmp_path / "x1.npy"),
        "--no-cache",
        "--compare",
    ]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "bit-identical" in proc.stdout
    assert not cache_dir.exists()


@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "-1", "12 MB"])
def test_a_bad_size_cap_is_one_warning_and_the_default(tmp_path, value):
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    env = {"TLIR_CACHE_DIR": str(tmp_path / "c"), "TLIR_CACHE_MAX_MB": value}
    runs = [_compile_in_subprocess(env, str(path)) for _ in range(2)]
    assert [json.loads(run.stdout) for run in runs] == ["miss", "hit"]  # the default cap
    for run in runs:
        lines = run.stderr.splitlines()
        assert len(lines) == 1, lines
        assert lines[0] == (
            "tlir: warning: TLIR_CACHE_MAX_MB must be a finite number of megabytes >= 0, "
            f"got '{value}'; using 1024"
        )


def test_a_huge_size_cap_is_no_cap(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    env = {"TLIR_CACHE_DIR": str(tmp_path / "c"), "TLIR_CACHE_MAX_MB": "1e300"}
    runs = [_compile_in_subprocess(env, str(path)) for _ in range(2)]
    assert [(json.loads(run.stdout), run.stderr) for run in runs] == [("miss", ""), ("hit", "")]


def test_a_newline_in_the_cache_directory_stays_on_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    proc = _compile_in_subprocess({"TLIR_CACHE_DIR": f"{blocker}/a\nb\u2028c"}, str(path))
    assert proc.returncode == 0 and json.loads(proc.stdout) == "off"
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "a\\nb\\u2028c" in lines[0], lines


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_corrupt_database_is_a_miss(tmp_path, damage):
    path = tmp_path / "m.mlir"
    path.write_text(MODEL)
    env = {"TLIR_CACHE_DIR": str(tmp_path / "c")}
    assert json.loads(_compile_in_subprocess(env, str(path)).stdout) == "miss"
    database = tmp_path / "c" / "cache.sqlite3"
    data = database.read_bytes()
    for extra in ("-wal", "-shm"):
        (tmp_path / "c" / f"cache.sqlite3{extra}").unlink(missing_ok=True)
    new = {
        "garbage": b"\x00not sqlite\xff" * 4096,
        "truncated": data[: len(data) // 2],
        "empty": b"",
    }
    database.write_bytes(new[damage])
    proc = _compile_in_subprocess(env, str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == "miss"
    assert len(proc.stderr.splitlines()) <= 1, proc.stderr  # a reset may say so, in one line
    assert "tlir: warning: compile cache" in proc.stderr or not proc.stderr
    assert json.loads(_compile_in_subprocess(env, str(path)).stdout) == "hit"


STORE_WORKER = """
import sys
from tlir.compiler.cache import CompileCache, private_directory
store = CompileCache(private_directory(sys.argv[1]), max_bytes=200_000)
me = int(sys.argv[2])
for i in range(60):
    key = f"k{(i * 7 + me) % 40}"
    value = key.encode() * (100 + 50 * (i % 9))
    got = store.get(key)
    assert got is None or got == key.encode() * (len(got) // len(key)), got[:20]
    store.put(key, value)
    assert not store.failed
print("ok")
"""


def test_processes_sharing_a_store(tmp_path):
    """Readers and writers at once, evicting as they go (a cap of a few entries):
    every read is a whole value or a miss, no write fails."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", STORE_WORKER, str(tmp_path / "c"), str(me)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me in range(4)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and out.strip() == "ok" and not err, err
    assert CompileCache(str(tmp_path / "c"), 200_000).volume() <= 200_000


def test_the_key_holds_what_the_kernel_tiling_depends_on(monkeypatch):
    """Cache sizes, L1 ways, vector width, registers and register tile choose the tiling
    of contraction kernels: a machine that differs in any of them gets other keys."""
    import dataclasses

    from tlir.compiler.cache import environment
    from tlir.passes.contraction_kernels import target

    base = target.host_target()
    changes = [{}, {"l1_bytes": 2 * base.l1_bytes}, {"l1_ways": base.l1_ways + 4},
               {"l2_bytes": base.l2_bytes // 2},
               {"vector_bytes": 2 * base.vector_bytes}, {"registers": 2 * base.registers},
               {"tile": (1, 12)}]  # fmt: skip
    keys = set()
    for change in changes:
        monkeypatch.setattr(target, "host_target", lambda c=change: dataclasses.replace(base, **c))
        keys.add(environment("xdsl", 2))
    assert len(keys) == len(changes)
