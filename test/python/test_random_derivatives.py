"""Randomized graphs (hypothesis) through `tlir-jvp` and `tlir-vjp`: DAGs over
every op kind with a JSON encoding (`fuzz_graphs`: shared values, extents 0
and 1, several outputs, the input returned), NaN, infinities, signed zeros and
subnormals in inputs, tangents (parameter tangents in half the draws),
cotangents and constants; the compiled JVP and VJP (parameter gradients
included) against the reference's, bit for bit.

The rules that rewrite the forward program (a pool's or a call's value taken
from the derivative fold, the contraction forms of linear and conv) meet here
shapes and sharing no hand-written case has."""

from __future__ import annotations

import fuzz_graphs
import numpy as np
from fuzz_graphs import budget
from hypothesis import event, given
from hypothesis import strategies as st
from test_random_graphs import HAVE_MLIR, assert_same_bits, with_special_constants

import tlir
from tlir.diagnostics import TlirError
from tlir.reference import jvp, vjp


@budget(ci=6, long=1_500)
@given(data=st.data())
def test_random_dag_derivatives_compiled_match_reference(tmp_path_factory, data):
    from tlir.torchlean import import_file

    document = data.draw(fuzz_graphs.graphs(), label="graph")
    dtype = data.draw(st.sampled_from(["f32", "f64"]), label="dtype")
    backend = data.draw(st.sampled_from(["xdsl", "mlir"] if HAVE_MLIR else ["xdsl"]), "backend")
    path = tmp_path_factory.mktemp("dag") / "model.json"
    path.write_text(fuzz_graphs.dumps(document))
    module = import_file(str(path), dtype)
    np_dtype = np.dtype(np.float32 if dtype == "f32" else np.float64)
    with_special_constants(data.draw, module, np_dtype)
    shape = tuple(document["nodes"][0]["shape"])
    x = fuzz_graphs.input_array(data.draw, shape, np_dtype)
    dx = fuzz_graphs.input_array(data.draw, shape, np_dtype)
    model = tlir.compile(module, backend=backend)
    dys = [fuzz_graphs.input_array(data.draw, s, np_dtype) for s, _ in model.plan.outputs]
    seeded = data.draw(st.booleans(), label="parameter tangents")
    dps = None
    if seeded:
        dps = [
            fuzz_graphs.input_array(data.draw, p.shape, np_dtype)
            for p in model.parameters().values()
        ]
    try:
        want_jvp = jvp(module, [x], [dx], dps)
        want_vjp = vjp(module, [x], dys)
    except TlirError as err:
        assert "log of a tensor" in str(err), err  # the reference's one domain check
        event("skipped: log of a non-positive value")
        return
    event(f"compared: {len(document['nodes'])} nodes")
    text = tlir.compiler.to_text(module)
    ys, tangents = model.jvp([x], [dx], dps)
    assert_same_bits([*ys, *tangents], want_jvp, f"jvp {backend} {dtype}\n{text}")
    ys, input_grads, param_grads = model.vjp([x], dys)
    assert_same_bits(
        [*ys, *input_grads, *param_grads.values()], want_vjp, f"vjp {backend} {dtype}\n{text}"
    )
