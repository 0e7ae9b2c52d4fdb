"""A compile's options: their names, defaults and checks, defined once for
`tlir.compile`, `CompiledModel` and the tools."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import TypeVar

from tlir.compiler.backend import BACKENDS
from tlir.compiler.threads import check_threads, default_threads
from tlir.diagnostics import TlirError
from tlir.interface import NUMERICS

OPT_LEVELS = (0, 1, 2, 3)
PARAMETERS = ("live", "frozen")

F = TypeVar("F", bound=Callable)


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """`backend`: "xdsl" (tlir's own lowering) or "mlir" (upstream mlir-opt and
    mlir-translate). `opt_level`: LLVM's, 0 to 3. `threads`: how many threads
    run each large enough kernel (default `TLIR_NUM_THREADS`, else all cores);
    results do not depend on it. `cache`: use the on-disk compile cache.
    `progress`: a progress bar on stderr (when it is a terminal) for a compile
    that takes more than two seconds. `fuse`: fuse ops into kernels (else one
    kernel per op). `numerics`: "exact" (TorchLean's rounding, bit for bit) or
    "fma" (opt-in: each multiply-add of a matmul, linear or conv fold rounds
    once, in the same order; deterministic and independent of threads, but not
    TorchLean's rounding). `parameters`: "live" (`parameters()` returns the
    arrays the compiled code reads, writeable: an update in place changes the
    model) or "frozen" (read-only arrays no one can make writeable; the
    contraction kernels take their constant weights packed once, at link
    time, and derivatives and optimizers refuse the model)."""

    backend: str = "xdsl"
    opt_level: int = 2
    threads: int | None = None
    cache: bool = True
    progress: bool = False
    fuse: bool = True
    numerics: str = "exact"
    parameters: str = "live"

    @classmethod
    def of(cls, options: dict, caller: str) -> CompileOptions:
        """The options given by keyword to `caller`; a name that is not an option
        is refused as Python refuses an unexpected keyword argument."""
        unknown = options.keys() - NAMES
        if unknown:
            raise TypeError(f"{caller}() got an unexpected keyword argument {min(unknown)!r}")
        return cls(**options)

    def checked(self, where: str) -> CompileOptions:
        """These options once checked (a one-line error otherwise), with the
        thread count resolved (its default, or the one given, checked)."""
        check_options(self.backend, self.opt_level, self.numerics, where)
        check_parameters(self.parameters, where)
        threads = default_threads() if self.threads is None else check_threads(self.threads, where)
        return dataclasses.replace(self, threads=threads)

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in NAMES}


NAMES = tuple(field.name for field in dataclasses.fields(CompileOptions))


def check_options(backend: object, opt_level: object, numerics: object, where: str) -> None:
    """The options that change code: known values, else a one-line error."""
    if backend not in BACKENDS:
        raise TlirError(where, f"unknown back end {backend!r} (choose from {', '.join(BACKENDS)})")
    if type(opt_level) is not int or opt_level not in OPT_LEVELS:
        raise TlirError(where, f"opt_level must be one of 0, 1, 2, 3, got {opt_level!r}")
    if numerics not in NUMERICS:
        raise TlirError(where, f"numerics must be one of {', '.join(NUMERICS)}, got {numerics!r}")


def check_parameters(parameters: object, where: str) -> str:
    """`parameters` if it is one of `PARAMETERS`, else a one-line error."""
    if parameters not in PARAMETERS:
        raise TlirError(
            where, f"parameters must be one of {', '.join(PARAMETERS)}, got {parameters!r}"
        )
    return parameters


def model_options(fuse: bool, numerics: str, parameters: str) -> str:
    """The options that change a model's code, as its cache keys spell them."""
    frozen = "; parameters frozen" if parameters == "frozen" else ""
    return f"fuse {fuse}; numerics {numerics}{frozen}"


def takes_options(function: F) -> F:
    """`function(…, **options)` shown (`help`, `inspect.signature`) with the
    options as keyword parameters, their defaults `CompileOptions`'."""
    signature = inspect.signature(function)
    kept = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    keyword = inspect.Parameter.KEYWORD_ONLY
    options = [
        inspect.Parameter(f.name, keyword, default=f.default, annotation=f.type)
        for f in dataclasses.fields(CompileOptions)
    ]
    function.__signature__ = signature.replace(parameters=[*kept, *options])
    return function


__all__ = [
    "NAMES",
    "OPT_LEVELS",
    "PARAMETERS",
    "CompileOptions",
    "check_options",
    "check_parameters",
    "model_options",
    "takes_options",
]
