"""Compile one kernel by itself and call it on NumPy buffers, through either back
end; disassemble it. For the tests and `bench/kernels.py` (the compile path of
`tlir.compile` is separate)."""

from __future__ import annotations

import ctypes
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp


def kernel_module(function: func.FuncOp) -> ModuleOp:
    return ModuleOp([function.clone()])


def llvm_ir(function: func.FuncOp, backend: str = "xdsl") -> str:
    """The kernel's LLVM IR through one of the compiler's two back ends."""
    from tlir.compiler.backend import mlir, xdsl

    module = kernel_module(function)
    if backend == "xdsl":
        return xdsl.kernel_llvm_ir(module, "kernel")
    return mlir.kernel_llvm_ir(module, "kernel")


def aligned_bytes(nbytes: int, align: int = 64) -> np.ndarray:
    """`nbytes` bytes starting at a multiple of `align`, as a compiled model's
    workspace does: a large NumPy array starts 16 bytes past a page, and
    vectors of a scratch buffer there straddle cache lines (the bench's f64
    MLP layers timed 10-14 % slower)."""
    raw = np.empty(nbytes + align, np.uint8)
    skip = -raw.ctypes.data % align
    return raw[skip : skip + nbytes]


class CompiledKernel:
    """A kernel compiled for the host CPU; `kernel(inputs…, output, lo, hi)` (the
    kernel's scratch buffers, if any, are the harness's own)."""

    def __init__(self, function: func.FuncOp, backend: str = "xdsl", opt_level: int = 2):
        from tlir.compiler import jit
        from tlir.compiler.backend import kernel_abi

        self.name = function.sym_name.data
        abi = kernel_abi(kernel_module(function), self.name)
        self.extent = abi.parallel_extent
        self.count = abi.num_inputs + abi.num_outputs
        rule = function.attributes.get("tlir.parallel_rule")
        self.rule = None if rule is None else tuple(rule.get_values())
        """A batch-generic kernel's `(a, k, d, c)`: units(B) = a·⌈k·B/d⌉ + c."""
        if self.rule is None:
            self.scratch = [aligned_bytes(nbytes) for nbytes in abi.scratch_bytes]
        else:
            sizes = function.attributes["tlir.scratch_rule"].get_values()
            self.scratch_rule = list(zip(sizes[::2], sizes[1::2], strict=True))
        self.llvm_ir = llvm_ir(function, backend)
        self.opt_level = opt_level
        self.engine = jit.Engine([jit.compile_object(self.llvm_ir, opt_level, "kernel")])
        trailing = 2 if self.rule is None else 3  # lo, hi[, batch]
        types = [ctypes.c_void_p] * abi.arity + [ctypes.c_int64] * trailing
        self.function = self.engine.function(self.name, None, types)

    def units(self, batch: int | None = None) -> int:
        """Work units (at `batch`, for a batch-generic kernel)."""
        if self.rule is None:
            return self.extent
        a, k, d, c = self.rule
        return a * -(-k * batch // d) + c

    def __call__(
        self,
        buffers: Sequence[np.ndarray],
        ranges: Sequence[tuple[int, int]] | None = None,
        batch: int | None = None,
    ) -> None:
        """Run on C-contiguous buffers (the output last), over `ranges` of work
        units (all of them by default), one call per range; a batch-generic
        kernel at `batch`, with scratch buffers of that batch's sizes."""
        assert len(buffers) == self.count
        assert (batch is None) == (self.rule is None)
        keep = [b if b.size else np.empty(1, b.dtype) for b in buffers]
        for b in buffers:
            assert b.flags.c_contiguous
        scratch = self.scratch if batch is None else self.batch_scratch(batch)
        pointers = [b.ctypes.data for b in [*keep, *scratch]]
        extra = [] if batch is None else [batch]
        for lo, hi in ranges if ranges is not None else [(0, self.units(batch))]:
            self.function(*pointers, lo, hi, *extra)

    def batch_scratch(self, batch: int) -> list[np.ndarray]:
        """The scratch buffers at `batch` (kept: timing loops call with one batch)."""
        cached = getattr(self, "_scratch_at", None)
        if cached is None or cached[0] != batch:
            units = self.units(batch)
            buffers = [aligned_bytes(max(1, s0 + s1 * units)) for s0, s1 in self.scratch_rule]
            self._scratch_at = cached = (batch, buffers)
        return cached[1]

    def assembly(self) -> str:
        """The kernel's machine code as assembly (host CPU, same optimisation)."""
        return assembly(self.llvm_ir, self.name, self.opt_level)


def assembly(llvm_ir: str, name: str, opt_level: int = 2) -> str:
    """The assembly of function `name` in `llvm_ir` (optimised as the JIT does)."""
    from tlir.compiler import jit

    text = jit.assembly(llvm_ir, opt_level)
    start = re.search(rf"^{re.escape(name)}:", text, re.M)
    if start is None:
        return text
    end = text.find(".Lfunc_end", start.end())
    return text[start.start() : end if end >= 0 else len(text)]


def instruction_counts(asm: str) -> Counter:
    """Mnemonic + register width of the arithmetic that matters here:
    `vmulpd ymm`, `vaddps zmm`, any `vfmadd…`, how A is broadcast, and the
    lane shuffles of an in-register transpose (`shuffle zmm`)."""
    counts: Counter = Counter()
    for line in asm.splitlines():
        parts = line.split()
        if not parts or parts[0].startswith((".", "#")) or parts[0].endswith(":"):
            continue
        mnemonic = parts[0]
        if mnemonic.startswith(("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")):
            counts["fma"] += 1
        if mnemonic.startswith("vbroadcasts"):  # a shuffle-unit broadcast of A
            counts["broadcast " + ("zmm" if "zmm" in line else "ymm/xmm")] += 1
        if mnemonic.startswith(("vunpck", "vperm", "vshuf", "vinsert")):
            counts["shuffle " + ("zmm" if "zmm" in line else "ymm/xmm")] += 1
        if "{1to" in line:  # an embedded broadcast, done by the load unit
            counts["embedded broadcast"] += 1
        if mnemonic in ("vmulpd", "vaddpd", "vmulps", "vaddps", "mulpd", "addpd", "mulps",
                        "addps", "vmulsd", "vaddsd", "vmulss", "vaddss"):  # fmt: skip
            width = "zmm" if "zmm" in line else "ymm" if "ymm" in line else "xmm"
            counts[f"{mnemonic} {width}"] += 1
    return counts


_MULTIPLIES = ("vmulpd", "vmulps", "mulpd", "mulps")
_ADDS = ("vaddpd", "vaddps", "addpd", "addps")


@dataclass(frozen=True)
class HotLoop:
    """The innermost loop with the most vector multiplies (or FMAs): the
    register tile's loop over k."""

    width: str
    """Register of its multiplies: zmm, ymm or xmm."""
    multiplies: int
    adds: int
    fmas: int
    loads: int
    """Instructions that read memory (a separate load, or a memory operand)."""
    spills: int
    """Stores to and reloads from spill slots (LLVM's `Spill`/`Reload` comments)."""

    @property
    def terms(self) -> int:
        """Vector terms of the folds: a multiply and an add each, or one FMA."""
        return self.fmas + min(self.multiplies, self.adds)

    def describe(self) -> str:
        per_term = self.loads / self.terms if self.terms else float("nan")
        return (f"{self.width}, {self.multiplies} mul + {self.adds} add + {self.fmas} fma, "
                f"{self.loads} loads ({per_term:.2f} per term), {self.spills} spills")  # fmt: skip


def _blocks(asm: str) -> list[tuple[str, list[str]]]:
    """(label, instructions) of each basic block (label "" where a block
    follows a branch unlabelled); each instruction keeps its comment (LLVM
    marks spills there)."""
    blocks: list[tuple[str, list[str]]] = [("", [])]
    for line in asm.splitlines():
        code = line.split("#", 1)[0].strip()
        if code.endswith(":"):
            blocks.append((code[:-1], []))
        elif code and not code.startswith("."):
            blocks[-1][1].append(line.strip())
            if code.startswith("j"):
                blocks.append(("", []))
    return blocks


def _reads_memory(instruction: str) -> bool:
    """Whether an AT&T-syntax instruction reads memory: a memory operand that is
    not the last (destination) operand, or any memory operand of a compare."""
    text = instruction.split("#")[0]
    parts = text.split(None, 1)
    if len(parts) < 2 or "(" not in parts[1]:
        return False
    mnemonic, operands = parts
    last = operands.rsplit(",", 1)[-1] if "," in operands else operands
    return "(" not in last or mnemonic.startswith(("cmp", "test"))


def hot_loop(asm: str) -> HotLoop | None:
    """The summary of the hot loop in a function's assembly: of the blocks that
    branch back to themselves (single-block loops), the one with the most
    vector multiplies and FMAs; None if no such block multiplies."""
    best: HotLoop | None = None
    for label, instructions in _blocks(asm):
        if not label or not instructions:
            continue
        if instructions[-1].split("#", 1)[0].split()[-1] != label:
            continue
        counts = Counter()
        widths = Counter()
        for instruction in instructions:
            mnemonic = instruction.split()[0]
            kind = ("fma" if mnemonic.startswith(("vfmadd", "vfnmadd", "vfmsub", "vfnmsub"))
                    else "mul" if mnemonic in _MULTIPLIES
                    else "add" if mnemonic in _ADDS else None)  # fmt: skip
            if kind:
                counts[kind] += 1
                widths[next((w for w in ("zmm", "ymm", "xmm") if w in instruction), "?")] += 1
            counts["load"] += _reads_memory(instruction)
            counts["spill"] += "Spill" in instruction or "Reload" in instruction
        if not counts["mul"] + counts["fma"]:
            continue
        loop = HotLoop(widths.most_common(1)[0][0], counts["mul"], counts["add"], counts["fma"],
                       counts["load"], counts["spill"])  # fmt: skip
        if best is None or loop.multiplies + loop.fmas > best.multiplies + best.fmas:
            best = loop
    return best
