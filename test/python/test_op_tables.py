"""Every per-op table covers every tlir op, so a new op cannot be half-added.

Each table is keyed by op class and filled by decorators next to the code it
names; this test is the one place that checks them all against the dialect.
"""

import pytest

from tlir.dialects.tlir import TLIR_OPS
from tlir.passes.convert_tlir_to_linalg import LOWERINGS
from tlir.passes.convert_tlir_to_linalg.elementwise import SCALAR_BODIES, lower_elementwise
from tlir.passes.tlir_form_kernels import KERNEL_KINDS, SCALAR_OPS
from tlir.reference.ops import EVALUATORS
from tlir.torchlean.exporter import WRITERS
from tlir.torchlean.importer import READERS

TABLES = {
    "convert-tlir-to-linalg lowerings": LOWERINGS,
    "reference evaluators": EVALUATORS,
    "JSON readers": READERS,
    "JSON writers": WRITERS,
    "kernel kinds": KERNEL_KINDS,
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_covers_every_op(name):
    table = TABLES[name]
    assert table.missing(TLIR_OPS) == [], f"{name} lacks these ops"
    assert set(table) <= set(TLIR_OPS), f"{name} has entries for classes that are not tlir ops"


def test_dialect_lists_41_distinct_op_classes():
    assert len(TLIR_OPS) == len(set(TLIR_OPS)) == 41
    assert len({op.name for op in TLIR_OPS}) == 41


def test_elementwise_ops_lower_through_their_scalar_body():
    assert len(SCALAR_BODIES) == 17
    for op_class in SCALAR_BODIES:
        assert LOWERINGS[op_class] is lower_elementwise, op_class.name


def test_kernel_formation_knows_the_scalar_body_ops():
    assert set(SCALAR_OPS) == set(SCALAR_BODIES)


def test_a_table_refuses_a_second_entry_for_one_op():
    from tlir.dialects import tlir as T

    with pytest.raises(ValueError, match="two entries"):
        EVALUATORS.add(T.AddOp, lambda op, args: args[0])
