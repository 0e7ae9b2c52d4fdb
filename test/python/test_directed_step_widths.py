"""The directed steps' forms at every width LLVM's loop vectorizer may choose
(`tlir.passes.directed_steps`): a loop of steps forced to 1 (scalar), 2,
4, 8 and 16 lanes keeps TorchLean's bits on special values, and a width
narrower than 512 bits is one vector step, not one scalar step per lane."""

from __future__ import annotations

import ctypes
import math
import re

import numpy as np
import pytest

from tlir.compiler import jit
from tlir.passes import directed_steps

pytestmark = pytest.mark.skipif(
    not directed_steps.host_has_embedded_rounding(), reason="no AVX-512"
)

LOOP = """
declare {t} @{step}({t})

define void @steps(ptr noalias %x, ptr noalias %y, i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr {t}, ptr %x, i64 %i
  %v = load {t}, ptr %p
  %s = call {t} @{step}({t} %v)
  %q = getelementptr {t}, ptr %y, i64 %i
  store {t} %s, ptr %q
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop, !llvm.loop !0
exit:
  ret void
}}

!0 = distinct !{{!0, !1, !2, !3}}
!1 = !{{!"llvm.loop.vectorize.width", i32 {width}}}
!2 = !{{!"llvm.loop.vectorize.enable", i1 {enable}}}
!3 = !{{!"llvm.loop.interleave.count", i32 1}}
"""


def _loop_ir(step: str, carrier: str, width: int) -> str:
    scalar = "float" if carrier == "f32" else "double"
    enable = "true" if width > 1 else "false"
    return LOOP.format(t=scalar, step=step, width=width, enable=enable)


def _specials(dtype: np.dtype) -> np.ndarray:
    info = np.finfo(dtype)
    tiny = info.smallest_subnormal
    values = [0.0, -0.0, tiny, -tiny, info.max, -info.max, math.inf, -math.inf, math.nan,
              1.0, -1.0, info.tiny, -info.tiny, 0.1, -3.5, 2 * tiny]  # fmt: skip
    array = np.array(values, dtype)
    bits = array.view(np.uint64 if dtype == np.float64 else np.uint32)
    bits[8] = 0x7FF4000000000001 if dtype == np.float64 else 0x7FA00001  # a signalling NaN
    return array


def _want(kind: str, direction: str, x: np.ndarray) -> np.ndarray:
    """nextUp/nextDown (NaNs keep their bits); `step` leaves the far infinity
    and lands on a zero of the direction's sign."""
    target = x.dtype.type(math.inf if direction == "up" else -math.inf)
    with np.errstate(all="ignore"):
        want = np.where(np.isnan(x), x, np.nextafter(x, target))
    if kind == "step":
        far = -math.inf if direction == "up" else math.inf
        want[x == far] = far
        want[(want == 0) & ~np.isnan(x)] = 0.0 if direction == "up" else -0.0
    return want


def _run(ir: str, x: np.ndarray) -> np.ndarray:
    engine = jit.Engine([jit.compile_object(ir, 3, "test")])
    steps = engine.function("steps", None, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64])
    y = np.empty_like(x)
    steps(x.ctypes.data, y.ctypes.data, x.size)
    return y


# Widths up to 512 bits of lanes: 16 binary32, 8 binary64.
WIDTHS = [(carrier, width) for carrier, most in (("f32", 16), ("f64", 8))
          for width in (1, 2, 4, 8, 16) if width <= most]  # fmt: skip


@pytest.mark.parametrize(("carrier", "width"), WIDTHS, ids=[f"{c}-{w}" for c, w in WIDTHS])
@pytest.mark.parametrize("step", directed_steps.STEPS[:4], ids="-".join)
def test_every_width_keeps_the_bits(step, carrier, width):
    kind, direction, _ = step
    x = _specials(np.dtype(np.float32 if carrier == "f32" else np.float64))
    name = directed_steps.function_name(kind, direction, carrier)
    got = _run(_loop_ir(name, carrier, width), x)
    want = _want(kind, direction, x)
    uint = np.uint32 if carrier == "f32" else np.uint64
    assert got.view(uint).tolist() == want.view(uint).tolist()


@pytest.mark.parametrize(("carrier", "width"), [("f32", 8), ("f32", 4), ("f64", 4), ("f64", 2)])
def test_a_narrow_width_is_one_vector_step(carrier, width):
    """Eight binary32 lanes (a conv's row of 8) take one 512-bit rounding per
    vector of the loop (and one scalar rounding in the loop's remainder), not
    one scalar rounding per lane put back by shuffles."""
    name = directed_steps.function_name("next", "down", carrier)
    code = jit.assembly(_loop_ir(name, carrier, width), 3)
    roundings = re.findall(r"\{rd-sae\}[^\n]*", code)
    assert len(roundings) == 2, roundings
    assert sum("zmm" in line for line in roundings) == 1, roundings
