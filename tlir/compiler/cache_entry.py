"""What a compile-cache entry holds, and what is checked before it is used.

An entry is a JSON header and an object file (`pack`). Every header names the
key it was stored under and what it was made from, so an entry read under
another key, or for a model it does not fit, is refused rather than run:

* a kernel: `{"kind": "kernel", "key", "name", "abi"}` and the kernel's object;
* a piece of the thread runtime (`tlir.compiler.pool`): `{"kind": "runtime", "key",
  "name"}` and its object;
* a dynamic model's kernel (`tlir.compiler.batch_model`): `{"kind": "batch kernel",
  "key", "name", "info"}` and its once-compiled object (empty for a kernel
  compiled per batch);
* a dynamic model's entry function: `{"kind": "batch entry", "key"}` and its
  object, which may call only the kernels it was compiled with;
* a model: `{"kind": "model", "key", "signature", "constants", "kernels",
  "plan"}` and the entry function's object — its argument and result types,
  the shapes and dtypes of the constants it reads, the name and key of each
  kernel it calls, and the plan;
* a source (`tlir.compiler.warm`): `{"kind": "source", "key", "model",
  "signature", "shared", "extra", "slots", "parameters"}` and the bytes of
  the model's constants — what a compiled model needs besides its compiled
  code, for the exact bytes of a model file that compiled under the key.

The readers (`read_kernel`, `read_batch_kernel`, `read_batch_entry`,
`read_model`, `read_source`) raise `ValueError` for anything that does not
match or is malformed (a missing field, a plan step calling an unknown kernel,
a buffer index out of range, an object that is not ELF or would call a
function compiled code may not call — `tlir.compiler.jit.foreign_symbols`); the caller
discards the entry and compiles instead.
"""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np

from tlir.compiler.backend import KernelABI
from tlir.compiler.plan import Plan, plan_from_json, plan_to_json

_MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError)


def pack(header: dict, data: bytes) -> bytes:
    """An entry: the header's length, the header (JSON), the object."""
    text = json.dumps(header).encode()
    return len(text).to_bytes(4, "little") + text + data


def unpack(entry: bytes) -> tuple[dict, bytes]:
    size = int.from_bytes(entry[:4], "little")
    if len(entry) < 4 + size:
        raise ValueError("a truncated entry")
    header = json.loads(entry[4 : 4 + size])
    if not isinstance(header, dict):
        raise ValueError("an entry header that is not an object")
    return header, entry[4 + size :]


def arrays_json(arrays: list[tuple[tuple[int, ...], np.dtype]]) -> list[list]:
    """Shapes and dtypes as the headers (and `plan_to_json`) write them."""
    return [[list(shape), np.dtype(dtype).str] for shape, dtype in arrays]


# --- kernels --------------------------------------------------------------------


def kernel_entry(key: str, name: str, abi: KernelABI, data: bytes) -> bytes:
    header = {"kind": "kernel", "key": key, "name": name, "abi": dataclasses.asdict(abi)}
    return pack(header, data)


def read_kernel(entry: bytes, key: str, name: str) -> tuple[KernelABI, bytes]:
    """The ABI and object of the kernel `name` stored under `key`."""
    try:
        header, data = unpack(entry)
        _expect(header, "kernel", key)
        if header["name"] != name:
            raise ValueError(f"the entry holds kernel {header['name']!r}, not {name!r}")
        abi = header["abi"]
        abi = KernelABI(
            _count(abi["num_inputs"]),
            _count(abi["num_outputs"]),
            tuple(_count(n) for n in abi["scratch_bytes"]),
            _count(abi["parallel_extent"]),
        )
    except _MALFORMED as err:
        raise ValueError(f"a malformed kernel entry: {err!r}") from None
    _check_object(data, frozenset())
    return abi, data


# --- a dynamic model's kernels (tlir.compiler.batch_model) -------------------------


def batch_kernel_entry(key: str, name: str, info: dict, data: bytes) -> bytes:
    """A kernel of a dynamic model formed at two batches: `info` says whether it
    is compiled once (its counts, scratch sizes and units rule) or per batch;
    the object is the once-compiled code (empty for a per-batch kernel)."""
    return pack({"kind": "batch kernel", "key": key, "name": name, "info": info}, data)


def read_batch_kernel(entry: bytes, key: str, name: str) -> tuple[dict, bytes]:
    """The info and object of `batch_kernel_entry`, checked."""
    try:
        header, data = unpack(entry)
        _expect(header, "batch kernel", key)
        if header["name"] != name:
            raise ValueError(f"the entry holds kernel {header['name']!r}, not {name!r}")
        info = header["info"]
        counts = [info["num_inputs"], info["num_outputs"], info["scratch_count"]]
        counts += [n for pair in info["scratch"] for n in pair] + list(info["work"])
        for value in counts:
            _count(value)
        rule = info["rule"]
        if rule is not None and (len(rule) != 4 or [_count(v) for v in rule][2] == 0):
            raise ValueError("a units rule that divides by 0")
        if (rule is None) != (not data) or (rule is None and info["scratch"]):
            raise ValueError("an entry that is neither a compiled nor a per-batch kernel")
    except _MALFORMED as err:
        raise ValueError(f"a malformed batch kernel entry: {err!r}") from None
    if data:
        _check_object(data, frozenset())
    return info, data


def batch_entry(key: str, data: bytes) -> bytes:
    """The entry function of a dynamic model (its key digests the entry's IR)."""
    return pack({"kind": "batch entry", "key": key}, data)


def read_batch_entry(entry: bytes, key: str, provided: frozenset[str]) -> bytes:
    """The object of `batch_entry`, which may call the kernels in `provided`."""
    try:
        header, data = unpack(entry)
        _expect(header, "batch entry", key)
    except _MALFORMED as err:
        raise ValueError(f"a malformed batch entry: {err!r}") from None
    _check_object(data, provided)
    return data


# --- the thread runtime -----------------------------------------------------------


def runtime_entry(key: str, name: str, data: bytes) -> bytes:
    return pack({"kind": "runtime", "key": key, "name": name}, data)


def read_runtime(entry: bytes, key: str, name: str, calls: frozenset[str]) -> bytes:
    """The object of the runtime piece `name` stored under `key`, which may call
    `calls` beyond what compiled code may."""
    try:
        header, data = unpack(entry)
        _expect(header, "runtime", key)
        if header["name"] != name:
            raise ValueError(f"the entry holds {header['name']!r}, not {name!r}")
    except _MALFORMED as err:
        raise ValueError(f"a malformed runtime entry: {err!r}") from None
    _check_object(data, calls)
    return data


# --- models ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ModelFacts:
    """What a cached model must match: its key, the function's argument and
    result types, and the constants the module supplies on a hit."""

    key: str
    inputs: list[list]
    outputs: list[list]
    constants: list[np.ndarray]

    def header(self, plan: Plan, kernels: list[tuple[str, str]]) -> dict:
        return {
            "kind": "model",
            "key": self.key,
            "signature": [self.inputs, self.outputs],
            "constants": self.constants_json(),
            "kernels": [list(pair) for pair in kernels],
            "plan": plan_to_json(plan),
        }

    def constants_json(self) -> list[list]:
        return arrays_json([(c.shape, c.dtype) for c in self.constants])


def model_entry(facts: ModelFacts, plan: Plan, kernels: list[tuple[str, str]], data: bytes):
    return pack(facts.header(plan, kernels), data)


def read_model(entry: bytes, facts: ModelFacts) -> tuple[Plan, list[tuple[str, str]], bytes]:
    """The plan, the (name, key) of each kernel and the entry function's object
    of the model `facts` describes."""
    try:
        header, data = unpack(entry)
        _expect(header, "model", facts.key)
        if header["signature"] != [facts.inputs, facts.outputs]:
            raise ValueError("the entry was made for another signature")
        if header["constants"] != facts.constants_json():
            raise ValueError("the entry was made for other constants")
        kernels = [(str(name), str(key)) for name, key in header["kernels"]]
        plan = plan_from_json(header["plan"], facts.constants)
        if arrays_json(plan.inputs) != facts.inputs or arrays_json(plan.outputs) != facts.outputs:
            raise ValueError("the plan's arrays are not the signature's")
        _check_plan(plan, {name for name, _ in kernels})
    except _MALFORMED as err:
        raise ValueError(f"a malformed model entry: {err!r}") from None
    _check_object(data, frozenset(n + s for n, _ in kernels for s in ("", ".entry")))
    return plan, kernels, data


# --- sources --------------------------------------------------------------------

ALIGN = 64
"""Each constant starts on a 64-byte boundary of a source entry's data (and of
the one buffer a hit copies it into), as the compiled kernels' blocks like."""

_CONSTANT_DTYPES = frozenset({"<f4", "<f8"})
"""The element types of constants (`tlir.dense.dense_to_numpy`): nothing else is
read from an entry (a dtype string could otherwise name an object dtype)."""


@dataclasses.dataclass(frozen=True)
class SourceFacts:
    """A compiled model file's entry: the key of its model entry, the
    signature of its `@main`, the function's own constants (`shared`, in op order;
    `extra` holds the plan's constants that are none of them — a custom
    callee's), for each plan constant its shared slot or None (then the next
    `extra` array), and each parameter's name and shared slot."""

    model: str
    inputs: list[list]
    outputs: list[list]
    shared: list[np.ndarray]
    extra: list[np.ndarray]
    slots: list[int | None]
    parameters: list[tuple[str, int]]

    def plan_constants(self) -> list[np.ndarray]:
        """The plan's constants, in plan order."""
        extra = iter(self.extra)
        return [next(extra) if s is None else self.shared[s] for s in self.slots]


def source_entry(key: str, facts: SourceFacts) -> bytes:
    arrays = [*facts.shared, *facts.extra]
    header = {
        "kind": "source",
        "key": key,
        "model": facts.model,
        "signature": [facts.inputs, facts.outputs],
        "shared": arrays_json([(a.shape, a.dtype) for a in facts.shared]),
        "extra": arrays_json([(a.shape, a.dtype) for a in facts.extra]),
        "slots": facts.slots,
        "parameters": [list(pair) for pair in facts.parameters],
    }
    chunks = []
    for array in arrays:
        data = np.ascontiguousarray(array).tobytes()
        chunks += [data, bytes(-len(data) % ALIGN)]
    return pack(header, b"".join(chunks))


def read_source(entry: bytes, key: str) -> SourceFacts:
    """The facts of the model file whose source key is `key`; the constants
    are writable arrays (a model's parameters are), 64-byte aligned, in one
    buffer of their own."""
    try:
        header, data = unpack(entry)
        _expect(header, "source", key)
        inputs, outputs = header["signature"]
        for spec in (*inputs, *outputs):
            _array_spec(spec)
        shared = [_array_spec(spec) for spec in header["shared"]]
        extra = [_array_spec(spec) for spec in header["extra"]]
        arrays = _arrays([*shared, *extra], data)
        slots = [None if s is None else _index(s, len(shared)) for s in header["slots"]]
        if sum(s is None for s in slots) != len(extra):
            raise ValueError("the slots do not account for every extra constant")
        parameters = [(_name(n), _index(s, len(shared))) for n, s in header["parameters"]]
        slots_in_order = [s for _, s in parameters]
        if slots_in_order != sorted(set(slots_in_order)):
            raise ValueError("the parameters are not distinct constants in order")
        return SourceFacts(
            _name(header["model"]),
            inputs,
            outputs,
            arrays[: len(shared)],
            arrays[len(shared) :],
            slots,
            parameters,
        )
    except _MALFORMED as err:
        raise ValueError(f"a malformed source entry: {err!r}") from None


def _array_spec(spec: object) -> tuple[tuple[int, ...], np.dtype]:
    shape, dtype = spec
    if dtype not in _CONSTANT_DTYPES:
        raise ValueError(f"{dtype!r} is not a constant's element type")
    return tuple(_count(n) for n in shape), np.dtype(dtype)


def _arrays(specs: list[tuple[tuple[int, ...], np.dtype]], data: bytes) -> list[np.ndarray]:
    """The arrays laid out in `data` as `source_entry` lays them out, copied
    (once, whole) into one aligned buffer; the data must hold exactly them."""
    offsets, end = [], 0
    for shape, dtype in specs:
        nbytes = math.prod(shape) * dtype.itemsize
        offsets.append(end)
        end += nbytes + (-nbytes % ALIGN)
    if end != len(data):
        raise ValueError("the constants' bytes are not the sizes the header gives")
    raw = np.empty(end + ALIGN, np.uint8)
    start = -raw.ctypes.data % ALIGN
    buffer = raw[start : start + end]
    buffer[:] = np.frombuffer(data, np.uint8)
    return [
        buffer[offset : offset + math.prod(shape) * dtype.itemsize].view(dtype).reshape(shape)
        for (shape, dtype), offset in zip(specs, offsets, strict=True)
    ]


def _index(value: object, size: int) -> int:
    if type(value) is not int or not 0 <= value < size:
        raise ValueError(f"{value!r} is not an index below {size}")
    return value


def _name(value: object) -> str:
    if type(value) is not str:
        raise ValueError(f"{value!r} is not a string")
    return value


def _expect(header: dict, kind: str, key: str) -> None:
    if header["kind"] != kind:
        raise ValueError(f"a {header['kind']!r} entry where a {kind} was expected")
    if header["key"] != key:
        raise ValueError("the entry was stored under another key")


def _count(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ValueError(f"{value!r} is not a count")
    return value


def _check_plan(plan: Plan, kernels: set[str]) -> None:
    """Every step calls a kernel of the entry, every buffer is one the plan has."""
    bounds = {
        "input": len(plan.inputs),
        "output": len(plan.outputs),
        "const": len(plan.constants) + len(plan.packed),
    }
    _count(plan.workspace_bytes)
    storages = [s for step in plan.steps for s in step.args]
    storages += [s for copy in plan.copies for s in (copy.target, copy.source)]
    for step in plan.steps:
        _count(step.extent)
        if step.kernel not in kernels:
            raise ValueError(f"a step calls {step.kernel!r}, which the entry does not name")
    for storage in storages:
        _count(storage.index)
        _count(storage.nbytes)
        if storage.kind == "workspace":
            if storage.index + storage.nbytes > plan.workspace_bytes:
                raise ValueError("a buffer beyond the workspace")
        elif storage.index >= bounds[storage.kind]:
            raise ValueError(f"a {storage.kind} buffer index out of range")


def _check_object(data: bytes, provided: frozenset[str]) -> None:
    from tlir.compiler import jit

    foreign = jit.foreign_symbols(data, provided)
    if foreign:
        raise ValueError(f"the object would call {', '.join(sorted(foreign))}")
