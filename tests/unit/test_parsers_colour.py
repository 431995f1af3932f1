"""Every parser reads coloured text as it reads plain text: lintel no longer asks tools for plain output
through NO_COLOR / FORCE_COLOR=0, and a user's FORCE_COLOR=1 or CARGO_TERM_COLOR=always reaches them, so the
colour codes come off in the parsers (`lintel.languages.parsers.common.clean`, the one helper).

Each captured real run is read twice: as captured, and with colour codes put around its text lines the way
tools colour them (a bold line, red words). Machine formats (JSON, XML) are left alone: tools never colour them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import ANSI, clean

from tests.helpers import CAPTURES, load_capture

# The parser each capture folder's runs are read by, where the folder is not named after it.
PARSER = {
    "bats": "tap",
    "eslint-stylish": "node-lint-auto",
    "oxlint": "node-lint-auto",
    "biome": "node-lint-auto",
    "xo": "node-lint-auto",
    "npm-script": "node-lint-auto",
    "jest": "node-test-auto",
    "vitest": "node-test-auto",
    "mocha": "node-test-auto",
}
_MACHINE = re.compile(r"^\s*[\[{<\"}\]]")


def cases() -> list[tuple[str, str]]:
    return sorted(
        (folder.name, meta.name.removesuffix(".meta.json"))
        for folder in CAPTURES.iterdir()
        if folder.is_dir() and folder.name != "coverage"
        for meta in folder.glob("*.meta.json")
    )


def coloured(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        if not line.strip() or _MACHINE.match(line):
            lines.append(line)
        else:
            lines.append("\x1b[1m" + line.replace(" ", "\x1b[0m \x1b[31m") + "\x1b[0m")
    return "\n".join(lines)


def seen(output: ToolOutput, tool: str, ctx: Any) -> tuple[Any, ...]:
    result = get_parser(PARSER.get(tool, tool))(output, ctx)
    issues = [(i.kind, i.file, i.line, i.column, i.rule, i.severity, i.message, i.hint) for i in result.issues]
    failures = [(f.name, f.file, f.line, f.message) for f in result.failures]
    return result.recognized, issues, failures


def test_the_colour_codes_come_off() -> None:
    assert clean(coloured("src/a.py:3:1: error  x\r\n")) == "src/a.py:3:1: error  x\n"
    assert ANSI.search(coloured("a b")) is not None


@pytest.mark.parametrize(("tool", "case"), cases())
def test_a_coloured_run_reads_as_the_plain_one(tool: str, case: str) -> None:
    output, ctx, _ = load_capture(tool, case)
    painted = ToolOutput(coloured(output.stdout), coloured(output.stderr), output.exit_code, output.report)
    assert seen(painted, tool, ctx) == seen(output, tool, ctx)
