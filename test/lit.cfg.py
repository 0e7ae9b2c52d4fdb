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
# lit passes only a fixed list of variables to tests; a PYTHONPATH set by the caller (to test a
# checkout other than the installed one) must reach the tools too.
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]  # noqa: F821

for tool in ("tlir-opt", "tlir-translate", "tlir-run", "filecheck"):
    if shutil.which(tool) is None:
        lit_config.fatal(f"{tool} is not on PATH: install tlir with `pip install -e .[test]`")  # noqa: F821

# A checkout on PYTHONPATH (e.g. a git worktree) wins over the installed package.
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]  # noqa: F821
