"""Diagnostics in MLIR's shape: `file:line:col: error: message`, never a traceback.

Parsed ops carry `file:line:col` locations (`tlir.frontend.mlir.LocatingParser`),
imported ones their JSON node, so verifier and pass errors can point at the
op's source, as mlir-opt does.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    FileLineColLoc,
    FusedLoc,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException, ParseError

from tlir.attrs import name_location


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
    return name_location(f"{file}: node {node_id}")


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
