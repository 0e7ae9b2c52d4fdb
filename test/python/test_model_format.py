"""The `.tlz` model file (docs/json-format.md#the-tlz-container): bit-exact round
trips, the same compiled results as JSON, every malformed container as one
line naming the file and the member, and its size against JSON."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest
from graphs import Graph, write

import tlir
from tlir.dense import dense_to_numpy, numpy_to_dense
from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.reference import evaluate
from tlir.torchlean import import_file
from tlir.torchlean.exporter import export_bytes

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD_FIELDS = {"weight", "bias", "gamma", "beta", "mean", "var", "values"} | {
    f"{p}_{w}" for p in ("q", "k", "v", "out") for w in ("weight", "bias")
}
DTYPES = {"f32": np.float32, "f64": np.float64}


def every_payload_graph() -> dict:
    """conv, batch_norm_eval, layernorm, linear, single-head attention (its four
    projections and its scale constant) and a const node: every payload kind."""
    rng = np.random.default_rng(7)

    def values(*shape):
        return rng.normal(size=shape).round(6).tolist()

    g = Graph([2, 3, 4, 4])
    conv = g.add("conv", [0], [2, 4, 4, 4], spatial_rank=2, kernel=[3, 3], stride=[1, 1],
                 padding=[1, 1], channel_axis=1, in_channels=3, out_channels=4,
                 weight=values(4, 3, 3, 3), bias=values(4))  # fmt: skip
    norm = g.add("batch_norm_eval", [conv], [2, 4, 4, 4], channel_axis=1, channels=4,
                 gamma=values(4), beta=values(4), mean=values(4),
                 var=(np.abs(values(4)) + 0.5).tolist(), eps=1e-5)  # fmt: skip
    rows = g.add("reshape", [norm], [2, 4, 16], in_shape=[2, 4, 4, 4], out_shape=[2, 4, 16])
    layer = g.add("layernorm", [rows], [2, 4, 16], axis=2, gamma=values(16), beta=values(16),
                  eps=1e-5)  # fmt: skip
    proj = g.add("linear", [layer], [2, 4, 8], out_dim=8, in_dim=16, weight=values(8, 16),
                 bias=values(8))  # fmt: skip
    heads = {f"{p}_weight": values(8, 8) for p in ("q", "k", "v", "out")}
    heads |= {f"{p}_bias": values(8) for p in ("q", "k", "v", "out")}
    mha = g.add("multihead_attention", [proj], None, value_kind="tuple",
                tuple_shapes=[[2, 4, 8], [2, 4, 4]], embed_dim=8, num_heads=1,
                batch_first=True, dropout_zero=True, bias=True, **heads)  # fmt: skip
    attended = g.add("tuple_getitem", [mha], [2, 4, 8], index=0)
    shift = g.add("const", [], [2, 4, 8], values=np.ravel(values(2, 4, 8)).tolist())
    out = g.add("add", [attended, shift], [2, 4, 8])
    return g.current([out, layer])


def constants(module) -> list:
    return [op for op in module.walk() if isinstance(op, T.ConstOp)]


def const_bits(module) -> list[bytes]:
    return [dense_to_numpy(op.value).tobytes() for op in constants(module)]


def special_bits(count: int, dtype: str, seed: int) -> np.ndarray:
    """Random bit patterns with NaNs of several payloads (quiet and signalling,
    both signs), ±0, ±inf and subnormals among them."""
    if dtype == "f32":
        special = [0x7FA00001, 0xFFC12345, 0x7FC00000, 0x80000000, 0x00000000, 0x00000001,
                   0x807FFFFF, 0x7F800000, 0xFF800000, 0x00400000]  # fmt: skip
        ints = np.random.default_rng(seed).integers(0, 2**32, count, dtype=np.uint64)
        bits = ints.astype(np.uint32)
    else:
        special = [0x7FF4000000000001, 0xFFF8000000ABCDEF, 0x8000000000000000, 0x1,
                   0x800FFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000]  # fmt: skip
        bits = np.random.default_rng(seed).integers(0, 2**63, count, dtype=np.uint64)
        bits |= np.uint64(1 << 63) * (np.arange(count, dtype=np.uint64) % np.uint64(2))
    for i, pattern in enumerate(special[:count]):
        bits[i] = pattern
    return bits.view(DTYPES[dtype])


def with_special_payloads(module, dtype: str):
    """Every constant's entries replaced by `special_bits`."""
    for seed, op in enumerate(constants(module)):
        shape = tuple(op.result.type.get_shape())
        array = special_bits(int(np.prod(shape)), dtype, seed).reshape(shape)
        op.value = numpy_to_dense(array, op.result.type)
    return module


def printed(module) -> str:
    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out, print_debuginfo=False).print_op(module)
    return out.getvalue()


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_round_trip_keeps_every_bit(tmp_path, dtype):
    source = write(tmp_path, every_payload_graph())
    module = with_special_payloads(import_file(source, dtype), dtype)
    first = tmp_path / "first.tlz"
    first.write_bytes(export_bytes(module, str(first)))
    again = import_file(str(first))  # in the dtype it was written in
    assert const_bits(again) == const_bits(module)
    # conv 2, batch norm 4, layernorm 2, linear 2, attention 4x2 and its scale, const 1
    assert len(const_bits(module)) == 20
    nan_bits = special_bits(4, dtype, 0)[:2].tobytes()  # a signalling and a quiet NaN
    assert const_bits(again)[0].startswith(nan_bits)
    # the module read back writes the same file, byte for byte, and reads the same
    second = tmp_path / "second.tlz"
    second.write_bytes(export_bytes(again, str(second)))
    assert second.read_bytes() == first.read_bytes()
    assert printed(import_file(str(second))) == printed(again)


def test_a_constant_both_node_and_payload(tmp_path):
    """A constant read as a linear's weight (nested) and as a matmul's operand
    (a const node, flat) is written as two members, one per shape."""
    module = tlir.parse_module(
        "func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {\n"
        "  %w = tlir.const {value = dense<[[1.0, -0.0, 2.5], [0.5, 3.0, -1.0], [4.0, 1.5, 0.25]]>"
        " : tensor<3x3xf64>} : tensor<3x3xf64>\n"
        "  %b = tlir.const {value = dense<[0.5, -0.5, 1.0e-310]> : tensor<3xf64>} : tensor<3xf64>\n"
        "  %y = tlir.linear %x, %w, %b : (tensor<2x3xf64>, tensor<3x3xf64>, tensor<3xf64>)"
        " -> tensor<2x3xf64>\n"
        "  %z = tlir.matmul %y, %w : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>\n"
        "  func.return %z : tensor<2x3xf64>\n}\n"
    )
    path = tmp_path / "m.tlz"
    path.write_bytes(export_bytes(module, str(path)))
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == [
            "arrays/node1.values.npy", "arrays/node2.bias.npy", "arrays/node2.weight.npy",
            "graph.json",
        ]  # fmt: skip
    again = import_file(str(path))
    x = np.random.default_rng(3).normal(size=(2, 3))
    assert evaluate(again, [x])[0].tobytes() == evaluate(module, [x])[0].tobytes()
    assert sorted(const_bits(again)) == sorted(const_bits(module) + const_bits(module)[:1])


def test_members_are_deflated_byte_planes_in_the_model_dtype(tmp_path):
    path = tmp_path / "m.tlz"
    module = import_file(write(tmp_path, every_payload_graph()), "f32")
    path.write_bytes(export_bytes(module, str(path)))
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        graph = json.loads(archive.read("graph.json"))
        assert infos[0].filename == "graph.json"
        assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in infos)
        linear = next(n for n in graph["nodes"] if n["kind"] == "linear")
        member = linear["weight"]["array"]
        planes = np.load(io.BytesIO(archive.read(member)), allow_pickle=False)
    assert graph["container"] == "tlz.v2" and graph["dtype"] == "f32"
    assert planes.dtype == np.uint8 and planes.shape == (4, 8, 16)
    weight = np.asarray(linear_weight(module), "<f4")
    for index in np.ndindex(weight.shape):  # plane k: byte k of each value, little-endian
        assert bytes(planes[(slice(None), *index)]) == struct.pack("<f", weight[index])
    # an .npz reader sees the planes too
    assert np.load(path, allow_pickle=False)[member.removesuffix(".npy")].shape == (4, 8, 16)


def linear_weight(module) -> np.ndarray:
    op = next(op for op in module.walk() if isinstance(op, T.LinearOp))
    return dense_to_numpy(op.weight.owner.value)


def planes_of(array: np.ndarray) -> np.ndarray:
    """Byte planes built value by value from each value's packed bytes."""
    fmt = "<d" if array.dtype.itemsize == 8 else "<f"
    packed = [struct.pack(fmt, v) for v in array.reshape(-1)]
    return np.array(
        [[b[k] for b in packed] for k in range(array.dtype.itemsize)], np.uint8
    ).reshape(array.dtype.itemsize, *array.shape)


def test_byte_planes_read_as_their_values_and_v1_files_as_before(tmp_path):
    weight = np.array([[1.5, -0.0, np.nan], [5e-324, -np.inf, 1 / 3]])
    v2 = container(tmp_path, small_graph(), "f64", "v2.tlz", version="tlz.v2",
                   **{W: npy(planes_of(weight))})  # fmt: skip
    read = linear_weight(tlir.load_model(v2))
    assert read.tobytes() == weight.tobytes()
    v1 = container(tmp_path, small_graph(), "f64", "v1.tlz")  # float arrays, stored
    np.testing.assert_array_equal(linear_weight(tlir.load_model(v1)), [[1, 2, 3], [4, 5, 6]])
    # byte planes need tlz.v2, and as many planes as the dtype has bytes
    v1_planes = container(tmp_path, small_graph(), "f64", "p.tlz", **{W: npy(planes_of(weight))})
    expect_error(v1_planes, f"member '{W}' holds uint8, the model's dtype is float64")
    short = container(tmp_path, small_graph(), "f64", "s.tlz", version="tlz.v2",
                      **{W: npy(planes_of(weight.astype(np.float32)))})  # fmt: skip
    expect_error(
        short,
        f"member '{W}' holds uint8 of shape [4, 2, 3]: the byte planes of float64 values "
        "have shape [8, ...]",
    )


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_compiled_results_equal_the_json_model(tmp_path, dtype):
    source = write(tmp_path, every_payload_graph())
    from_json = tlir.compile(source, dtype=dtype, cache=False)
    path = str(tmp_path / "m.tlz")
    tlir.save(from_json, path)
    from_tlz = tlir.compile(path, cache=False)  # the dtype it was written in
    x = np.random.default_rng(1).normal(size=(2, 3, 4, 4)).astype(DTYPES[dtype])
    expected = evaluate(tlir.load_model(source, dtype), [x])
    for got_json, got_tlz, ref in zip(from_json(x), from_tlz(x), expected, strict=True):
        assert got_tlz.dtype == DTYPES[dtype]
        assert got_tlz.tobytes() == got_json.tobytes() == ref.tobytes()


def test_a_dtype_other_than_the_files_rounds_as_json_does(tmp_path):
    """A float64 .tlz read as float32 rounds each value once, as JSON's payloads are."""
    source = write(tmp_path, every_payload_graph())
    path = tmp_path / "m.tlz"
    path.write_bytes(export_bytes(import_file(source, "f64"), str(path)))
    assert const_bits(import_file(str(path), "f32")) == const_bits(import_file(source, "f32"))
    assert (
        tlir.load_model(str(path)).body.block.ops.first.function_type.inputs.data[0].element_type
        == T.Float64Type()
    )


def test_payloads_given_as_references_are_read_everywhere(tmp_path):
    """A container written by hand: every payload field (attention's included)
    a reference; the module equals the JSON's."""
    doc = every_payload_graph()
    source = write(tmp_path, doc)
    path = container(tmp_path, doc, "f64")
    assert printed(import_file(path)) == printed(import_file(source)).replace("model.json", "m.tlz")


def container(
    tmp_path: Path, doc: dict, dtype: str, name: str = "m.tlz", version: str = "tlz.v1", **edits
) -> str:
    """`doc` as a .tlz of `version` whose payload fields are references to
    arrays/nK.npy (float arrays, stored); `edits` replace or (with None) drop
    members by name."""
    doc = json.loads(json.dumps(doc))
    doc |= {"container": version, "dtype": dtype}
    members: dict[str, bytes | None] = {}
    for node in doc["nodes"]:
        for field in sorted(f for f in PAYLOAD_FIELDS & set(node) if type(node[f]) is list):
            member = f"arrays/n{node['id']}.{field}.npy"
            out = io.BytesIO()
            np.save(out, np.asarray(node[field], DTYPES[dtype]))
            members[member] = out.getvalue()
            node[field] = {"array": member}
    members = {"graph.json": json.dumps(doc).encode(), **members}
    members.update(edits)
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in members.items():
            if data is not None:
                archive.writestr(member, data)
    return str(path)


def small_graph() -> dict:
    g = Graph([2, 3])
    node = g.add("linear", [0], [2, 2], out_dim=2, in_dim=3, weight=[[1, 2, 3], [4, 5, 6]],
                 bias=[0.5, -0.5])  # fmt: skip
    return g.current([node])


def npy(array) -> bytes:
    out = io.BytesIO()
    np.save(out, array, allow_pickle=True)
    return out.getvalue()


def graph_json(**root) -> bytes:
    doc = small_graph() | {"container": "tlz.v1", "dtype": "f64"} | root
    for field in ("weight", "bias"):
        doc["nodes"][1][field] = {"array": f"arrays/n1.{field}.npy"}
    return json.dumps({k: v for k, v in doc.items() if v is not None}).encode()


W = "arrays/n1.weight.npy"
MALFORMED = {
    "graph.json missing": ({"graph.json": None}, "member 'graph.json' is missing"),
    "array member missing": ({W: None}, f"field 'weight': member '{W}' is missing"),
    "not an array": ({W: b"[[1, 2, 3], [4, 5, 6]]"}, f"member '{W}' is not a .npy array"),
    "pickled objects": ({W: npy(np.array([[{}, 1, 2], [3, 4, 5]], dtype=object))},
                        f"member '{W}' holds object, the model's dtype is float64"),
    "wrong dtype": ({W: npy(np.ones((2, 3), np.float32))},
                    f"member '{W}' holds float32, the model's dtype is float64"),
    "integers": ({W: npy(np.ones((2, 3), np.int64))}, f"member '{W}' holds int64"),
    "wrong shape": ({W: npy(np.ones((3, 2)))},
                    f"field 'weight': member '{W}' has shape [3, 2], expected [2, 3]"),
    "data cut short": ({W: npy(np.ones((2, 3)))[:-8]},
                       f"member '{W}' holds 40 bytes of data, its header [2, 3] of float64 "
                       "asks for 48"),
    "unsupported npy version": ({W: b"\x93NUMPY\x09\x00" + npy(np.ones((2, 3)))[8:]},
                                f"member '{W}' is not a .npy array"),
    "path traversal": ({"../evil.npy": npy(np.ones(2))},
                       "member '../evil.npy' has a name a .tlz may not hold"),
    "absolute name": ({"/etc/evil.npy": npy(np.ones(2))},
                      "member '/etc/evil.npy' has a name a .tlz may not hold"),
    "nested name": ({"arrays/a/../../x.npy": npy(np.ones(2))},
                    "member 'arrays/a/../../x.npy' has a name a .tlz may not hold"),
    "container field missing": ({"graph.json": graph_json(container=None)},
                                "member 'graph.json': 'container' must be \"tlz.v1\" or \"tlz.v2\" "
                                "or \"tlz.v3\", got nothing"),
    "bad dtype field": ({"graph.json": graph_json(dtype="f16")},
                        "member 'graph.json': 'dtype' must be \"f32\" or \"f64\", got \"f16\""),
    "graph not JSON": ({"graph.json": b'{"format": '},
                       "member 'graph.json': invalid JSON at line 1 column 12: Expecting value"),
    "graph not UTF-8": ({"graph.json": b"\xff\xfe"}, "member 'graph.json' is not UTF-8 text"),
    "bad reference": ({"graph.json": graph_json().replace(W.encode(), b"graph.json")},
                      "field 'weight': 'graph.json' is not the name of an array member"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_container_is_one_line_naming_file_and_member(tmp_path, case):
    edits, message = MALFORMED[case]
    path = container(tmp_path, small_graph(), "f64", **edits)
    with pytest.raises(TlirError) as info:
        tlir.load_model(path)
    assert str(info.value).startswith(f"{path}: error: "), str(info.value)
    assert message in str(info.value) and "\n" not in str(info.value)


def raw_zip(tmp_path: Path, members: list[tuple[str, bytes, int]]) -> str:
    path = tmp_path / "m.tlz"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, method in members:
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return str(path)


def expect_error(path: str, message: str) -> None:
    with pytest.raises(TlirError) as info:
        tlir.load_model(path)
    assert str(info.value).startswith(f"{path}: error: "), str(info.value)
    assert message in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_not_a_zip_and_a_cut_zip(tmp_path):
    plain = tmp_path / "plain.tlz"
    plain.write_text(json.dumps(small_graph()))
    expect_error(str(plain), "not a .tlz model (a zip archive): File is not a zip file")
    whole = Path(container(tmp_path, small_graph(), "f64")).read_bytes()
    cut = tmp_path / "cut.tlz"
    cut.write_bytes(whole[: len(whole) // 2])
    expect_error(str(cut), "not a .tlz model (a zip archive)")


def test_duplicate_members(tmp_path):
    graph, weight = graph_json(), npy(np.ones((2, 3)))
    with pytest.warns(UserWarning, match="Duplicate name"):
        path = raw_zip(tmp_path, [("graph.json", graph, 0), (W, weight, 0), (W, weight, 0)])
    expect_error(path, f"member '{W}' appears twice")


def test_unsupported_compression(tmp_path):
    path = raw_zip(tmp_path, [("graph.json", graph_json(), zipfile.ZIP_BZIP2)])
    expect_error(path, "member 'graph.json' is compressed by an unsupported method")


def test_zip_bomb_is_refused_before_reading(tmp_path, monkeypatch):
    """A deflated member whose declared size exceeds the tensor limit is refused
    from the directory alone; so are members declaring more than a file may hold."""
    zeros = npy(np.zeros(1 << 17))  # 1 MiB of zeros, deflated to about 1 KiB
    members = [("graph.json", graph_json(), 0), (W, zeros, zipfile.ZIP_DEFLATED)]
    path = raw_zip(tmp_path, members)
    assert Path(path).stat().st_size < 8000
    monkeypatch.setenv("TLIR_MAX_TENSOR_BYTES", "100000")
    expect_error(path, f"member '{W}' declares {len(zeros)} bytes, more than 110000")
    monkeypatch.delenv("TLIR_MAX_TENSOR_BYTES")
    monkeypatch.setattr("tlir.torchlean.container.MAX_INPUT_BYTES", 1 << 19)
    expect_error(path, f"the members declare more than {1 << 19} bytes in all (at '{W}')")


def test_member_inflating_past_its_declared_size_is_not_read_past_it(tmp_path):
    """The directory says 100 bytes; the deflated data holds 1 MiB: reading stops
    at 100 bytes and the checksum fails."""
    zeros = npy(np.zeros(1 << 17))
    path = raw_zip(tmp_path, [("graph.json", graph_json(), 0), (W, zeros, zipfile.ZIP_DEFLATED)])
    data = bytearray(Path(path).read_bytes())
    entry = data.index(b"PK\x01\x02" + bytes(data[data.index(b"PK\x01\x02") + 4 :])[:0], 0)
    entry = data.index(b"PK\x01\x02", entry + 4)  # the array's central directory entry
    assert struct.unpack_from("<I", data, entry + 24)[0] == len(zeros)
    struct.pack_into("<I", data, entry + 24, 100)
    Path(path).write_bytes(bytes(data))
    expect_error(path, f"field 'weight': member '{W}' cannot be read: Bad CRC-32")


def test_encrypted_member(tmp_path):
    path = raw_zip(tmp_path, [("graph.json", graph_json(), 0)])
    data = bytearray(Path(path).read_bytes())
    entry = data.index(b"PK\x01\x02")
    struct.pack_into("<H", data, entry + 8, 1)  # general purpose flag: encrypted
    Path(path).write_bytes(bytes(data))
    expect_error(path, "member 'graph.json' is encrypted")


def test_zip_version_beyond_pythons(tmp_path):
    path = raw_zip(tmp_path, [("graph.json", graph_json(), 0)])
    data = bytearray(Path(path).read_bytes())
    struct.pack_into("<H", data, data.index(b"PK\x01\x02") + 6, 99)  # version needed: 9.9
    Path(path).write_bytes(bytes(data))
    expect_error(path, "not a .tlz model (a zip archive): zip file version 9.9")


def test_a_member_name_cannot_break_the_line(tmp_path):
    path = raw_zip(tmp_path, [("graph.json", graph_json(), 0), ("arrays/a\nb.npy", b"", 0)])
    expect_error(path, "member 'arrays/a\\nb.npy' has a name a .tlz may not hold")


def test_mutated_containers_load_or_fail_in_one_line(tmp_path):
    """Bytes changed, cut and inserted at random in a valid .tlz: each file
    loads, or fails with a one-line TlirError (never another exception)."""
    import random

    path = Path(container(tmp_path, every_payload_graph(), "f32"))
    data = path.read_bytes()
    rng = random.Random(0)
    outcomes = {"loaded": 0, "refused": 0}
    for _ in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(mutated))
            choice = rng.random()
            if choice < 0.6:
                mutated[at] = rng.randrange(256)
            elif choice < 0.8:
                del mutated[at : at + rng.randint(1, 50)]
            else:
                mutated[at:at] = rng.randbytes(rng.randint(1, 8))
        path.write_bytes(bytes(mutated))
        try:
            tlir.load_model(str(path))
            outcomes["loaded"] += 1
        except TlirError as err:
            assert "\n" not in str(err) and str(err).startswith(f"{path}: error: ")
            outcomes["refused"] += 1
    assert outcomes["refused"] > 100


def test_npy_header_beyond_the_limit(tmp_path):
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"
    header += b" " * (20000 - len(header)) + b"\n"
    member = b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header + bytes(48)
    path = container(tmp_path, small_graph(), "f64", **{W: member})
    expect_error(path, f"member '{W}' is not a .npy array (Header info length")


def test_references_outside_a_container(tmp_path):
    doc = small_graph()
    doc["nodes"][1]["weight"] = {"array": W}
    with pytest.raises(TlirError, match="field 'weight' is an array reference, which only a .tlz"):
        import_file(write(tmp_path, doc))


@pytest.mark.parametrize(
    "reference", [{"array": 3}, {"array": W, "more": 1}, {"npy": W}], ids=["int", "extra", "key"]
)
def test_malformed_references(tmp_path, reference):
    path = container(tmp_path, small_graph(), "f64")
    with zipfile.ZipFile(path) as archive:
        members = {i.filename: archive.read(i) for i in archive.infolist()}
    doc = json.loads(members["graph.json"])
    doc["nodes"][1]["weight"] = reference
    path = container(tmp_path, small_graph(), "f64", **{"graph.json": json.dumps(doc).encode()})
    expect_error(path, "node 1 (linear): field 'weight': an array reference is")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, cwd=ROOT)


def test_tools_read_and_write_tlz(tmp_path):
    tlz, mlir = str(tmp_path / "cnn.tlz"), str(tmp_path / "cnn.mlir")
    assert (
        run("tlir-translate", "--import-torchlean", "examples/cnn.json", "-o", mlir).returncode == 0
    )
    proc = run("tlir-translate", "--export-torchlean", mlir, "-o", tlz)
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    assert zipfile.is_zipfile(tlz)
    proc = run("tlir-run", tlz, "--input", "examples/cnn_input.npy", "--compare", "-q")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("bit-identical to the reference") == 2
    # the same module as the same export in JSON gives (node numbers are the export's)
    again = str(tmp_path / "again.json")
    assert run("tlir-translate", "--export-torchlean", mlir, "-o", again).returncode == 0
    imported = run("tlir-translate", "--import-torchlean", tlz, "--no-locations")
    from_json = run("tlir-translate", "--import-torchlean", again, "--no-locations")
    assert imported.returncode == 0 and imported.stdout == from_json.stdout
    opt = run("tlir-opt", tlz, "-p", "tlir-inline-custom")
    assert opt.returncode == 0 and "tlir.conv" in opt.stdout, opt.stderr
    # without -o the export is JSON text on stdout
    assert json.loads(run("tlir-translate", "--export-torchlean", mlir).stdout)["nodes"]


@pytest.mark.parametrize(
    "tool",
    ["tlir-translate --import-torchlean", "tlir-run --reference", "tlir-opt"],
)
def test_tools_report_a_bad_container_in_one_line(tmp_path, tool):
    path = container(tmp_path, small_graph(), "f64", **{W: npy(np.ones((2, 3), np.float32))})
    out = tmp_path / "out.txt"
    proc = run(*tool.split(), path, "-o" if "run" not in tool else "--output", str(out))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"{path}: error: node 1 (linear): field 'weight': member '{W}'")
    assert not out.exists()


def test_tlir_opt_imports_json_and_tlz_but_splits_only_mlir(tmp_path):
    source = write(tmp_path, small_graph())
    tlz = container(tmp_path, small_graph(), "f32")
    for path, dtype in ((source, "f64"), (tlz, "f32")):
        proc = run("tlir-opt", path)
        assert proc.returncode == 0, proc.stderr
        assert f"func.func @main(%input: tensor<2x3x{dtype}>)" in proc.stdout
    proc = run("tlir-opt", tlz, "--split-input-file")
    assert proc.returncode == 1 and proc.stderr == (
        f"{tlz}: error: --split-input-file splits MLIR text, not a model file\n"
    )


def test_a_failed_export_leaves_the_old_file(tmp_path):
    mlir = tmp_path / "m.mlir"
    mlir.write_text(
        "func.func @main(%x: tensor<2xf64>, %y: tensor<2xf64>) -> tensor<2xf64> {\n"
        "  %0 = tlir.add %x, %y : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>\n"
        "  func.return %0 : tensor<2xf64>\n}\n"
    )
    out = tmp_path / "m.tlz"
    out.write_bytes(b"old")
    proc = run("tlir-translate", "--export-torchlean", str(mlir), "-o", str(out))
    assert proc.returncode == 1 and "must take exactly one input" in proc.stderr
    assert out.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == [
        "m.mlir",
        "m.tlz",
    ]


def test_save_rejects_other_extensions(tmp_path):
    model = tlir.compile(write(tmp_path, small_graph()), cache=False)
    with pytest.raises(TlirError, match="use a .json or .tlz path"):
        tlir.save(model, str(tmp_path / "m.npz"))


@pytest.mark.parametrize(
    ("dtype", "values", "smaller"), [("f32", "full", 6), ("f64", "float32", 6), ("f64", "full", 3)]
)
def test_mlp_is_smaller_than_its_json(tmp_path, dtype, values, smaller):
    """The 784-512-512-10 MLP (bench/model_format.py): in float32 with weights of
    every bit, and in float64 with PyTorch's float32 initial values widened
    (byte planes of zeros deflate to nothing), six times smaller than its JSON;
    in float64 with weights of every bit, three times."""
    sys.path.insert(0, str(ROOT / "bench"))
    from model_format import mlp_document

    source = tmp_path / "mlp.json"
    source.write_text(json.dumps(mlp_document([784, 512, 512, 10], dtype, values=values)))
    module = import_file(str(source), dtype)
    json_size = len(export_bytes(module, "m.json"))
    tlz_size = len(export_bytes(module, "m.tlz"))
    assert json_size / tlz_size >= smaller, (json_size, tlz_size)


def test_large_members_read_together_keep_their_values_and_errors(tmp_path, monkeypatch):
    """Two weights of 1.2 MB each (read on threads when the file is opened):
    their bits, and a corrupt one's error at the node that names it; a member
    no node names is not read."""
    from tlir.torchlean import container as tlz

    rng = np.random.default_rng(4)
    w1, w2 = rng.normal(size=(512, 300)), rng.normal(size=(300, 512))
    g = Graph([2, 300])
    n1 = g.add("linear", [0], [2, 512], out_dim=512, in_dim=300, weight=[[0.0]], bias=[0.0] * 512)
    n2 = g.add("linear", [n1], [2, 300], out_dim=300, in_dim=512, weight=[[0.0]], bias=[0.0] * 300)
    doc = g.current([n2])
    for node, weight in ((1, w1), (2, w2)):
        doc["nodes"][node]["weight"] = weight.tolist()
    unread = "arrays/unreferenced.npy"
    edits = {f"arrays/n{n}.weight.npy": npy(planes_of(w)) for n, w in ((1, w1), (2, w2))}
    path = container(tmp_path, doc, "f64", "big.tlz", version="tlz.v2", **edits,
                     **{unread: npy(planes_of(w1))})  # fmt: skip
    read: dict[str, bool] = {}  # member: read on the main thread
    original = tlz.Container._read_array

    def recorded(self, member):
        read[member] = threading.current_thread() is threading.main_thread()
        return original(self, member)

    monkeypatch.setattr(tlz.Container, "_read_array", recorded)
    module = tlir.load_model(path)
    weights = [
        dense_to_numpy(op.weight.owner.value) for op in module.walk() if isinstance(op, T.LinearOp)
    ]
    assert [w.tobytes() for w in weights] == [w1.tobytes(), w2.tobytes()]
    assert sorted(read) == [f"arrays/n{n}.{f}.npy" for n in (1, 2) for f in ("bias", "weight")]
    if tlz._usable_cores() >= 2:  # the two weights on threads, the small biases on demand
        assert [m for m, main in sorted(read.items()) if not main] == [
            "arrays/n1.weight.npy",
            "arrays/n2.weight.npy",
        ]
    broken = container(tmp_path, doc, "f64", "broken.tlz", version="tlz.v2",
                       **{**edits, "arrays/n2.weight.npy": b"not npy" * 200_000})  # fmt: skip
    expect_error(
        broken, "node 2 (linear): field 'weight': member 'arrays/n2.weight.npy' is not a .npy array"
    )
