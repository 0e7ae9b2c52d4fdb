"""The `.tlz` model file: a `torchlean.ir.v1` graph whose payloads are binary
arrays (docs/json-format.md#the-tlz-container).

A `.tlz` is a zip archive holding `graph.json` (the graph, each payload field
replaced by a reference `{"array": "arrays/NAME.npy"}`) and one `.npy` member
per payload array, in the model's element type, so that every bit (NaN
payloads, -0, subnormals) comes back as it was written. tlir writes `tlz.v2`:
each array as its byte planes (a uint8 `.npy` whose plane k holds byte k of
every value, as HDF5's and Blosc's shuffle filter arranges them), deflated —
the planes of exponents and of the zero low bytes of float32 values widened to
float64 compress well, where interleaved they do not. `tlz.v1` files (float
arrays, stored or deflated) read as before.

The file is untrusted: member names, sizes (declared, checked against
`tlir.limits` before anything is read), compression methods and each array's
header are checked, and arrays are read without pickle. Every failure is one
`TlirError` naming the file and the member.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tlir.diagnostics import TlirError
from tlir.limits import MAX_INPUT_BYTES, max_tensor_bytes
from tlir.torchlean.json_text import dumps, parse_json_text

EXTENSION = ".tlz"
CONTAINER = "tlz.v2"
"""The value of graph.json's root field `container` tlir writes."""

DYNAMIC_CONTAINER = "tlz.v3"
"""`container` of a model whose batch is `?`: `tlz.v2` plus the root field
`batch` (`BATCH_FIELD`), a value a reader of `tlz.v2` refuses by this field."""

BATCH_FIELD = "batch"
"""The root field of a `tlz.v3`: `{"batches": [B1, B2], "nodes": [...]}`, the
graph's nodes at batch B2 (the root's `nodes` are at B1), from which a reader
recovers the `?` (docs/json-format.md#a--batch-in-a-tlz)."""

CONTAINERS = ("tlz.v1", CONTAINER, DYNAMIC_CONTAINER)
"""The values it reads: `tlz.v1` holds float arrays only, `tlz.v2` byte planes
too, `tlz.v3` a `?` batch."""

DEFLATE_LEVEL = 6
"""zlib's default level for the byte planes: level 9 saves under 1 % more and
takes several times longer to write; reading costs the same."""

GRAPH_MEMBER = "graph.json"
ARRAY_MEMBER = re.compile(r"arrays/[A-Za-z0-9_][A-Za-z0-9_.-]*\.npy")
"""The only names an array member may have: no directories below `arrays/`, no
`..`, nothing absolute, so no name can point outside the archive when unpacked."""

DTYPES = {"f32": np.dtype("<f4"), "f64": np.dtype("<f8")}

NPY_HEADER_LIMIT = 10_000
"""The largest `.npy` header read (NumPy's own default limit)."""

PARALLEL_BYTES = 1 << 20
"""Referenced members at least this large (inflated) are read together when a
container is opened, one per core: zlib inflates without holding the GIL."""

_FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""Every member's timestamp: the same model gives the same bytes."""


def is_container(path: str) -> bool:
    return str(path).endswith(EXTENSION)


def reference(member: str) -> dict[str, str]:
    """The JSON value that stands for the array held in `member`."""
    return {"array": member}


@dataclass
class Container:
    """An opened `.tlz`: its graph document, and its arrays read on demand."""

    file: str
    archive: zipfile.ZipFile
    members: dict[str, zipfile.ZipInfo]
    document: dict[str, Any]
    dtype: str
    """The element type the model was written in, "f32" or "f64"."""
    planes: bool = False
    """Whether arrays may be byte planes (`tlz.v2`, `tlz.v3`)."""
    dynamic: bool = False
    """Whether the batch is `?` (`tlz.v3`: the root has `BATCH_FIELD`)."""
    _arrays: dict[str, np.ndarray] = field(default_factory=dict)
    _read_ahead: dict[str, np.ndarray | ValueError] = field(default_factory=dict)
    """Members `read_ahead` read: each array, or the error its reference meets."""

    def read_ahead(self) -> None:
        """Read the large members the nodes reference, several at once, keeping
        each result (or error) for `array`; errors still surface at the node
        that names the member, in node order, and members no node names are
        still never read."""
        large = [
            member
            for member in dict.fromkeys(_references(self.document))
            if member in self.members and self.members[member].file_size >= PARALLEL_BYTES
        ]
        workers = min(len(large), _usable_cores())
        if workers < 2:
            return
        with ThreadPoolExecutor(workers) as pool:  # joined here: no thread outlives the read
            self._read_ahead = dict(zip(large, pool.map(self._read_or_error, large), strict=True))

    def _read_or_error(self, member: str) -> np.ndarray | ValueError:
        try:
            return self._read_array(member)
        except ValueError as err:
            return err

    def array(self, value: Any) -> tuple[str, np.ndarray]:
        """(member, array) for a reference; a `ValueError` naming the member
        (the caller adds the node and field)."""
        member = value.get("array") if isinstance(value, dict) and len(value) == 1 else None
        if not isinstance(member, str):
            raise ValueError(
                f'an array reference is {{"array": "arrays/NAME.npy"}}, got {_brief(value)}'
            )
        if member not in self._arrays:
            if not ARRAY_MEMBER.fullmatch(member):
                raise ValueError(
                    f"{quoted(member)} is not the name of an array member (arrays/NAME.npy)"
                )
            if member not in self.members:
                raise ValueError(f"member '{member}' is missing")
            result = self._read_ahead.pop(member, None)
            if result is None:
                result = self._read_array(member)
            if isinstance(result, ValueError):
                raise result
            self._arrays[member] = result
        return member, self._arrays[member]

    def _read_array(self, member: str) -> np.ndarray:
        data = _read_member(self.archive, self.members[member])
        try:
            return parse_npy(data, DTYPES[self.dtype], self.planes)
        except ValueError as err:
            raise ValueError(f"member '{member}' {err}") from None


def _references(document: Any) -> Iterator[str]:
    """The member names the nodes' fields reference (`{"array": NAME}`), valid
    names only; anything malformed is left for the reader to report."""
    nodes = document.get("nodes") if isinstance(document, dict) else None
    for node in nodes if isinstance(nodes, list) else ():
        for value in node.values() if isinstance(node, dict) else ():
            if isinstance(value, dict) and len(value) == 1:
                member = value.get("array")
                if isinstance(member, str) and ARRAY_MEMBER.fullmatch(member):
                    yield member


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def quoted(name: str) -> str:
    """A member name in a message: quoted, control and non-ASCII characters
    escaped, so that a hostile name cannot break the one-line error."""
    escaped = name.encode("unicode_escape").decode("ascii").replace("'", "\\'")
    return f"'{escaped}'"


def _one_line(err: Exception) -> str:
    return " ".join(str(err).split())


def _brief(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def open_container(path: str, data: bytes) -> Container:
    """Open the `.tlz` whose bytes are `data`: the archive's directory, member
    names and sizes checked, `graph.json` read and its container fields checked."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError,
            NotImplementedError) as err:  # fmt: skip
        raise TlirError(path, f"not a .tlz model (a zip archive): {_one_line(err)}") from None
    members = _check_members(path, infos)
    if GRAPH_MEMBER not in members:
        raise TlirError(path, f"member '{GRAPH_MEMBER}' is missing")
    try:
        text = _read_member(archive, members[GRAPH_MEMBER])
    except ValueError as err:
        raise TlirError(path, str(err)) from None
    document = _parse_graph(path, text)
    _check_header(path, document)
    planes = document["container"] != CONTAINERS[0]
    dynamic = document["container"] == DYNAMIC_CONTAINER
    container = Container(path, archive, members, document, document["dtype"], planes, dynamic)
    container.read_ahead()
    return container


def _check_members(path: str, infos: list[zipfile.ZipInfo]) -> dict[str, zipfile.ZipInfo]:
    """Member names unique and allowed; no encryption, only stored or deflated
    data; declared sizes within the limits (the reader never reads past a
    member's declared size, so these bound what is allocated)."""
    members: dict[str, zipfile.ZipInfo] = {}
    total = 0
    array_limit = max_tensor_bytes() + NPY_HEADER_LIMIT
    for info in infos:
        name = info.filename
        if name != GRAPH_MEMBER and not ARRAY_MEMBER.fullmatch(name):
            raise TlirError(
                path,
                f"member {quoted(name)} has a name a .tlz may not hold "
                f"('{GRAPH_MEMBER}' or 'arrays/NAME.npy', NAME of letters, digits, '_', '.', '-')",
            )
        if name in members:
            raise TlirError(path, f"member '{name}' appears twice")
        if info.flag_bits & 0x1:
            raise TlirError(path, f"member '{name}' is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise TlirError(path, f"member '{name}' is compressed by an unsupported method")
        limit = MAX_INPUT_BYTES if name == GRAPH_MEMBER else array_limit
        if info.file_size > limit:
            raise TlirError(
                path, f"member '{name}' declares {info.file_size} bytes, more than {limit}"
            )
        total += info.file_size
        if total > MAX_INPUT_BYTES:
            raise TlirError(
                path, f"the members declare more than {MAX_INPUT_BYTES} bytes in all (at '{name}')"
            )
        members[name] = info
    return members


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, never more than its declared size; a corrupt one (bad
    checksum, truncated, a zip feature Python's zipfile does not read) is a
    ValueError naming the member."""
    member = info.filename
    try:
        with archive.open(info) as handle:
            data = handle.read(info.file_size + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
            NotImplementedError) as err:  # fmt: skip
        raise ValueError(f"member '{member}' cannot be read: {_one_line(err)}") from None
    if len(data) != info.file_size:
        raise ValueError(f"member '{member}' holds {len(data)} bytes, not {info.file_size}")
    return data


def _parse_graph(path: str, data: bytes) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TlirError(path, f"member '{GRAPH_MEMBER}' is not UTF-8 text") from None
    return parse_json_text(text, path, GRAPH_MEMBER)


def _check_header(path: str, document: Any) -> None:
    if not isinstance(document, dict):
        raise TlirError(path, f"member '{GRAPH_MEMBER}': the top level must be a JSON object")
    if document.get("container") not in CONTAINERS:
        got = json.dumps(document.get("container")) if "container" in document else "nothing"
        allowed = " or ".join(f'"{name}"' for name in CONTAINERS)
        raise TlirError(path, f"member '{GRAPH_MEMBER}': 'container' must be {allowed}, got {got}")
    if document.get("dtype") not in DTYPES:
        got = json.dumps(document.get("dtype")) if "dtype" in document else "nothing"
        raise TlirError(
            path, f"member '{GRAPH_MEMBER}': 'dtype' must be \"f32\" or \"f64\", got {got}"
        )


def parse_npy(data: bytes, dtype: np.dtype, planes: bool = False) -> np.ndarray:
    """The array of a `.npy` file's bytes, which must hold `dtype` (either byte
    order) — or, with `planes`, its byte planes (uint8 of shape [itemsize,
    *shape]) —, C or Fortran order, and exactly the data its header declares;
    the header is checked before any array is built. No pickle: only a float
    or uint8 dtype is accepted. Raises `ValueError` with a message that follows
    the member name."""
    handle = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(handle)
        read_header = {
            (1, 0): np.lib.format.read_array_header_1_0,
            (2, 0): np.lib.format.read_array_header_2_0,
        }.get(version)
        if read_header is None:
            raise ValueError(f"unsupported .npy version {version[0]}.{version[1]}")
        shape, fortran, stored = read_header(handle, max_header_size=NPY_HEADER_LIMIT)
    except (ValueError, TypeError, SyntaxError, EOFError) as err:
        raise ValueError(f"is not a .npy array ({' '.join(str(err).split())})") from None
    byte_planes = planes and stored == np.dtype(np.uint8)
    if not byte_planes and (
        stored.kind != "f" or stored.itemsize != dtype.itemsize or stored.hasobject
    ):
        raise ValueError(f"holds {stored.name}, the model's dtype is {_name(dtype)}")
    if any(extent < 0 for extent in shape):
        raise ValueError(f"is not a .npy array (its header's shape is {list(shape)})")
    if byte_planes and shape[:1] != (dtype.itemsize,):
        raise ValueError(
            f"holds uint8 of shape {list(shape)}: the byte planes of {_name(dtype)} values "
            f"have shape [{dtype.itemsize}, ...]"
        )
    count = 1
    for extent in shape:
        count *= extent
    body = len(data) - handle.tell()
    if body != count * stored.itemsize:
        raise ValueError(
            f"holds {body} bytes of data, its header {list(shape)} of {stored.name} asks for "
            f"{count * stored.itemsize}"
        )
    flat = np.frombuffer(data, dtype=stored, count=count, offset=handle.tell())
    array = flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)
    if byte_planes:
        return from_byte_planes(array, dtype)
    return np.ascontiguousarray(array, dtype=stored.newbyteorder("="))


def byte_planes(array: np.ndarray) -> np.ndarray:
    """The little-endian bytes of `array`'s values as planes: uint8 of shape
    [itemsize, *shape], plane k holding byte k of every value."""
    little = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).reshape(-1)
    values = little.view(np.uint8).reshape(*array.shape, array.dtype.itemsize)
    return np.ascontiguousarray(np.moveaxis(values, -1, 0))


def from_byte_planes(planes: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The values whose `byte_planes` are `planes`, in native byte order."""
    values = np.empty((*planes.shape[1:], planes.shape[0]), np.uint8)
    for k, plane in enumerate(planes):  # a plane at a time: faster than one strided copy
        values[..., k] = plane
    array = values.view(dtype.newbyteorder("<")).reshape(planes.shape[1:])
    return array.astype(dtype.newbyteorder("="), copy=False)


def _name(dtype: np.dtype) -> str:
    return {4: "float32", 8: "float64"}[dtype.itemsize]


def npy_bytes(array: np.ndarray) -> bytes:
    """A `.npy` file (version 1.0, little-endian, C order) of `array`."""
    little = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    out = io.BytesIO()
    np.lib.format.write_array(out, little, version=(1, 0), allow_pickle=False)
    return out.getvalue()


def container_bytes(document: dict[str, Any], arrays: Mapping[str, np.ndarray]) -> bytes:
    """The `.tlz` of a graph document (payloads already replaced by references
    to the keys of `arrays`): graph.json first, then each array as its byte
    planes, in order, all deflated, with fixed timestamps."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", allowZip64=True) as archive:
        _add(archive, GRAPH_MEMBER, dumps(document).encode())
        for member, array in arrays.items():
            _add(archive, member, npy_bytes(byte_planes(array)))
    return out.getvalue()


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data, compresslevel=DEFLATE_LEVEL)


__all__ = [
    "BATCH_FIELD",
    "CONTAINER",
    "DYNAMIC_CONTAINER",
    "EXTENSION",
    "Container",
    "container_bytes",
    "open_container",
]
