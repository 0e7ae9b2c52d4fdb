"""The dispatch table of `convert-tlir-to-linalg`: one lowering per op class.

Each op family's module registers its lowerings with `@lowers(T.SomeOp)`; a
lowering gets the op and an `Emitter` and returns the value replacing the op's
result.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation, SSAValue

from tlir.optable import OpTable
from tlir.passes.convert_tlir_to_linalg.emit import Emitter

Lowering = Callable[[Operation, Emitter], SSAValue | list[SSAValue]]

LOWERINGS: OpTable[Lowering] = OpTable("convert-tlir-to-linalg lowering")
"""One lowering per tlir op (41: TorchLean's kinds less `input`) and per
`tlir_ad` op of derivative programs (multi-result ones return a list)."""

lowers = LOWERINGS.register
