"""The Test Explorer in a real VS Code (code-server): lintel's TestController lists a python fixture's tests without
running them, runs the one at the cursor through `lintel.runTests` and shows it failed with pytest's message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import copy_workspace, require_tool
from tests.vscode.conftest import OpenWindow
from tests.vscode.harness import Window

pytestmark = [pytest.mark.vscode, pytest.mark.timeout(600)]

FILE = "tests/test_models.py"
FAILING = "test_total_value_counts_quantity"  # its body is lines 11-13; its assert fails at 13
PASSING = "test_restock_adds_units"
MESSAGE = "stock of 2 items should be worth 2.5"


def explorer_rows(window: Window) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = window.driver.call("testItems")
    return rows


def row(rows: list[dict[str, Any]], label: str) -> dict[str, Any] | None:
    return next((r for r in rows if r["text"].startswith(label) or r["aria"].startswith(label)), None)


def failure_texts(window: Window) -> list[str]:
    """The Test Results view's rows (a failed test with its message), as HTML: the message is cut short on screen
    and its whole first line is in the row's text and accessible label."""
    texts: list[str] = window.driver.call("texts", selector=".test-output-peek-tree .monaco-list-row", html=True)
    return texts


def test_the_test_explorer_lists_and_runs_a_failing_test(open_window: OpenWindow, tmp_path: Path) -> None:
    require_tool("pytest")
    root = copy_workspace("python", tmp_path / "python")
    window = open_window(root)
    window.wait_status(lambda text: text.endswith("lintel: python"), "lintel: python")
    window.open_file(FILE)

    rows = window.wait(
        f"the Testing view to list {Path(FILE).name}",
        lambda: explorer_rows(window),
        lambda rows: row(rows, "test_models") is not None,
    )
    file_row = row(rows, "test_models")
    assert file_row is not None
    if file_row["expanded"] != "true":
        window.click_text(".test-explorer-tree .monaco-list-row", "test_models")
    rows = window.wait(
        f"{FAILING} and {PASSING} under it",
        lambda: explorer_rows(window),
        lambda rows: row(rows, FAILING) is not None and row(rows, PASSING) is not None,
    )
    window.screenshot("tests-listed")

    window.command("View: Focus First Editor Group")
    window.keys("Control+G", {"text": "12"}, "Enter")
    window.command("Test: Run Test at Cursor")

    rows = window.wait(
        f"{FAILING} to be shown failed",
        lambda: explorer_rows(window),
        lambda rows: "failed" in (row(rows, FAILING) or {}).get("aria", "").lower(),
    )
    shown = window.wait(
        "pytest's message at the failure", lambda: failure_texts(window), lambda texts: any(MESSAGE in t for t in texts)
    )
    window.screenshot("test-failed")

    passing = row(rows, PASSING)
    assert passing is not None
    # Only the test at the cursor ran: the other one has no result.
    assert "passed" not in passing["aria"].lower(), passing
    assert "failed" not in passing["aria"].lower(), passing
    assert any(MESSAGE in text for text in shown)

    # A test added and saved shows up (lintel/testsChanged replaces the file's items; nothing is run to find it).
    window.command("View: Focus First Editor Group")
    window.keys("Control+End", {"text": "def test_added() -> None: assert True"}, "Control+S")
    window.wait("the file to be saved", window.editor, lambda editor: not editor["dirty"])
    rows = window.wait(
        "test_added in the Testing view",
        lambda: explorer_rows(window),
        lambda rows: row(rows, "test_added") is not None,
    )
    window.screenshot("test-added")
    assert row(rows, FAILING) is not None
