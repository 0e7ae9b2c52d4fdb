"""Diagnostics in MLIR's shape: `file:line:col: error: message`, never a traceback.

`LocatingParser` stamps every parsed op with a `file:line:col` location (xDSL's
parser keeps only explicit `loc(...)`), so verifier and pass errors can point
at the op's source line, as mlir-opt does.
"""

from __future__ import annotations

import bisect
import collections
import re

from xdsl.dialects.builtin import (
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException


def printable(text: str) -> str:
    """`text` safe to show on one line of a terminal: every character Unicode
    does not count printable becomes `\\xNN`, `\\uNNNN` or `\\UNNNNNNNN` — C0
    and C1 controls (ESC, NUL, newline), DEL, line and paragraph separators,
    spaces other than ' ', format characters (among them the bidirectional
    embeddings, overrides and isolates: U+202E makes `exe.json` read
    `nosj.exe`), surrogates (undecodable bytes of a file name), private-use and
    unassigned code points. Letters of any script and symbols are kept.

    Every user-facing line passes through it: a node kind, a name or a file name
    read from a model, or an environment variable's value, is untrusted text that
    must neither write escape sequences to the user's terminal nor break the
    one-line rule."""
    if text.isprintable():
        return text  # the common case, at C speed
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


class TlirError(Exception):
    """A user-facing error: where it happened and what rule failed. Its text
    (`str(err)`, what the tools print) is one printable line; `where` and
    `message` keep the raw strings."""

    def __init__(self, where: str, message: str):
        super().__init__(printable(f"{where}: error: {message}"))
        self.where = where
        self.message = message


def read_text_file(path: str) -> str:
    """The file's text; an unreadable, non-UTF-8 or too large file (more than
    `tlir.limits.MAX_INPUT_BYTES`, or endless like /dev/zero) is a one-line error."""
    from tlir.limits import read_limited

    try:
        return read_limited(path).decode("utf-8")
    except UnicodeDecodeError:
        raise TlirError(path, "the file is not UTF-8 text") from None


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


def describe_location(loc: Attribute, fallback: str) -> str:
    """`file:line:col` for a FileLineColLoc; a name location (`model.json: node 7`
    from the JSON importer) gives its name."""
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, NameLoc):
        return loc.desc.data
    if isinstance(loc, FusedLoc) and loc.locations.data:
        return describe_location(loc.locations.data[0], fallback)
    return fallback


def node_location(file: str, node_id: int) -> NameLoc:
    """The location the JSON importer gives every op of a node."""
    return NameLoc(StringAttr(f"{file}: node {node_id}"), NoneAttr())


def file_location(file: str) -> NameLoc:
    return NameLoc(StringAttr(file), NoneAttr())


def op_error(op: Operation, message: str, fallback: str) -> TlirError:
    """An error at `op`; the message names the op if it does not already."""
    if not message.startswith(op.name):
        message = f"'{op.name}' op {message}"
    return TlirError(describe_location(op.location, fallback), message)


def parse_error(err: ParseError, line_offset: int = 0) -> TlirError:
    pos = err.span.get_location()
    message = " ".join(err.msg.split())
    if not err.msg[:1].strip():  # xDSL gives some errors an empty head: " in block definition"
        message = f"unexpected '{err.span.text}'" + (f" {message}" if message else "")
    return TlirError(f"{pos.file}:{pos.line + line_offset}:{pos.col}", message)


def verify_module(module: ModuleOp, fallback: str) -> None:
    """Verify op by op, so the first failure is reported at its own op; then
    check that every operand is defined before its use."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except DiagnosticException as err:
            raise op_error(op, _first_line(err), fallback) from None
    _check_dominance(module, set(), fallback)


def _check_dominance(op: Operation, visible: set[SSAValue], fallback: str) -> None:
    """Every operand is a value of an enclosing block defined before the op (the
    single-block regions tlir reads; xDSL's verifier does not check this). A
    value used before its definition would otherwise reach the evaluator and the
    compiler as an internal error. One set, values added in order and removed
    when their block is done: linear in the size of the module."""
    for region in op.regions:
        added: list[SSAValue] = []
        if len(region.blocks) > 1:  # branches: any block's values, as a CFG allows
            added += [a for b in region.blocks for a in b.args]
            added += [r for b in region.blocks for o in b.ops for r in o.results]
            visible.update(added)
        for block in region.blocks:
            local = [a for a in block.args if a not in visible]
            visible.update(local)
            added += local
            for inner in block.ops:
                for index, operand in enumerate(inner.operands):
                    if operand not in visible:
                        raise op_error(
                            inner, f"operand #{index} is used before its definition", fallback
                        )
                _check_dominance(inner, visible, fallback)
                fresh = [r for r in inner.results if r not in visible]
                visible.update(fresh)
                added += fresh
        visible.difference_update(added)


def _first_line(err: Exception) -> str:
    """One line: xDSL's constraint messages can span several."""
    text = str(err).removeprefix("Operation does not verify: ")
    return " ".join(text.split())
