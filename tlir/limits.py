"""Resource limits on untrusted input: how large a file tlir reads and how large
a tensor it lets a model ask for.

* **Input files** (models, MLIR, `.npy` arrays are read by NumPy) are read up to
  `MAX_INPUT_BYTES` (1 GiB); a larger file — or an endless one such as
  `/dev/zero` — is a one-line error, not an exhausted machine.
* **Tensors**: before anything is allocated, the compiler and the reference
  evaluator check every tensor type of a module (arguments, op results,
  constants) against `max_tensor_bytes()`: by default half the physical memory,
  or `TLIR_MAX_TENSOR_BYTES` (a positive integer, in bytes). A tensor above it is
  an error located at the op that produces it; a bad value of the variable is
  an error naming the variable.
"""

from __future__ import annotations

import math
import os

from xdsl.dialects.builtin import ShapedType, TensorType
from xdsl.ir import Attribute, Operation

from tlir.diagnostics import TlirError, describe_location
from tlir.settings import env_int

MAX_INPUT_BYTES = 1 << 30

ENV_MAX_TENSOR_BYTES = "TLIR_MAX_TENSOR_BYTES"


def read_limited(path: str, limit: int | None = None) -> bytes:
    """The bytes of `path`, refusing a file larger than `limit` (default
    `MAX_INPUT_BYTES`), checked while reading: a device that never ends is refused too."""
    if limit is None:
        limit = MAX_INPUT_BYTES
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as err:
        raise TlirError(path, f"cannot read the file: {err.strerror or err}") from None
    if len(data) > limit:
        raise TlirError(path, f"the file is larger than {_size(limit)}: not read")
    return data


def read_text_file(path: str) -> str:
    """The file's text; an unreadable, non-UTF-8 or too large file (more than
    `MAX_INPUT_BYTES`, or endless like /dev/zero) is a one-line error."""
    return decode_text(read_limited(path), path)


def decode_text(data: bytes, path: str) -> str:
    """The text of bytes read from `path` (`read_text_file`'s error if not UTF-8)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise TlirError(path, "the file is not UTF-8 text") from None


def read_stdin_limited(limit: int | None = None) -> bytes:
    """Standard input, up to `limit` (default `MAX_INPUT_BYTES`) bytes."""
    import sys

    if limit is None:
        limit = MAX_INPUT_BYTES
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise TlirError("stdin", f"the input is larger than {_size(limit)}: not read")
    return data


def physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def max_tensor_bytes() -> int:
    """The largest tensor (in bytes) a model may declare."""
    configured = env_int(ENV_MAX_TENSOR_BYTES, unit="bytes", empty_is_unset=False)
    if configured is not None:
        return configured
    memory = physical_memory()
    return memory // 2 if memory else 1 << 34


def _static_shape(typ: Attribute) -> tuple[tuple[int, ...], int] | None:
    """(shape, element bytes) of a statically shaped tensor or memref type, else None."""
    if not isinstance(typ, ShapedType) or not hasattr(typ, "element_type"):
        return None
    shape = tuple(typ.get_shape())
    if any(d < 0 for d in shape):
        return None
    width = getattr(typ.element_type, "bitwidth", None) or 64
    return shape, max(1, -(-width // 8))


def tensor_bytes(typ: Attribute) -> int | None:
    """The byte size of a statically shaped tensor or memref type, else None."""
    static = _static_shape(typ)
    return None if static is None else math.prod(static[0]) * static[1]


NUMPY_MAX_BYTES = (1 << 63) - 1
"""NumPy refuses an array whose extents, zeros left out, times its item size
exceed this, even when it has no elements."""


def beyond_numpy(typ: Attribute) -> bool:
    """Whether a statically shaped `typ` has more than NumPy can describe: its
    extents, zeros left out, times its element size above `NUMPY_MAX_BYTES`."""
    static = _static_shape(typ)
    return static is not None and math.prod(d for d in static[0] if d) * static[1] > NUMPY_MAX_BYTES


def check_tensor_sizes(module: Operation, where: str) -> None:
    """Every tensor of `module` within `max_tensor_bytes()`; else an error at
    the op (or function argument) that holds the first one too large."""
    limit = max_tensor_bytes()
    for op in module.walk():
        types = [(r.type, op) for r in op.results]
        for region in op.regions:
            for block in region.blocks:
                types += [(a.type, op) for a in block.args]
        for typ, owner in types:
            size = tensor_bytes(typ)
            if size == 0 and beyond_numpy(typ):
                raise TlirError(
                    describe_location(owner.location, where),
                    f"'{owner.name}' op: the empty {typ} cannot be a NumPy array (its other "
                    f"extents take more than {NUMPY_MAX_BYTES} bytes)",
                )
            if size is not None and size > limit:
                kind = "tensor" if isinstance(typ, TensorType) else "buffer"
                raise TlirError(
                    describe_location(owner.location, where),
                    f"'{owner.name}' op: the {kind} {typ} takes {_size(size)}, more than the "
                    f"limit of {_size(limit)} (set {ENV_MAX_TENSOR_BYTES} to change it)",
                )


def check_total_bytes(nbytes: int, what: str, where: str) -> None:
    limit = max_tensor_bytes()
    if nbytes > limit:
        raise TlirError(
            where,
            f"{what} takes {_size(nbytes)}, more than the limit of {_size(limit)} "
            f"(set {ENV_MAX_TENSOR_BYTES} to change it)",
        )


def _size(nbytes: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit} ({nbytes} bytes)"
    return f"{nbytes} bytes"


__all__ = [
    "MAX_INPUT_BYTES",
    "check_tensor_sizes",
    "check_total_bytes",
    "decode_text",
    "max_tensor_bytes",
    "read_limited",
    "read_text_file",
]
