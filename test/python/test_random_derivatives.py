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
from fuzz_graphs import budget
from hypothesis import event, given
from hypothesis import strategies as st
from test_random_graphs import assert_same_bits, draw_model, skipped_for_log_domain

import tlir
from tlir.diagnostics import TlirError
from tlir.reference import jvp, vjp


@budget(ci=6, long=1_500)
@given(data=st.data())
def test_random_dag_derivatives_compiled_match_reference(tmp_path_factory, data):
    case = draw_model(data, tmp_path_factory)
    module, x, np_dtype = case.module, case.x, case.np_dtype
    dx = fuzz_graphs.input_array(data.draw, x.shape, np_dtype)
    model = tlir.compile(module, backend=case.backend)
    dys = [fuzz_graphs.input_array(data.draw, s, np_dtype) for s, _ in model.plan.outputs]
    seeded = data.draw(st.booleans(), label="parameter tangents")
    dps = None
    if seeded:
        params = model.parameters().values()
        dps = [fuzz_graphs.input_array(data.draw, p.shape, np_dtype) for p in params]
    try:
        want_jvp = jvp(module, [x], [dx], dps)
        want_vjp = vjp(module, [x], dys)
    except TlirError as err:
        skipped_for_log_domain(err)
        return
    event(f"compared: {case.nodes} nodes")
    ys, tangents = model.jvp([x], [dx], dps)
    assert_same_bits([*ys, *tangents], want_jvp, case.context("jvp"))
    ys, input_grads, param_grads = model.vjp([x], dys)
    assert_same_bits([*ys, *input_grads, *param_grads.values()], want_vjp, case.context("vjp"))
