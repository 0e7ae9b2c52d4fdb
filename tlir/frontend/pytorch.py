"""PyTorch models in: `torch.export`, the core ATen op set, one lowering per op.

`from_torch` captures a module with `torch.export` on its example input,
decomposes it to the core ATen op set (`run_decompositions`) and converts the
graph node by node with the lowerings of tlir/frontend/aten.py; an op missing
from that table, or a use of a supported op TorchLean cannot express, is one
`TlirError` naming the op and the line of the model's source. docs/pytorch.md
lists the table.
"""

from __future__ import annotations

import contextlib
import logging
import operator
import os
import re

import numpy as np
import torch
from torch.fx import Node
from torch.utils._pytree import tree_map
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from tlir.diagnostics import TlirError
from tlir.frontend.aten import LOWERINGS, TRAINING_BATCH_NORM, Boolean, batch_norm_training
from tlir.frontend.batch import generalize, trace_batches
from tlir.frontend.emitter import (
    BATCH_AXIS,
    UNREADABLE,
    Emitter,
    Site,
    check_dtype,
    check_dynamic_batch,
)

WHERE = "tlir.from_torch"
_NUMPY_DTYPES = {torch.float32: np.float32, torch.float64: np.float64}


@contextlib.contextmanager
def _quiet_fake_tensors():
    """torch.export logs a traceback of its own (at error level) for a shape
    error while it traces; the error it raises is reported in one line."""
    logger = logging.getLogger("torch._subclasses.fake_tensor")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextlib.contextmanager
def _no_monitor_thread_left():
    """torch.fx's interpreter opens a (disabled) tqdm bar while it exports, and
    tqdm's monitor thread outlives the bar: while that Python thread runs, no
    compile in the process may fork helper processes (`tlir.compiler.helper`). A monitor
    started during the export is stopped after it."""
    from tqdm import tqdm

    before = tqdm.monitor
    try:
        yield
    finally:
        if before is None and tqdm.monitor is not None:
            tqdm.monitor.exit()
            tqdm.monitor = None


_UNINITIALISED = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided",
                  "empty_permuted"}  # fmt: skip


def _foldable(op: torch._ops.OpOverload) -> bool:
    name = str(op).split(".")[1]
    return torch.Tag.nondeterministic_seeded not in op.tags and name not in _UNINITIALISED


class Folded:
    """A tensor that depends on neither the input nor a parameter (a causal
    mask built in `forward`, `torch.ones(…)`): computed by PyTorch at import,
    a fixed constant where a lowered op reads it."""

    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor
        self.value: SSAValue | None = None


class Converter:
    def __init__(self, program, dtype: np.dtype, seed: int):
        self.program = program
        self.graph = program.graph_module.graph
        self.seed = seed
        self.dropouts = 0
        self.values: dict[Node, object] = {}
        user = [n for n in self.graph.nodes if _kind(program, n) == "USER_INPUT"]
        self.e = Emitter(WHERE, dtype, tuple(user[0].meta["val"].shape))

    # --- reading node arguments -------------------------------------------------

    def v(self, arg) -> SSAValue | float:
        """A node argument as a tlir value (numbers stay numbers)."""
        if isinstance(arg, Node):
            value = self.values[arg]
            if isinstance(value, Folded):
                value = self.materialize(arg, value)
            if isinstance(value, Boolean):
                raise self.e.error(f"{arg.target} gives a boolean tensor, which TorchLean lacks")
            if not isinstance(value, SSAValue):
                raise self.e.error(f"cannot use the result of {arg.target} here")
            return value
        if isinstance(arg, bool) or not isinstance(arg, int | float):
            raise self.e.error(f"unsupported argument {arg!r}")
        return float(arg)

    def t(self, arg) -> SSAValue:
        value = self.v(arg)
        if not isinstance(value, SSAValue):
            raise self.e.error("expected a tensor argument")
        return value

    def materialize(self, node: Node, folded: Folded) -> SSAValue:
        if folded.value is None:
            if not torch.is_floating_point(folded.tensor):
                dtype = folded.tensor.dtype
                raise self.e.error(f"{node.target} gives a {dtype} tensor, which TorchLean lacks")
            values = folded.tensor.detach().to(torch.float64).numpy()
            folded.value = self.e.fixed(values, node.name)
        return folded.value

    def fold(self, node: Node) -> object:
        """`node` computed by PyTorch if every tensor it reads is folded (and it
        draws no random numbers and reads no uninitialised memory); None
        otherwise."""
        target = node.target
        if target is operator.getitem:
            source = self.values.get(node.args[0])
            folded = isinstance(source, tuple) and all(isinstance(v, Folded) for v in source)
            return source[node.args[1]] if folded else None
        if not isinstance(target, torch._ops.OpOverload) or not _foldable(target):
            return None
        inputs = [a for a in _flat([node.args, list(node.kwargs.values())]) if isinstance(a, Node)]
        if not all(isinstance(self.values.get(a), Folded) for a in inputs):
            return None

        def resolve(arg):
            return self.values[arg].tensor if isinstance(arg, Node) else arg

        try:
            out = target(*tree_map(resolve, node.args), **tree_map(resolve, dict(node.kwargs)))
        except Exception:  # noqa: BLE001 - then the op is lowered (or refused) as usual
            return None
        if isinstance(out, torch.Tensor):
            return Folded(out)
        if isinstance(out, tuple | list) and all(isinstance(o, torch.Tensor) for o in out):
            return tuple(Folded(o) for o in out)
        return None

    # --- the conversion ---------------------------------------------------------

    def run(self) -> ModuleOp:
        self.refuse_impure()
        outputs = []
        for index, node in enumerate(self.graph.nodes):
            self.e.at(Site(WHERE, _describe(node), index))
            if node.op == "placeholder":
                self.values[node] = self.placeholder(node)
            elif node.op == "call_function" and (folded := self.fold(node)) is not None:
                self.values[node] = folded
            elif node.op == "call_function":
                lowering = LOWERINGS.get(node.target)
                if lowering is None:
                    raise self.e.error("TorchLean has no counterpart of this op")
                try:
                    self.values[node] = lowering(self, node)
                except UNREADABLE as err:
                    raise self.e.unreadable(err) from None
            elif node.op == "output":
                outputs = [self.t(a) for a in _flat(node.args[0])]
            else:
                raise self.e.error(f"unsupported graph node kind '{node.op}'")
        return self.e.finish(outputs)

    def refuse_impure(self) -> None:
        """Before anything else: batch norm's running-statistics update comes
        first in the graph and would be reported instead; so would a buffer's
        update, which the graph returns as an extra output."""
        for index, node in enumerate(self.graph.nodes):
            if node.target in TRAINING_BATCH_NORM:
                self.e.at(Site(WHERE, _describe(node), index))
                batch_norm_training(self, node)
        for spec in self.program.graph_signature.output_specs:
            if spec.kind.name != "USER_OUTPUT":
                raise TlirError(
                    WHERE,
                    f"the model changes '{spec.target}' as it runs ({spec.kind.name.lower()}); "
                    "a TorchLean graph is a pure function of its input",
                )

    def placeholder(self, node: Node) -> object:
        kind = _kind(self.program, node)
        if kind == "USER_INPUT":
            return self.e.input
        spec = _spec(self.program, node)
        tensor = (
            self.program.constants[spec.target]
            if kind in ("CONSTANT_TENSOR", "CUSTOM_OBJ")
            else self.program.state_dict[spec.target]
        )
        if not torch.is_floating_point(tensor):
            return None  # num_batches_tracked and the like: unusable, and unused
        values = tensor.detach().to(torch.float64).numpy()
        if kind == "PARAMETER":
            return self.e.parameter(values, spec.target)
        return self.e.fixed(values, spec.target)


def _kind(program, node: Node) -> str:
    spec = _spec(program, node)
    return spec.kind.name if spec is not None else ""


def _spec(program, node: Node):
    for spec in program.graph_signature.input_specs:
        if spec.arg.name == node.name:
            return spec
    return None


def _flat(value) -> list:
    if isinstance(value, list | tuple):
        return [x for item in value for x in _flat(item)]
    return [value]


def _describe(node: Node) -> str:
    """`aten.gelu.default (model.py:14)`: the op and the line of the model's
    source that made it (the innermost frame outside PyTorch itself)."""
    name = str(node.target) if node.op == "call_function" else node.name
    trace = node.meta.get("stack_trace") or ""
    frames = re.findall(r'File "([^"]+)", line (\d+)', trace)
    torch_dir = os.path.dirname(torch.__file__)
    own = [f for f in frames if not f[0].startswith(torch_dir)] or frames
    return f"{name} ({own[-1][0]}:{own[-1][1]})" if own else name


# --- entry ------------------------------------------------------------------------


def supported_ops() -> list[str]:
    """The ATen ops `from_torch` reads (docs/pytorch.md has the table)."""
    return sorted(
        str(op) if isinstance(op, torch._ops.OpOverload) else f"operator.{op.__name__}"
        for op in LOWERINGS
    )


def from_torch(module, example_inputs, *, dynamic_batch: bool = True, seed: int = 0) -> ModuleOp:
    check_dynamic_batch(dynamic_batch, WHERE)
    if not isinstance(module, torch.nn.Module):
        raise TlirError(WHERE, f"expected a torch.nn.Module, got {type(module).__name__}")
    inputs = example_inputs if isinstance(example_inputs, tuple | list) else (example_inputs,)
    if len(inputs) != 1 or not isinstance(inputs[0], torch.Tensor):
        raise TlirError(WHERE, "a TorchLean graph takes exactly one input tensor")
    dtype = check_dtype(_NUMPY_DTYPES.get(inputs[0].dtype, inputs[0].dtype), WHERE)
    if inputs[0].dim() <= BATCH_AXIS:
        raise TlirError(WHERE, "the example input needs a batch axis")
    param_dtypes = {p.dtype for p in module.parameters()}
    if param_dtypes - {inputs[0].dtype}:
        raise TlirError(
            WHERE,
            f"the model's parameters are {', '.join(sorted(map(str, param_dtypes)))} but the "
            f"input is {inputs[0].dtype} (convert the model with .to({inputs[0].dtype}))",
        )
    if not dynamic_batch:
        return _convert(module, inputs[0], dtype, seed)
    if inputs[0].shape[BATCH_AXIS] == 0:
        raise TlirError(WHERE, "the example input's batch is 0")
    batches = trace_batches(inputs[0].shape[BATCH_AXIS])
    traces = []
    for batch in batches:
        try:
            traces.append(_convert(module, _at_batch(inputs[0], batch), dtype, seed))
        except TlirError as err:
            if batch == inputs[0].shape[BATCH_AXIS]:
                raise  # the example itself does not import
            raise TlirError(
                WHERE,
                f"the model does not import at batch {batch} ({err.message}); import it with "
                "dynamic_batch=False to compile it for the example's batch",
            ) from None
    return generalize(*traces, batches, WHERE)


def _at_batch(example: torch.Tensor, batch: int) -> torch.Tensor:
    """The example with `batch` rows (its own rows repeated): only its shape is traced."""
    repeats = -(-batch // example.shape[BATCH_AXIS])
    return torch.cat([example] * repeats, dim=BATCH_AXIS)[:batch].contiguous()


def _convert(module, example: torch.Tensor, dtype: np.dtype, seed: int) -> ModuleOp:
    try:
        with _quiet_fake_tensors(), _no_monitor_thread_left():
            program = torch.export.export(module, (example,)).run_decompositions()
    except Exception as err:  # noqa: BLE001 - torch.export's own failures, in one line
        message = " ".join(str(err).split("\n")[0].split())
        raise TlirError(WHERE, f"torch.export failed: {type(err).__name__}: {message}") from None
    return Converter(program, dtype, seed).run()
