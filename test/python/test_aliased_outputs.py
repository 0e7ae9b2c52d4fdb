"""Outputs that are the same value, or lower to the same buffer (a value returned
twice, views of it, an input, one constant), compile on both back ends and in
both precisions, give the reference's bits, and come back as separate arrays.
The whole `tlir-to-llvm` route (`tlir-translate --mlir-to-llvmir`) handles them
too: each out-parameter receives its own copy."""

from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest

import tlir
from tlir.reference import evaluate

SHAPE = [4]
X = [-1.5, -0.0, float("nan"), float("inf")]


def relu(node_id: int, parent: int = 0) -> dict:
    return {"id": node_id, "kind": "relu", "parents": [parent], "shape": SHAPE}


def graph(nodes: list[dict], outputs: list[int]) -> dict:
    first = {"id": 0, "kind": "input", "parents": [], "shape": SHAPE}
    return {
        "format": "torchlean.ir.v1",
        "input_id": 0,
        "output_ids": outputs,
        "nodes": [first, *nodes],
    }


EMPTY = {"id": 1, "kind": "const", "parents": [], "shape": [0], "values": []}
CONST = {"id": 1, "kind": "const", "parents": [], "shape": [2], "values": [0.5, -0.0]}

CASES = {
    "computed_twice": graph([relu(1)], [1, 1]),
    "computed_three_times": graph([relu(1)], [1, 1, 1]),
    "detach": graph([relu(1), {"id": 2, "kind": "detach", "parents": [1], "shape": SHAPE}], [1, 2]),
    "flatten_rank_1": graph(
        [
            relu(1),
            {"id": 2, "kind": "flatten", "parents": [1], "shape": SHAPE, "value_shape": SHAPE},
        ],
        [1, 2],
    ),
    "identity_reshape": graph(
        [
            relu(1),
            {
                "id": 2,
                "kind": "reshape",
                "parents": [1],
                "shape": SHAPE,
                "in_shape": SHAPE,
                "out_shape": SHAPE,
            },
        ],
        [2, 1],
    ),
    "reduce_no_axes": graph(
        [
            relu(1),
            {
                "id": 2,
                "kind": "reduce_sum",
                "parents": [1],
                "shape": SHAPE,
                "axes": [],
                "keepdim": False,
            },
        ],
        [1, 2],
    ),
    "empty_const_twice": graph([EMPTY], [1, 1]),
    "const_twice": graph([CONST], [1, 1]),
    "input": graph([], [0]),
    "input_twice": graph([], [0, 0]),
    "input_and_computed": graph([relu(1)], [0, 1, 0]),
}


def _inputs(dtype: str) -> list[np.ndarray]:
    return [np.array(X, dtype=np.float32 if dtype == "f32" else np.float64)]


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()


def _write(tmp_path, name: str) -> str:
    import json

    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(CASES[name]))
    return str(path)


def _assert_separate(outputs: list[np.ndarray], inputs: list[np.ndarray]) -> None:
    for a, b in itertools.combinations([*outputs, *inputs], 2):
        assert not np.shares_memory(a, b)


@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_aliased_outputs_compile_to_separate_arrays(tmp_path, name, dtype, backend):
    if backend == "mlir":
        from tlir.compiler.backend.mlir import find_tool

        if find_tool("mlir-opt") is None:
            pytest.skip("mlir-opt is not installed")
    path = _write(tmp_path, name)
    inputs = _inputs(dtype)
    model = tlir.compile(path, dtype=dtype, backend=backend)
    got = model(*inputs)
    want = evaluate(tlir.load_model(path, dtype), inputs)
    assert len(got) == len(want) == len(CASES[name]["output_ids"])
    for g, w in zip(got, want):
        assert _same_bits(g, w), (g, w)
    _assert_separate(got, inputs)
    # writing into one output changes no other output, nor the next call
    for output in got:
        output.fill(7.0)
    again = model(*inputs)
    for g, w in zip(again, want):
        assert _same_bits(g, w)
    assert _same_bits(inputs[0], _inputs(dtype)[0])


def run_whole_route(module, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run `@main` as `tlir-translate --mlir-to-llvmir` emits it (the whole
    `tlir-to-llvm` route): inputs and out-parameters as bare pointers."""
    from xdsl.dialects import func

    from tlir.compiler import jit
    from tlir.compiler.backend.xdsl import llvm_dialect_to_ir, lower_to_llvm_dialect
    from tlir.interface import numpy_dtype

    main = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )
    outputs = [np.empty(t.get_shape(), numpy_dtype(t)) for t in main.function_type.outputs.data]
    text = llvm_dialect_to_ir(lower_to_llvm_dialect(module))
    engine = jit.Engine([jit.compile_object(text, 2)])
    returns_status = 'define i32 @"main"' in text
    arrays = [*inputs, *outputs]
    entry = engine.function(
        "main", ctypes.c_int32 if returns_status else None, [ctypes.c_void_p] * len(arrays)
    )
    keep = np.zeros(1)
    status = entry(*[a.ctypes.data if a.size else keep.ctypes.data for a in arrays])
    assert not status
    return outputs


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_aliased_outputs_through_the_whole_llvm_route(tmp_path, name, dtype):
    path = _write(tmp_path, name)
    inputs = _inputs(dtype)
    got = run_whole_route(tlir.load_model(path, dtype), inputs)
    want = evaluate(tlir.load_model(path, dtype), inputs)
    for g, w in zip(got, want):
        assert _same_bits(g, w), (g, w)
