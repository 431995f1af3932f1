"""check_edit over MCP (the official SDK's client) and lintel.checkEdit / lintel.diagnostics over LSP: a proposed
text's findings without writing the file, equal to writing it, checking and restoring by hand; settled states
(timed_out, tool_missing) and the `partial:` first line; an open document's answer describes its unsaved text."""

from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start
from tests.e2e.test_faults import HANGING_TOOL, error_of
from tests.e2e.test_lint_diagnostics import require_linter
from tests.e2e.test_mcp import _toml_argv, agent, configure, text_of
from tests.helpers import copy_workspace, require_tool

STATES = {"complete", "timed_out", "tool_missing", "not_run"}


@pytest.fixture
def client_name() -> str:
    return "neovim"


@dataclass(frozen=True)
class EditCase:
    language: str
    file: str
    # Replacements made to the file's text (each old text occurs once): they move lines, add and fix findings.
    changes: tuple[tuple[str, str], ...]
    visible: bool = True  # whether a tool that reads the proposed text sees what changed


CASES = [
    EditCase(
        "python",
        "src/inventory/pricing.py",
        (
            ('"""Discounts and labels."""\n', '"""Discounts and labels."""\n\nimport os\n'),
            ("note == None", "note is None"),
        ),
    ),
    EditCase(
        "node",
        "src/util.js",
        (
            ("// Helpers", "// Moved down.\n// Helpers"),
            ("return a == b;", "return a === b;"),
            ("let total = 0;", "let total = 0;\n  const spare = 1;"),
        ),
    ),
    EditCase(
        "go",
        "store.go",
        (
            ("strings.Index(s, sub) != -1", "strings.Contains(s, sub)"),
            ("func Has(s, sub string) bool {", 'func Has(s, sub string) bool {\n\tvar spare int = "no"'),
        ),
    ),
    # rust-analyzer's own checks of a text it already had are not published again when the document is reopened,
    # so the by-hand side (write, then `diagnostics`) may miss them: this case changes what clippy sees only.
    EditCase("rust", "src/lib.rs", (("    return a + b;", "    a + b"),), visible=False),
]


def proposed(text: str, case: EditCase) -> str:
    for old, new in case.changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def stamp(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def run_issues(found: dict[str, Any], ran: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """The issues of the runs of `found` (a diagnostics answer) whose (tool, check) is in `ran`."""
    return [i for run in found["runs"] if (run["tool"], run["check"]) in ran for i in run["issues"]]


@pytest.mark.parametrize("case", CASES, ids=[c.language for c in CASES])
async def test_check_edit_is_write_check_restore_without_writing(
    case: EditCase, tmp_path: Path, server_env: dict[str, str]
) -> None:
    require_linter(case.language)
    root = copy_workspace(case.language, tmp_path / case.language)
    path = root / case.file
    disk = path.read_bytes().decode("utf-8")
    text = proposed(disk, case)
    before = stamp(path)

    async with agent(root, server_env) as client:
        checked = await client.result("check_edit", {"file": case.file, "content": text})
        assert stamp(path) == before  # nothing written
        edits = [{"oldText": old, "newText": new} for old, new in case.changes]
        by_edits = await client.result("check_edit", {"file": case.file, "edits": edits})
        assert stamp(path) == before
        summary = text_of(await client.call("check_edit", {"file": case.file, "content": text}))

        # By hand: the file's diagnostics, then write the text, diagnostics again, restore.
        base = await client.result("diagnostics", {"file": case.file})
        path.write_text(text, encoding="utf-8")
        try:
            after = await client.result("diagnostics", {"file": case.file})
        finally:
            path.write_bytes(before[0])
            os.utime(path, ns=(before[1], before[1]))

    assert checked is not None
    assert by_edits is not None
    assert base is not None
    assert after is not None
    assert (checked["file"], checked["language"]) == (case.file, case.language)
    assert checked["contentHash"] == after["contentHash"]  # the text checked is the text written by hand
    assert checked["baseHash"] == base["contentHash"] != checked["contentHash"]
    assert {r["state"] for r in checked["runs"]} <= STATES
    ran = {
        (r["tool"], r["check"])
        for r in checked["runs"]
        if r["state"] == "complete" and r.get("baseState") == "complete"
    }
    for run in checked["runs"]:
        if run["state"] == "not_run":
            assert run["stateReason"].startswith("reads files only"), run

    # The same findings as by hand, however the delta pairs them: what it calls new is among the findings of the
    # written text, what it calls fixed among those of the file before, and the rest is one and the same on both.
    def what(issues: list[dict[str, Any]]) -> Counter[tuple[str, str | None, str]]:
        return Counter((i["source"], i.get("rule"), i["message"]) for i in issues)

    written, was = what(run_issues(after, ran)), what(run_issues(base, ran))
    new, fixed = what(checked["new"]), what(checked["fixed"])
    assert new <= written
    assert fixed <= was
    assert written - new == was - fixed
    assert checked["counts"] == {"new": new.total(), "fixed": fixed.total(), "unchanged": checked["unchanged"]}
    assert checked["unchanged"] == written.total() - new.total()
    if case.visible:
        assert checked["new"] or checked["fixed"], "the case adds or fixes a finding"
    assert {k: v for k, v in checked.items() if k != "runs"} == {k: v for k, v in by_edits.items() if k != "runs"}

    head = summary.splitlines()[0]
    counts = f"{len(new)} new, {checked['counts']['fixed']} fixed, {checked['unchanged']} unchanged"
    assert counts in head, head
    if all(r["state"] == "complete" for r in checked["runs"]):
        assert head.startswith(f"{case.file}: "), head
    else:
        assert head.startswith("partial: "), head
    if case.language in ("python", "node"):  # their linters read stdin: the edit's findings are there
        assert ran
        assert new
        assert checked["counts"]["fixed"] >= 1


async def test_check_edit_refusals(tmp_path: Path, server_env: dict[str, str]) -> None:
    require_tool("ruff")
    root = copy_workspace("python", tmp_path / "python")
    outside = tmp_path / "outside.py"
    outside.write_text("import os\n", encoding="utf-8")
    pricing = "src/inventory/pricing.py"
    before = stamp(root / pricing)
    async with agent(root, server_env) as client:
        assert await client.error("check_edit", {"file": pricing}) == (
            "check_edit: pass exactly one of `content` (the whole text) or `edits`"
        )
        both = {"file": pricing, "content": "", "edits": []}
        assert "exactly one of" in await client.error("check_edit", both)
        for name in (str(outside), "../outside.py", "../elsewhere/new.py"):
            refused = await client.error("check_edit", {"file": name, "content": "x = 1\n"})
            assert refused == f"file {name!r} is outside the workspace; lintel only runs inside it"
        missing = await client.error("check_edit", {"file": "src/new.py", "edits": [{"oldText": "a", "newText": "b"}]})
        assert "does not exist" in missing
        twice = await client.error("check_edit", {"file": pricing, "edits": [{"oldText": "def ", "newText": "def  "}]})
        assert (
            twice == "check_edit: the edit: oldText occurs 3 times in the file; it must match exactly once"
            " (add surrounding lines)"
        )
        never = {"file": pricing, "edits": [{"oldText": "no such text", "newText": ""}]}
        assert "does not occur" in await client.error("check_edit", never)
        far = {"file": pricing, "edits": [{"line": 99, "column": 1, "endLine": 99, "endColumn": 1, "newText": "x"}]}
        assert "line 99 is past the end of the file" in await client.error("check_edit", far)
        bad_shape = {"file": pricing, "edits": [{"old": "x"}]}
        assert (await client.error("check_edit", bad_shape)).startswith("check_edit: edits.0")

        created = await client.result("check_edit", {"file": "src/inventory/fresh.py", "content": "import os\n"})
        assert created is not None
        assert created["baseHash"] is None
        assert [i["rule"] for i in created["new"]] == ["F401"]
        await client.alive()
    assert stamp(root / pricing) == before
    assert not (root / "src/inventory/fresh.py").exists()


async def test_a_hanging_tool_is_timed_out_and_never_clean(tmp_path: Path, server_env: dict[str, str]) -> None:
    require_tool("ruff")
    root = copy_workspace("python", tmp_path / "python")
    script = tmp_path / "hang.py"
    script.write_text(HANGING_TOOL, encoding="utf-8")
    configure(root, f"[languages.python]\nlint = {_toml_argv([sys.executable, str(script), str(tmp_path / 'pids')])}\n")
    async with agent(root, server_env) as client:
        answer = await client.call("diagnostics", {"file": "src/inventory/pricing.py", "timeout": 2})
    assert not answer.is_error
    found = answer.structured_content
    assert found is not None
    states = {r["check"]: r["state"] for r in found["runs"]}
    assert states == {"lint": "timed_out", "format": "complete", "typecheck": "complete"}  # typecheck: the server
    first = text_of(answer).splitlines()[0]
    assert first.startswith("partial: "), first
    assert "timed_out" in first
    assert "no issues" not in text_of(answer)
    assert found["ok"] is False


async def test_a_missing_tool_is_tool_missing(tmp_path: Path, server_env: dict[str, str]) -> None:
    require_tool("ruff")
    root = copy_workspace("python", tmp_path / "python")
    linter = _toml_argv([str(tmp_path / "no-such-linter"), "{files}"])
    server = _toml_argv([str(tmp_path / "no-such-server")])
    configure(root, f"[languages.python]\nlint = {linter}\nserver = {server}\n")
    pricing = "src/inventory/pricing.py"
    async with agent(root, server_env) as client:
        answer = await client.call("diagnostics", {"file": pricing})
        found = answer.structured_content
        edited = await client.result("check_edit", {"file": pricing, "content": "x = 1\n"})
    assert not answer.is_error
    assert found is not None
    lint = next(r for r in found["runs"] if r["check"] == "lint")
    assert lint["state"] == "tool_missing", lint
    assert "no-such-linter" in lint["stateReason"]
    language_server = next(r for r in found["runs"] if r["check"] == "typecheck")  # its binary is missing too
    assert language_server["state"] == "tool_missing", language_server
    assert language_server["tool"].endswith("no-such-server")
    assert "no-such-server" in language_server["stateReason"]
    assert text_of(answer).startswith("partial: ")
    assert edited is not None
    assert {r["check"]: r["state"] for r in edited["runs"]}["format"] == "complete"


# -- over LSP ---------------------------------------------------------------------------------------------------------


async def test_lsp_check_edit_and_diagnostics_of_an_unsaved_document(start: Start) -> None:
    require_tool("ruff")
    require_tool("basedpyright-langserver", "pip install basedpyright")
    editor = await start("python", real_language_servers=True)
    pricing = "src/inventory/pricing.py"
    path = editor.path(pricing)
    disk = path.read_bytes().decode("utf-8")
    before = stamp(path)
    text = disk.replace('"""Discounts and labels."""\n', '"""Discounts and labels."""\n\nimport os\n')

    checked = await editor.execute("lintel.checkEdit", {"file": pricing, "content": text})
    assert [(i["rule"], i["line"]) for i in checked["new"]] == [("F401", 3)]
    assert checked["counts"]["fixed"] == 0
    assert stamp(path) == before

    # Not open: the file on disk, as the MCP tool answers it.
    on_disk = await editor.execute("lintel.diagnostics", {"file": pricing})
    assert "version" not in on_disk
    assert not any(i["rule"] == "F401" for i in on_disk["issues"])

    uri = editor.open(pricing)
    editor.change(uri, text)  # version 2, unsaved
    published = editor.client.published
    current = await editor.execute("lintel.diagnostics", {"file": pricing})
    assert current["version"] == 2
    assert current["contentHash"] == checked["contentHash"]
    assert ("F401", 3) in [(i["rule"], i["line"]) for i in current["issues"]]
    states = {r["check"]: r["state"] for r in current["runs"]}
    assert states == {"lint": "complete", "format": "complete", "typecheck": "complete"}
    assert stamp(path) == before

    editor.change(uri, disk)  # version 3: back to the saved text
    again = await editor.execute("lintel.diagnostics", {"file": pricing})
    assert again["version"] == 3
    assert again["contentHash"] == on_disk["contentHash"]
    assert not any(i["rule"] == "F401" for i in again["issues"])

    await editor.wait_for_diagnostics(uri, lambda ds: bool(ds))
    versions = [p.version for p in published if p.uri == uri]
    assert versions
    assert all(v is not None for v in versions), versions

    refused = await error_of(editor, "lintel.checkEdit", {"file": "../x.py", "content": ""})
    assert "outside the workspace" in refused.message


async def test_lsp_diagnostics_say_timed_out_and_tool_missing(start: Start, tmp_path: Path) -> None:
    require_tool("ruff")
    script = tmp_path / "hang.py"
    script.write_text(HANGING_TOOL, encoding="utf-8")
    hanging = [sys.executable, str(script), str(tmp_path / "pids")]
    missing = [str(tmp_path / "no-such-formatter"), "{files}"]
    editor = await start("python", init_options={"languages": {"python": {"lint": hanging, "format": missing}}})
    pricing = "src/inventory/pricing.py"
    found = await editor.execute("lintel.diagnostics", {"file": pricing, "timeout": 2})
    states = {r["check"]: r["state"] for r in found["runs"]}
    # The session's language server is a silent one (conftest): it never publishes, so it timed out too.
    assert states == {"lint": "timed_out", "format": "tool_missing", "typecheck": "timed_out"}
    assert found["ok"] is False
    # Not waited for again: a server that has never published is said not to have run, at once.
    again = await editor.execute("lintel.diagnostics", {"file": pricing, "timeout": 2})
    server = next(r for r in again["runs"] if r["check"] == "typecheck")
    assert server["state"] == "not_run", server
    assert server["stateReason"].endswith(" has published no diagnostics since it started: not asked again")
    await editor.alive()
