"""Imports go one way, down the layers of docs/design.md ("Layers"):

  tools → api → front end → compile → analysis → reference → passes → dialects → core

A module imports from its own layer or a lower one, never a higher one, and no
modules import each other in a cycle (directly or through others). The rule is
read from the source (every `import`, at the top or inside a function; not
those under `if TYPE_CHECKING:`, which never run), so a lazy import cannot
hide a wrong direction. A toolchain that only wants the dialect (or a pass)
must not pay for the compiler, the JIT, llvmlite or the reference evaluator."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PACKAGES = {
    "tlir": ROOT / "tlir",
    "tlir.dialects": ROOT / "dialects",
    "tlir.passes": ROOT / "passes",
}
"""Each installed package and the directory it comes from (pyproject.toml)."""

LAYERS = (
    ("tools", ("tlir.tools",)),
    ("api", ("tlir.api", "tlir.optim", "tlir.update")),
    ("front end", ("tlir.frontend", "tlir.torchlean")),
    ("compile", ("tlir.compiler",)),
    ("analysis", ("tlir.verification", "tlir.crown")),
    ("reference", ("tlir.reference",)),
    ("passes", ("tlir.passes",)),
    ("dialects", ("tlir.dialects", "tlir.parameters")),
    ("core", ("tlir",)),
)
"""Highest first; a module belongs to the layer of its longest matching prefix."""

HEAVY = ("tlir.compiler", "tlir.reference", "tlir.api", "llvmlite")


def module_files(packages: dict[str, Path] = PACKAGES) -> dict[str, Path]:
    """Every module's dotted name and its file."""
    modules = {}
    for package, directory in packages.items():
        for path in sorted(directory.rglob("*.py")):
            parts = list(path.relative_to(directory).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            if package == "tlir" and parts[:1] and f"tlir.{parts[0]}" in packages:
                continue  # a checkout's dialects/ and passes/ are mapped, not tlir/'s
            modules[name] = path
    return modules


def _runtime_nodes(tree: ast.AST):
    """The nodes of `tree`, skipping the bodies of `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that module `name` imports, wherever it does."""

    def owner(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str | None] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(owner(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:  # `from tlir.compiler import jit` imports a module
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else owner(base))
    found.discard(None)
    found.discard(name)
    return found  # type: ignore[return-value]


def layer(name: str) -> int:
    """The index of `name`'s layer in LAYERS (0 is the highest)."""
    best, depth = len(LAYERS) - 1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and prefix.count(".") > depth:
                best, depth = index, prefix.count(".")
    return best


def import_graph(packages: dict[str, Path] = PACKAGES) -> dict[str, set[str]]:
    modules = module_files(packages)
    return {name: imports(name, path, modules) for name, path in modules.items()}


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{name} ({LAYERS[layer(name)][0]}) imports {target} ({LAYERS[layer(target)][0]})"
        for name, targets in graph.items()
        for target in targets
        if layer(target) < layer(name)
    )


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_graph_sees_every_package_and_lazy_imports():
    graph = import_graph()
    assert {"tlir.api", "tlir.dialects.tlir", "tlir.passes.tlir_vjp", "tlir.tools.run"} <= set(
        graph
    )
    assert "tlir.compiler.model" in graph["tlir.api"]  # a lazy import, inside compile()
    assert module_files()["tlir.dialects.tlir"] == ROOT / "dialects" / "tlir.py"


def test_imports_go_down_the_layers():
    assert upward_imports(import_graph()) == []


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_checks_catch_a_wrong_direction_and_a_cycle(tmp_path):
    """A small package tree with one upward import and one cycle: both found."""
    (tmp_path / "tlir" / "tools").mkdir(parents=True)
    (tmp_path / "tlir" / "__init__.py").write_text("")
    (tmp_path / "tlir" / "tools" / "__init__.py").write_text("")
    (tmp_path / "tlir" / "tools" / "a.py").write_text("def f():\n    from tlir.tools import b\n")
    (tmp_path / "tlir" / "tools" / "b.py").write_text("import tlir.tools.a\n")
    (tmp_path / "tlir" / "shapes.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import tlir.api\n"
        "def g():\n    import tlir.tools.a\n"
    )
    (tmp_path / "tlir" / "api.py").write_text("")
    graph = import_graph({"tlir": tmp_path / "tlir"})
    assert upward_imports(graph) == ["tlir.shapes (core) imports tlir.tools.a (tools)"]
    assert cycles(graph) == [["tlir.tools.a", "tlir.tools.b"]]


def _tlir_calls(call, **options) -> list[tuple[int, str, str]]:
    """(depth, module, function) of every call of tlir's code that
    `call(cnn.json, **options)` makes, depth counting tlir's frames only (1:
    called by `call` itself, through a decorator's wrapper or through
    `tlir.api`'s own helpers); what first imports run is left out."""
    calls: list[tuple[int, str, str]] = []
    stack: list[bool | None] = []
    target = getattr(call, "__wrapped__", call).__code__
    inside = [False]

    def hook(frame, event, arg):
        if event == "call":
            if not inside[0]:
                inside[0] = frame.f_code is target
                return
            module = frame.f_globals.get("__name__", "")
            importing = frame.f_code.co_name == "<module>" or (stack and stack[-1] is None)
            ours = None if importing or module == "tlir.interpreter" else module.startswith("tlir")
            if ours and module == "tlir.api":
                ours = False  # the API's helpers are `call`'s own steps
            stack.append(ours)
            if ours:
                calls.append((sum(1 for f in stack if f), module, frame.f_code.co_name))
        elif event == "return" and inside[0]:
            if stack:
                stack.pop()
            else:
                inside[0] = False

    def traced():
        return call(str(ROOT / "examples" / "cnn.json"), **options)

    sys.setprofile(hook)
    try:
        traced()
    finally:
        sys.setprofile(None)
    return calls


def _stages(calls: list[tuple[int, str, str]]) -> list[str]:
    """The modules of the calls at depth 1, runs of one module counted once."""
    stops = [module for depth, module, _ in calls if depth == 1]
    return [m for i, m in enumerate(stops) if i == 0 or stops[i - 1] != m]


def test_compile_is_the_front_end_then_the_compiler():
    """`tlir.compile(path)` calls the front end's loading stage, then the
    compiler, and the compiler checks nothing the front end has checked."""
    import tlir.api

    calls = _tlir_calls(tlir.api.compile, cache=False)
    options = "tlir.compiler.options"  # the options' names and defaults (checked by the compiler)
    assert _stages(calls) == [options, "tlir.frontend.load", "tlir.compiler.model"]
    names = [f"{module}.{name}" for _, module, name in calls]
    checks = [name for name in names if name.endswith(("check_tensor_sizes", "check_compilable"))]
    assert checks == ["tlir.frontend.load.check_compilable", "tlir.limits.check_tensor_sizes"]
    assert names.index("tlir.limits.check_tensor_sizes") < names.index(
        "tlir.compiler.model.__init__"
    )


def test_a_warm_compile_of_a_file_loads_no_module(tmp_path, monkeypatch):
    """With the compile cache, a file's first compile reads it, loads it from
    those bytes, compiles and remembers it; the next one reads it and links the
    cached model: no front end, no verifier, no IR built."""
    import tlir.api

    monkeypatch.setenv("TLIR_CACHE_DIR", str(tmp_path / "cache"))
    cold = _tlir_calls(tlir.api.compile)
    assert _stages(cold) == [
        "tlir.compiler.options",  # the options' names and defaults
        "tlir.interface",  # the dtype asked for
        "tlir.limits",  # read_limited
        "tlir.compiler.warm",  # the source key; a miss
        "tlir.frontend.load",
        "tlir.compiler.model",
        "tlir.compiler.warm",  # remember
    ]
    warm = _tlir_calls(tlir.api.compile)
    assert _stages(warm) == [
        "tlir.compiler.options",
        "tlir.interface",
        "tlir.limits",
        "tlir.compiler.warm",
    ]
    names = {f"{module}.{name}" for _, module, name in warm}
    assert not {n for n in names if n.startswith(("tlir.frontend", "tlir.torchlean"))}
    assert not {n for n in names if "verify" in n or "check_tensor_sizes" in n}
    assert "tlir.compiler.build.model_structure" not in names


@pytest.mark.parametrize(
    "module",
    [
        "tlir.dialects.tlir",
        "tlir.dialects.random",
        "tlir.dialects.tlir_ad",
        "tlir.passes.tlir_jvp",
        "tlir.passes.tlir_vjp",
        "tlir.passes.tlir_ibp",
        "tlir.passes.convert_tlir_to_linalg",
        "tlir.passes.convert_random_to_arith",
        "tlir.passes.tlir_bufferize",
        "tlir.passes.tlir_lower_to_llvm",
        "tlir.passes.tlir_to_llvm",
    ],
)
def test_importing_loads_nothing_heavy(module):
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_package_root_loads_its_names_on_first_use():
    code = (
        "import sys, tlir; before = 'tlir.api' in sys.modules; "
        "tlir.compile; print(before, 'tlir.api' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
