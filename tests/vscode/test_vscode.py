"""The VS Code extension, packaged as a .vsix and installed into a real VS Code (code-server), driven through Chromium.

What is read is what the user sees: Problems rows (source, code, line), the status bar, notifications, quick picks and
the active editor; commands run from the palette. The findings are compared with `lintel check` on the same copy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO, copy_workspace, lintel_json, require_tool, tool_path
from tests.vscode.conftest import SESSION_SETTINGS, OpenWindow
from tests.vscode.harness import CodeServer, Window, alive, descendants, problem_rows

FAULTS = REPO / "tests" / "faults"

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


def python_window(
    open_window: OpenWindow,
    tmp_path: Path,
    settings: dict[str, Any] | None = None,
    *,
    workspace: str = "python",
    file: str = "src/inventory/pricing.py",
) -> Window:
    """A window on a copy of a python fixture (with these workspace settings), `file` open, its ruff findings shown
    (read with the panel maximized: a file with more findings than the panel's usual height has rows for)."""
    root = copy_workspace(workspace, tmp_path / workspace)
    if settings is not None:
        write_workspace_settings(root, settings)
    window = open_window(root)
    window.wait_status(lambda text: text.endswith("lintel: python"), "lintel: python")
    window.open_file(file)
    window.command("View: Toggle Maximized Panel")
    window.wait(f"ruff's findings in {file}", lambda: rows_of(window, file), lambda rows: len(rows) > 0)
    window.command("View: Toggle Maximized Panel")
    return window


PRICING = "src/inventory/pricing.py"


def rows_of(window: Window, file: str) -> list[tuple[str, str, int]]:
    return problem_rows(window.problems(), file)


def write_workspace_settings(root: Path, settings: dict[str, Any]) -> None:
    """The folder's .vscode/settings.json (VS Code picks up a change without a restart)."""
    (root / ".vscode").mkdir(exist_ok=True)
    (root / ".vscode" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")


def delete_line_and_save(window: Window, line: int) -> None:
    window.command("View: Focus First Editor Group")
    window.keys("Control+G", {"text": str(line)}, "Enter", "Control+Shift+K", "Control+S")
    window.wait("the file to be saved", window.editor, lambda editor: not editor["dirty"])


def insert_line_and_save(window: Window, text: str) -> None:
    """Puts `text` on a new first line and saves."""
    window.command("View: Focus First Editor Group")
    window.keys("Control+Home", {"text": text}, "Enter", "Control+S")
    window.wait("the file to be saved", window.editor, lambda editor: not editor["dirty"])


def test_a_fix_and_save_clears_the_finding(open_window: OpenWindow, tmp_path: Path) -> None:
    require_tool("ruff")
    window = python_window(open_window, tmp_path)
    before = rows_of(window, PRICING)
    assert ("ruff", "F841", 8) in before
    assert ("ruff", "E711", 13) in before

    delete_line_and_save(window, 8)  # `previous = item.price`, the unused variable

    after = window.wait(
        "F841 to go and E711 to move up a line",
        lambda: rows_of(window, PRICING),
        lambda rows: ("ruff", "F841", 8) not in rows and ("ruff", "E711", 12) in rows,
    )
    window.screenshot("fixed")
    assert after == sorted({*before} - {("ruff", "F841", 8), ("ruff", "E711", 13)} | {("ruff", "E711", 12)})
    assert "previous = item.price" not in (window.folder / PRICING).read_text(encoding="utf-8")


def test_run_tests_reports_the_failure_and_show_test_failures_opens_it(open_window: OpenWindow, tmp_path: Path) -> None:
    require_tool("pytest")
    window = python_window(open_window, tmp_path)
    code, report = lintel_json("check", str(window.folder), "--only", "test")
    assert code == 1, report
    [failure] = report["issues"]
    test_name = failure["message"].split(":", 1)[0]

    window.command("Lintel: Run Tests")
    [toast] = window.wait(
        "the Run Tests notification",
        window.notifications,
        lambda shown: [n for n in shown if "python test: 1 failed" in n["message"]] != [],
    )
    window.screenshot("run-tests")
    assert "Show Failures" in toast["buttons"]

    window.command("Lintel: Show Test Failures")
    picker = window.wait(
        "the failures quick pick", window.quick_pick, lambda pick: pick["title"] == "Lintel: test failures"
    )
    assert any(test_name in item["label"] for item in picker["items"]), picker
    window.pick(test_name)
    editor = window.wait(
        f"{failure['file']} open at line {failure['line']}",
        window.editor,
        lambda editor: editor["title"].startswith(Path(failure["file"]).name) and editor["line"] == failure["line"],
    )
    window.screenshot("failure-opened")
    assert editor["line"] == failure["line"]


def test_a_polyglot_folder_asks_which_language(open_window: OpenWindow, tmp_path: Path) -> None:
    root = copy_workspace("polyglot", tmp_path / "polyglot")
    window = open_window(root)
    status = window.wait_status(lambda text: "go" in text and "node" in text, "go and node")

    window.command("Lintel: Run Tests")
    picker = window.wait(
        "the language quick pick", window.quick_pick, lambda pick: pick["open"] and pick["title"] and pick["items"]
    )
    window.screenshot("which-language")
    window.keys("Escape")

    assert "which language" in picker["title"], picker
    assert {item["label"] for item in picker["items"]} >= {"go", "node", "All"}, picker
    assert status.endswith("lintel: go, node")


def test_cancelling_a_run_kills_the_tool(open_window: OpenWindow, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    hang = [shutil.which("sh") or "/bin/sh", str(FAULTS / "hang_tree.sh"), "plain", str(pidfile)]
    settings = {"lintel.languages.python.test": hang, "lintel.languages.python.parser": {"test": "custom"}}
    window = python_window(open_window, tmp_path, settings)

    window.command("Lintel: Run Tests")
    window.wait("the fake test run to start", pidfile.exists, bool)
    pids = [int(line.split()[1]) for line in pidfile.read_text().splitlines()]
    assert all(alive(pid) for pid in pids)
    window.wait(
        "the cancellable progress notification",
        window.notifications,
        lambda shown: any("test" in n["message"] and "Cancel" in n["buttons"] for n in shown),
    )
    window.screenshot("running")
    window.notification_button("test", "Cancel")

    window.wait(f"processes {pids} to be gone", lambda: [pid for pid in pids if alive(pid)], lambda left: not left)
    window.wait_status(lambda text: "running" not in text and text.endswith("lintel: python"), "no run")
    assert "test: cancelled" in window.log_text("lintel.lintel/Lintel.log")


def configuration_answers(window: Window) -> int:
    """How many `workspace/configuration` requests the extension answered (the Lintel log, traced)."""
    return window.log_text("lintel.lintel/Lintel.log").count("Sending response 'workspace/configuration")


def change_settings(window: Window, settings: dict[str, Any]) -> None:
    """Writes the folder's settings and waits for the server to have asked for them again."""
    answered = configuration_answers(window)
    write_workspace_settings(window.folder, settings)
    window.wait(
        "the server to read the changed settings", lambda: configuration_answers(window), lambda n: n > answered
    )


def test_changing_lint_on_save_takes_effect_without_a_restart(open_window: OpenWindow, tmp_path: Path) -> None:
    require_tool("ruff")
    traced = {"lintel.trace.server": "messages"}
    window = python_window(open_window, tmp_path, traced)
    servers = {proc.pid for proc in window.server.lintel_servers()}

    # Saving lints: a new unused import shows.
    started = time.monotonic()
    insert_line_and_save(window, "import os")
    window.wait("F401 after a save", lambda: rows_of(window, PRICING), lambda rows: ("ruff", "F401", 1) in rows)
    lint_after_save = time.monotonic() - started

    change_settings(window, {**traced, "lintel.editor.lintOnSave": False})
    # Saving no longer lints: `import os` moves to line 2 and no lint reports it there. An absence has to be watched
    # for a while: five times as long as the lint after a save took above (at least 5 s), measured in this run.
    insert_line_and_save(window, "import sys")
    deadline = time.monotonic() + max(5.0, 5 * lint_after_save)
    while time.monotonic() < deadline:
        assert ("ruff", "F401", 2) not in rows_of(window, PRICING), "a save was linted with lintOnSave off"
        time.sleep(0.3)
    window.screenshot("not-linted")

    change_settings(window, {**traced, "lintel.editor.lintOnSave": True})
    insert_line_and_save(window, "import json")
    window.wait(
        "all three imports reported after a save with lintOnSave back on",
        lambda: rows_of(window, PRICING),
        lambda rows: {("ruff", "F401", 1), ("ruff", "F401", 2), ("ruff", "F401", 3)} <= set(rows),
    )
    window.screenshot("linted-again")
    assert {proc.pid for proc in window.server.lintel_servers()} <= servers, "a lintel server was (re)started"


SHIMMED = ("ruff", "mypy", "pytest", "basedpyright", "basedpyright-langserver")


def shims(folder: Path, log: Path) -> Path:
    """Stand-ins on PATH for the Python tools that record each start in `log`, then run the real tool."""
    folder.mkdir(parents=True)
    for name in SHIMMED:
        real = require_tool(name)
        shim = folder / name
        shim.write_text(f'#!/bin/sh\necho "{name} $$" >> "{log}"\nexec "{real}" "$@"\n')
        shim.chmod(0o755)
    return folder


@pytest.fixture
def restricted_server(vsix: Path, tmp_path: Path) -> Iterator[tuple[CodeServer, Path]]:
    """A code-server with workspace trust on (folders open in Restricted Mode), the Python tools recording their
    starts in the returned log."""
    log = tmp_path / "tool-starts.log"
    path = f"{shims(tmp_path / 'shims', log)}{os.pathsep}{tool_path()}"
    settings = {**SESSION_SETTINGS, "security.workspace.trust.enabled": True}
    server = CodeServer(tmp_path / "code-server", vsix, settings, trust=True, env={"PATH": path})
    server.start()
    yield server, log
    server.stop()


def test_restricted_mode_starts_no_process_until_trust_is_granted(
    open_window: OpenWindow, restricted_server: tuple[CodeServer, Path], tmp_path: Path
) -> None:
    server, tool_starts = restricted_server
    root = copy_workspace("python", tmp_path / "python")
    window = open_window(root, server)
    window.wait(
        "the status bar to show Restricted Mode and lintel's untrusted state",
        window.status_items,
        lambda items: (
            any(i["text"] == "Restricted Mode" for i in items)
            and any(i["id"].endswith("lintel.status") and "untrusted workspace" in i["label"] for i in items)
        ),
    )
    window.open_file(PRICING)
    # The server answers commands in order: once Run Tests is refused, the didOpen before it has been handled.
    window.command("Lintel: Run Tests")
    window.wait(
        "Run Tests to be refused",
        window.notifications,
        lambda shown: any("not trusted" in n["message"] for n in shown),
    )
    window.screenshot("restricted")
    [lintel] = server.lintel_servers()
    # lintel's own orphan watchdog (lintel/runtime/orphans.py, started with every server) is not a tool.
    started = [p for p in descendants(lintel.pid) if not any(a.endswith("lintel/runtime/orphans.py") for a in p.argv)]
    assert started == [], "the untrusted server started processes"
    assert not tool_starts.exists(), tool_starts.read_text()
    assert rows_of(window, PRICING) == []

    window.command("Workspaces: Manage Workspace Trust")
    window.driver.call("clickRole", role="button", name="Trust")

    rows = window.wait(
        "ruff's findings once trusted",
        lambda: rows_of(window, PRICING),
        lambda rows: ("ruff", "F841", 8) in rows,
    )
    window.screenshot("trusted")
    assert ("ruff", "E711", 13) in rows
    assert "ruff" in tool_starts.read_text().split()
    status = window.wait_status(lambda text: text.endswith("lintel: python"), "lintel: python")
    assert status.endswith("lintel: python")


# -- fixes ----------------------------------------------------------------------------------------------------

LABELS = "src/shop/labels.py"


def ruff_fixed(root: Path, work: Path) -> str:
    """`ruff check --fix` on a copy of `root`: the text VS Code's fix on save must leave."""
    copy = work / "by-hand"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".vscode"))
    subprocess.run(
        ["ruff", "check", "--fix", "--no-cache", "--quiet", "."],
        cwd=copy,
        env={**os.environ, "PATH": tool_path()},
        check=False,
        capture_output=True,
    )
    return (copy / LABELS).read_text(encoding="utf-8")


def fixes_window(open_window: OpenWindow, tmp_path: Path, settings: dict[str, Any] | None = None) -> Window:
    return python_window(open_window, tmp_path, settings, workspace="fix-editor", file=LABELS)


def test_a_quick_fix_from_the_problems_view(open_window: OpenWindow, tmp_path: Path) -> None:
    require_tool("ruff")
    window = fixes_window(open_window, tmp_path)
    original = (window.folder / LABELS).read_text(encoding="utf-8")

    window.command("View: Toggle Maximized Panel")  # every row drawn, the last one (F541) too
    window.click_text(".markers-panel .monaco-list-row", "f-string without any placeholders")

    def fixes_menu() -> list[str]:
        """The fixes menu's items; opened with the Problems view's "Show fixes" (Ctrl+.) while it is not showing
        (the row's fixes are asked for when it is selected: a key pressed before they arrive shows nothing)."""
        labels: list[str] = window.driver.call("texts", selector=".monaco-menu .action-label")
        if not labels:
            window.keys("Control+.")
        return labels

    window.wait("the fixes menu", fixes_menu, lambda labels: "Remove extraneous `f` prefix" in labels)
    window.screenshot("fixes-menu")
    window.keys("ArrowDown", "Enter")  # the first item: the preferred fix
    window.command("View: Toggle Maximized Panel")
    window.command("File: Save")
    fixed = window.wait(
        "the fix to be saved",
        lambda: (window.folder / LABELS).read_text(encoding="utf-8"),
        lambda text: text != original,
    )
    window.screenshot("quick-fix")

    assert fixed == original.replace('return f"【セール】"', 'return "【セール】"')
    window.command("View: Toggle Maximized Panel")
    window.wait("F541 to go", lambda: rows_of(window, LABELS), lambda rows: not [r for r in rows if r[1] == "F541"])


def test_fix_all_on_save_writes_what_ruff_fix_writes(open_window: OpenWindow, tmp_path: Path) -> None:
    require_tool("ruff")
    settings = {"editor.codeActionsOnSave": {"source.fixAll.lintel": "explicit"}}
    window = fixes_window(open_window, tmp_path, settings)

    insert_line_and_save(window, "# edited in VS Code")
    window.wait(
        "fix on save to leave ruff's result",
        lambda: (window.folder / LABELS).read_text(encoding="utf-8"),
        lambda text: "import os" not in text,
    )
    window.screenshot("fix-on-save")
    written = (window.folder / LABELS).read_text(encoding="utf-8")
    assert written.startswith("# edited in VS Code\n")
    unfixed = tmp_path / "unfixed"
    shutil.copytree(window.folder, unfixed, ignore=shutil.ignore_patterns(".vscode"))
    (unfixed / LABELS).write_text(
        "# edited in VS Code\n" + (REPO / "tests/workspaces/fix-editor" / LABELS).read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    assert written == ruff_fixed(unfixed, tmp_path)
