"""TorchLean's one-step roundings (`tlir_ad.next_up` / `next_down`) with
AVX-512's per-instruction rounding.

Where the host has AVX-512, `convert-tlir-to-linalg` lowers a step to a call
of `@tlir_next_down_f64` (`_up_`, `_f32`), and the JIT gives LLVM's loop
vectorizer a vector form of each for every width it may choose, from two
lanes up to 512 bits (`vector-function-abi-variant`), then links their
definitions and inlines them once the vectorizer has run. A vectorised step
is then two instructions instead of two compares, three integer operations
and their masked moves:

* `nextDown(y) = RD(y − m)` (`vsubpd {rd-sae}`, `m` the smallest positive
  subnormal): for a finite `y`, the exact `y − m` lies strictly between
  `nextDown(y)` and `y` when `y` is normal (the gap below `y` is wider than
  `m`) and equals `nextDown(y)` when `y` is subnormal or zero (a multiple of
  `m`), and rounding down gives `nextDown(y)`; `−inf` stays. Three results
  are wrong, and one `vfixupimmpd` (a table lookup by the class of the
  rounded value) mends them all: `y = +inf` gives `+inf` (the step is
  `DBL_MAX`), `y = m` gives `−0` (an exact zero difference rounds to `−0`
  downward; the step is `+0`, and no other `y` gives a zero), and a
  signalling NaN comes out quieted (the step keeps a NaN's bits). The table
  maps a zero to `+0`, `+inf` to the format's largest finite value, a NaN to
  the step's input, every other class to the rounded value.
* `nextUp(y) = RU(y + m)` is the mirror: `−inf` gives `−inf` (mended to
  `−DBL_MAX`), `y = −m` gives `+0` (mended to `−0`).

Binary32 alike with `m = 2^−149` and `FLT_MAX`. Exceptions are suppressed
(`sae`) and the rounding is the instruction's own, so MXCSR's mode is not
read; denormals are never flushed (compiled code leaves MXCSR's DAZ/FTZ
clear). Embedded rounding exists only at 512 bits and on scalars: a
narrower vector form widens to 512 bits (zero lanes above), steps, and
keeps its lanes; without it a loop the vectorizer gives 8 binary32 lanes
(a row of 8) would split every step into 8 scalar ones and shuffle them
back, 4x the time of the whole kernel. The scalar calls that remain (loop
remainders, code LLVM does not vectorise) are `vsubss`/`vsubsd` with the
same rounding and `vfixupimmss`/`sd`. `TLIR_EMBEDDED_ROUNDING=0` keeps the
integer form on any host.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
from collections.abc import Iterator

_FORMATS = {"f64": ("double", 8, "pd", "i64"), "f32": ("float", 16, "ps", "i32")}
"""Per carrier: LLVM scalar type, lanes in 512 bits, intrinsic suffix, integer type."""

_SCALAR = {"f64": ("sd", 2), "f32": ("ss", 4)}
"""Per carrier: the scalar intrinsics' suffix and the lanes of their 128-bit operands."""

_TINY = {"f64": "4.940656458412465e-324", "f32": "0x36A0000000000000"}
"""The smallest positive subnormal, as LLVM IR literals (binary32 as its exact double)."""

_FIXUP_TABLES = {"down": 0x11E11810, "up": 0x111F1710}
"""`vfixupimm` tables, one nibble per class of the rounded value (QNaN, SNaN,
zero, +1, −inf, +inf, negative, positive from the lowest): 0 gives the
step's input (a NaN keeps its bits, a signalling one too, which the
arithmetic would have quieted), 1 the rounded value, 8 +0, 7 −0, 14 the
largest finite value, 15 its negation. `down`: zero → +0, +inf → MAX; `up`:
zero → −0, −inf → −MAX."""

_ROUNDING = {"down": 9, "up": 10}
"""The intrinsics' rounding immediates: toward −inf (up: +inf), exceptions suppressed."""

_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "tlir_embedded_rounding", default=False
)


KINDS = ("next", "step")
"""`next`: TorchLean's nextUp/nextDown (`tlir_ad.next_up`/`next_down`), the
rounding mended; `step`: the rounding alone (`tlir_ad.step_up`/`step_down`)."""

Step = tuple[str, str, str]
"""(kind, direction, carrier): ("next", "down", "f64"), …"""

STEPS: tuple[Step, ...] = tuple((k, d, c) for k in KINDS for d in _ROUNDING for c in _FORMATS)


def smallest_subnormal(bitwidth: int) -> float:
    """The smallest positive subnormal of binary64 (`bitwidth` 64) or binary32:
    what a step moves a zero by."""
    return 2.0 ** (-1074 if bitwidth == 64 else -149)


def function_name(kind: str, direction: str, carrier: str) -> str:
    """The scalar step a lowering calls: `tlir_next_down_f64`, …"""
    return f"tlir_{kind}_{direction}_{carrier}"


def _widths(carrier: str) -> tuple[int, ...]:
    """The lanes of a step's vector forms, widest (512 bits) first, down to 2."""
    lanes = _FORMATS[carrier][1]
    return tuple(lanes >> k for k in range(lanes.bit_length() - 1))


def _variant_name(step: Step, lanes: int) -> str:
    return f"{function_name(*step)}_x{lanes}"


def _variant_names(step: Step) -> list[str]:
    return [_variant_name(step, lanes) for lanes in _widths(step[2])]


NAMES = frozenset(function_name(*step) for step in STEPS)

DEFINED = NAMES | {name for step in STEPS for name in _variant_names(step)}
"""What `finish` defines: the steps and their vector forms."""


def embedded_rounding() -> bool:
    """Whether lowerings in force call the embedded-rounding steps."""
    return _ENABLED.get()


@contextlib.contextmanager
def steps_with_embedded_rounding(enabled: bool) -> Iterator[None]:
    """Lower the directed steps inside the block with AVX-512's rounding (or not)."""
    token = _ENABLED.set(enabled)
    try:
        yield
    finally:
        _ENABLED.reset(token)


def host_has_embedded_rounding() -> bool:
    """AVX-512F on this host (LLVM's host features), unless
    `TLIR_EMBEDDED_ROUNDING=0`; part of the compile cache's key through the
    host features it reads."""
    if os.environ.get("TLIR_EMBEDDED_ROUNDING", "").strip() == "0":
        return False
    return _host_avx512()


@functools.cache
def _host_avx512() -> bool:
    import llvmlite.binding as llvm

    return bool(llvm.get_host_cpu_features().get("avx512f"))


def _vector(carrier: str, lanes: int | None = None) -> str:
    scalar, full, _, _ = _FORMATS[carrier]
    return f"<{lanes or full} x {scalar}>"


def _variant_attribute(step: Step) -> str:
    name = function_name(*step)
    variants = ",".join(
        f"_ZGV_LLVM_N{lanes}v_{name}({_variant_name(step, lanes)})" for lanes in _widths(step[2])
    )
    return f'"vector-function-abi-variant"="{variants}"'


_NAME = r"tlir_(next|step)_(down|up)_(f64|f32)"

_DECLARATION = re.compile(
    rf'^declare (?:double|float) @"?{_NAME}"?\((?:double|float)\)[^\n]*$', re.MULTILINE
)


def prepare_ir(llvm_ir: str) -> str:
    """The module with each step's declaration marked with its vector forms,
    declared too and kept alive (`llvm.compiler.used`, which `finish` drops)
    until the loop vectorizer has run; unchanged if it calls none."""
    used: list[Step] = []

    def mark(match: re.Match) -> str:
        step = match.group(1, 2, 3)
        used.append(step)
        scalar = _FORMATS[step[2]][0]
        attribute = _variant_attribute(step)
        return f"declare {scalar} @{function_name(*step)}({scalar}) {_PURE} {attribute}"

    text = _DECLARATION.sub(mark, llvm_ir)
    if not used:
        return llvm_ir
    variants = [
        (_variant_name(step, lanes), _vector(step[2], lanes))
        for step in used
        for lanes in _widths(step[2])
    ]
    lines = [f"declare {vector} @{variant}({vector}) {_PURE}" for variant, vector in variants]
    kept = ", ".join(f"ptr @{variant}" for variant, _ in variants)
    lines.append(
        f"@llvm.compiler.used = appending global [{len(variants)} x ptr] [{kept}], "
        'section "llvm.metadata"'
    )
    return text + "\n" + "\n".join(lines) + "\n"


_PURE = "nounwind willreturn memory(none)"


def _intrinsics(direction: str, carrier: str) -> tuple[str, ...]:
    """The declarations of the intrinsics a step's definitions call."""
    _, lanes, suffix, integer = _FORMATS[carrier]
    vector, mask_type = _vector(carrier), "i8" if lanes == 8 else "i16"
    operation = "sub" if direction == "down" else "add"
    short_suffix, short_lanes = _SCALAR[carrier]
    short = _vector(carrier, short_lanes)
    return (
        f"declare {vector} @llvm.x86.avx512.{operation}.{suffix}.512({vector}, {vector}, i32)",
        f"declare {vector} @llvm.x86.avx512.mask.fixupimm.{suffix}.512({vector}, {vector}, "
        f"<{lanes} x {integer}>, i32, {mask_type}, i32)",
        f"declare {short} @llvm.x86.avx512.mask.{operation}.{short_suffix}.round({short}, "
        f"{short}, {short}, i8, i32)",
        f"declare {short} @llvm.x86.avx512.mask.fixupimm.{short_suffix}({short}, {short}, "
        f"<{short_lanes} x {integer}>, i32, i8, i32)",
    )


def _definitions(kind: str, direction: str, carrier: str) -> str:
    """LLVM IR of the scalar step and its vector forms (always inlined)."""
    scalar, lanes, suffix, integer = _FORMATS[carrier]
    vector, name = _vector(carrier), function_name(kind, direction, carrier)
    operation = "sub" if direction == "down" else "add"
    table = f"<{lanes} x {integer}> splat ({integer} {_FIXUP_TABLES[direction]})"
    mask_type = "i8" if lanes == 8 else "i16"
    step = f"llvm.x86.avx512.{operation}.{suffix}.512"
    fixup = f"llvm.x86.avx512.mask.fixupimm.{suffix}.512"
    fixed = f"{table}, i32 0, {mask_type} -1, i32 4"
    mend = (  # `step`: the rounding alone
        f"%s = call {vector} @{fixup}({vector} %y, {vector} %r, {fixed})\n  ret {vector} %s"
        if kind == "next"
        else f"ret {vector} %r"
    )
    return f"""
define internal {vector} @{name}_x{lanes}({vector} %y) alwaysinline nounwind {{
  %r = call {vector} @{step}({vector} %y, {vector} splat ({scalar} {_TINY[carrier]}), i32 {_ROUNDING[direction]})
  {mend}
}}

{"".join(_narrow_definition(name, carrier, width) for width in _widths(carrier)[1:])}
{_scalar_definition(kind, direction, carrier)}"""  # noqa: E501


def _narrow_definition(name: str, carrier: str, width: int) -> str:
    """A vector form narrower than 512 bits: the 512-bit one on its lanes and zeros."""
    lanes = _FORMATS[carrier][1]
    narrow, vector = _vector(carrier, width), _vector(carrier, lanes)
    widen = ", ".join(f"i32 {min(k, width)}" for k in range(lanes))
    keep = ", ".join(f"i32 {k}" for k in range(width))
    return f"""
define internal {narrow} @{name}_x{width}({narrow} %y) alwaysinline nounwind {{
  %v = shufflevector {narrow} %y, {narrow} zeroinitializer, <{lanes} x i32> <{widen}>
  %s = call {vector} @{name}_x{lanes}({vector} %v)
  %r = shufflevector {vector} %s, {vector} poison, <{width} x i32> <{keep}>
  ret {narrow} %r
}}
"""


def _scalar_definition(kind: str, direction: str, carrier: str) -> str:
    """The scalar step: the scalar instructions with the same rounding and table
    (a 512-bit one on a scalar would hold the wider unit for one lane)."""
    scalar, _, _, integer = _FORMATS[carrier]
    suffix, lanes = _SCALAR[carrier]
    short, name = _vector(carrier, lanes), function_name(kind, direction, carrier)
    operation = "sub" if direction == "down" else "add"
    table = f"<{lanes} x {integer}> splat ({integer} {_FIXUP_TABLES[direction]})"
    rounded = "%s" if kind == "next" else "%r"
    mend = (
        f"%s = call {short} @llvm.x86.avx512.mask.fixupimm.{suffix}({short} %v, {short} %r, "
        f"{table}, i32 0, i8 -1, i32 4)\n  "
        if kind == "next"
        else ""
    )
    return f"""
define internal {scalar} @{name}({scalar} %y) alwaysinline nounwind {{
  %v = insertelement {short} zeroinitializer, {scalar} %y, i64 0
  %m = insertelement {short} zeroinitializer, {scalar} {_TINY[carrier]}, i64 0
  %r = call {short} @llvm.x86.avx512.mask.{operation}.{suffix}.round({short} %v, {short} %m, {short} zeroinitializer, i8 -1, i32 {_ROUNDING[direction]})
  {mend}%e = extractelement {short} {rounded}, i64 0
  ret {scalar} %e
}}
"""  # noqa: E501


def finish(module, machine):
    """`module` with the steps it declares defined and inlined (after the loop
    vectorizer, which saw only their declarations, has run), or `module`
    itself if it calls none. The text round trip drops the `llvm.compiler.used`
    that kept the vector forms' declarations alive through the optimizer."""
    import llvmlite.binding as llvm

    wanted = [
        step
        for step in STEPS
        if any(_declared(module, name) for name in (function_name(*step), *_variant_names(step)))
    ]
    if not wanted:
        return module
    lines = [
        line
        for line in str(module).splitlines()
        if not line.startswith("@llvm.compiler.used") and not _OUR_DECLARATION.match(line)
    ]
    intrinsics = sorted({line for _, d, c in wanted for line in _intrinsics(d, c)})
    text = "\n".join([*lines, *intrinsics, *(_definitions(*step) for step in wanted)])
    result = llvm.parse_assembly(text)
    options = llvm.create_pipeline_tuning_options(speed_level=0)
    builder = llvm.create_pass_builder(machine, options)
    passes = llvm.create_new_module_pass_manager()
    passes.add_always_inliner_pass()
    passes.add_global_dead_code_eliminate_pass()
    passes.add_instruction_combine_pass()
    passes.run(result, builder)
    return result


_OUR_DECLARATION = re.compile(rf"declare [^@]*@{_NAME}(?:_x\d+)?\(")


def _declared(module, name: str) -> bool:
    try:
        module.get_function(name)
    except NameError:
        return False
    return True
