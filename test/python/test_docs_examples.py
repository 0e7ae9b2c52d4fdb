"""The documentation shows what the code does: its index names every page, and
its worked examples are what the tools print today."""

from __future__ import annotations

import re
from pathlib import Path

import tlir
from tlir.tools import translate as translate_tool

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_the_docs_index_links_every_page():
    index = (DOCS / "README.md").read_text()
    linked = set(re.findall(r"\]\(([\w.-]+\.md)(?:#[\w-]*)?\)", index))
    pages = {path.name for path in DOCS.glob("*.md")} - {"README.md"}
    assert pages - linked == set()


def fenced_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


def test_the_json_format_example_is_what_the_importer_gives(tmp_path, capsys):
    page = (DOCS / "json-format.md").read_text()
    example = page[page.index("## Example") :]
    graph, module = fenced_blocks(example, "json")[0], fenced_blocks(example, "mlir")[0]
    path = tmp_path / "example.json"
    path.write_text(graph)
    assert translate_tool.main(["--import-torchlean", str(path), "--no-locations"]) == 0
    assert capsys.readouterr().out.strip() == module.strip()


def test_the_readme_training_snippet_trains_and_saves(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    code = fenced_blocks(readme[readme.index("## Training and saving") :], "python")[0]
    saved = tmp_path / "trained.json"
    assert '"trained.json"' in code
    monkeypatch.chdir(ROOT)  # the snippet's paths are the repository's
    namespace: dict = {}
    exec(code.replace('"trained.json"', repr(str(saved))), namespace)  # noqa: S102
    model, x = namespace["model"], namespace["x"]
    before = tlir.compile(str(ROOT / "examples/cnn.json"))(x)[0]
    after = model(x)[0]
    assert after[0, 0] > before[0, 0]  # the probability of class 0 went up
    again = tlir.compile(str(saved))(x)
    assert [a.tobytes() for a in again] == [m.tobytes() for m in model(x)]
