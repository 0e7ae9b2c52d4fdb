"""The JSON importer's builder (tlir.torchlean.graph_builder): which ops it
checks against TorchLean's shape rules as it appends them."""

import io

import numpy as np
import pytest
from xdsl.dialects.builtin import Float64Type, FloatAttr
from xdsl.printer import Printer

from tlir.diagnostics import TlirError
from tlir.dialects import tlir as T
from tlir.torchlean.graph_builder import GraphBuilder
from tlir.torchlean.reader import RawNode


def _builder() -> GraphBuilder:
    b = GraphBuilder("m.json", np.float64, (2, 3))
    b.node = RawNode(id=4, kind="linear", parents=[0], shape=[2, 3], fields={}, file="m.json")
    return b


def test_payload_constants_skip_the_shape_rules(monkeypatch):
    """A payload's type is its array's (static) shape: not checked again."""
    checked = []
    monkeypatch.setattr(T.ConstOp, "check_shape_rules", lambda op: checked.append(op))
    b = _builder()
    value = b.constant(np.ones((3, 4)), "weight")
    assert checked == []
    assert value.type == b.tensor_type((3, 4))
    assert value.owner.attributes["tlir.name"].data == "node4.weight"


def test_a_splat_of_a_batch_shape_is_still_refused():
    """A splat's shape is the caller's: a `?` extent fails the constant's rule."""
    b = _builder()
    with pytest.raises(TlirError, match=r"node 4 \(linear\): tensor shapes must be static"):
        b.splat(1.0, (-1, 3), "scale")


def test_emitted_ops_are_checked():
    b = _builder()
    with pytest.raises(TlirError, match="does not match the inferred shape"):
        b.emit(T.ReluOp, [b.input], (3, 2))


def test_i64_attributes_are_shared():
    assert T.i64_attr(3) is T.i64_attr(3)
    assert T.i64_attr(3) == T.IntegerAttr(3, T.IntegerType(64))


def _generic(op) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


@pytest.mark.parametrize("affine", [False, True])
def test_segmented_ops_are_the_ones_build_gives(affine, monkeypatch):
    """Layernorm's optional operands: built through `create` with the segment
    sizes `build` computes, the same op in generic form (properties in order)."""
    build = T.LayerNormOp.build
    monkeypatch.setattr(T.LayerNormOp, "build", None)  # the builder must not need it
    b = _builder()
    gamma = [b.constant(np.ones(3), "gamma")] if affine else []
    beta = [b.constant(np.zeros(3), "beta")] if affine else []
    props = {"axis": T.i64_attr(1), "eps": FloatAttr(1e-5, Float64Type())}
    value = b.emit(T.LayerNormOp, [b.input, gamma, beta], (2, 3), props)
    expected = build(operands=[b.input, gamma, beta], result_types=[value.type], properties=props)
    expected.location = value.owner.location
    assert _generic(value.owner) == _generic(expected)
    assert list(value.owner.properties) == list(expected.properties)


def test_a_variadic_op_is_the_one_build_gives():
    b = _builder()
    props = {"axis": T.i64_attr(0)}
    value = b.emit(T.ConcatOp, [[b.input, b.input]], (4, 3), props)
    expected = T.ConcatOp.build(
        operands=[[b.input, b.input]], result_types=[value.type], properties=props
    )
    expected.location = value.owner.location
    assert _generic(value.owner) == _generic(expected)
