"""tlir: TorchLean's neural-network IR in MLIR, on xDSL.

The dialects live in `tlir.dialects`, the passes in `tlir.passes`, the
command-line tools in `tlir.tools`. `tlir.context()` gives an xDSL context that
knows every dialect tlir reads and writes; `tlir.compile(model)` compiles a model
(JSON or MLIR) into a callable on NumPy arrays.
"""

from tlir import xdsl_fixes

xdsl_fixes.apply()

from tlir.api import context, load_model, parse_module  # noqa: E402
from tlir.compiler import compile  # noqa: E402

__all__ = ["compile", "context", "load_model", "parse_module"]
