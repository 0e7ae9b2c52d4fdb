"""Warm compiles of model files (`tlir.compiler.warm`): a file compiled before is
linked from the compile cache without loading its module, which is built from
the same bytes only when something asks for it; results stay bit-identical, a
changed byte misses, and a bad file's errors are the loading stage's."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import fuzz_cache
import numpy as np
import pytest
from autodiff_util import same_bits

import tlir
import tlir.api
from tlir.compiler.cache_entry import SourceFacts, read_source, source_entry, unpack
from tlir.diagnostics import TlirError
from tlir.reference import evaluate, jvp, vjp

ROOT = Path(__file__).resolve().parents[2]
CNN = ROOT / "examples" / "cnn.json"

CUSTOM = """func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %w = tlir.const {value = dense<[1.5, -2.0, 0.25]> : tensor<3xf64>} : tensor<3xf64>
  %a = tlir.custom @scale(%x, %w) {name = "scale"} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  func.return %a : tensor<3xf64>
}
func.func @scale(%u: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %c = tlir.const {value = dense<[0.5, 3.0, -1.0]> : tensor<3xf64>} : tensor<3xf64>
  %p = tlir.mul_elem %u, %v : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %q = tlir.add %p, %c : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  func.return %q : tensor<3xf64>
}
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TLIR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def loads(monkeypatch):
    """Counts the loads of a model file's module (`tlir.frontend.load.load_file`,
    which a compile of a file and a warm model's lazy module go through)."""
    count = [0]
    load_file = tlir.api.load_file

    def counted(*args, **kwargs):
        count[0] += 1
        return load_file(*args, **kwargs)

    monkeypatch.setattr(tlir.api, "load_file", counted)
    return count


def _bits(arrays) -> list[bytes]:
    return [np.asarray(a).tobytes() for a in arrays]


def _copy(tmp_path, source=CNN, name="cnn.json"):
    path = tmp_path / name
    shutil.copyfile(source, path)
    return str(path)


def test_a_warm_compile_links_without_loading_the_module(cache_dir, tmp_path, loads):
    path = _copy(tmp_path)
    x = np.load(ROOT / "examples" / "cnn_input.npy")
    cold = tlir.compile(path)
    assert (cold.stats["cache"], cold.stats["source"], loads[0]) == ("miss", "miss", 1)
    warm = tlir.compile(path)
    assert (warm.stats["cache"], warm.stats["source"], loads[0]) == ("hit", "hit", 1)
    assert warm.object_digests == cold.object_digests
    want = evaluate(tlir.load_model(path), [x])
    assert _bits(warm(x)) == _bits(cold(x)) == _bits(want)
    assert loads[0] == 1  # calling it built nothing either


def test_a_changed_byte_misses(cache_dir, tmp_path, loads):
    path = _copy(tmp_path)
    x = np.load(ROOT / "examples" / "cnn_input.npy")
    before = tlir.compile(path)(x)
    data = Path(path).read_bytes()
    at = data.index(b'"bias": [-0.0001') + len(b'"bias": [-0.000')
    Path(path).write_bytes(data[:at] + b"7" + data[at + 1 :])  # -0.0001 -> -0.0007
    model = tlir.compile(path)
    assert model.stats["source"] == "miss" and loads[0] == 2
    assert model.stats["cache"] == "hit"  # same structure: the machine code is shared
    got = model(x)
    assert _bits(got) == _bits(evaluate(tlir.load_model(path), [x]))
    assert _bits(got) != _bits(before)


WARM_IMPORTS = textwrap.dedent(
    """
    import sys
    import numpy, tlir
    before = set(sys.modules)
    model = tlir.compile(sys.argv[1], parameters=sys.argv[2])
    new = sorted(set(sys.modules) - before)
    print(model.stats["source"], *[m for m in new if m.startswith(("xdsl", "tlir.passes"))])
    """
)

LIGHT_PASSES = {
    "tlir.passes",
    "tlir.passes.contraction_kernels",
    "tlir.passes.contraction_kernels.packed_weight",  # the layout of a cached plan's packed weights
    "tlir.passes.contraction_kernels.target",  # the cache key's target
    "tlir.passes.directed_steps",  # the cache key's embedded rounding
}
"""The modules of `tlir.passes` a warm compile may import: the cache key's and
the plan's, which import no xDSL."""


IR_DIALECTS = {"builtin", "func", "utils"}
"""The xDSL dialects a warm compile may import: those of a model's IR, which
tlir's interface modules name (`import tlir` loads builtin already); the
dialects kernels are built and lowered in (arith, memref, vector, linalg, …)
are the lowering's."""


@pytest.mark.parametrize("parameters", ["live", "frozen"])
def test_a_warm_compile_imports_no_lowering(cache_dir, tmp_path, parameters):
    """A cache hit in a fresh process links the model (frozen: packs its
    weights) without importing a pass that builds IR or a dialect kernels are
    built in."""
    path = _copy(tmp_path)
    tlir.compile(path, parameters=parameters)
    run = subprocess.run(
        [sys.executable, "-c", WARM_IMPORTS, path, parameters],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    )  # fmt: skip
    source, *imported = run.stdout.split()
    assert source == "hit"
    dialects = {m.split(".")[2] for m in imported if m.startswith("xdsl.dialects.")}
    assert dialects <= IR_DIALECTS, imported
    assert {m for m in imported if m.startswith("tlir.passes")} <= LIGHT_PASSES, imported


def test_each_dtype_and_option_has_its_own_entry(cache_dir, tmp_path, loads):
    path = _copy(tmp_path)
    x = np.load(ROOT / "examples" / "cnn_input.npy")
    f64 = tlir.compile(path)
    f32 = tlir.compile(path, "f32")
    unfused = tlir.compile(path, fuse=False)
    assert [m.stats["source"] for m in (f64, f32, unfused)] == ["miss"] * 3
    again = tlir.compile(path, "f32")
    assert again.stats["source"] == "hit"
    assert _bits(again(x.astype(np.float32))) == _bits(f32(x.astype(np.float32)))
    assert tlir.compile(path, fuse=False).stats["source"] == "hit"


def test_derivatives_and_parameters_of_a_warm_model(cache_dir, tmp_path, loads):
    path = _copy(tmp_path)
    x = np.load(ROOT / "examples" / "cnn_input.npy")
    cold = tlir.compile(path)
    warm = tlir.compile(path)
    assert list(warm.parameters()) == list(cold.parameters())
    for name, p in warm.parameters().items():
        assert same_bits(p, cold.parameters()[name])
    assert loads[0] == 1  # the parameters came from the cache entry
    rng = np.random.default_rng(1)
    dx = rng.normal(size=x.shape)
    ys, dys = warm.jvp([x], [dx])
    assert loads[0] == 2  # the module, built once, now
    module = warm.module()
    assert _bits([*ys, *dys]) == _bits(jvp(module, [x], [dx]))
    dy = [rng.normal(size=y.shape) for y in ys]
    got = warm.vjp([x], dy)
    assert _bits([*got[0], *got[1], *got[2].values()]) == _bits(vjp(module, [x], dy))
    assert loads[0] == 2
    # the parameters are the arrays the compiled forward and derivatives read
    warm.parameters()["node1.bias"][...] += 0.5
    cold.parameters()["node1.bias"][...] += 0.5
    assert _bits(warm(x)) == _bits(cold(x)) == _bits(evaluate(warm.module(), [x]))
    assert _bits(warm.jvp([x], [dx])[1]) == _bits(cold.jvp([x], [dx])[1])
    lows, highs = warm.ibp([x - 0.125], [x + 0.125])
    assert _bits([*lows, *highs]) == _bits([*sum(cold.ibp([x - 0.125], [x + 0.125]), [])])


def test_a_warm_model_saves_what_a_cold_one_saves(cache_dir, tmp_path):
    path = _copy(tmp_path)
    cold, warm = tlir.compile(path), tlir.compile(path)
    assert warm.stats["source"] == "hit"
    tlir.save(cold, str(tmp_path / "cold.tlz"))
    tlir.save(warm, str(tmp_path / "warm.tlz"))
    assert (tmp_path / "cold.tlz").read_bytes() == (tmp_path / "warm.tlz").read_bytes()
    x = np.load(ROOT / "examples" / "cnn_input.npy")
    first, again = (tlir.compile(str(tmp_path / "warm.tlz")) for _ in range(2))
    assert (first.stats["source"], again.stats["source"]) == ("miss", "hit")
    assert _bits(again(x)) == _bits(first(x)) == _bits(cold(x))


def test_a_module_with_a_custom_callee_and_its_constants(cache_dir, tmp_path, loads):
    """The callee's constant is a plan constant no shared array holds (an extra)."""
    path = tmp_path / "custom.mlir"
    path.write_text(CUSTOM)
    x = np.array([2.0, -1.0, 4.0])
    want = _bits(evaluate(tlir.parse_module(CUSTOM), [x]))
    assert _bits(tlir.compile(str(path))(x)) == want
    warm = tlir.compile(str(path))
    assert warm.stats["source"] == "hit" and loads[0] == 1
    assert _bits(warm(x)) == want
    warm.parameters()["const0"][...] = [1.0, 1.0, 1.0]
    assert warm(x)[0].tolist() == [2.5, 2.0, 3.0]
    assert loads[0] == 1


def test_a_bad_file_gives_the_loading_stages_error(cache_dir, tmp_path):
    path = tmp_path / "bad.json"
    graph = json.loads(CNN.read_text())
    graph["nodes"][1]["kind"] = "no_such_op"
    path.write_text(json.dumps(graph))
    messages = []
    for cache in (False, True, True):
        with pytest.raises(TlirError) as err:
            tlir.compile(str(path), cache=cache)
        messages.append(str(err.value))
    assert messages[0] == messages[1] == messages[2]
    assert fuzz_cache.entries(cache_dir) == {}  # nothing compiled, nothing remembered


def test_a_lower_tensor_limit_is_not_met_by_an_old_entry(cache_dir, tmp_path, monkeypatch):
    path = _copy(tmp_path)
    tlir.compile(path)
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "64")
    messages = []
    for cache in (False, True):
        with pytest.raises(TlirError) as err:
            tlir.compile(path, cache=cache)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "64" in messages[0]


def test_a_corrupt_source_entry_is_a_miss(cache_dir, tmp_path, loads):
    path = _copy(tmp_path)
    x = np.load(ROOT / "examples" / "cnn_input.npy")
    want = _bits(tlir.compile(path)(x))
    (key,) = fuzz_cache.kinds(cache_dir)["source"]
    fuzz_cache.write_raw(cache_dir, key, fuzz_cache.entries(cache_dir)[key][:-5])
    model = tlir.compile(path)
    assert model.stats["source"] == "miss" and loads[0] == 2
    assert _bits(model(x)) == want
    assert tlir.compile(path).stats["source"] == "hit"  # rewritten


def _entry(**changes) -> tuple[bytes, str]:
    facts = SourceFacts(
        "m" * 64,
        [[[2], "<f8"]],
        [[[2], "<f8"]],
        [np.array([1.0, 2.0]), np.array([3.0], np.float32)],
        [np.array([4.0, 5.0])],
        [0, None, 1],
        [("w", 0)],
    )
    header, data = unpack(source_entry("k", facts))
    return fuzz_cache.pack({**header, **changes}, data), "k"


def test_a_source_entry_reads_back_its_facts():
    facts = read_source(*_entry())
    assert [a.tolist() for a in facts.plan_constants()] == [[1.0, 2.0], [4.0, 5.0], [3.0]]
    assert facts.parameters == [("w", 0)] and facts.model == "m" * 64
    for array in [*facts.shared, *facts.extra]:
        assert array.flags.writeable and array.ctypes.data % 64 == 0


@pytest.mark.parametrize(
    "changes",
    [
        {"kind": "model"},
        {"key": "other"},
        {"shared": [[[9], "<f8"], [[1], "<f4"]]},  # more bytes than the entry holds
        {"shared": [[[2], "|O"], [[1], "<f4"]]},  # an object dtype
        {"shared": [[[-2], "<f8"], [[1], "<f4"]]},
        {"slots": [0, None, 2]},
        {"slots": [0, 1]},  # the extra constant unaccounted for
        {"parameters": [["w", 5]]},
        {"parameters": [[3, 0]]},
        {"parameters": [["w", 0], ["v", 0]]},  # one constant, two parameters
        {"model": None},
        {"signature": None},
    ],
)
def test_a_malformed_source_entry_is_refused(changes):
    with pytest.raises(ValueError):
        read_source(*_entry(**changes))


# --- tlir-run: a plain forward run takes the warm path ----------------------------


@pytest.fixture
def parses(monkeypatch):
    """Counts the model files read into a module (`tlir.frontend.load.read_model`,
    which every load of a file goes through: tlir-run's and `tlir.compile`'s)."""
    import tlir.frontend.load

    count = [0]
    read_model = tlir.frontend.load.read_model

    def counted(*args, **kwargs):
        count[0] += 1
        return read_model(*args, **kwargs)

    monkeypatch.setattr(tlir.frontend.load, "read_model", counted)
    return count


def _tlir_run(capsys, *argv: str) -> tuple[int, str, str]:
    from tlir.tools import run as run_tool

    code = run_tool.main([*argv, "-q"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_warm_tlir_run_parses_nothing_and_prints_the_same(cache_dir, tmp_path, capsys, parses):
    from tlir.tools.running import describe

    path, x = _copy(tmp_path), str(ROOT / "examples" / "cnn_input.npy")
    want = describe(evaluate(tlir.load_model(path), [np.load(x)]))
    parses[0] = 0
    assert _tlir_run(capsys, path, "--input", x) == (0, want, "")  # cold: loads, compiles
    assert parses[0] == 1
    assert _tlir_run(capsys, path, "--input", x) == (0, want, "")  # warm: links, parses nothing
    assert parses[0] == 1
    # the entry tlir-run wrote serves a plain tlir.compile (live parameters, as the tool's)
    model = tlir.compile(path)
    assert model.stats["source"] == "hit" and parses[0] == 1


def test_a_plain_compile_and_tlir_run_share_their_entry(cache_dir, tmp_path, capsys, parses):
    """`tlir.compile(path)` first, then `tlir-run` on the same file: the tool
    links what the compile wrote (no module parsed, no kernel compiled)."""
    from tlir.tools.running import describe

    path, x = _copy(tmp_path), str(ROOT / "examples" / "cnn_input.npy")
    want = describe(evaluate(tlir.load_model(path), [np.load(x)]))
    assert tlir.compile(path).stats["source"] == "miss"
    parses[0] = 0
    assert _tlir_run(capsys, path, "--input", x) == (0, want, "")
    assert parses[0] == 0


def test_a_warm_tlir_run_gives_a_cold_ones_errors_and_casts(cache_dir, tmp_path, capsys, parses):
    path, x = _copy(tmp_path), str(ROOT / "examples" / "cnn_input.npy")
    single, flat = tmp_path / "x32.npy", tmp_path / "flat.npy"
    np.save(single, np.load(x).astype(np.float32))  # cast to the model's float64: exact
    np.save(flat, np.load(x).reshape(-1))
    runs = [
        ["--input", str(single)],
        ["--input", x, "--input", x],  # one input too many
        ["--input", str(flat)],  # the wrong shape
        ["--input", x, "--rules", "tight"],  # --rules without --ibp
        ["--input", x, "--crown-mode", "relu"],  # a --crown option without --crown
    ]
    cold = [_tlir_run(capsys, path, *argv, "--no-cache") for argv in runs]
    assert cold[0][0] == 0 and cold[0][1].startswith("output0: shape [1, 3] float64")
    assert all(code == 1 and err.count("\n") == 1 for code, _, err in cold[1:]), cold
    assert _tlir_run(capsys, path, "--input", x)[0] == 0  # now warm
    parses[0] = 0
    assert [_tlir_run(capsys, path, *argv) for argv in runs] == cold
    assert parses[0] == 0


def test_runs_that_need_the_module_still_build_it(cache_dir, tmp_path, capsys, parses):
    path, x = _copy(tmp_path), str(ROOT / "examples" / "cnn_input.npy")
    assert _tlir_run(capsys, path, "--input", x)[0] == 0
    parses[0] = 0
    code, out, _ = _tlir_run(capsys, path, "--input", x, "--compare")
    assert code == 0 and "output1: bit-identical to the reference (3 values)" in out
    assert _tlir_run(capsys, path, "--input", x, "--ibp", "0.01")[0] == 0
    assert parses[0] == 2
