"""`tlir-run --jvp/--vjp`: derivatives of a model, compiled or on the reference.

Every result is a named array: `output0`, … (the forward values),
`output_tangent0`, … (forward mode), `input_grad0`, … and `param_grad:NAME`
(reverse mode, one per parameter of `tlir.parameters`).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tlir.diagnostics import TlirError
from tlir.tools.common import write_output


def load_archive(path: str) -> dict[str, np.ndarray]:
    """The arrays of an .npz archive by key (a .npy is one array, key '')."""
    try:
        data = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise TlirError(path, "no such file") from None
    except (OSError, ValueError) as err:
        raise TlirError(path, f"not a .npy array or .npz archive: {err}") from None
    if isinstance(data, np.ndarray):
        return {"": data}
    with data:
        return {key: data[key] for key in data.files}


def load_cotangents(path: str, count: int) -> list[np.ndarray]:
    """One cotangent per output: a .npy for one output, else keys output{i} or dy{i}."""
    arrays = load_archive(path)
    if list(arrays) == [""]:
        if count != 1:
            message = f"the model has {count} outputs: give an .npz with one per output"
            raise TlirError(path, message)
        return [arrays[""]]
    for prefix in ("output", "dy"):
        keys = [f"{prefix}{i}" for i in range(count)]
        if set(keys) <= set(arrays):
            extra = sorted(set(arrays) - set(keys))
            if extra:
                raise TlirError(path, f"unexpected array '{extra[0]}' (expected {', '.join(keys)})")
            return [arrays[k] for k in keys]
    expected = ", ".join(f"output{i}" for i in range(count))
    raise TlirError(path, f"expected one array per output, keyed {expected} (or dy0, …)")


def load_param_tangents(path: str, names: Sequence[str]) -> dict[str, np.ndarray]:
    arrays = load_archive(path)
    if list(arrays) == [""]:
        raise TlirError(path, "parameter tangents are an .npz keyed by parameter name")
    unknown = sorted(set(arrays) - set(names))
    if unknown:
        listed = ", ".join(names) if names else "none"
        raise TlirError(path, f"no parameter named '{unknown[0]}' (parameters: {listed})")
    return arrays


def _check_like(arrays: Sequence[np.ndarray], likes: Sequence, what: str, where: str) -> None:
    for index, (value, like) in enumerate(zip(arrays, likes, strict=True)):
        shape, dtype = like
        if value.shape != tuple(shape) or value.dtype != dtype:
            raise TlirError(
                where,
                f"{what} {index} has shape {list(value.shape)} and dtype {value.dtype}, "
                f"expected shape {list(shape)} and dtype {dtype}",
            )


def run_derivatives(
    args: argparse.Namespace, module: ModuleOp, inputs: list[np.ndarray], where: str
) -> None:
    from tlir.interface import find_function, numpy_dtype
    from tlir.parameters import parameter_names, parameters
    from tlir.tools.running import compare_named, describe_named

    main = find_function(module)
    names = parameter_names(main)
    in_types = [(t.get_shape(), numpy_dtype(t)) for t in main.function_type.inputs.data]
    out_types = [(t.get_shape(), numpy_dtype(t)) for t in main.function_type.outputs.data]
    if args.param_tangents and not args.jvp:
        raise TlirError("tlir-run", "--param-tangents goes with --jvp")
    tangents: list[np.ndarray] = []
    param_tangents: dict[str, np.ndarray] | None = None
    if args.jvp:
        from tlir.tools.running import load_inputs

        tangents = load_inputs(args.jvp)
        if len(tangents) != len(in_types):
            plural = "s" if len(in_types) != 1 else ""
            message = (
                f"@main takes {len(in_types)} input{plural}, got {len(tangents)} --jvp tangents: "
                "give one --jvp DX.npy per input, in argument order"
            )
            raise TlirError("tlir-run", message)
        _check_like(tangents, in_types, "tangent", args.jvp[0] if len(args.jvp) == 1 else "--jvp")
        if args.param_tangents:
            param_tangents = load_param_tangents(args.param_tangents, names)
            likes = {
                n: (c.result.type.get_shape(), numpy_dtype(c.result.type))
                for n, c in zip(names, parameters(main), strict=True)
            }
            for name, value in param_tangents.items():
                what = f"parameter tangent '{name}'"
                _check_like([value], [likes[name]], what, args.param_tangents)
    cotangents: list[np.ndarray] = []
    if args.vjp:
        cotangents = load_cotangents(args.vjp, len(out_types))
        _check_like(cotangents, out_types, "cotangent", args.vjp)

    results: dict[str, np.ndarray] = {}
    if not args.reference:
        results = _compiled(args, module, inputs, tangents, param_tangents, cotangents)
    reference = None
    if args.reference or args.compare:
        reference = _reference(module, names, inputs, tangents, param_tangents, cotangents, args)
        if args.reference:
            results = reference
    if args.output:
        buffer = io.BytesIO()
        np.savez(buffer, **results)
        write_output(args.output, buffer.getvalue())
    else:
        sys.stdout.write(describe_named(results))
    if args.compare:
        from tlir.tools.running import check_agreement

        text, differing = compare_named(results, reference)
        sys.stdout.write(text)
        sys.stdout.flush()  # the verdict on stderr comes after the lines it sums up
        check_agreement(differing, len(results), args.model)


def _compiled(args, module, inputs, tangents, param_tangents, cotangents) -> dict:
    from tlir.tools.running import compile_from_args

    model = compile_from_args(args, module)
    results: dict[str, np.ndarray] = {}
    if tangents:
        outputs, dys = model.jvp(inputs, tangents, param_tangents)
        results.update({f"output{i}": v for i, v in enumerate(outputs)})
        results.update({f"output_tangent{i}": v for i, v in enumerate(dys)})
    if cotangents:
        outputs, dxs, dps = model.vjp(inputs, cotangents)
        results.update({f"output{i}": v for i, v in enumerate(outputs)})
        results.update({f"input_grad{i}": v for i, v in enumerate(dxs)})
        results.update({f"param_grad:{n}": v for n, v in dps.items()})
    return results


def _reference(module, names, inputs, tangents, param_tangents, cotangents, args) -> dict:
    from tlir.interface import find_function
    from tlir.parameters import parameters
    from tlir.reference import jvp, vjp

    results: dict[str, np.ndarray] = {}
    count = len(find_function(module).function_type.outputs.data)
    if tangents:
        seeds = None
        if param_tangents is not None:
            from tlir.dense import dense_to_numpy

            consts = parameters(find_function(module))
            seeds = [
                param_tangents[n] if n in param_tangents else np.zeros_like(dense_to_numpy(c.value))
                for n, c in zip(names, consts, strict=True)
            ]
        values = jvp(module, inputs, tangents, seeds)
        results.update({f"output{i}": v for i, v in enumerate(values[:count])})
        results.update({f"output_tangent{i}": v for i, v in enumerate(values[count:])})
    if cotangents:
        values = vjp(module, inputs, cotangents, wrt="all")
        n_in = len(inputs)
        results.update({f"output{i}": v for i, v in enumerate(values[:count])})
        results.update({f"input_grad{i}": v for i, v in enumerate(values[count : count + n_in])})
        grads = values[count + n_in :]
        results.update({f"param_grad:{n}": v for n, v in zip(names, grads, strict=True)})
    return results


__all__ = ["run_derivatives"]
