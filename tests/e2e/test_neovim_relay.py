"""What the child language servers do, seen in a real headless Neovim with lintel as its only language server.

Each test runs one Lua scenario (nvim_support.py) that uses Neovim's own LSP features: a code action applied
(gopls's organize imports), inlay hints (rust-analyzer), semantic tokens (typescript-language-server) and a code
lens run (gopls's "run test"). Lintel relays each request to the file's child server and the answer back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.nav_support import require_rust_analyzer
from tests.e2e.nvim_support import Neovim, require_nvim
from tests.helpers import WORKSPACES, copy_workspace, require_path, require_tool

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def neovim(server_env: dict[str, str], tmp_path: Path) -> Neovim:
    return Neovim(require_nvim(), tmp_path / "nvim", server_env)


def workspace(name: str, tmp_path: Path) -> Path:
    return copy_workspace(name, tmp_path / name)


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if needle in line)


def byte_after(path: Path, line: int, needle: str) -> int:
    """The 0-based byte column just after `needle` on that 1-based line."""
    text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    return len(text[: text.index(needle) + len(needle)].encode())


# Only lintel serves the buffers: a scenario fails if any other client attached.
ONLY_LINTEL = """
local function only_lintel(buf)
  local names = vim.tbl_map(function(c) return c.name end, vim.lsp.get_clients({ bufnr = buf }))
  assert(vim.deep_equal(names, { 'lintel' }), 'clients: ' .. vim.inspect(names))
  return vim.lsp.get_clients({ name = 'lintel', bufnr = buf })[1]
end
local function text(buf) return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\\n') .. '\\n' end
"""

# -- code action: gopls's organize imports --------------------------------------------------------------------

UNORGANIZED = """package lintelgo

import (
\t"os"
\t"strings"
)

// Shout says it louder.
func Shout(s string) string {
\treturn fmt.Sprint(strings.ToUpper(s), "!")
}
"""

ORGANIZE_IMPORTS = (
    ONLY_LINTEL
    + """
local buf = T.edit('shout.go')
local client = only_lintel(buf)
-- Which requests Neovim makes: an action without both an edit and a command is resolved (codeAction/resolve,
-- which lintel sends back to gopls by the action's marker) before it is applied.
local asked = {}
local request = client.request
client.request = function(self, method, ...)
  table.insert(asked, method)
  return request(self, method, ...)
end
local before = text(buf)
local chosen = {}
local function organize(action)
  if action.kind == 'source.organizeImports' then
    table.insert(chosen, { title = action.title, kind = action.kind, lintel = vim.tbl_get(action, 'data', 'lintel') })
    return true
  end
  return false
end
-- gra asking for organize imports only; until gopls has loaded the package it may offer none: ask again.
local deadline = vim.uv.now() + 150000
while text(buf) == before do
  assert(vim.uv.now() < deadline, 'organize imports did not change the buffer')
  local notified = #T.notifications
  vim.lsp.buf.code_action({ context = { only = { 'source.organizeImports' } }, filter = organize, apply = true })
  vim.wait(30000, function() return text(buf) ~= before or #T.notifications > notified end, 50)
  if text(buf) == before then vim.wait(1000) end
end
return { before = before, after = text(buf), chosen = chosen, asked = asked }
"""
)


def test_organize_imports_from_gopls_is_applied(neovim: Neovim, tmp_path: Path) -> None:
    require_tool("go")
    require_tool("gopls")
    root = workspace("go", tmp_path)
    (root / "shout.go").write_text(UNORGANIZED, encoding="utf-8")

    seen = neovim.run(ORGANIZE_IMPORTS, root).result

    assert seen["chosen"][-1]["kind"] == "source.organizeImports"
    assert seen["chosen"][-1]["title"] == "Organize Imports"
    assert seen["chosen"][-1]["lintel"]["child"].startswith("go:")  # gopls's, marked for its resolve
    assert "codeAction/resolve" in seen["asked"]
    # The unused import went, the missing one came, in its sorted place; the code itself untouched.
    assert seen["after"] == UNORGANIZED.replace('\t"os"\n\t"strings"\n', '\t"fmt"\n\t"strings"\n')
    assert seen["before"] == UNORGANIZED


# -- inlay hints: rust-analyzer -------------------------------------------------------------------------------

INLAY_HINTS = (
    ONLY_LINTEL
    + """
local buf = T.edit(T.args.file)
local client = only_lintel(buf)
vim.lsp.inlay_hint.enable(true, { bufnr = buf })
local function hints()
  local found = {}
  for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
    local hint = item.inlay_hint
    local label = hint.label
    if type(label) == 'table' then
      label = table.concat(vim.tbl_map(function(part) return part.value end, label))
    end
    local line = vim.api.nvim_buf_get_lines(buf, hint.position.line, hint.position.line + 1, true)[1]
    table.insert(found, {
      client = item.client_id == client.id and 'lintel' or tostring(item.client_id),
      line = hint.position.line + 1,
      byte = vim.str_byteindex(line, client.offset_encoding, hint.position.character, false),
      label = label,
      kind = hint.kind or vim.NIL,
    })
  end
  return found
end
local function shown()
  local labels = vim.iter(hints()):filter(function(h) return h.line == T.args.line end)
    :map(function(h) return h.label end):totable()
  return vim.iter(T.args.labels):all(function(label) return vim.list_contains(labels, label) end)
end
-- Hints come once rust-analyzer has loaded the crate (it asks for a refresh, which lintel relays); turning them
-- off and on now and then asks again, in case the refresh came before the editor could take it.
local deadline = vim.uv.now() + 180000
while not shown() do
  assert(vim.uv.now() < deadline, 'no rust-analyzer hints on line ' .. T.args.line .. ': ' .. vim.inspect(hints()))
  if not vim.wait(10000, shown, 100) then
    vim.lsp.inlay_hint.enable(false, { bufnr = buf })
    vim.lsp.inlay_hint.enable(true, { bufnr = buf })
  end
end
return { hints = hints(), encoding = client.offset_encoding }
"""
)


def test_rust_analyzer_inlay_hints_show(neovim: Neovim, tmp_path: Path) -> None:
    require_tool("cargo")
    require_rust_analyzer()
    root = workspace("rust", tmp_path)
    shapes = root / "src" / "shapes.rs"
    # Two `let`s on one line, the second after "é": its column differs between UTF-8 and UTF-16.
    line = line_of(shapes, 'let accent = "é"; let spare = p.x;')

    seen = neovim.run(INLAY_HINTS, root, {"file": "src/shapes.rs", "line": line, "labels": [": &str", ": i32"]}).result

    hints = seen["hints"]
    assert {h["client"] for h in hints} == {"lintel"}
    on_line = sorted((h["byte"], h["label"], h["kind"]) for h in hints if h["line"] == line)
    type_hint = 1
    assert on_line == [
        (byte_after(shapes, line, "let accent"), ": &str", type_hint),
        (byte_after(shapes, line, "let spare"), ": i32", type_hint),
    ]


# -- semantic tokens: typescript-language-server --------------------------------------------------------------

SEMANTIC_TOKENS = (
    ONLY_LINTEL
    + """
local buf = T.edit('src/labels.ts')
local client = only_lintel(buf)
local function tokens_at(spot)
  local found = {}
  for _, token in ipairs(vim.lsp.semantic_tokens.get_at_pos(buf, spot.line - 1, spot.col) or {}) do
    if token.client_id == client.id then
      table.insert(found, { type = token.type, modifiers = vim.tbl_keys(token.modifiers or {}),
                            line = token.line + 1, start_col = token.start_col, end_col = token.end_col })
    end
  end
  return found
end
local function all_seen()
  return vim.iter(T.args.spots):all(function(spot) return #tokens_at(spot) > 0 end)
end
-- tsserver answers once it has loaded the project; a refresh (or asking again) brings the tokens.
local deadline = vim.uv.now() + 180000
while not all_seen() do
  assert(vim.uv.now() < deadline, 'no semantic tokens from lintel')
  if not vim.wait(10000, all_seen, 100) then vim.lsp.semantic_tokens.force_refresh(buf) end
end
local seen = {}
for _, spot in ipairs(T.args.spots) do
  seen[spot.name] = tokens_at(spot)
end
local highlights = vim.tbl_map(function(mark) return mark[4].hl_group end,
  vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true, type = 'highlight' }))
return { tokens = seen, highlights = highlights,
         legend = client.server_capabilities.semanticTokensProvider.legend.tokenTypes }
"""
)


def spot(path: Path, name: str, before: str) -> dict[str, Any]:
    """Where `name` is on the first line containing `before .. name`: 1-based line, 0-based byte column."""
    line = line_of(path, before + name)
    text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    return {"name": name, "line": line, "col": len(text[: text.index(before + name) + len(before)].encode())}


def test_typescript_semantic_tokens_highlight(neovim: Neovim, tmp_path: Path) -> None:
    require_tool("node")
    require_tool("typescript-language-server")
    require_path(WORKSPACES / "node" / "node_modules" / ".bin" / "eslint")
    root = workspace("node", tmp_path)
    labels = root / "src" / "labels.ts"
    # `describe` after "é 🍰 ": its byte column differs from its UTF-16 one, which lintel re-counts.
    spots = [
        spot(labels, "shelfLabel", "export function "),
        spot(labels, "user", "shelfLabel("),
        spot(labels, "describe", '🍰 " + '),
    ]

    seen = neovim.run(SEMANTIC_TOKENS, root, {"spots": spots}).result

    tokens = seen["tokens"]
    assert [t["type"] for t in tokens["shelfLabel"]] == ["function"]
    assert {"declaration"} <= set(tokens["shelfLabel"][0]["modifiers"])
    assert [t["type"] for t in tokens["user"]] == ["parameter"]
    assert [t["type"] for t in tokens["describe"]] == ["function"]
    describe = spots[2]
    assert tokens["describe"][0]["start_col"] == describe["col"]
    assert tokens["describe"][0]["end_col"] == describe["col"] + len("describe")
    assert {"function", "parameter"} <= set(seen["legend"])
    assert "@lsp.type.function.typescript" in seen["highlights"]


# -- code lens: lintel's "▶ Run test" in place of gopls's, and gopls's run command relayed ------------------------

RUN_TEST_LENS = (
    ONLY_LINTEL
    + """
local buf = T.edit(T.args.file)
local client = only_lintel(buf)
local heard = {}
local function hear(kind, text) table.insert(heard, { kind = kind, text = text }) end
vim.api.nvim_create_autocmd('LspProgress', {
  callback = function(event)
    local value = event.data.params.value
    hear('progress:' .. value.kind, table.concat({ value.title or '', value.message or '' }, ' '))
  end,
})
for _, method in ipairs({ 'window/showMessage', 'window/logMessage' }) do
  local default = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, params, ctx)
    hear(method, params.message)
    return default(err, params, ctx)
  end
end
local function lens_at(line, title)
  return vim.iter(vim.lsp.codelens.get(buf)):find(function(lens)
    return lens.range.start.line == line - 1 and lens.command and lens.command.title == title
  end)
end
-- lintel's own "▶ Run test" stands on the test line where gopls's "run test" would (gopls's is dropped there).
local deadline = vim.uv.now() + 60000
while not lens_at(T.args.line, '▶ Run test') do
  assert(vim.uv.now() < deadline, 'no "▶ Run test" lens: ' .. vim.inspect(vim.lsp.codelens.get(buf)))
  vim.lsp.codelens.refresh({ bufnr = buf })
  vim.wait(5000, function() return lens_at(T.args.line, '▶ Run test') ~= nil end, 100)
end
local lens = lens_at(T.args.line, '▶ Run test')
local lenses = vim.tbl_map(function(l)
  return { line = l.range.start.line + 1, title = l.command and l.command.title or vim.NIL }
end, vim.lsp.codelens.get(buf))
-- gopls's own command, as a user (or another plugin) still runs it by name: relayed to gopls with its progress,
-- messages and error.
local gopls_command = { title = 'run test', command = 'gopls.run_tests',
  arguments = { { URI = vim.uri_from_bufnr(buf), Tests = { T.args.test } } } }
client:exec_cmd(gopls_command, { bufnr = buf }, function(err)
  if err then vim.notify('lintel: ' .. err.code .. ': ' .. err.message, vim.log.levels.ERROR) end
end)
local function ran()
  return vim.iter(T.args.expect):all(function(want)
    return vim.iter(heard):any(function(h) return h.kind == want[1] and h.text:find(want[2], 1, true) ~= nil end)
  end) and vim.iter(T.args.notified):all(function(want)
    return vim.iter(T.notifications):any(function(n) return vim.startswith(n.message, want) end)
  end)
end
if not vim.wait(180000, ran, 100) then
  error('gopls did not say how the test went; heard: ' .. vim.inspect(heard))
end
return { lens = { title = lens.command.title, command = lens.command.command, arguments = lens.command.arguments },
         heard = heard, lenses = lenses }
"""
)

GOPLS_LENSES = "require('lintel').setup({ lsp = { settings = { gopls = { codelenses = { test = true } } } } })"


@dataclass(frozen=True)
class LensRun:
    file: str
    test: str
    heard: list[list[str]]  # [kind, text] Neovim must hear, in any order
    notified: list[str]  # what vim.notify must show


LENS_RUNS = {
    "passes": LensRun(
        "greet_test.go",
        "TestGreeting",
        # `go test -v`'s output as progress, then gopls's "all tests passed": an Info window/showMessage, shown
        # because it answers the command the user gave (other Info messages of a child go to the log).
        [
            ["progress:begin", "gopls: Running go test"],
            ["progress:report", "--- PASS: TestGreeting"],
            ["window/showMessage", "gopls: all tests passed"],
            ["progress:end", "completed"],
        ],
        ["LSP[lintel] gopls: all tests passed"],
    ),
    "fails": LensRun(
        "sub/calc_test.go",
        "TestScale",
        # The failures as an Info message, and the command's error (Neovim says which server answered it).
        [
            ["progress:report", "--- FAIL: TestScale"],
            ["window/showMessage", "gopls: 1 / 1 tests failed"],
            ["progress:end", "failed"],
        ],
        ["LSP[lintel] gopls: 1 / 1 tests failed", "lintel: -32603: gopls.test command failed"],
    ),
}


@pytest.mark.parametrize("outcome", LENS_RUNS)
def test_gopls_run_test_lens_runs_the_test(neovim: Neovim, tmp_path: Path, outcome: str) -> None:
    case = LENS_RUNS[outcome]
    require_tool("go")
    require_tool("gopls")
    root = workspace("go", tmp_path)
    line = line_of(root / case.file, f"func {case.test}(")
    args = {"file": case.file, "line": line, "test": case.test, "expect": case.heard, "notified": case.notified}

    run = neovim.run(RUN_TEST_LENS, root, args, setup=GOPLS_LENSES)

    seen = run.result
    # lintel's lens stands in for gopls's "run test" on the test (docs/editors.md, Tests in the editor)...
    assert seen["lens"]["command"] == "lintel.runTests"
    assert seen["lens"]["arguments"][0]["tests"][0].endswith(f".{case.test}")
    assert {"line": line, "title": "run test"} not in seen["lenses"]
    assert {"line": line, "title": "▶ Run test"} in seen["lenses"]
    shown = [n["message"].split("\n")[0] for n in run.notifications]
    assert shown == case.notified
