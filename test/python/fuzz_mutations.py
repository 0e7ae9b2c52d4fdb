"""Mutations for the error-contract fuzzer: JSON graphs changed in structure and
values, MLIR modules changed token by token, and the check that runs them
through tlir in-process (importer or parser, verifier, reference evaluator,
compiler).

The contract: every stage either succeeds or raises `TlirError` whose message
is one line `<location>: error: <message>`; never another exception, never a
hang.
"""

from __future__ import annotations

import copy
import json
import math
import re
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import fuzz_graphs
import numpy as np
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.json")) + sorted(
    (ROOT / "test" / "Tools" / "Inputs").glob("*.json")
)
MLIR_FILES = sorted((ROOT / "test").rglob("*.mlir"))

MAX_ELEMENTS = 10**6
"""Inputs whose values hold more elements than this are imported and verified
only: the reference and the compiler would spend CI time (or memory) on them."""

SECONDS = 60
"""A stage that takes longer than this on a small input is a hang."""

ERROR_LINE = re.compile(r"^(?P<where>\S[^\n]*?): error: (?P<message>\S[^\n]*)$")


KNOWN: dict[str, re.Pattern] = {}
"""Known violations of the one-line contract: counted (`event`), not failed. None at
present (an empty parse message, an attribute value out of range for its type and a
use before its definition were found by this harness and fixed in
tlir/diagnostics.py; `test_fuzz_regressions.py` keeps them)."""

KNOWN_EXCEPTIONS = {
    # Out of memory under the harness's cap (3 GiB): a splat constant whose type is
    # within TLIR_MAX_TENSOR_BYTES (half the machine's memory) but which xDSL's parser
    # expands into a Python list of every element, or a shape the reference builds.
    "out of memory": (MemoryError, re.compile("")),
}
"""Known exceptions other than `TlirError`, from the same error-path work."""


# --- the contract ---------------------------------------------------------------


class Hang(Exception):
    """Raised by the alarm: a stage ran longer than `SECONDS`."""


@contextmanager
def deadline(seconds: float = SECONDS):
    """Interrupt the body after `seconds` (SIGALRM; the main thread only)."""

    def expire(signum, frame):
        raise Hang(f"no result within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


MEMORY = 3 << 30
"""Bytes a stage may allocate beyond what the process holds: a mutated extent
(`tensor<4294967296xf32>`) must end in MemoryError, not in the machine's OOM
killer."""


def _data_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


@contextmanager
def memory_cap(extra: int = MEMORY):
    """Cap the process's data size (RLIMIT_DATA) at its current size + `extra`."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        cap = _data_bytes() + extra
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))
    except (ImportError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def limit_child_memory() -> None:
    """`preexec_fn` for the tools: at most 4 GiB of data."""
    import resource

    resource.setrlimit(resource.RLIMIT_DATA, (4 << 30, resource.getrlimit(resource.RLIMIT_DATA)[1]))


def check_error(err: BaseException, stage: str, source: str) -> None:
    """A user-facing error: `TlirError`, one line, starting with a location."""
    from tlir.diagnostics import TlirError

    for name, (kind, pattern) in KNOWN_EXCEPTIONS.items():
        if isinstance(err, kind) and pattern.search(str(err)):
            from hypothesis import event

            event(f"known issue: {name} ({stage})")
            return
    if not isinstance(err, TlirError):
        raise AssertionError(
            f"{stage} raised {type(err).__name__} (not TlirError): {err!r}\n--- input ---\n{source}"
        ) from err
    text = str(err)
    for name, pattern in KNOWN.items():
        if pattern.search(text):
            from hypothesis import event

            event(f"known issue: {name}")
            return
    assert ERROR_LINE.match(text), f"{stage}: not one located line: {text!r}\n{source}"
    assert text.isprintable(), f"{stage}: raw control characters: {text!r}\n{source}"


def elements(module) -> int:
    """The largest number of elements of any value of the module."""
    from xdsl.dialects.builtin import TensorType

    largest = 0
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            if isinstance(value.type, TensorType):
                shape = value.type.get_shape()
                largest = max(largest, math.prod(max(e, 0) for e in shape))
    return largest


def main_inputs(module, rng: np.random.Generator) -> list[np.ndarray] | None:
    """Arrays for `@main`'s arguments (some special values), or None without @main."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import TensorType

    from tlir.interface import numpy_dtype

    main = next(
        (o for o in module.ops if isinstance(o, func.FuncOp) and o.sym_name.data == "main"), None
    )
    if main is None or not main.body.blocks:
        return None
    arrays = []
    for typ in main.function_type.inputs.data:
        if not isinstance(typ, TensorType):
            return None
        try:
            dtype = numpy_dtype(typ)
        except Exception:  # noqa: BLE001 - not a float tensor: the stage reports it
            dtype = np.dtype(np.float64)
        shape = tuple(max(e, 1) if e < 0 else e for e in typ.get_shape())  # `?` → 1
        values = rng.choice(np.array(fuzz_graphs.SPECIALS + [0.25, -1.75, 2.0]), size=shape)
        with np.errstate(over="ignore"):
            arrays.append(values.astype(dtype))
    return arrays


def run_stages(load, source: str, compile_model: bool, seed: int = 0) -> dict[str, str]:
    """Load (import, or parse and verify), evaluate and compile; each stage may
    fail only by the contract. Returns what each stage did (for statistics)."""
    import tlir
    from tlir.reference import evaluate

    outcome: dict[str, str] = {}
    with deadline(), memory_cap():
        try:
            module = load()
        except Exception as err:  # noqa: BLE001 - checked by the contract
            check_error(err, "load", source)
            outcome["load"] = "error"
            return outcome
        outcome["load"] = "ok"
        if elements(module) > MAX_ELEMENTS:
            outcome["run"] = "too large"
            return outcome
        inputs = main_inputs(module, np.random.default_rng(seed))
        if inputs is None:
            outcome["run"] = "no @main"
            return outcome
        want = None
        try:
            want = evaluate(module, inputs)
            outcome["reference"] = "ok"
        except Exception as err:  # noqa: BLE001
            check_error(err, "reference", source)
            outcome["reference"] = "error"
        if not compile_model:
            return outcome
        try:
            got = tlir.compile(module)(*inputs)
            outcome["compile"] = "ok"
        except Exception as err:  # noqa: BLE001
            check_error(err, "compile", source)
            outcome["compile"] = "error"
            return outcome
    if want is not None:  # (where `log`'s domain check fails, there is nothing to compare)
        for g, w in zip(got, want):
            assert fuzz_graphs.same_bits(g, w), ("compiled and reference differ", g, w, source)
    return outcome


# --- JSON mutations ---------------------------------------------------------------

KINDS = [*fuzz_graphs.KINDS, "input", "custom", "multihead_attention", "tuple_getitem"]
KINDS += ["max_pool2d", "conv2d", "broadcastTo", "swap_first_two", "no_such_kind", ""]
HOSTILE_TEXT = ["evil\x1b[2J\x00\nsecond line", "\u202enosj.exe", "\x9b31m\x7f\u2028\u2066x"]
"""Strings that would write to a terminal or break a line if echoed raw."""
KINDS += HOSTILE_TEXT

NASTY = st.one_of(
    st.sampled_from(
        [
            None, True, False, 0, 1, -1, 2, 3, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63), 10**30,
            10**400, 2.0, -0.0, 0.5, 1e308, -1e-320, math.nan, math.inf, -math.inf, "", "3",
            "NaN", "Infinity", "-Infinity", "1e999", [], [0], [1, 2], [-1], [2.0], [None], {},
            {"id": 0}, [[1, 2], [3]], "torchlean.ir.v1", "input", *HOSTILE_TEXT,
        ]
    ),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.text(max_size=8),
    st.lists(st.integers(-3, 5), max_size=4),
)  # fmt: skip
"""Replacement values: wrong kinds, huge/negative/float/str/null ints, NaN and
infinities (written as the non-standard tokens), nesting."""


DEEP = "@@deep:"
"""A placeholder for a value nested this many lists deep."""


def _nasty(draw) -> Any:
    """A replacement value, copied: a later mutation must not change `NASTY`."""
    return copy.deepcopy(draw(NASTY))


def _paths(document: Any, prefix: tuple = ()) -> list[tuple]:
    """Every position (key or index path) in the JSON tree."""
    out = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            out += _paths(value, (*prefix, index))
    return out


def _get(document: Any, path: tuple) -> Any:
    for step in path:
        document = document[step]
    return document


def _mutate_once(draw, document: Any) -> Any:  # noqa: C901 - one branch per mutation
    paths = _paths(document)
    path = draw(st.sampled_from(paths))
    how = draw(
        st.sampled_from(
            [
                "replace", "replace", "replace", "delete", "duplicate", "unknown field",
                "kind", "parents", "shape", "drop node", "duplicate node", "outputs", "nest",
                "number",
            ]
        )
    )  # fmt: skip
    nodes = document.get("nodes") if isinstance(document, dict) else None
    node_list = nodes if isinstance(nodes, list) and nodes else None
    node = draw(st.sampled_from(node_list)) if node_list else None
    if how == "kind" and isinstance(node, dict):
        node["kind"] = draw(st.sampled_from(KINDS))
        return document
    if how == "parents" and isinstance(node, dict):
        parents = node.get("parents")
        parents = list(parents) if isinstance(parents, list) else []
        change = draw(st.sampled_from(["drop", "duplicate", "retarget", "add", "self"]))
        if change == "drop" and parents:
            parents.pop(draw(st.integers(0, len(parents) - 1)))
        elif change == "duplicate" and parents:
            parents.append(parents[0])
        elif change == "retarget" and parents:
            parents[draw(st.integers(0, len(parents) - 1))] = draw(st.integers(-2, 40))
        elif change == "add":
            parents.append(draw(st.integers(0, 12)))
        else:
            parents.append(node.get("id"))
        node["parents"] = parents
        return document
    if how == "shape" and isinstance(node, dict):
        shape = node.get("shape")
        shape = list(shape) if isinstance(shape, list) else []
        change = draw(st.sampled_from(["extent", "append", "drop", "huge", "zero"]))
        if change == "extent" and shape:
            shape[draw(st.integers(0, len(shape) - 1))] = draw(st.integers(0, 9))
        elif change == "append":
            shape.append(draw(st.integers(0, 4)))
        elif change == "drop" and shape:
            shape.pop()
        elif change == "huge":
            shape = list(
                draw(st.sampled_from([(10**7, 10**7), (2**62,), (2**31, 2**31, 4), (10**6,)]))
            )
        else:
            shape = [*shape, 0]
        node["shape"] = shape
        return document
    if how == "drop node" and node_list:
        node_list.pop(draw(st.integers(0, len(node_list) - 1)))
        return document
    if how == "duplicate node" and node_list:
        index = draw(st.integers(0, len(node_list) - 1))
        node_list.insert(index, copy.deepcopy(node_list[index]))
        return document
    if how == "outputs" and isinstance(document, dict):
        count = len(node_list) if node_list else 3
        key = draw(st.sampled_from(["output_ids", "output_id", "input_id"]))
        document[key] = draw(
            st.one_of(
                st.lists(st.integers(-1, count + 1), max_size=4),
                st.integers(-1, count + 1),
                NASTY.map(copy.deepcopy),
            )
        )
        return document
    if how == "nest":
        # written into the text by `json_documents` (json.dumps would recurse too deep)
        depth = draw(st.sampled_from([2, 10, 200, 900, 980, 5000, 100_000]))
        return _set(document, path, f"{DEEP}{depth}")
    if how == "number":
        target = _get(document, path)
        if isinstance(target, bool) or not isinstance(target, int | float):
            return _set(document, path, _nasty(draw))
        return _set(document, path, draw(st.sampled_from([target + 1, target - 1, -target, 0])))
    if not path:
        return _nasty(draw) if how == "replace" else document
    parent = _get(document, path[:-1])
    last = path[-1]
    if how == "delete":
        del parent[last]
    elif how == "duplicate" and isinstance(parent, list):
        parent.insert(last, copy.deepcopy(parent[last]))
    elif how == "unknown field" and isinstance(parent, dict):
        parent[draw(st.sampled_from(["zzz", "debug_target", "__proto__", "id2"]))] = _nasty(draw)
    else:
        parent[last] = _nasty(draw)
    return document


def _set(document: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    _get(document, path[:-1])[path[-1]] = value
    return document


@st.composite
def json_documents(draw) -> str:
    """The text of a mutated graph: an example file or a generated graph, changed
    1 to 3 times in structure or values, or its text cut, or left valid."""
    if draw(st.booleans()) and EXAMPLES:
        document = json.loads(draw(st.sampled_from(EXAMPLES)).read_text())
    else:
        document = draw(fuzz_graphs.graphs(max_ops=4))
    for _ in range(draw(st.integers(0, 3))):
        document = _mutate_once(draw, document)
    text = json.dumps(document, allow_nan=True)
    text = re.sub(rf'"{DEEP}(\d+)"', lambda m: "[" * int(m[1]) + "1" + "]" * int(m[1]), text)
    cut = draw(st.sampled_from(["none"] * 8 + ["truncate", "garbage"]))
    if cut == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif cut == "garbage":
        at = draw(st.integers(0, len(text)))
        junk = draw(st.sampled_from(["\x00", "\ufeff", "}", ",", "\\u", "'", "\ud800", "1e99999"]))
        text = text[:at] + junk + text[at:]
    return text


# --- MLIR mutations ---------------------------------------------------------------

TOKEN = re.compile(
    r"""\s+|//[^\n]*|"(?:[^"\\\n]|\\.)*"|[%@^#!][\w.$-]*|0x[0-9a-fA-F]+|"""
    r"""-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|[A-Za-z_][\w.$]*|->|::|."""
)
TYPES = ["f32", "f64", "f16", "bf16", "i1", "i32", "i64", "index", "none", "tensor<f64>"]
NUMBERS = ["0", "1", "-1", "2", "7", "64", "2147483648", "9223372036854775808", "-0.0"]
NUMBERS += ["1.0e+309", "0x7FF8000000000000", "99999999999999999999", "3.5", "0x1"]


def mlir_sources() -> list[tuple[str, str]]:
    """(name, text) of each split of each lit test input, RUN lines removed."""
    out = []
    for path in MLIR_FILES:
        text = path.read_text()
        for index, part in enumerate(re.split(r"^// -----$", text, flags=re.M)):
            body = "\n".join(line for line in part.splitlines() if not line.startswith("//"))
            if body.strip():
                out.append((f"{path.name}.{index}", body))
    return out


def generated_module_text(draw) -> str:
    """A generated graph, imported, as MLIR text (a `@main` on tlir ops)."""
    import tempfile

    from tlir.compiler.model import to_text
    from tlir.torchlean import import_file

    document = draw(fuzz_graphs.graphs(max_ops=5))
    dtype = draw(st.sampled_from(["f32", "f64"]))
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "generated.json"
        path.write_text(json.dumps(document))
        return to_text(import_file(str(path), dtype))


@st.composite
def mlir_texts(draw, sources: list[tuple[str, str]]) -> tuple[str, str]:
    """A lit test input changed 1 to 4 times: a token deleted, duplicated or
    swapped; a number, a type or an extent changed."""
    if draw(st.integers(0, 2)) == 0:
        name, text = "generated", generated_module_text(draw)
    else:
        name, text = draw(st.sampled_from(sources))
    tokens = TOKEN.findall(text)
    for _ in range(draw(st.integers(0, 3))):
        solid = [i for i, t in enumerate(tokens) if t.strip() and not t.startswith("//")]
        if not solid:
            break
        i = draw(st.sampled_from(solid))
        how = draw(
            st.sampled_from(["delete", "duplicate", "swap"] + ["number", "type", "shape"] * 2)
        )
        token = tokens[i]
        if how == "delete":
            tokens[i] = ""
        elif how == "duplicate":
            tokens[i] = token + " " + token
        elif how == "swap":
            j = draw(st.sampled_from(solid))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif how == "number":
            numbers = [k for k in solid if re.fullmatch(r"-?\d[\w.+-]*", tokens[k])]
            tokens[draw(st.sampled_from(numbers)) if numbers else i] = draw(
                st.sampled_from(NUMBERS)
            )
        elif how == "type":
            types = [k for k in solid if tokens[k] in TYPES]
            tokens[draw(st.sampled_from(types)) if types else i] = draw(st.sampled_from(TYPES))
        else:
            shaped = [k for k in solid if re.fullmatch(r"(tensor|memref|vector)", tokens[k])]
            if shaped:
                k = draw(st.sampled_from(shaped))
                # `tensor<2x3xf64>` is tokenised `tensor`, `<`, `2x3xf64`, `>`
                if k + 2 < len(tokens):
                    dims = draw(
                        st.sampled_from(["0x", "1x", "?x", "3x4x", "", "2x0x", "4294967296x"])
                    )
                    tokens[k + 2] = dims + tokens[k + 2]
    return name, "".join(tokens)
