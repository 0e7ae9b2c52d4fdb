"""Numbers from environment variables: one parser (`tlir.settings`) for every
variable, a one-line error naming the variable with its value escaped, never
an internal error for text that `str.isdigit` or `float` would let through."""

from __future__ import annotations

import os
import subprocess

import pytest

from tlir import limits
from tlir.compiler import cache, helper, threads
from tlir.diagnostics import TlirError
from tlir.settings import env_int

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

READERS = {
    "TLIR_COMPILE_PROCESSES": helper.processes,
    "TLIR_MAX_TENSOR_BYTES": limits.max_tensor_bytes,
    "TLIR_NUM_THREADS": threads.default_threads,
}


@pytest.mark.parametrize("name", sorted(READERS))
@pytest.mark.parametrize("value", ["²", "٣", "1e3", "0", "-2", "0x10", "3.0", "1__0", "\x1b[31m7"])
def test_a_bad_value_is_an_error_naming_the_variable_and_the_escaped_value(
    monkeypatch, name, value
):
    monkeypatch.setenv(name, value)
    with pytest.raises(TlirError) as info:
        READERS[name]()
    assert info.value.where == name
    assert info.value.message.endswith(f"got {ascii(value)}")
    assert str(info.value).isascii() and "\n" not in str(info.value)


@pytest.mark.parametrize("value, number", [("7", 7), (" 12 ", 12), ("1_000", 1000)])
def test_ascii_digits_are_read(monkeypatch, value, number):
    monkeypatch.setenv("TLIR_TEST_NUMBER", value)
    assert env_int("TLIR_TEST_NUMBER") == number


def test_unset_and_empty(monkeypatch):
    monkeypatch.delenv("TLIR_TEST_NUMBER", raising=False)
    assert env_int("TLIR_TEST_NUMBER") is None
    monkeypatch.setenv("TLIR_TEST_NUMBER", " ")
    assert env_int("TLIR_TEST_NUMBER") is None
    with pytest.raises(TlirError, match="got ' '"):
        env_int("TLIR_TEST_NUMBER", empty_is_unset=False)


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e400", "²", "\x1b[31m"])
def test_a_bad_cache_size_is_a_warning_not_a_crash(capsys, value):
    cache._max_bytes.cache_clear()  # the warning is printed once per value and process
    assert cache._max_bytes(value) == cache.DEFAULT_MAX_MB << 20
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("tlir: warning: TLIR_CACHE_MAX_MB must be a finite number of megabytes")
    assert ascii(value) in line and line.isascii()


def test_a_fractional_cache_size_is_read():
    assert cache._max_bytes("0.5") == 1 << 19


@pytest.mark.parametrize("name", sorted(READERS))
def test_tlir_run_reports_a_superscript_digit_in_one_line(name):
    proc = subprocess.run(
        ["tlir-run", "examples/cnn.json", "--input", "examples/cnn_input.npy", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, name: "²", "PYTHONIOENCODING": "utf-8"},
        timeout=300,
    )
    assert proc.returncode == 1
    unit = " (bytes)" if name == "TLIR_MAX_TENSOR_BYTES" else ""
    assert proc.stderr == f"{name}: error: must be a positive integer{unit}, got '\\xb2'\n"


def test_the_parser_is_the_only_reader_of_these_variables():
    """No module reads one of them with a parser of its own."""
    import tlir

    package = os.path.dirname(tlir.__file__)
    for directory, _, files in os.walk(package):
        for file in files:
            if file.endswith(".py") and file != "settings.py":
                with open(os.path.join(directory, file), encoding="utf-8") as handle:
                    text = handle.read()
                assert ".isdigit()" not in text, file
