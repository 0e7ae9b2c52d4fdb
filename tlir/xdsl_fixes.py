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
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import AnyFloat
from xdsl.parser.attribute_parser import AttrParser
from xdsl.utils.mlir_lexer import MLIRLexer

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
