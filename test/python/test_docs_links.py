"""Every reference in the repository points at something in the repository.

Comments, docstrings, tests and docs cite tlir's own pages (`docs/ops.md#conv`,
`docs/autodiff.md#d7-accumulation`). This test scans every tracked text file and
fails on a citation of a document the repository does not hold (numbered
sections of a spec, the names of outside design and spec files), on a
`docs/<page>.md#<anchor>` whose page or heading is missing, and on a Markdown
link whose target file or heading is missing. Anchors are GitHub's heading
slugs.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Built from pieces so that this file does not match its own patterns.
SECTION_SIGN = "\u00a7"
OUTSIDE = [
    re.compile(re.escape(SECTION_SIGN) + r"\s*\d"),
    re.compile(r"\bDESIGN" + r"\.md\b"),
    re.compile(r"(?<![\w.-])shared" + "/"),
    re.compile(r"\bspec" + r"/torchlean"),
    re.compile(r"\btorchlean-(?:ir|autodiff)" + r"\.md\b"),
]

DOCS_REF = re.compile(r"(?<![\w/.-])docs/([\w.-]+\.md)(?:#([\w-]*[\w]))?")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
DECISION = re.compile(r"\bD(?:10|[1-9])\b")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.decode()
        names = [name for name in out.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        names = [
            str(p.relative_to(ROOT))
            for p in ROOT.rglob("*")
            if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts
        ]
    return [ROOT / name for name in sorted(names) if (ROOT / name).is_file()]


def text_files() -> dict[str, str]:
    files = {}
    for path in tracked_files():
        try:
            files[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary (.npy inputs)
    return files


TEXT = text_files()


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation other than `-` and
    `_` removed, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


@functools.cache
def anchors(path: Path) -> frozenset[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        found.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def lines_of(name: str):
    yield from enumerate(TEXT[name].splitlines(), start=1)


def check_target(target: Path, anchor: str | None, where: str) -> str | None:
    if not target.exists():
        return f"{where}: {target.relative_to(ROOT)} does not exist"
    if anchor and target.suffix == ".md" and anchor not in anchors(target):
        return f"{where}: {target.relative_to(ROOT)} has no heading #{anchor}"
    return None


def test_files_are_found():
    assert "README.md" in TEXT and "docs/ops.md" in TEXT and "dialects/tlir.py" in TEXT


def test_slugs_follow_github():
    assert slug("D7: accumulation") == "d7-accumulation"
    assert slug("`tlir.custom`") == "tlircustom"
    assert slug("Forward mode: dual-valued execution") == "forward-mode-dual-valued-execution"
    assert slug("max_pool") == "max_pool"
    assert "max-and-min" in anchors(ROOT / "docs" / "ops.md")


def test_no_citation_of_outside_documents():
    bad = [
        f"{name}:{number}: {line.strip()}"
        for name in TEXT
        for number, line in lines_of(name)
        if any(pattern.search(line) for pattern in OUTSIDE)
    ]
    assert bad == [], "cites a document that is not in the repository:\n" + "\n".join(bad)


def test_docs_references_resolve():
    bad = []
    for name in TEXT:
        for number, line in lines_of(name):
            for page, anchor in DOCS_REF.findall(line):
                error = check_target(ROOT / "docs" / page, anchor, f"{name}:{number}")
                if error:
                    bad.append(error)
    assert bad == [], "dangling docs references:\n" + "\n".join(bad)


def test_markdown_links_resolve():
    bad = []
    for name in TEXT:
        if not name.endswith(".md"):
            continue
        here = (ROOT / name).parent
        for number, line in lines_of(name):
            for link in MD_LINK.findall(line):
                if re.match(r"[a-z][a-z0-9+.-]*:", link):
                    continue  # http:, https:, mailto:
                path, _, anchor = link.partition("#")
                target = (here / path).resolve() if path else ROOT / name
                error = check_target(target, anchor or None, f"{name}:{number}")
                if error:
                    bad.append(error)
    assert bad == [], "dangling Markdown links:\n" + "\n".join(bad)


def test_decisions_are_cited_from_docs():
    """D1-D10 are defined in docs/autodiff.md; a file that names one links there."""
    bad = [
        name
        for name, text in TEXT.items()
        if DECISION.search(text)
        and name != "docs/autodiff.md"
        and "docs/autodiff.md#" not in text
        and "autodiff.md#" not in text
    ]
    assert bad == [], "name a decision Dn without citing docs/autodiff.md:\n" + "\n".join(bad)
    headings = anchors(ROOT / "docs" / "autodiff.md")
    for n in range(1, 11):
        assert any(a.startswith(f"d{n}-") for a in headings), f"docs/autodiff.md lacks D{n}"


@pytest.mark.parametrize(
    "text",
    [
        "see " + SECTION_SIGN + "3.17",
        "the DESIGN" + ".md choices",
        "in shared" + "/spec",
    ],
)
def test_outside_patterns_match(text):
    assert any(pattern.search(text) for pattern in OUTSIDE)


def test_dangling_reference_is_caught():
    assert check_target(ROOT / "docs" / "ops.md", "max_pool", "x") is None
    assert check_target(ROOT / "docs" / "ops.md", "no-such-op", "x") is not None
    assert check_target(ROOT / "docs" / "nothing.md", None, "x") is not None
    assert DOCS_REF.findall("(docs/ops.md#conv).") == [("ops.md", "conv")]
