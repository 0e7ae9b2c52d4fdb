"""Fixes for xDSL 0.74 behaviour that breaks bit-exact round trips.

xDSL prints a float element that has no short exact decimal form (NaN, ±inf,
16777217.0 in f64, ...) as a hexadecimal bit pattern, as MLIR does, but its
parser reads `0x...` inside `dense<...>` as an integer *value*. MLIR reads it
as the bit pattern; this makes xDSL do the same, so print-then-parse keeps
every bit. Applied once when `tlir` is imported.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat
from xdsl.parser.attribute_parser import AttrParser

_Element = AttrParser._TensorLiteralElement  # noqa: SLF001 - the one place to fix
_original_to_type = _Element.to_type


def _to_type_reading_hex_bits(self, parser, type):  # type: ignore[no-untyped-def]
    text = self.span.text
    if isinstance(type, AnyFloat) and text[:2] in ("0x", "0X") and not self.is_negative:
        raw = int(text, 16).to_bytes(type.compile_time_size, "little")
        return next(type.iter_unpack(raw))
    return _original_to_type(self, parser, type)


def apply() -> None:
    if _Element.to_type is not _to_type_reading_hex_bits:
        _Element.to_type = _to_type_reading_hex_bits  # type: ignore[method-assign]
