"""Packaging checks that `.ci/run` makes; standard library only, Python 3.11+.

python .ci/packaging_checks.py wheel WHEEL
    The wheel holds every file of the package directories that pyproject.toml maps
    ([tool.setuptools.package-dir]), under its package's path, and was built by the setuptools
    that .ci/constraints.txt pins.
python .ci/packaging_checks.py pins
    Every distribution installed in the running Python (but pip, setuptools, wheel and tlir
    itself) is pinned in .ci/constraints.txt, at the version installed.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / ".ci" / "constraints.txt"
# A venv's own tools (3.11's venv comes with setuptools), and the project itself.
NOT_PINNED = {"pip", "setuptools", "wheel", "tlir"}


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins() -> dict[str, str]:
    pins = {}
    for line in CONSTRAINTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep:
            sys.exit(f"{CONSTRAINTS}: expected `name==version`, got {line!r}")
        pins[normalize(name)] = version.strip()
    return pins


def expected_files() -> list[str]:
    """Every file of the mapped package directories, as a path inside the wheel."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    package_dir = config["tool"]["setuptools"]["package-dir"]
    files = []
    for package, directory in package_dir.items():
        base = ROOT / directory
        for path in sorted(base.rglob("*")):
            parts = path.relative_to(base).parts
            if (
                not path.is_file()
                or any(p.startswith(".") or p == "__pycache__" for p in parts)
                or path.suffix in (".pyc", ".pyo")
            ):
                continue
            files.append("/".join([*package.split("."), *parts]))
    return files


def check_wheel(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [wheel_info] = [n for n in names if n.endswith(".dist-info/WHEEL")]
        generator = re.search(r"^Generator: (.*)$", archive.read(wheel_info).decode(), re.M)
    expected = expected_files()
    missing = [f for f in expected if f not in names]
    if missing:
        sys.exit(
            f"{wheel} lacks {len(missing)} file(s) of the package directories:\n  "
            + "\n  ".join(missing)
        )
    want = f"setuptools ({read_pins()['setuptools']})"
    got = generator.group(1) if generator else "nothing"
    if got != want:
        sys.exit(f"{wheel} was built by {got}, not by {want} as .ci/constraints.txt pins")
    print(f"wheel: all {len(expected)} files of the package directories, built by {got}")


def check_pins() -> None:
    pins = read_pins()
    unpinned, wrong = [], []
    installed = sorted(
        (normalize(d.metadata["Name"]), d.version) for d in importlib.metadata.distributions()
    )
    installed = [(name, version) for name, version in installed if name not in NOT_PINNED]
    for name, version in installed:
        if name not in pins:
            unpinned.append(f"{name}=={version}")
        elif pins[name] != version:
            wrong.append(f"{name} {version} installed, {pins[name]} pinned")
    if unpinned or wrong:
        sys.exit(
            f"{sys.executable}: installed distributions disagree with {CONSTRAINTS}:\n  "
            + "\n  ".join(
                [f"not pinned (add this line there): {line}" for line in unpinned] + wrong
            )
        )
    print(f"pins: all {len(installed)} installed distributions are as .ci/constraints.txt pins")


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["wheel", wheel]:
            check_wheel(wheel)
        case ["pins"]:
            check_pins()
        case _:
            sys.exit(__doc__)
