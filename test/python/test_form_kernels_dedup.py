"""`tlir-form-kernels{dedup=true}`: a group identical to an earlier one calls
that one's kernel, so the kernels `tlir-dedup-kernels` would merge are never
made; after `tlir-dedup-kernels` the module is the one without the option."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import tlir
from tlir.passes.tlir_dedup_kernels import TlirDedupKernels
from tlir.passes.tlir_form_kernels import TlirFormKernels, is_kernel
from tlir.universe import context

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
UNARY = ("relu", "tanh", "relu", "abs")


def repeated_layers() -> str:
    """Ops of two types, unary and binary, some reading one value twice: groups
    that repeat, and groups alike but for their types or operand pattern."""
    lines = ["func.func @main(%x: tensor<4x4xf64>, %y: tensor<2x4xf64>) -> tensor<4x4xf64> {"]
    previous = {"4x4": "%x", "2x4": "%y"}
    for i in range(12):
        shape = "4x4" if i % 3 else "2x4"
        t = f"tensor<{shape}xf64>"
        p = previous[shape]
        if i % 4 == 3:
            other = p if i % 8 == 3 else ("%x" if shape == "4x4" else "%y")
            op = f"tlir.add {p}, {other} : ({t}, {t}) -> {t}"
        else:
            op = f"tlir.{UNARY[i % len(UNARY)]} {p} : ({t}) -> {t}"
        lines.append(f"  %v{i} = {op}")
        previous[shape] = f"%v{i}"
    lines.append(f"  func.return {previous['4x4']} : tensor<4x4xf64>\n}}")
    return "\n".join(lines)


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp) and is_kernel(op)]


def formed(module: ModuleOp, fuse: bool, dedup: bool) -> ModuleOp:
    module = module.clone()
    TlirFormKernels(fuse=fuse, max_ops=3, dedup=dedup).apply(context(), module)
    return module


def sources() -> list[tuple[str, ModuleOp]]:
    return [
        ("repeated", tlir.parse_module(repeated_layers())),
        *(
            (name, tlir.load_model(str(EXAMPLES / f"{name}.json")))
            for name in ("cnn", "transformer_block")
        ),
    ]


@pytest.mark.parametrize("fuse", [False, True], ids=["one-op-kernels", "fused"])
@pytest.mark.parametrize("name, source", sources(), ids=lambda v: v if isinstance(v, str) else "")
def test_shared_kernels_give_the_deduplicated_module(name, source, fuse):
    plain, shared = formed(source, fuse, False), formed(source, fuse, True)
    made, distinct = len(kernels(plain)), len(kernels(shared))
    for module in (plain, shared):
        TlirDedupKernels().apply(context(), module)
        module.verify()
    assert str(shared) == str(plain)
    assert distinct == len(kernels(plain))  # each distinct kernel made once, no more
    if name == "repeated" and not fuse:
        assert distinct < made


def test_groups_alike_but_for_types_or_operands_stay_apart():
    module = formed(tlir.parse_module(repeated_layers()), False, True)
    signatures = [str(k.function_type) for k in kernels(module)]
    relus = [s for k, s in zip(kernels(module), signatures) if "relu" in str(k)]
    assert sorted(relus) == [
        "(tensor<2x4xf64>) -> tensor<2x4xf64>",
        "(tensor<4x4xf64>) -> tensor<4x4xf64>",
    ]
    # adds of one value twice (on each type) and of two values
    adds = [k for k in kernels(module) if any(op.name == "tlir.add" for op in k.walk())]
    assert sorted(len(k.function_type.inputs) for k in adds) == [1, 1, 2]
