"""MLIR text as a tlir module: xDSL's parser with every op located
(`file:line:col`) and types larger than a model may hold refused where they are
written; parse errors as one-line `TlirError`s."""

from __future__ import annotations

import bisect
import collections
import re

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from tlir.diagnostics import TlirError, parse_error
from tlir.universe import context


class LocatingParser(Parser):
    """xDSL's parser, giving each op without `loc(...)` its source position."""

    def __init__(self, ctx, text: str | bytes, name: str = "<unknown>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self.line_offset = line_offset
        self._newlines: tuple[object, list[int]] | None = None  # (input, offsets)

    def _position(self, span) -> tuple[int, int]:
        """(line, column) of a span's start, as `Span.get_location` gives them,
        from the newlines' offsets found once: xDSL counts the newlines from
        the start of the text for every op, which made parsing a 10,000-op
        function (5 MB) take 100 s instead of 8."""
        source = span.input
        if self._newlines is None or self._newlines[0] is not source:
            pattern = re.escape(source.newline)
            self._newlines = (source, [m.start() for m in re.finditer(pattern, source.content)])
        line_start = source.get_start_of_line(span.start)
        line = bisect.bisect_left(self._newlines[1], line_start) + 1
        return line, span.start - line_start + 1

    def parse_optional_region(self, arguments=None):
        # xDSL opens a region's scope by copying every name defined so far
        # (`ssa_values.copy()`): a function of n generics copied O(n) names n
        # times. A chained scope makes that copy hold only the region's own
        # names; lookups and redefinition checks see the enclosing ones as before.
        enclosing = self.ssa_values
        self.ssa_values = collections.ChainMap({}, enclosing)
        try:
            return super().parse_optional_region(arguments)
        finally:
            self.ssa_values = enclosing

    # A type of more bytes than a model may hold is refused where it is written:
    # a splat such as `dense<0.0> : tensor<4294967296xf32>` would otherwise be
    # expanded to a list of every element while parsing (xDSL 0.74's
    # `parse_dense_int_or_fp_elements_attr`) and exhaust memory.
    def _parse_tensor_attrs(self):
        return self._within_limit(super()._parse_tensor_attrs)

    def _parse_memref_attrs(self):
        return self._within_limit(super()._parse_memref_attrs)

    def _parse_vector_attrs(self):
        return self._within_limit(super()._parse_vector_attrs)

    def _within_limit(self, parse):
        from tlir.limits import (
            ENV_MAX_TENSOR_BYTES,
            NUMPY_MAX_BYTES,
            beyond_numpy,
            max_tensor_bytes,
            tensor_bytes,
        )

        start = self._current_token.span
        typ = parse()
        size = tensor_bytes(typ)
        if size == 0 and beyond_numpy(typ):  # (a non-empty one is over the limit below)
            raise ParseError(
                start,
                f"{typ} cannot be a NumPy array (its extents, zeros left out, take more than "
                f"{NUMPY_MAX_BYTES} bytes)",
            )
        limit = max_tensor_bytes()
        if size is not None and size > limit:
            raise ParseError(
                start,
                f"{typ} takes {size} bytes, more than the limit of {limit} "
                f"(set {ENV_MAX_TENSOR_BYTES} to change it)",
            )
        return typ

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as err:
            # xDSL's declarative formats check constraint variables while parsing
            parsed = self.lexer.input.content[start.start : self._current_token.span.start]
            name = re.search(r'"?\b([a-z_]\w*\.[\w.]+)"?', parsed)
            prefix = f"{name.group(1)}: " if name else ""
            raise ParseError(start, prefix + " ".join(str(err).split())) from None
        except OverflowError as err:
            # xDSL packs float and integer attributes and extents without a range
            # check (`1.0e10 : f16`, `0x1FFFFFFFF : f32`, `tensor<9223372036854775808xf32>`)
            message = f"a value is out of range for its type ({err})"
            raise ParseError(self._current_token.span, message) from None
        except (ParseError, TlirError, RecursionError, MemoryError):
            raise
        except Exception as err:  # noqa: BLE001 - any other failure of xDSL's parser
            # Some of xDSL's custom op parsers fail on malformed text with an
            # internal error, not a ParseError (`linalg.fill linalg.fill ins(…)`:
            # IndexError): reported at the op.
            message = f"cannot parse this op (xDSL's parser failed: {type(err).__name__})"
            raise ParseError(start, message) from None
        if isinstance(op.location, UnknownLoc):
            line, column = self._position(start)
            op.location = FileLineColLoc(
                StringAttr(str(start.input.name)),
                IntAttr(line + start.line_offset + self.line_offset),
                IntAttr(column),
            )
        return op


def parse_module(text: str, filename: str = "<string>", ctx: Context | None = None) -> ModuleOp:
    """Parse MLIR text; every op gets a `file:line:col` location for diagnostics."""
    parser = LocatingParser(ctx or context(), text, filename)
    return parser.parse_module()


def parse_module_checked(text: str, filename: str, ctx: Context | None = None) -> ModuleOp:
    """`parse_module`, with parse errors as one-line `TlirError`s."""
    try:
        return parse_module(text, filename, ctx)
    except ParseError as err:
        raise parse_error(err) from None
    except RecursionError:
        raise TlirError(filename, "the input is nested too deeply to parse") from None


__all__ = ["LocatingParser", "parse_module", "parse_module_checked"]
