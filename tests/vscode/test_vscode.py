"""The VS Code extension, packaged as a .vsix and installed into a real VS Code (code-server), driven through Chromium.

What is read is what the user sees: Problems rows (source, code, line), the status bar, notifications, quick picks and
the active editor; commands run from the palette. The findings are compared with `lintel check` on the same copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import copy_workspace, lintel_json, require_tool
from tests.vscode.conftest import OpenWindow
from tests.vscode.harness import problem_rows

pytestmark = [pytest.mark.vscode, pytest.mark.timeout(600)]


@dataclass(frozen=True)
class Case:
    language: str
    file: str  # a file with lint findings
    tools: tuple[str, ...]


CASES = {
    "python": Case("python", "src/inventory/pricing.py", ("ruff",)),
    "node": Case("node", "src/api.ts", ("node",)),
    "go": Case("go", "store.go", ("go", "golangci-lint")),
}


def expected_rows(root: Path, file: str) -> list[tuple[str, str, int]]:
    """(source, code, line) of what `lintel check` finds in a file with the checks lint on open runs."""
    code, report = lintel_json("check", str(root), "--only", "lint,format")
    assert code in (0, 1), report
    issues: list[dict[str, Any]] = report["issues"]
    return sorted((i["source"], i.get("rule") or "", i["line"]) for i in issues if i.get("file") == file)


@pytest.mark.parametrize("language", CASES)
def test_opening_a_file_shows_exactly_lintels_findings(open_window: OpenWindow, tmp_path: Path, language: str) -> None:
    case = CASES[language]
    for tool in case.tools:
        require_tool(tool)
    root = copy_workspace(language, tmp_path / language)
    expected = expected_rows(root, case.file)
    assert expected, f"the fixture's {case.file} should have lint findings"

    window = open_window(root)
    window.wait_status(lambda text: text.endswith(f"lintel: {language}"), f"lintel: {language}")
    window.open_file(case.file)
    shown = window.wait(
        f"the Problems rows of {case.file} to be lintel check's {expected}",
        lambda: problem_rows(window.problems(), case.file),
        lambda rows: rows == expected,
    )
    window.screenshot(f"{language}-problems")
    assert shown == expected
