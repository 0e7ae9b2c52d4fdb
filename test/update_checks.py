"""Regenerate the full-function FileCheck dumps of lit tests, keeping capture names.

    python test/update_checks.py test/Transforms/TlirJvp/max_pool.mlir [more.mlir …]

A dump is a block `// P-LABEL: func.func @f` followed only by `// P-SAME:` and
`// P-NEXT:` lines that spell out @f line by line (the per-op tests of
`tlir-jvp` and `tlir-vjp` are written so). For each such block this script
runs the file's RUN line of prefix P (on the block's `// -----` case with
`--split-input-file`), takes @f from the output and rewrites the block from
it, in the style MLIR's `generate-test-checks.py` uses: every SSA value a
capture `[[NAME:%…]]` where it is defined, `[[NAME]]` where it is used.

Names are kept where the new output lines up with the old checks (a diff of
the lines with their SSA names blanked): a value defined or used on a line
that is unchanged keeps the name the test gave it (`[[DW]]`, `[[GT]]`); other
values are named after their SSA name (`%dx` → `[[DX]]`, `%7` → `[[V7]]`).
Other check lines (CHECK-NOT, partial CHECK blocks) are left as they are.
Read the diff before committing it: the checks must say what the op's rule
means to do, not merely what it does.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CAPTURE_PATTERN = "%[a-zA-Z0-9_.$-]+"
TOKEN = re.compile(r"%[a-zA-Z0-9_.$-]+")
CAPTURE = re.compile(r"\[\[([A-Za-z0-9_]+)(?::.*?)?\]\]")
LABEL = re.compile(r"// (\w+)-LABEL: (func\.func (?:private )?@([\w$.]+))")
LITERAL_BRACKETS = "\x00"  # a `[[` of the IR itself (nested dense literals)


def run_lines(text: str) -> list[str]:
    return [line.split("RUN:", 1)[1].strip() for line in text.splitlines() if "RUN:" in line]


def prefix_of(command: str) -> str:
    found = re.search(r"--check-prefix[= ](\w+)", command)
    return found.group(1) if found else "CHECK"


def tool_output(command: str, source: str) -> str:
    """The RUN line's output (the part before the pipe into FileCheck) on `source`."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as file:
        file.write(source)
        file.flush()
        tool = command.split("|")[0].replace("%s", file.name)
        done = subprocess.run(tool, shell=True, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{tool}: {done.stderr.strip()}")
    return done.stdout


def functions(text: str) -> dict[str, list[str]]:
    """Each function of a printed module: its lines, header to closing brace."""
    found: dict[str, list[str]] = {}
    lines: list[str] | None = None
    name = ""
    for line in text.splitlines():
        header = re.match(r"\s{2}func\.func (?:private )?@([\w$.]+)", line)
        if header:
            name, lines = header.group(1), [line]
        elif lines is not None:
            lines.append(line)
            if line == "  }":
                found[name] = lines
                lines = None
    return found


def blanked(line: str) -> str:
    return TOKEN.sub("%_", line.strip())


def kept_names(old: list[str], new: list[str]) -> dict[str, str]:
    """New SSA name → the old check's capture name, on the lines that line up."""
    names: dict[str, str] = {}
    matcher = difflib.SequenceMatcher(None, [blanked(x) for x in old], [blanked(x) for x in new])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            continue
        for old_line, new_line in zip(old[i1:i2], new[j1:j2], strict=True):
            for old_token, new_token in zip(TOKEN.findall(old_line), TOKEN.findall(new_line)):
                name = old_token[1:]
                if new_token not in names and not re.fullmatch(r"V\d+", name):
                    names[new_token] = name
    return names


def dump(prefix: str, old_checks: list[str], function: list[str]) -> list[str]:
    """The check block of `function`, names kept from `old_checks` where they line up."""
    header = re.match(r"\s*(func\.func (?:private )?@[\w$.]+)(.*)$", function[0])
    assert header, function[0]
    label, signature = header.group(1), header.group(2)
    lines = [signature, *function[1:]]
    old = [CAPTURE.sub(lambda m: "%" + m.group(1), check) for check in old_checks[1:]]
    names = kept_names(old, lines)
    used = set(names.values())
    defined: set[str] = set()

    def name_of(token: str) -> str:
        if token not in names:
            raw = token[1:]
            name = f"V{raw}" if raw.isdigit() else re.sub(r"\W", "_", raw).upper()
            while name in used:
                name += "_"
            names[token] = name
            used.add(name)
        return names[token]

    def captured(line: str) -> str:
        def replace(match: re.Match) -> str:
            token = match.group(0)
            if token in defined:
                return f"[[{name_of(token)}]]"
            defined.add(token)
            return f"[[{name_of(token)}:{CAPTURE_PATTERN}]]"

        line = line.replace("[[", LITERAL_BRACKETS)
        return TOKEN.sub(replace, line).replace(LITERAL_BRACKETS, r"{{\[\[}}")

    block = [f"// {prefix}-LABEL: {label}", f"// {prefix}-SAME:    {captured(signature.strip())}"]
    for line in function[1:]:
        indent = "  " if line == "  }" else "    "
        block.append(f"// {prefix}-NEXT:{indent}{captured(line.strip())}")
    return block


def update_case(case: str, runs: list[str], whole: str, split: bool) -> str:
    lines = case.split("\n")
    source = "\n".join(line for line in lines if not line.startswith("//"))
    outputs: dict[str, dict[str, list[str]]] = {}
    result: list[str] = []
    index = 0
    while index < len(lines):
        label = LABEL.match(lines[index])
        if not label:
            result.append(lines[index])
            index += 1
            continue
        prefix, name = label.group(1), label.group(3)
        end = index + 1
        while end < len(lines) and re.match(rf"// {prefix}-(SAME|NEXT):", lines[end]):
            end += 1
        if prefix not in outputs:
            command = next(c for c in runs if prefix_of(c) == prefix)
            outputs[prefix] = functions(tool_output(command, source if split else whole))
        function = outputs[prefix].get(name)
        is_dump = end > index + 1 and lines[index + 1].startswith(f"// {prefix}-SAME:")
        if function is None or not is_dump:
            result.extend(lines[index:end])  # not a dump: left as it is
        else:
            old_checks = [line.split(":", 1)[1] for line in lines[index:end]]
            result.extend(dump(prefix, old_checks, function))
        index = end
    return "\n".join(result)


def update(path: Path) -> bool:
    text = path.read_text()
    runs = run_lines(text)
    split = any("--split-input-file" in run for run in runs)
    cases = text.split("// -----\n")
    new = "// -----\n".join(update_case(case, runs, text, split) for case in cases)
    if new == text:
        return False
    path.write_text(new)
    return True


def main(argv: list[str]) -> None:
    for name in argv:
        if update(Path(name)):
            print(f"updated {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
