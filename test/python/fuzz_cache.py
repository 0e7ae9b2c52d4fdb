"""Tampering with the compile cache, for its tests and its fuzzer: entries read
and rewritten in the SQLite database directly (as a disk error, a crash or an
intruder would), and a Hypothesis strategy of tamperings — a corrupted,
truncated, swapped or forged entry, or a value of the wrong SQLite type. Each
must make the next compile a miss whose results are right.

A forged entry carries a valid checksum: it is made for something else (another
key, kind, kernel, signature or set of constants), malformed (a field missing or
of the wrong type, a plan step calling an unknown kernel, a buffer out of range),
or its object is not ELF or calls a function compiled code may not call.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from tlir.compiler.cache import DATABASE
from tlir.compiler.cache_entry import pack, unpack


def database(directory: Path) -> sqlite3.Connection:
    return sqlite3.connect(directory / DATABASE, isolation_level=None)


def entries(directory: Path) -> dict[str, object]:
    """Key → stored value, as the database holds it."""
    with database(directory) as db:
        return dict(db.execute("SELECT key, value FROM blobs ORDER BY key"))


def write_raw(directory: Path, key: str, value: object) -> None:
    with database(directory) as db:
        db.execute("UPDATE blobs SET value = ? WHERE key = ?", (value, key))


def write_entry(directory: Path, key: str, payload: bytes) -> None:
    """`payload` under `key` with a valid checksum: a forgery, not a corruption."""
    write_raw(directory, key, hashlib.sha256(payload).digest() + payload)


def header_of(value: bytes) -> dict:
    return unpack(value[32:])[0]


def kinds(directory: Path) -> dict[str, list[str]]:
    """The keys of the entries of each kind (`COMPILED`, runtime);
    an entry whose header does not read (one an earlier tampering left, that no
    compile has read again since) is in none."""
    found: dict[str, list[str]] = {kind: [] for kind in COMPILED}
    for key, value in entries(directory).items():
        try:
            kind = header_of(value)["kind"]
        except (ValueError, TypeError, KeyError):
            continue
        found.setdefault(kind, []).append(key)
    return found


def foreign_object(name: str = "k_forged", arity: int = 0, command: str = "true") -> bytes:
    """An ELF object defining the kernel `name` (and its `.entry`) that runs
    `command` through the C library's `system`: what a forged entry would hold."""
    import llvmlite.binding as llvm

    from tlir.compiler import jit

    text = command.encode() + b"\0"
    literal = "".join(f"\\{b:02X}" for b in text)
    params = ", ".join([f"ptr %a{i}" for i in range(arity)] + ["i64 %lo", "i64 %hi"])
    ir = f"""
@cmd = private constant [{len(text)} x i8] c"{literal}"
declare i32 @system(ptr)
define void @{name}({params}) {{
  %r = call i32 @system(ptr @cmd)
  ret void
}}
define void @{name}.entry(ptr %args, i64 %lo, i64 %hi) {{
  %r = call i32 @system(ptr @cmd)
  ret void
}}
"""
    jit.host()
    return jit.target_machine(0).emit_object(llvm.parse_assembly(ir))


# --- header forgeries -----------------------------------------------------------


def _rename_step(plan: dict) -> dict:
    steps = [[f"{kernel}x", *rest] for kernel, *rest in plan["steps"]]
    return {**plan, "steps": steps or [["k_unknown", [], 1, False]]}


def _widen_buffer(plan: dict) -> dict:
    """A step or copy reading past its buffers (or, without any, an input that is not there)."""
    steps = [[k, [[kind, index + 10**6, n] for kind, index, n in args], *rest]
             for k, args, *rest in plan["steps"]]  # fmt: skip
    if not any(args for _, args, *_ in steps):
        steps.append([steps[0][0] if steps else "k", [["input", 10**6, 8]], 1, False])
    return {**plan, "steps": steps}


def _grow_first_shape(arrays: list) -> list:
    if not arrays:
        return [[[1], "<f8"]]
    (shape, dtype), *rest = arrays
    return [[[*shape, 2], dtype], *rest]


FORGERIES = {
    # field: how a forger changes it (each a change the loader must refuse)
    "key": lambda v: hashlib.sha256(str(v).encode()).hexdigest(),
    "kind": lambda v: "kernel" if v == "model" else "model",
    "name": lambda v: f"{v}_other",
    "signature": lambda v: [_grow_first_shape(v[0]), v[1]],
    "constants": lambda v: [*v, [[3], "<f8"]],
    "kernels": lambda v: [[n, k[::-1]] for n, k in v] or [["k_x", "0" * 64]],
    "plan": _rename_step,
    "plan buffers": _widen_buffer,
    "model": lambda v: hashlib.sha256(str(v).encode()).hexdigest(),
    "shared": lambda v: [[[*shape, 64], dtype] for shape, dtype in v] or [[[64], "<f8"]],
    "slots": lambda v: [*v, 10**6],
}
"""A header field changed to another well-formed value made for something else."""

ILL_TYPED = [None, 0, -1, 2**70, "x", [], {}, [[None]], {"a": 1}]


COMPILED = ("model", "kernel", "source", "batch kernel", "batch entry")
"""The kinds of entries a compile reads (and rewrites when they do not check out):
a static model's, a model file's, a dynamic model's (`tlir.compiler.batch_model`)."""


@dataclass(frozen=True)
class Tampering:
    """One tampering: `how` on the `index`-th entry of `kind` (modulo their count)."""

    kind: str  # one of COMPILED
    index: int
    how: str  # "flip", "truncate", "swap", "forge", "ill-typed", "drop field", "object", "sql type"
    position: float = 0.0  # where in the value, as a fraction of its length
    byte: int = 1
    field: str = "key"
    value: object = None

    def apply(self, directory: Path) -> str:
        """Tamper with the cache in `directory`; a description of what was done."""
        keys = kinds(directory)[self.kind]
        key = keys[self.index % len(keys)]
        value = entries(directory)[key]
        at = min(int(self.position * len(value)), len(value) - 1)
        if self.how == "flip":
            changed = bytearray(value)
            changed[at] ^= self.byte
            write_raw(directory, key, bytes(changed))
        elif self.how == "truncate":
            write_raw(directory, key, value[:at])
        elif self.how == "swap":
            found = kinds(directory)  # (not the thread runtime's: read once per process)
            others = [k for kind in COMPILED for k in found[kind] if k != key]
            other = others[self.index % len(others)]
            write_raw(directory, key, entries(directory)[other])
            write_raw(directory, other, value)
        elif self.how == "sql type":
            write_raw(directory, key, [value.hex(), len(value), 0.5][self.byte % 3])
        else:
            before, data = unpack(value[32:])
            header, data = self._forge(before, data)
            write_entry(directory, key, pack(header, data) if header is not None else data)
            changed = [f"{k}: {header.get(k, '(dropped)')!r}"
                       for k in before if header.get(k, ...) != before[k]]  # fmt: skip
            return f"{self} on {key[:12]}: {'; '.join(changed)}"
        return f"{self} on {key[:12]}"

    def _forge(self, header: dict, data: bytes) -> tuple[dict | None, bytes]:
        if self.how == "object":
            choices = [foreign_object(), b"", data[: len(data) // 2], b"\x7fELF" + bytes(60)]
            choices = [c for c in choices if c != data]  # (a per-batch kernel holds b"")
            return header, choices[self.byte % len(choices)]
        field = self._field(header)
        if self.how == "drop field":
            return {k: v for k, v in header.items() if k != field}, data
        if self.how == "ill-typed":  # (never the value it had: that is no forgery)
            value = next(v for v in [self.value, *ILL_TYPED] if v != header[field])
            return {**header, field: value}, data
        if field == "plan buffers":
            return {**header, "plan": FORGERIES[field](header["plan"])}, data
        return {**header, field: FORGERIES[field](header[field])}, data

    def _field(self, header: dict) -> str:
        if self.how == "forge":
            fields = [f for f in FORGERIES if f.split()[0] in header]
        else:
            fields = sorted(header)
        return self.field if self.field in fields else fields[self.byte % len(fields)]


def tamperings(kinds: tuple[str, ...] = ("model", "kernel")) -> st.SearchStrategy[Tampering]:
    return st.builds(
        Tampering,
        kind=st.sampled_from(kinds),
        index=st.integers(0, 7),
        how=st.sampled_from(
            ["flip", "truncate", "swap", "forge", "ill-typed", "drop field", "object", "sql type"]
        ),
        position=st.floats(0, 1),
        byte=st.integers(1, 255),
        field=st.sampled_from(sorted(FORGERIES) + ["abi"]),
        value=st.sampled_from(ILL_TYPED),
    )
