"""The child language servers' quick fixes, relayed and merged by lintel, applied in a real VS Code through the light
bulb: the user clicks it, picks the child's fix by its title in the fixes widget, and the file holds the fix.

basedpyright's fix is an edit in the code action; typescript-language-server's is an edit plus its own command
(`_typescript.applyCodeActionCommand`), which VS Code runs through lintel (the extension's serverCommands.ts) and lintel
forwards to the child (workspace/executeCommand).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import copy_workspace, require_tool
from tests.vscode.conftest import OpenWindow
from tests.vscode.harness import Window, problem_rows
from tests.vscode.test_vscode import write_workspace_settings

pytestmark = [pytest.mark.vscode, pytest.mark.timeout(600)]

# The child's diagnostics shown (the session leaves them out): the editor sends them back with its code action
# request, and the child offers its fixes for them.
FORWARDED = {"lintel.editor.forwardServerDiagnostics": True}

# The fixes widget the light bulb (and Ctrl+.) opens: one row per action, its title in `.title`.
FIX_ROWS = ".action-widget .monaco-list-row.action"
# The editor's light bulb (the Problems view's rows have one of their own).
LIGHT_BULB = ", ".join(
    f".part.editor {icon}"
    for icon in (".lightBulbWidget", ".codicon-light-bulb", ".codicon-lightbulb-autofix", ".codicon-lightbulb-sparkle")
)


def fix_titles(window: Window) -> list[str]:
    titles: list[str] = window.driver.call("texts", selector=f"{FIX_ROWS} .title")
    return titles


def fix_from_the_light_bulb(window: Window, line: int, column: int, title: str) -> list[str]:
    """Puts the cursor at (line, column), clicks the light bulb and, in the fixes widget it opens, the fix `title`;
    the widget's titles."""
    window.command("View: Focus First Editor Group")
    window.keys("Control+G", {"text": f"{line}:{column}"}, "Enter")
    window.wait(f"the cursor at {line}:{column}", window.editor, lambda e: (e["line"], e["column"]) == (line, column))

    # The light bulb shows once the editor's automatic code action request has an answer with a quick fix: clicked
    # as soon as it is visible.
    window.wait("the light bulb to be clicked", lambda: window.driver.call("clickVisible", selector=LIGHT_BULB), bool)
    titles = window.wait(f"the fixes widget offering {title!r}", lambda: fix_titles(window), lambda t: title in t)
    window.screenshot("fixes-widget")
    window.click_text(FIX_ROWS, title)
    return titles


def saved_text(window: Window, file: Path, before: str) -> str:
    """The file's text once the fix is saved (VS Code saves a file a code action's edit changed by itself, under
    files.refactoring.autoSave; saved here as well where it does not)."""
    window.command("File: Save")
    return window.wait(
        f"{file.name} saved with the fix", lambda: file.read_text(encoding="utf-8"), lambda text: text != before
    )


def open_on(window: Window, file: str, row: tuple[str, str, int], status: str) -> None:
    window.wait_status(lambda text: text.endswith(f"lintel: {status}"), f"lintel: {status}")
    window.open_file(file)
    window.wait(f"{row} in the Problems view", lambda: problem_rows(window.problems(), file), lambda rows: row in rows)


# -- basedpyright: an import for an undefined name -------------------------------------------------------------

STOCK = "src/inventory/stock.py"
STOCK_SOURCE = """\
import os


def stock_path(name: str) -> str:
    return os.path.join(str(Path(name)), "stock")
"""
IMPORT_FIX = "from pathlib import Path"


def test_basedpyrights_import_fix_from_the_light_bulb(open_window: OpenWindow, tmp_path: Path) -> None:
    require_tool("basedpyright-langserver")
    root = copy_workspace("python", tmp_path / "python")
    (root / STOCK).write_text(STOCK_SOURCE, encoding="utf-8")
    write_workspace_settings(root, FORWARDED)

    window = open_window(root)
    # basedpyright's reportUndefinedVariable is left out for ruff's F821 at the same place (dedupeServerDiagnostics);
    # its other diagnostic of the call is sent to it, and it offers the import for the range all the same.
    open_on(window, STOCK, ("basedpyright", "reportUnknownArgumentType", 5), "python")
    titles = fix_from_the_light_bulb(window, 5, 30, IMPORT_FIX)  # the cursor on `Path`
    fixed = saved_text(window, root / STOCK, STOCK_SOURCE)
    window.screenshot("fixed")

    assert "from zipfile import Path" in titles, titles  # basedpyright's other candidate, not picked
    assert "Disable F821 for this line" in titles, titles  # lintel's own, in the same widget
    assert fixed == STOCK_SOURCE.replace("import os\n", "import os\nfrom pathlib import Path\n", 1)
    window.wait(
        "ruff's F821 and basedpyright's diagnostics of `Path` to go",
        lambda: problem_rows(window.problems(), STOCK),
        lambda rows: not [r for r in rows if r[1] in ("F821", "reportUnknownArgumentType", "reportUndefinedVariable")],
    )


# -- typescript-language-server: a fix with a command of the child's --------------------------------------------

LATER = "src/later.ts"
# `await` in a function that is not async: tsserver's error 1308.
LATER_SOURCE = """\
export function later(): number {
  const value = await Promise.resolve(2);
  return value;
}
"""
ASYNC_FIX = "Add async modifier to containing function"


def executed_commands(trace: str) -> dict[str, tuple[str, str | None]]:
    """The workspace/executeCommand requests the extension sent, by id: their params and the answer's result (or
    None until it came), from its verbose trace (each message logged with its params or result)."""
    sent = re.finditer(
        r"Sending request 'workspace/executeCommand - \((\d+)\)'\.\n[^\n]*Params: (\{.*?\n\})", trace, re.S
    )
    answered = re.finditer(
        r"Received response 'workspace/executeCommand - \((\d+)\)'[^\n]*\n[^\n]*Result: ([^\n]*)", trace
    )
    results = {m.group(1): m.group(2) for m in answered}
    return {m.group(1): (m.group(2), results.get(m.group(1))) for m in sent}


def test_typescript_language_servers_fix_and_its_command_from_the_light_bulb(
    open_window: OpenWindow, tmp_path: Path
) -> None:
    require_tool("node")
    require_tool("typescript-language-server", "npm install -g typescript-language-server typescript")
    root = copy_workspace("node", tmp_path / "node")
    (root / LATER).write_text(LATER_SOURCE, encoding="utf-8")
    # VS Code's own TypeScript extension runs (it registers `_typescript.*` commands of its own) but without its
    # semantic server, so the only quick fixes are lintel's; the protocol traced with each message's params.
    settings = {**FORWARDED, "lintel.trace.server": "verbose", "typescript.tsserver.useSyntaxServer": "always"}
    write_workspace_settings(root, settings)

    window = open_window(root)
    open_on(window, LATER, ("typescript", "1308", 2), "node")
    titles = fix_from_the_light_bulb(window, 2, 18, ASYNC_FIX)  # the cursor on `await`
    fixed = saved_text(window, root / LATER, LATER_SOURCE)
    window.screenshot("fixed")

    assert titles.count(ASYNC_FIX) == 1, titles
    assert fixed == LATER_SOURCE.replace(
        "export function later(): number {", "export async function later(): Promise<number> {"
    )

    def child_command() -> list[str | None]:
        commands = executed_commands(window.log_text("lintel.lintel/Lintel.log"))
        return [result for params, result in commands.values() if '"_typescript.applyCodeActionCommand"' in params]

    # Sent once, through lintel (the extension registers no `_typescript.*` command of its own), and the child's
    # answer came back.
    ran = window.wait(
        "the child's command to have been run through lintel", child_command, lambda r: bool(r) and None not in r
    )
    assert ran == ["true"], ran
    window.wait(
        "1308 to go",
        lambda: problem_rows(window.problems(), LATER),
        lambda rows: ("typescript", "1308", 2) not in rows,
    )
