"""The front end: every source of a model to a checked tlir module.

`load.py` is the loading stage every model goes through (`tlir.compile`,
`tlir-run`): any source to one checked module (docs/design.md, "Layers");
`mlir.py` parses MLIR text with located ops; `tlir.torchlean` reads TorchLean
JSON and `.tlz`. `from_torch` (PyTorch, via torch.export) and `from_onnx`
(docs/pytorch.md) import their framework only when called."""

from __future__ import annotations


def from_torch(module, example_inputs, *, dynamic_batch: bool = True, seed: int = 0):
    """A PyTorch module as a tlir module, traced on `example_inputs` (one
    float32 or float64 tensor whose leading axis is the batch); parameters keep
    their `state_dict` names. `seed` keys training-mode dropout's masks.
    `dynamic_batch`: the batch is `?` (the model takes any batch; traced at two
    batch sizes), else the example's (docs/pytorch.md#batch-size)."""
    _require("torch", "tlir.from_torch")
    from tlir.frontend.pytorch import from_torch as convert

    return convert(module, example_inputs, dynamic_batch=dynamic_batch, seed=seed)


def from_onnx(model, *, dynamic_batch: bool = True):
    """An ONNX model (a path or an `onnx.ModelProto`; opsets 13-20) as a tlir
    module in the precision of its input; parameters are named by their
    initializers. `dynamic_batch`: a symbolic leading input extent is the batch
    `?`; with False (or a fixed extent) the module is static."""
    _require("onnx", "tlir.from_onnx")
    from tlir.frontend.onnx import from_onnx as convert

    return convert(model, dynamic_batch=dynamic_batch)


def _require(package: str, where: str) -> None:
    import importlib.util

    from tlir.diagnostics import TlirError

    if importlib.util.find_spec(package) is None:
        raise TlirError(where, f"needs the '{package}' package, which is not installed")
