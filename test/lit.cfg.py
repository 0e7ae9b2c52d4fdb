"""lit configuration: FileCheck tests for tlir's dialects, passes and tools."""

import os
import shutil

import lit.formats

config.name = "tlir"  # noqa: F821 - `config` is provided by lit
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.excludes = ["Inputs", "python", "lit.cfg.py"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.environment["PYTHONWARNINGS"] = "ignore"  # noqa: F821
# lit passes few variables through: a checkout put first on PYTHONPATH must also be the one the
# tools run from.
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]  # noqa: F821

for tool in ("tlir-opt", "tlir-translate", "tlir-run", "filecheck"):
    if shutil.which(tool) is None:
        lit_config.fatal(f"{tool} is not on PATH: install tlir with `pip install -e .[test]`")  # noqa: F821
