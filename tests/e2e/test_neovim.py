"""The Neovim plugin (editors/nvim) in a real headless Neovim, on copies of the fixture workspaces.

Each test runs one Lua scenario (see nvim_support.py) that opens files, waits for what the editor shows
(`vim.diagnostic.get()`, the quickfix list, the buffer `vim.lsp.buf.definition()` jumps to, `:checkhealth`)
and returns it; the assertions compare it with what `lintel check` reports for the same copy.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from lintel.languages import LANGUAGES

from tests.e2e.nvim_support import PLUGIN, Neovim, require_nvim
from tests.helpers import WORKSPACES, copy_workspace, lintel_json, require_path, require_tool, run_lintel, run_tool

pytestmark = pytest.mark.timeout(600)


@dataclass(frozen=True)
class Case:
    """One language's files for the shared scenarios."""

    language: str
    lint_file: str  # has findings of lint_source
    lint_source: str
    nav_file: str  # uses a name defined in nav_target
    nav_pattern: str  # a Vim regex whose match (\zs) puts the cursor on that name
    nav_target: str
    nav_target_text: str  # on the line the definition lands on
    tools: tuple[str, ...]  # what lint and tests need
    nav_server: str

    def require(self, *, navigation: bool = False) -> None:
        for tool in (*self.tools, self.nav_server) if navigation else self.tools:
            require_tool(tool)
        if self.language == "node":
            require_path(WORKSPACES / "node" / "node_modules" / ".bin" / "eslint")


CASES = {
    "python": Case(
        "python",
        "src/inventory/pricing.py",
        "ruff",
        "src/inventory/pricing.py",
        r"item: \zsItem",
        "src/inventory/models.py",
        "class Item",
        ("ruff", "pytest"),
        "basedpyright-langserver",
    ),
    "go": Case(
        "go",
        "greet.go",
        "golangci-lint",
        "label.go",
        r"+ \zsGreeting(",
        "greet.go",
        "func Greeting",
        ("go", "golangci-lint"),
        "gopls",
    ),
    "node": Case(
        "node",
        "src/api.ts",
        "eslint",
        "src/labels.ts",
        r"+ \zsdescribe(user)",
        "src/api.ts",
        "export function describe",
        ("node", "npm"),
        "typescript-language-server",
    ),
}


@pytest.fixture
def neovim(server_env: dict[str, str], tmp_path: Path) -> Neovim:
    return Neovim(require_nvim(), tmp_path / "nvim", server_env)


def workspace(name: str, tmp_path: Path) -> Path:
    return copy_workspace(name, tmp_path / name)


def check_issues(root: Path, only: str) -> list[dict[str, Any]]:
    """`lintel check --only <only>` on the copy: the reference the editor's results are compared with."""
    code, report = lintel_json("check", str(root), "--only", only)
    assert code in (0, 1), report
    return [i for i in report["issues"] if i["kind"] == only]


def relative(root: Path, file: str) -> str:
    return Path(file).resolve().relative_to(root.resolve()).as_posix()


# -- diagnostics ----------------------------------------------------------------------------------------------

OPEN_AND_WAIT = """
local buf = T.edit(T.args.file)
return T.wait_diagnostics(buf, T.args.source, function(found) return #found > 0 end)
"""


@pytest.mark.parametrize("language", CASES)
def test_lint_findings_show_on_open(neovim: Neovim, tmp_path: Path, language: str) -> None:
    case = CASES[language]
    case.require()
    root = workspace(language, tmp_path)
    expected = Counter((i["line"], i["rule"]) for i in check_issues(root, "lint") if i["file"] == case.lint_file)
    assert expected, f"the fixture's {case.lint_file} should have {case.lint_source} findings"

    shown = neovim.run(OPEN_AND_WAIT, root, {"file": case.lint_file, "source": case.lint_source}).result

    assert Counter((d["line"], d["code"]) for d in shown) == expected


FIX_AND_SAVE = """
local buf = T.edit('src/inventory/pricing.py')
local before = T.wait_diagnostics(buf, 'ruff', function(found) return #found > 0 end)
local unused = vim.iter(before):find(function(d) return d.code == 'F841' end)
assert(unused, 'no F841 finding to fix: ' .. vim.inspect(before))
vim.api.nvim_buf_set_lines(buf, unused.line - 1, unused.line, true, {})
vim.cmd.write()
local after = T.wait_diagnostics(buf, 'ruff', function(found)
  return not vim.iter(found):any(function(d) return d.code == 'F841' end)
end, 'the F841 diagnostic to go after :w')
return { before = before, after = after }
"""


def test_fixing_a_finding_and_saving_clears_it(neovim: Neovim, tmp_path: Path) -> None:
    root = workspace("python", tmp_path)

    seen = neovim.run(FIX_AND_SAVE, root).result

    before = {(d["line"], d["code"]) for d in seen["before"]}
    after = {(d["line"], d["code"]) for d in seen["after"]}
    assert {(8, "F841"), (13, "E711")} <= before
    # The other finding is still there, one line up: a new run replaced the diagnostics, it did not just drop them.
    assert after == before - {(8, "F841"), (13, "E711")} | {(12, "E711")}
    assert "previous = item.price" not in (root / "src/inventory/pricing.py").read_text(encoding="utf-8")


# -- commands -------------------------------------------------------------------------------------------------

RUN_COMMANDS = """
T.edit(T.args.file)
local out = {}
for _, command in ipairs(T.args.commands) do
  local done = T.run(command)
  table.insert(out, { command = command, error = done.error, ok = type(done.result) == 'table' and done.result.ok,
                      quickfix = T.quickfix() })
end
return out
"""


def run_commands(neovim: Neovim, root: Path, file: str, *commands: str) -> tuple[list[dict[str, Any]], Any]:
    run = neovim.run(RUN_COMMANDS, root, {"file": file, "commands": list(commands)})
    return run.result, run


def failures_in(quickfix: dict[str, Any], root: Path) -> set[tuple[str, int]]:
    return {(relative(root, i["file"]), i["line"]) for i in quickfix["items"] if i["text"].startswith("FAILED ")}


@pytest.mark.parametrize("language", CASES)
def test_run_tests_puts_failures_in_quickfix(neovim: Neovim, tmp_path: Path, language: str) -> None:
    case = CASES[language]
    case.require()
    root = workspace(language, tmp_path)
    expected = {(i["file"], i["line"]) for i in check_issues(root, "test")}
    assert expected, "the fixture should have a failing test"

    [tests], run = run_commands(neovim, root, case.lint_file, "LintelRunTests")

    assert tests.get("error") is None
    assert tests["ok"] is False
    assert tests["quickfix"]["title"] == f"lintel: {language} test"
    assert failures_in(tests["quickfix"], root) == expected
    assert run.notified(f"lintel: {language} test failed — {len(expected)} failure")


def test_run_tests_python_failure_at_its_line(neovim: Neovim, tmp_path: Path) -> None:
    root = workspace("python", tmp_path)

    [tests, by_name, by_path, wrong], run = run_commands(
        neovim,
        root,
        "src/inventory/pricing.py",
        "LintelRunTests",
        "LintelRunTests python",
        "LintelRunTests path=tests timeout=120",
        "LintelRunTests rust",
    )

    [failure] = [i for i in tests["quickfix"]["items"] if i["text"].startswith("FAILED ")]
    assert (relative(root, failure["file"]), failure["line"], failure["type"]) == ("tests/test_models.py", 13, "E")
    assert "test_total_value_counts_quantity" in failure["text"]
    assert "AssertionError" in failure["text"]
    assert by_name["quickfix"] == by_path["quickfix"] == tests["quickfix"]
    assert 'language "rust" not detected in workspace; detected: python' in wrong["error"]
    assert run.notified('lintel: lintel.runTests: language "rust" not detected')


QUICKFIX_TYPES = {"error": "E", "warning": "W", "info": "I", "hint": "N"}


def test_lint_and_typecheck_put_issues_in_quickfix(neovim: Neovim, tmp_path: Path) -> None:
    require_tool("mypy")
    root = workspace("python", tmp_path)
    expected = {check: check_issues(root, check) for check in ("lint", "typecheck")}
    assert all(expected.values()), expected

    results, _ = run_commands(neovim, root, "src/inventory/pricing.py", "LintelLint", "LintelTypecheck")

    for check, result in zip(expected, results, strict=True):
        items = result["quickfix"]["items"]
        assert result["quickfix"]["title"] == f"lintel: python {check}"
        assert Counter((relative(root, i["file"]), i["line"]) for i in items) == Counter(
            (i["file"], i["line"]) for i in expected[check]
        )
        # Severity and rule in the text, severity as the quickfix type.
        texts = {(relative(root, i["file"]), i["line"]): (i["type"], i["text"]) for i in items}
        for issue in expected[check]:
            kind, text = texts[(issue["file"], issue["line"])]
            assert kind == QUICKFIX_TYPES[issue["severity"]]
            assert text.startswith(f"{issue['severity']}: ")
            tool = f"{issue['source']} {issue['rule']}" if issue.get("rule") else issue["source"]
            assert text.endswith(f"[{tool}]"), text


def test_detect_names_the_tools(neovim: Neovim, tmp_path: Path) -> None:
    root = workspace("python", tmp_path)

    [detect], run = run_commands(neovim, root, "src/inventory/pricing.py", "LintelDetect")

    assert detect.get("error") is None
    [summary] = run.notified("lintel: python project at .")
    assert re.search(r"^\s+lint\s+ruff \(found\)$", summary, re.M), summary
    assert re.search(r"^\s+test\s+pytest \(found\)$", summary, re.M), summary


# -- a monorepo: the commands act on the current file's project ---------------------------------------------------

WEB_PACKAGE = '{"name": "web", "private": true, "scripts": {"test": "node --test"}}\n'
PASSING_TEST = """const test = require('node:test');
const assert = require('node:assert');

test('prices stay positive', () => assert.ok(3 > 0));
"""
FAILING_TEST = """const test = require('node:test');
const assert = require('node:assert');

test('totals add up', () => {
  assert.strictEqual(1 + 1, 3);
});
"""
# The client rooted at the monorepo's top, as a user does for one server over all its projects (by default the
# nearest project folder is the root, and each project gets a server of its own).
MONOREPO_SETUP = "require('lintel').setup({ lsp = { root_dir = T.args.root } })"


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    """`api/` (Go) and `web/` (node, `node --test`: one passing and one failing test file), nothing at the root."""
    require_tool("node")
    root = tmp_path / "mono"
    (root / "api").mkdir(parents=True)
    (root / "api" / "go.mod").write_text("module example.com/api\n\ngo 1.22\n", encoding="utf-8")
    (root / "web" / "test").mkdir(parents=True)
    (root / "web" / "package.json").write_text(WEB_PACKAGE, encoding="utf-8")
    (root / "web" / "test" / "pass.test.js").write_text(PASSING_TEST, encoding="utf-8")
    (root / "web" / "test" / "x.test.js").write_text(FAILING_TEST, encoding="utf-8")
    return root


BUFFER_PATHS = """
local commands = require('lintel.commands')
local file = T.edit('web/test/x.test.js')
local client = commands.client()
vim.cmd('enew | setlocal buftype=nofile')
local function path_of(buf) return commands.buffer_path(buf, client) or false end
return {
  file = path_of(file),
  scratch = path_of(0),
  unwritten = path_of(vim.fn.bufadd(T.args.root .. '/web/new.test.js')),
  outside = path_of(vim.fn.bufadd(T.args.outside)),
}
"""


def test_only_a_file_on_disk_in_the_workspace_is_a_default_path(neovim: Neovim, monorepo: Path) -> None:
    """Not a scratch buffer, a file not written yet, or one outside the workspace: the server would refuse those."""
    outside = monorepo.parent / "outside.test.js"
    outside.write_text(PASSING_TEST, encoding="utf-8")

    paths = neovim.run(BUFFER_PATHS, monorepo, {"root": str(monorepo), "outside": str(outside)}, setup=MONOREPO_SETUP)

    file = str(monorepo / "web" / "test" / "x.test.js")
    assert paths.result == {"file": file, "scratch": False, "unwritten": False, "outside": False}


TYPECHECK_IN_FILE = """
T.edit('web/test/x.test.js')
local done = T.run('LintelTypecheck')
local result = done.result or {}
return { error = done.error, ok = result.ok, status = result.status, reason = result.reason }
"""


def test_a_check_the_project_does_not_use_is_said_as_not_configured(neovim: Neovim, monorepo: Path) -> None:
    """web/ has no TypeScript: `:LintelTypecheck` answers `not_configured`, told as such (not a failure)."""
    run = neovim.run(TYPECHECK_IN_FILE, monorepo, {"root": str(monorepo)}, setup=MONOREPO_SETUP)

    reason = "no TypeScript in this project (no tsconfig.json, no typescript dependency)"
    assert run.result == {"ok": True, "status": "not_configured", "reason": reason}
    assert run.notified(f"lintel: node typecheck not configured — {reason}")


RUN_IN_FILE = """
T.edit('web/test/x.test.js')
local tests = T.run('LintelRunTests')
local result = tests.result or {}
local seen = { error = tests.error, language = result.language, cwd = result.cwd, quickfix = T.quickfix() }
seen.root = T.run('LintelRunTests path=' .. T.args.root).error
return seen
"""


def test_run_tests_in_a_monorepo_file_runs_that_files_project(neovim: Neovim, monorepo: Path) -> None:
    """The buffer's file is the path: from the root alone the server cannot tell api's tests from web's."""
    seen = neovim.run(RUN_IN_FILE, monorepo, {"root": str(monorepo)}, setup=MONOREPO_SETUP).result

    assert seen.get("error") is None
    assert (seen["language"], Path(seen["cwd"]).resolve()) == ("node", (monorepo / "web").resolve())
    assert seen["quickfix"]["title"] == "lintel: node test"
    [failure] = [i for i in seen["quickfix"]["items"] if i["text"].startswith("FAILED ")]
    assert "totals add up" in failure["text"]
    assert relative(monorepo, failure["file"]) == "web/test/x.test.js"
    # An explicit path= wins over the buffer's file: at the root the server cannot choose.
    assert "2 projects found in workspace" in seen["root"]


RUN_IN_SCRATCH = """
T.edit('web/test/x.test.js') -- starts the client
vim.cmd('enew | setlocal buftype=nofile')
local scratch = T.run('LintelRunTests')
vim.cmd.enew()
local unnamed = T.run('LintelRunTests')
return { scratch = scratch.error, unnamed = unnamed.error }
"""


def test_run_tests_in_a_scratch_buffer_shows_the_servers_refusal(neovim: Neovim, monorepo: Path) -> None:
    """No file, so no path: the server cannot tell which project is meant, and says so to the user."""
    run = neovim.run(RUN_IN_SCRATCH, monorepo, {"root": str(monorepo)}, setup=MONOREPO_SETUP)

    assert run.result["scratch"] is not None
    assert run.result["unnamed"] == run.result["scratch"]
    assert run.notified(f"lintel: lintel.runTests: {run.result['scratch']}")
    assert "2 projects found in workspace (api: go, web: node)" in run.result["scratch"]


# -- navigation -----------------------------------------------------------------------------------------------

DEFINITION = """
local buf = T.edit(T.args.file)
assert(vim.fn.search(T.args.pattern) > 0, 'pattern not found: ' .. T.args.pattern)
local origin = vim.api.nvim_win_get_cursor(0)
local target = vim.fs.normalize(vim.fn.fnamemodify(T.args.target, ':p'))
local function landed() return vim.api.nvim_buf_get_name(0) == target end
local function moved()
  return vim.api.nvim_get_current_buf() ~= buf or not vim.deep_equal(vim.api.nvim_win_get_cursor(0), origin)
end
-- While the child server still loads it may answer null, or (tsserver) with the import binding in this
-- file: go back to the call and ask again.
for _ = 1, 8 do
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_win_set_cursor(0, origin)
  local notified = #T.notifications
  vim.lsp.buf.definition()
  vim.wait(30000, function() return moved() or #T.notifications > notified end, 50)
  if landed() then break end
  vim.wait(500)
end
T.wait(1000, landed, 'definition to land in ' .. target)
return { file = vim.api.nvim_buf_get_name(0), line = vim.api.nvim_get_current_line() }
"""


@pytest.mark.parametrize("language", CASES)
def test_definition_lands_in_the_other_file(neovim: Neovim, tmp_path: Path, language: str) -> None:
    case = CASES[language]
    case.require(navigation=True)
    root = workspace(language, tmp_path)

    landed = neovim.run(
        DEFINITION, root, {"file": case.nav_file, "pattern": case.nav_pattern, "target": case.nav_target}
    ).result

    assert relative(root, landed["file"]) == case.nav_target
    assert case.nav_target_text in landed["line"]


# -- health, setup, help --------------------------------------------------------------------------------------

CHECKHEALTH = """
vim.cmd('checkhealth lintel')
return vim.api.nvim_buf_get_lines(0, 0, -1, false)
"""


def test_checkhealth_reports_server_version_and_tools(neovim: Neovim, tmp_path: Path) -> None:
    root = workspace("python", tmp_path)
    version = run_lintel("--version").stdout.strip()

    report = "\n".join(neovim.run(CHECKHEALTH, root).result)

    assert re.search(r"OK server command: lintel serve \(/\S+/lintel\)", report), report
    assert f"OK version: {version}" in report
    for check, tool in (("lint", "ruff"), ("test", "pytest"), ("format", "ruff")):
        assert re.search(rf"OK python {check} \(\.\): {tool} — /\S+/{tool}$", report, re.M), report
    assert "ERROR" not in report

    broken = "\n".join(
        neovim.run(
            CHECKHEALTH, root, setup="require('lintel').setup({ cmd = { '/nonexistent/lintel', 'serve' } })"
        ).result
    )
    assert "ERROR server command `/nonexistent/lintel serve` is not executable" in broken


SETUP_CHOICES = """
local lintel = require('lintel')
local path = vim.env.PATH
vim.env.PATH = T.args.bare_path
local without = lintel.default_cmd()
vim.env.PATH = path
lintel.setup({ settings = { timeouts = { lint = 7 } } })
local config = vim.lsp.config.lintel
return {
  without = without,
  with = lintel.default_cmd(),
  cmd = config.cmd,
  init_options = config.init_options,
  settings = config.settings,
  filetypes = config.filetypes,
  commands = vim.tbl_keys(vim.api.nvim_get_commands({})),
}
"""


def test_setup_defaults_and_settings(neovim: Neovim, tmp_path: Path) -> None:
    bare = tmp_path / "bare-bin"
    bare.mkdir()

    seen = neovim.run(SETUP_CHOICES, tmp_path, {"bare_path": str(bare)}, setup="").result

    assert seen["without"] == ["python3", "-m", "lintel", "serve"]
    assert seen["with"] == seen["cmd"] == ["lintel", "serve"]
    assert seen["init_options"] == {"timeouts": {"lint": 7}}
    assert seen["settings"] == {"lintel": {"timeouts": {"lint": 7}}}
    # The registry's language ids and Neovim-only file types (gomod), through the generated lua/lintel/languages.lua.
    assert set(seen["filetypes"]) == {f for spec in LANGUAGES for f in (*spec.language_ids, *spec.extra_filetypes)}
    assert {"go", "gomod", "typescriptreact", "python"} <= set(seen["filetypes"])
    assert {"LintelRunTests", "LintelTypecheck", "LintelLint", "LintelDetect"} <= set(seen["commands"])


SETUP_EXTRAS = """
local function their_on_init() end
require('lintel').setup({ filetypes = { 'text' }, lsp = { on_init = their_on_init } })
local config = vim.lsp.config.lintel
return {
  filetypes = config.filetypes,
  on_init = vim.tbl_map(function(f) return f == their_on_init and 'theirs' or type(f) end, config.on_init),
  declared_first = config.on_init[1] == require('lintel.declared').on_init,
}
"""


def test_setup_adds_filetypes_and_keeps_lintels_on_init(neovim: Neovim, tmp_path: Path) -> None:
    seen = neovim.run(SETUP_EXTRAS, tmp_path, setup="").result

    assert seen["filetypes"][-1] == "text"
    assert {"go", "gomod", "python"} <= set(seen["filetypes"])
    assert seen["on_init"] == ["function", "theirs"]
    assert seen["declared_first"] is True


# -- languages declared in lintel.toml ----------------------------------------------------------------------------

TXTLINT_TOML = """
[languages.txtlint]
markers = ["txtlint.py"]
extensions = ["txt"]
lint = ["python3", "txtlint.py", "{files}"]
parser = { lint = "mypy" }
"""

# A linter of the declared language: each TODO is a finding, in the `file:line:col: error: message  [code]` form
# the mypy parser reads.
TXTLINT = """
import sys

found = 0
for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as text:
        for number, line in enumerate(text, 1):
            if "TODO" in line:
                print(f"{name}:{number}:{line.index('TODO') + 1}: error: a TODO is left  [todo]")
                found += 1
sys.exit(1 if found else 0)
"""

DECLARED = """
-- notes.txt is loaded before the server runs; txtlint.py (Python) starts it; later.txt opens after it named txtlint.
vim.cmd.edit('notes.txt')
local early = vim.api.nvim_get_current_buf()
T.edit('txtlint.py')
T.wait(30000, function()
  return #vim.lsp.get_clients({ name = 'lintel', bufnr = early }) > 0
end, 'lintel to attach to the already loaded notes.txt')
local later = T.edit('later.txt')
local function found(diagnostics) return #diagnostics > 0 end
local seen = {
  early = T.wait_diagnostics(early, 'mypy', found, 'diagnostics of notes.txt'),
  later = T.wait_diagnostics(later, 'mypy', found, 'diagnostics of later.txt'),
  completion = vim.fn.getcompletion('LintelLint ', 'cmdline'),
}
vim.cmd.edit(vim.fn.fnameescape(T.args.outside))
vim.wait(1000)
seen.outside = #vim.lsp.get_clients({ name = 'lintel', bufnr = 0 })
vim.cmd.edit('README.md')
seen.markdown = #vim.lsp.get_clients({ name = 'lintel', bufnr = 0 })
return seen
"""


def test_declared_language_files_are_attached_and_linted(neovim: Neovim, tmp_path: Path) -> None:
    """A language only lintel.toml knows: its files get the lintel client (loaded before it started, and opened
    after) and the diagnostics of its lint command; its name completes the commands. Files of it outside the
    workspace, and files of no language, stay unattached."""
    root = tmp_path / "declared"
    root.mkdir()
    (root / "lintel.toml").write_text(TXTLINT_TOML, encoding="utf-8")
    (root / "txtlint.py").write_text(TXTLINT, encoding="utf-8")
    (root / "notes.txt").write_text("fine\nthere is a TODO here\n", encoding="utf-8")
    (root / "later.txt").write_text("TODO first\n", encoding="utf-8")
    (root / "README.md").write_text("TODO\n", encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text("TODO\n", encoding="utf-8")

    seen = neovim.run(DECLARED, root, {"outside": str(outside)}).result

    assert [(d["line"], d["col"], d["code"], d["message"]) for d in seen["early"]] == [
        (2, 12, "todo", "a TODO is left")
    ]
    assert [(d["line"], d["col"]) for d in seen["later"]] == [(1, 1)]
    assert "txtlint" in seen["completion"]
    assert {"go", "python", "path=", "timeout="} <= set(seen["completion"])
    assert seen["outside"] == 0
    assert seen["markdown"] == 0


HELP = """
vim.cmd('helptags ' .. vim.fn.fnameescape(T.args.doc))
local found = {}
local tags = { 'lintel', 'lintel-setup', ':LintelRunTests', 'lintel-health', 'LintelCommandDone', 'lintel-declared' }
for _, tag in ipairs(tags) do
  vim.cmd('help ' .. tag)
  found[tag] = vim.fn.expand('%:t') .. ':' .. vim.api.nvim_get_current_line()
  vim.cmd('helpclose')
end
return found
"""


def test_help_file_has_its_tags(neovim: Neovim, tmp_path: Path) -> None:
    copy = tmp_path / "plugin"
    shutil.copytree(PLUGIN, copy)

    found = neovim.run(HELP, tmp_path, {"doc": str(copy / "doc")}, setup=f"vim.opt.rtp:prepend('{copy}')").result

    for tag, where in found.items():
        assert where.startswith("lintel.txt:"), (tag, where)
        assert f"*{tag}*" in where, (tag, where)


# -- code actions ---------------------------------------------------------------------------------------------

QUICK_FIX_THEN_FIX_ALL = """
local buf = T.edit('src/shop/labels.py')
local function text() return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\\n') .. '\\n' end
local before = T.wait_diagnostics(buf, 'ruff', function(found) return #found > 0 end)
local fstring = vim.iter(before):find(function(d) return d.code == 'F541' end)
assert(fstring, 'no F541 finding: ' .. vim.inspect(before))
-- gra on the finding, taking the preferred quick fix (the tool's own safe fix).
vim.api.nvim_win_set_cursor(0, { fstring.line, fstring.col - 1 })
local start = text()
vim.lsp.buf.code_action({ filter = function(action) return action.isPreferred end, apply = true })
T.wait(60000, function() return text() ~= start end, 'the quick fix to change the buffer')
local quick = text()
-- Then every safe fix at once, as a BufWritePre autocommand would ask for it.
vim.lsp.buf.code_action({ context = { only = { 'source.fixAll.lintel' } }, apply = true })
T.wait(60000, function() return text() ~= quick end, 'fix-all to change the buffer')
vim.cmd.write()
return { quick = quick, fixed = text() }
"""


def test_quick_fix_and_fix_all_applied_in_neovim(neovim: Neovim, tmp_path: Path) -> None:
    require_tool("ruff")
    root = workspace("fix-editor", tmp_path)
    original = (root / "src/shop/labels.py").read_text(encoding="utf-8")
    by_hand = tmp_path / "by-hand"
    shutil.copytree(root, by_hand)
    run_tool(["ruff", "check", "--fix", "--no-cache", "--quiet", "."], cwd=by_hand, timeout=60)
    expected = (by_hand / "src/shop/labels.py").read_text(encoding="utf-8")

    seen = neovim.run(QUICK_FIX_THEN_FIX_ALL, root).result

    # The quick fix removed only the `f` of the placeholder-less f-string.
    assert seen["quick"] == original.replace('return f"【セール】"', 'return "【セール】"')
    assert seen["fixed"] == expected
    assert (root / "src/shop/labels.py").read_text(encoding="utf-8") == expected


FIX_ON_SAVE = """
local buf = T.edit('src/shop/labels.py')
T.wait_diagnostics(buf, 'ruff', function(found) return #found > 0 end)
vim.cmd.write()
return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\\n') .. '\\n'
"""


def test_fix_on_save_writes_what_ruff_fix_writes(neovim: Neovim, tmp_path: Path) -> None:
    require_tool("ruff")
    root = workspace("fix-editor", tmp_path)
    by_hand = tmp_path / "by-hand"
    shutil.copytree(root, by_hand)
    run_tool(["ruff", "check", "--fix", "--no-cache", "--quiet", "."], cwd=by_hand, timeout=60)
    expected = (by_hand / "src/shop/labels.py").read_text(encoding="utf-8")

    written = neovim.run(FIX_ON_SAVE, root, setup="require('lintel').setup({ fix_on_save = true })").result

    assert written == expected
    assert (root / "src/shop/labels.py").read_text(encoding="utf-8") == expected
