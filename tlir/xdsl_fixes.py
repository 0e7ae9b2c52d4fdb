"""Fixes for xDSL 0.74 behaviour, applied once when `tlir` is imported.

**Hex floats.** xDSL prints a float element that has no short exact decimal form (NaN, ±inf,
16777217.0 in f64, ...) as a hexadecimal bit pattern, as MLIR does, but its
parser reads `0x...` inside `dense<...>` as an integer *value*. MLIR reads it
as the bit pattern; this makes xDSL do the same, so print-then-parse keeps
every bit.

**String literals in linear time.** `MLIRLexer._lex_string_literal` matches a
string with `"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"`: a `+` inside a
`*`, so a string that never closes makes the regex engine try every way of
splitting its characters into runs — 2^n attempts (26 characters: 27 s). The
replacement below accepts the same language, "unrolled" so that each character
can be matched in only one way (runs of plain characters, each escape followed by
such a run), which fails in linear time. The same change, as a patch for xDSL,
is in docs/upstream-patches.md.

**Assembly formats parsed on first use.** `irdl_op_definition` parses every
op's declarative `assembly_format` when the op class is defined: 228 formats,
about 40 ms of every process that compiles a model, although a compile prints
and parses only a few kinds of op (a cache hit none). Here the format text is
kept and parsed the first time the op is printed or parsed; an invalid format
is still an error, raised then (xDSL's own formats and tlir's are checked by
the test suite, which prints and parses every op). Ops defined before `tlir`
is imported keep xDSL's eager parsing.
"""

from __future__ import annotations

import re
from typing import Any

# Before any dialect is defined: see "Assembly formats parsed on first use".
from xdsl.irdl import operations as _operations

_eager_accessors = _operations.get_accessors_from_op_def


class _LazyFormat:
    """An op's declarative assembly format, parsed on first use."""

    def __init__(self, text: str, op_def: _operations.OpDef):
        self.text, self.op_def = text, op_def
        self.program: Any = None

    def get(self) -> Any:
        if self.program is None:
            from xdsl.irdl.declarative_assembly_format import FormatProgram
            from xdsl.utils.exceptions import ParseError, PyRDLOpDefinitionError

            try:
                self.program = FormatProgram.from_str(self.text, self.op_def)
            except ParseError as e:
                raise PyRDLOpDefinitionError(
                    "Error during the parsing of the assembly format: ", e.args
                ) from e
        return self.program


def _accessors_with_lazy_format(op_def: _operations.OpDef, custom_verify: Any) -> dict[str, Any]:
    """`get_accessors_from_op_def`, the format parsed on first use (same methods)."""
    text = op_def.assembly_format
    if text is None:
        return _eager_accessors(op_def, custom_verify)
    op_def.assembly_format = None  # no eager parse; restored below
    try:
        accessors = _eager_accessors(op_def, custom_verify)
    finally:
        op_def.assembly_format = text
    lazy = _LazyFormat(text, op_def)

    @classmethod
    def parse_with_format(cls, parser):  # type: ignore[no-untyped-def]
        return lazy.get().parse(parser, cls)

    def print_with_format(self, printer):  # type: ignore[no-untyped-def]
        return lazy.get().print(printer, self)

    accessors["parse"] = parse_with_format
    accessors["print"] = print_with_format
    return accessors


_operations.get_accessors_from_op_def = _accessors_with_lazy_format

from xdsl.dialects.builtin import AnyFloat  # noqa: E402 - after the patch above
from xdsl.parser.attribute_parser import AttrParser  # noqa: E402
from xdsl.utils.mlir_lexer import MLIRLexer  # noqa: E402

_Element = AttrParser._TensorLiteralElement  # noqa: SLF001 - the one place to fix
_original_to_type = _Element.to_type


def _to_type_reading_hex_bits(self, parser, type):  # type: ignore[no-untyped-def]
    text = self.span.text
    if isinstance(type, AnyFloat) and text[:2] in ("0x", "0X") and not self.is_negative:
        raw = int(text, 16).to_bytes(type.compile_time_size, "little")
        return next(type.iter_unpack(raw))
    return _original_to_type(self, parser, type)


STRING_LITERAL = re.compile(r'"[^"\\\n\v\f]*(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})[^"\\\n\v\f]*)*"')
"""Replaces `MLIRLexer._unescaped_characters_regex` (same language, linear time)."""


def apply() -> None:
    if _Element.to_type is not _to_type_reading_hex_bits:
        _Element.to_type = _to_type_reading_hex_bits  # type: ignore[method-assign]
    MLIRLexer._unescaped_characters_regex = STRING_LITERAL  # noqa: SLF001
