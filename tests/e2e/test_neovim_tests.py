"""Tests in Neovim (editors/nvim, lua/lintel/tests.lua) in a real headless Neovim on a copy of the python fixture:
the server's "▶ Run test" lenses show above the tests, and `:LintelTest` at the cursor runs exactly that test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.nvim_support import Neovim, require_nvim
from tests.helpers import copy_workspace, require_tool

pytestmark = pytest.mark.timeout(600)

FAILING = "tests/test_models.py::test_total_value_counts_quantity"
PASSING = "tests/test_models.py::test_restock_adds_units"


@pytest.fixture
def neovim(server_env: dict[str, str], tmp_path: Path) -> Neovim:
    return Neovim(require_nvim(), tmp_path / "nvim", server_env)


def counts(output: str) -> dict[str, int]:
    """pytest's summary counts ("1 failed, 0 passed in …")."""
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|error)", output)}


LENSES = """
local buf = T.edit('tests/test_models.py')
local function titles()
  local found = {}
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    if lens.command then
      table.insert(found, { line = lens.range.start.line + 1, title = lens.command.title })
    end
  end
  return found
end
T.wait(120000, function()
  return vim.iter(titles()):any(function(l) return l.title:find('Run test', 1, true) ~= nil end)
end, 'a "Run test" code lens')
local before = titles()
-- The lens on the failing test's line, run as a user does: its result is shown, the lenses then tell it.
vim.api.nvim_win_set_cursor(0, { 10, 0 })
local done = T.run('lua vim.lsp.codelens.run()')
T.wait(60000, function()
  return vim.iter(titles()):any(function(l) return l.title:find('failed', 1, true) ~= nil end)
end, 'the lens to show the failure')
return { before = before, run = done.result, after = titles(), quickfix = T.quickfix() }
"""


def test_run_test_lenses_show_above_the_tests(neovim: Neovim, tmp_path: Path) -> None:
    require_tool("pytest")
    root = copy_workspace("python", tmp_path / "python")

    seen = neovim.run(LENSES, root).result

    lenses = seen["before"]
    run_lines = {lens["line"] for lens in lenses if lens["title"] == "▶ Run test"}
    assert {4, 10} <= run_lines, lenses  # `def test_restock_adds_units` and `def test_total_value_counts_quantity`
    # vim.lsp.codelens.run() on line 10 ran that test alone, shown like :LintelTest, and the lens tells the outcome.
    assert counts(seen["run"]["output"]) == {"failed": 1}, seen["run"]["output"]
    assert [item["line"] for item in seen["quickfix"]["items"]] == [13]
    assert any(lens["line"] == 10 and lens["title"].startswith("✗ failed") for lens in seen["after"]), seen["after"]


AT_CURSOR = """
local buf = T.edit('tests/test_models.py')
local seen = {}
for _, line in ipairs(T.args.lines) do
  vim.cmd.cclose() -- a failing run opened the quickfix window: back to the test file's
  vim.api.nvim_win_set_cursor(0, { line, 4 })
  local done = T.run('LintelTest')
  table.insert(seen, { result = done.result, error = done.error or vim.NIL, quickfix = T.quickfix() })
end
local again = T.run('LintelTest last')
table.insert(seen, { result = again.result, error = again.error or vim.NIL, quickfix = T.quickfix() })
return seen
"""


def test_lintel_test_runs_exactly_the_test_at_the_cursor(neovim: Neovim, tmp_path: Path) -> None:
    require_tool("pytest")
    root = copy_workspace("python", tmp_path / "python")

    # line 12 is inside test_total_value_counts_quantity's body, line 6 inside test_restock_adds_units's
    run = neovim.run(AT_CURSOR, root, {"lines": [12, 6]})
    failing, passing, last = run.result

    assert failing["error"] is None, failing
    assert counts(failing["result"]["output"]) == {"failed": 1}, failing["result"]["output"]
    assert [f["name"] for f in failing["result"]["failures"]] == [FAILING]
    [item] = failing["quickfix"]["items"]
    assert Path(item["file"]).resolve() == (root / "tests/test_models.py").resolve()
    assert item["line"] == 13
    assert FAILING in item["text"]

    assert counts(passing["result"]["output"]) == {"passed": 1}, passing["result"]["output"]
    assert passing["result"]["failures"] == []
    assert passing["quickfix"]["items"] == []

    assert run.notified(f"✗ {FAILING}: 1 failed"), run.notifications
    assert run.notified(f"✓ {PASSING} passed"), run.notifications

    # `:LintelTest last` runs the previous request again: the passing test alone.
    assert counts(last["result"]["output"]) == {"passed": 1}, last["result"]["output"]
