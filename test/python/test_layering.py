"""Imports go one way: dialects ← passes ← compiler/back ends ← tools.

A toolchain that only wants the dialect (or a pass) must not pay for the
compiler, the JIT, llvmlite or the reference evaluator."""

import subprocess
import sys

import pytest

HEAVY = ("tlir.compiler", "tlir.reference", "tlir.api", "llvmlite")


@pytest.mark.parametrize(
    "module",
    [
        "tlir.dialects.tlir",
        "tlir.dialects.random",
        "tlir.dialects.tlir_ad",
        "tlir.passes.tlir_jvp",
        "tlir.passes.tlir_vjp",
        "tlir.passes.tlir_ibp",
        "tlir.passes.convert_tlir_to_linalg",
        "tlir.passes.convert_random_to_arith",
        "tlir.passes.tlir_bufferize",
        "tlir.passes.tlir_lower_to_llvm",
        "tlir.passes.tlir_to_llvm",
    ],
)
def test_importing_loads_nothing_heavy(module):
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_package_root_loads_its_names_on_first_use():
    code = (
        "import sys, tlir; before = 'tlir.compiler' in sys.modules; "
        "tlir.compile; print(before, 'tlir.compiler' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
