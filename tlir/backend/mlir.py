"""The MLIR back end: upstream `mlir-opt`/`mlir-translate` (Debian's
`mlir-*-tools`) take the linalg-on-tensors output of `convert-tlir-to-linalg`
and `convert-random-to-arith` the rest of the way to LLVM IR.

Used by `tlir-run --backend mlir` and, in the tests, as an independent
cross-check of tlir's own route.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

from tlir.diagnostics import TlirError

VERSIONS = (19, 20, 21, 22)

PIPELINE = (
    "--one-shot-bufferize=bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map",
    "--buffer-results-to-out-params{OUT_PARAMS}",
    "--buffer-deallocation-pipeline",
    "--convert-linalg-to-loops",
    "--lower-affine",
    "--convert-scf-to-cf",
    "--expand-strided-metadata",
    "--finalize-memref-to-llvm",
    "--convert-math-to-libm",
    "--convert-math-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-func-to-llvm",
    "--convert-cf-to-llvm",
    "--reconcile-unrealized-casts",
)
"""Bufferize, results as out-parameters, free temporaries, loops, then LLVM;
transcendentals become calls to the C math library. Functions keep MLIR's
default memref-descriptor convention (its bare-pointer convention leaves
functions with zero-size memrefs unconverted)."""


@functools.cache
def find_tool(name: str) -> str | None:
    """`mlir-opt-19` … `mlir-opt-22` or a plain `mlir-opt`, newest first."""
    for version in reversed(VERSIONS):
        path = shutil.which(f"{name}-{version}")
        if path:
            return path
    return shutil.which(name)


def _run(tool: str, args: list[str], text: str, where: str) -> str:
    path = find_tool(tool)
    if path is None:
        raise TlirError(
            where, f"{tool} not found: install Debian's mlir-19-tools for --backend mlir"
        )
    proc = subprocess.run([path, *args], input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        first = next((line for line in proc.stderr.splitlines() if "error" in line), proc.stderr)
        raise TlirError(where, f"{tool} failed: {first.strip()}")
    return proc.stdout


def verify(linalg_text: str, where: str = "module") -> None:
    """Parse and verify with upstream MLIR."""
    _run("mlir-opt", ["--verify-each"], linalg_text, where)


@functools.cache
def _pipeline() -> list[str]:
    """MLIR 21+ leaves public functions alone unless told to modify them."""
    path = find_tool("mlir-opt")
    help_text = (
        subprocess.run([path, "--help"], capture_output=True, text=True).stdout if path else ""
    )
    out_params = "=modify-public-functions" if "modify-public-functions" in help_text else ""
    return [step.replace("{OUT_PARAMS}", out_params) for step in PIPELINE]


def to_llvm_ir(linalg_text: str, where: str = "module") -> str:
    lowered = _run("mlir-opt", _pipeline(), linalg_text, where)
    return _run("mlir-translate", ["--mlir-to-llvmir"], lowered, where)
