"""Every per-op table covers every op it must, so a new op cannot be half-added.

Each table is keyed by op class and filled by decorators next to the code it
names; this test is the one place that checks them all against the dialects.
Lowerings and reference evaluators cover tlir's 41 ops and the `tlir_ad` ops
of derivative programs; JSON readers and writers and the derivative rules
(of the passes and of the reference) cover tlir's ops.
"""

import pytest

from tlir.compiler.work import WORK
from tlir.dialects.tlir import TLIR_OPS
from tlir.dialects.tlir_ad import AD_OPS
from tlir.passes.autodiff.tables import JVP_RULES, VJP_RULES
from tlir.passes.convert_tlir_to_linalg import LOWERINGS
from tlir.passes.convert_tlir_to_linalg.elementwise import SCALAR_BODIES, lower_elementwise
from tlir.passes.tlir_form_kernels import KERNEL_KINDS, SCALAR_OPS
from tlir.passes.tlir_jvp import TlirJvp  # noqa: F401 - fills JVP_RULES
from tlir.passes.tlir_vjp import TlirVjp  # noqa: F401 - fills VJP_RULES
from tlir.reference.dual_execution import DualEvaluator
from tlir.reference.ops import EVALUATORS
from tlir.reference.reverse import RULES as REFERENCE_VJP
from tlir.torchlean.exporter import WRITERS
from tlir.torchlean.importer import READERS

ALL_OPS = (*TLIR_OPS, *AD_OPS)

TABLES = {
    "convert-tlir-to-linalg lowerings": (LOWERINGS, ALL_OPS),
    "reference evaluators": (EVALUATORS, ALL_OPS),
    "JSON readers": (READERS, TLIR_OPS),
    "JSON writers": (WRITERS, TLIR_OPS),
    "kernel kinds": (KERNEL_KINDS, ALL_OPS),
    "work models (threading)": (WORK, ALL_OPS),
    "tlir-jvp rules": (JVP_RULES, TLIR_OPS),
    "tlir-vjp rules": (VJP_RULES, TLIR_OPS),
    "reference JVP": (DualEvaluator, TLIR_OPS),
    "reference VJP": (REFERENCE_VJP, TLIR_OPS),
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_covers_every_op(name):
    table, ops = TABLES[name]
    assert table.missing(ops) == [], f"{name} lacks these ops"
    assert set(table) <= set(ops), f"{name} has entries for classes outside its op set"


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


def test_interval_rules_cover_every_op_but_custom():
    """`tlir.custom` has no interval rule (its node is unresolved, as in
    TorchLean); every other tlir op has one in the pass and in the reference."""
    from tlir.dialects.tlir import CustomOp
    from tlir.passes.ibp.table import IBP_RULES
    from tlir.passes.tlir_ibp import TlirIbp  # noqa: F401 - fills IBP_RULES
    from tlir.reference.ibp_rules import IBP_RULES as REFERENCE_IBP

    for table in (IBP_RULES, REFERENCE_IBP):
        assert table.missing(TLIR_OPS) == [CustomOp.name]
        assert set(table) <= set(TLIR_OPS)
