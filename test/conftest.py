"""`pytest --long`: the randomized tests (fuzzing, random graphs) run with their
long budgets (hours) instead of the short CI ones; the same as TLIR_FUZZ_LONG=1."""

from __future__ import annotations

import os


def pytest_addoption(parser):
    parser.addoption(
        "--long",
        action="store_true",
        help="run the randomized tests with their long budgets (also TLIR_FUZZ_LONG=1)",
    )


def pytest_configure(config):
    if config.getoption("--long"):
        os.environ["TLIR_FUZZ_LONG"] = "1"
