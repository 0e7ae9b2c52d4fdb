"""The symbols an ELF relocatable object leaves to the linker.

LLVM writes each kernel and entry function as an ELF object (Linux hosts); the
compile cache checks what a stored object would call before it is linked
(`tlir.compiler.jit.foreign_symbols`). Only the section headers and the symbol tables
are read: a few `struct` reads, far cheaper than a general ELF library's
import, so a cache hit stays as fast as before. Any malformed or truncated
object is a `ValueError`, never an out-of-range read.
"""

from __future__ import annotations

import struct

_ET_REL = 1
_SHT_SYMTAB = 2
_SHN_UNDEF = 0
_SHN_LORESERVE = 0xFF00

# Per ELF class (1: 32-bit, 2: 64-bit): the offsets of e_shoff and of
# e_shentsize (e_shnum follows it), e_shoff's format, the section header
# (name, type, flags, addr, offset, size, link, info, align, entsize) and the
# symbol entry, with the positions of st_name and st_shndx in it.
_LAYOUT = {
    1: (0x20, 0x2E, "I", "IIIIIIIIII", "IIIBBH", (0, 5)),
    2: (0x28, 0x3A, "Q", "IIQQQQIIQQ", "IBBHQQ", (0, 3)),
}


def undefined_symbols(data: bytes) -> set[str]:
    """The names of the undefined symbols of an ELF relocatable object: what it
    calls or reads that another object or the process must provide."""
    try:
        return _undefined_symbols(memoryview(data))
    except (struct.error, IndexError, KeyError, ValueError) as err:
        raise ValueError(f"not a readable ELF object: {err}") from None


def _undefined_symbols(data: memoryview) -> set[str]:
    if bytes(data[:4]) != b"\x7fELF":
        raise ValueError("no ELF magic number")
    shoff_at, entsize_at, shoff_format, section_format, symbol_format, fields = _LAYOUT[data[4]]
    name_at, index_at = fields
    order = {1: "<", 2: ">"}[data[5]]
    (e_type,) = struct.unpack_from(order + "H", data, 0x10)
    if e_type != _ET_REL:
        raise ValueError("not a relocatable object")
    (shoff,) = struct.unpack_from(order + shoff_format, data, shoff_at)
    shentsize, shnum = struct.unpack_from(order + "HH", data, entsize_at)
    section = struct.Struct(order + section_format)
    symbol = struct.Struct(order + symbol_format)
    # No section count of 0 or beyond SHN_LORESERVE: that is extended numbering
    # (the count in section 0), which a linker would read and this would not.
    if shentsize != section.size or not 0 < shnum < _SHN_LORESERVE:
        raise ValueError("unexpected section headers")
    sections = [section.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    names: set[str] = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != _SHT_SYMTAB:
            continue
        if entsize != symbol.size or offset + size > len(data):
            raise ValueError("a malformed symbol table")
        strings = sections[link]
        for at in range(offset, offset + size, entsize):
            entry = symbol.unpack_from(data, at)
            if entry[index_at] == _SHN_UNDEF and entry[name_at]:
                names.add(_string(data, strings[4], strings[5], entry[name_at]))
    return names


def _string(data: memoryview, offset: int, size: int, index: int) -> str:
    """The NUL-terminated string at `index` of the string table [offset, offset + size)."""
    if index >= size or offset + size > len(data):
        raise ValueError("a symbol name outside its string table")
    table = bytes(data[offset + index : offset + size])
    end = table.find(b"\0")
    if end < 0:
        raise ValueError("an unterminated symbol name")
    return table[:end].decode("ascii")
