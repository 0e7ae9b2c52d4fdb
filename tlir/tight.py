"""The `tight` interval rules (docs/verification.md#tight-rules): what the
reference rules and the `tlir-ibp` pass share.

`rules="torchlean"` (the default) is TorchLean's host policy bit for bit.
`rules="tight"` is an opt-in, still sound, tighter mode:

* directed `+`, `-`, `×`, `/` move one step only when the rounded result is
  not exact, in the direction of the error (an error-free transformation, or
  the FMA's remainder, finds it);
* `exp`, `log`, `tanh` and the ops built on them get boxes from the C
  library's function at the endpoints, widened outward by the library's
  documented maximum error (`LIBM_ULPS`).

The mode in force is a context variable: the reference rules and the pass read
it while they run (`rules_mode`), so every helper of the interval arithmetic
picks the same form without threading an argument through each rule.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator

import numpy as np

from tlir.diagnostics import TlirError

RULES = ("torchlean", "tight")

LIBM_ULPS: dict[str, tuple[int, int]] = {
    "exp": (1, 1),
    "log": (1, 1),
    "tanh": (2, 2),
    "sin": (1, 1),
    "cos": (1, 1),
}
"""Known maximum error, in ulps, of the C library's `name` (binary64) and
`namef` (binary32), round to nearest: the GNU C Library manual, "Known Maximum
Errors in Math Functions", x86_64 column (generated from glibc's
`sysdeps/x86_64/fpu/libm-test-ulps`). The figures hold from glibc 2.28 (its
new `exp`/`log`/`expf`/`logf`) on; `MIN_GLIBC` refuses older libraries. These
are the functions compiled code calls (docs/numerics.md#transcendentals);
`sin`/`cos` keep the box [-1, 1], which needs no error bound."""

MIN_GLIBC = (2, 28)

_TIGHT: contextvars.ContextVar[bool] = contextvars.ContextVar("tlir_tight_rules", default=False)


def tight() -> bool:
    """Whether the rules in force are `tight`."""
    return _TIGHT.get()


@contextlib.contextmanager
def rules_mode(rules: str) -> Iterator[None]:
    """Run the interval rules of `rules` inside the block."""
    token = _TIGHT.set(rules == "tight")
    try:
        yield
    finally:
        _TIGHT.reset(token)


def glibc_version() -> tuple[int, int] | None:
    """The host C library's glibc version, None if it is not glibc."""
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        return None
    name, _, version = text.partition(" ")
    if name != "glibc":
        return None
    try:
        major, minor = (int(p) for p in version.split(".")[:2])
    except ValueError:
        return None
    return major, minor


def check_rules(rules: object, where: str) -> str:
    """`rules` if it names a rule set usable on this host, else a one-line error."""
    if not isinstance(rules, str) or rules not in RULES:
        raise TlirError(where, f"rules must be one of {', '.join(RULES)}, got {rules!r}")
    if rules == "tight":
        version = glibc_version()
        if version is None or version < MIN_GLIBC:
            found = "not glibc" if version is None else f"glibc {version[0]}.{version[1]}"
            raise TlirError(
                where,
                f"rules 'tight' trusts glibc's documented libm error bounds (glibc >= "
                f"{MIN_GLIBC[0]}.{MIN_GLIBC[1]}); this host's C library is {found}",
            )
    return rules


def steps(name: str, dtype: np.dtype) -> int:
    """How many `nextafter` steps widen the C library's `name` outward: its
    error bound k, plus one if k > 0. glibc measures the error of a result F
    in ulps of the exact value f, |F − f| ≤ k·ulp(f). Steps away from F toward
    f are each at least ulp(f) wide except where they cross a power of two
    toward f's larger binade: there the steps before it are half as wide, and
    one more step makes up for them (k is small: at most one binade is
    crossed). k = 0 would claim F = f, which needs no step."""
    f64, f32 = LIBM_ULPS[name]
    k = f32 if np.dtype(dtype) == np.float32 else f64
    return k + 1 if k > 0 else 0


def product_threshold(dtype: np.dtype) -> float:
    """Above this |a·b| rounded, the error of a product is exactly
    representable: with a = A·2^ea, b = B·2^eb (integer significands below
    2^p), |ab| < 2^(ea+eb+2p); |RN(ab)| ≥ 2^(emin+p+2) gives |ab| > 2^(emin+p+1),
    so ea + eb ≥ emin − p + 1, the known condition for `fma(a, b, −RN(ab))` to be
    exact (ab − RN(ab) is then a multiple of 2^(ea+eb) below 2^p of them)."""
    return 2.0**-967 if np.dtype(dtype) == np.float64 else 2.0**-100


TIGHT_REASONS = {
    "tlir.exp": "a bound is NaN",
    "tlir.tanh": "a bound is NaN",
    "tlir.sigmoid": "a bound is NaN",
    "tlir.softplus": "a bound is NaN",
    "tlir.softmax": "a bound is NaN",
    "tlir.hard_masked_softmax": "a bound is NaN",
    "tlir.log": "a lower bound is < 0 or a bound is NaN",
    "tlir.safe_log": "a lower bound of softplus(x) + eps is not > 0, or a bound is NaN",
}
"""Why a tight rule gave no box on the values it was given."""


__all__ = [
    "LIBM_ULPS",
    "MIN_GLIBC",
    "RULES",
    "TIGHT_REASONS",
    "check_rules",
    "glibc_version",
    "product_threshold",
    "rules_mode",
    "steps",
    "tight",
]
