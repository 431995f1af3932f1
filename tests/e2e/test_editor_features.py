"""Save storms, configuration reloads, pull diagnostics, formatting and multi-root workspaces."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.by_hand import Baselines
from tests.e2e.conftest import RecordingClient, Start, pull_capabilities
from tests.helpers import require_path, require_tool, tool_path

PRICING = "src/inventory/pricing.py"
RUFF_JSON = ["check", "--output-format=json", "--no-fix", "--no-cache"]


def keys(diagnostics: tuple[types.Diagnostic, ...] | list[types.Diagnostic]) -> Counter[tuple[int, str | None]]:
    return Counter((d.range.start.line + 1, str(d.code) if d.code is not None else None) for d in diagnostics)


def counting_ruff(tmp_path: Path) -> tuple[Path, Path]:
    """A wrapper that records each start in a counter file, then execs the real ruff with the same arguments."""
    ruff = shutil.which("ruff", path=tool_path())
    assert ruff is not None
    counter = tmp_path / "ruff-runs"
    wrapper = tmp_path / "counting-ruff"
    wrapper.write_text(f'#!/bin/sh\necho "$$" >> "{counter}"\nexec "{ruff}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return wrapper, counter


def runs(counter: Path) -> int:
    return len(counter.read_text(encoding="utf-8").splitlines()) if counter.exists() else 0


def still_running(counter: Path) -> list[int]:
    """The recorded ruff runs whose process is still there (not yet reaped counts: its output may be unread)."""
    pids = [int(line) for line in counter.read_text(encoding="utf-8").split()] if counter.exists() else []
    return [pid for pid in pids if os.path.exists(f"/proc/{pid}")]


async def until(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    """Wait for an event seen from outside the server; the timeout only keeps a broken server from hanging."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.02)


def storm_content(i: int) -> str:
    """Each save's text has its own finding: an unused local named after the save."""
    return f"def step() -> None:\n    v{i} = {i}\n"


async def test_a_save_storm_ends_with_the_last_content_and_few_runs(start: Start, tmp_path: Path) -> None:
    require_tool("ruff")
    wrapper, counter = counting_ruff(tmp_path)
    settings = {
        "languages": {"python": {"lint": [str(wrapper), *RUFF_JSON]}},
        # The saves come every 20 ms; a debounce above the default 100 ms keeps a stall of this test's own
        # loop on a loaded machine from counting as the end of the storm.
        "editor": {"saveDebounceMs": 300},
    }
    editor = await start("python", init_options=settings)
    storm = editor.path("src/inventory/storm.py")
    storm.write_text(storm_content(0), encoding="utf-8")
    uri = editor.open(storm)
    await editor.wait_for_diagnostics(uri, lambda ds: any("`v0`" in d.message for d in ds))
    before = runs(counter)

    for i in range(1, 50):
        editor.save(uri, storm_content(i))
        await asyncio.sleep(0.02)
    editor.save(uri, "import os\n")  # the 50th save: a different finding

    final = await editor.wait_for_diagnostics(uri, lambda ds: [d.code for d in ds if d.source == "ruff"] == ["F401"])
    assert "`os`" in final[0].message
    # Every run is over (the superseded ones killed, the last one done) and the server has answered a later
    # request: a superseded run that published late would show up by now.
    await until(lambda: not still_running(counter), "every ruff run ended")
    await editor.alive()
    assert [d.code for d in editor.diagnostics(uri, "ruff")] == ["F401"]
    started = runs(counter) - before
    assert 1 <= started <= 3, f"{started} ruff runs for 50 saves"


async def test_changed_configuration_changes_what_runs(start: Start) -> None:
    require_tool("ruff")
    ruff = shutil.which("ruff", path=tool_path())
    assert ruff is not None
    editor = await start("python", init_options={"editor": {"formatCheck": False}})
    uri = editor.open(PRICING)
    await editor.wait_for_diagnostics(uri, lambda ds: {d.code for d in ds} == {"F841", "E711"})

    await editor.reconfigure({"languages": {"python": {"lint": [ruff, *RUFF_JSON, "--select", "F841"]}}})
    editor.save(uri, editor.path(PRICING).read_text(encoding="utf-8"))

    published = await editor.wait_for_diagnostics(uri, lambda ds: {d.code for d in ds} == {"F841"})
    assert [d.source for d in published] == ["ruff"]


FORMAT_MESSAGE = "ruff format would reformat this code"


def format_findings(diagnostics: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.message.startswith(FORMAT_MESSAGE)]


@pytest.mark.parametrize("where", ["settings", "lintel.toml", "watched lintel.toml"])
async def test_turning_the_format_check_off_clears_what_it_found(start: Start, where: str) -> None:
    require_tool("ruff")
    editor = await start("python")
    unformatted = "src/inventory/report.py"
    text = editor.path(unformatted).read_text(encoding="utf-8")
    uri = editor.open(unformatted)
    editor.save(uri, text)
    found = await editor.wait_for_diagnostics(uri, lambda ds: bool(format_findings(list(ds))))
    lint = [d for d in found if d not in format_findings(found)]

    if where == "settings":
        await editor.reconfigure({"editor": {"formatCheck": False}})
    elif where == "lintel.toml":
        editor.path("lintel.toml").write_text("[editor]\nformat_check = false\n", encoding="utf-8")
        editor.did_save(editor.uri("lintel.toml"))
    else:  # written by something else than the editor, which watches the file for lintel
        editor.path("lintel.toml").write_text("[editor]\nformat_check = false\n", encoding="utf-8")
        created = types.FileEvent(uri=editor.uri("lintel.toml"), type=types.FileChangeType.Created)
        editor.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[created]))

    # Taken off at once, not left until something else publishes the file.
    cleared = await editor.wait_for_diagnostics(uri, lambda ds: not format_findings(list(ds)))
    assert cleared == lint  # the lint findings stay
    published = len(editor.client.published)
    editor.save(uri, text)
    assert await editor.wait_for_publish(uri, published) == lint


async def test_pull_diagnostics_for_clients_that_can_refresh(
    start: Start, client_name: str, baselines: Baselines
) -> None:
    require_tool("ruff")
    editor = await start("python", capabilities=pull_capabilities(client_name))
    assert editor.result.capabilities.diagnostic_provider is not None
    uri = editor.open(PRICING)

    deadline = asyncio.get_running_loop().time() + 120
    while editor.client.diagnostic_refresh_count == 0:
        assert asyncio.get_running_loop().time() < deadline, "no workspace/diagnostic/refresh"
        await asyncio.sleep(0.05)
    report = await editor.client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )

    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert keys(list(report.items)) == baselines.lint("python", PRICING)
    assert {d.source for d in report.items} == {"ruff"}
    assert editor.client.published == []  # pulled, never pushed: no duplicates in the editor
    again = await editor.client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id
        )
    )
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)


def ruff_format_by_hand(root: Path, file: str) -> str:
    proc = subprocess.run(
        ["ruff", "format", "--stdin-filename", file, "-"],
        input=(root / file).read_text(encoding="utf-8"),
        cwd=root,
        env={**os.environ, "PATH": tool_path()},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return proc.stdout


async def format_request(client: RecordingClient, uri: str) -> list[types.TextEdit] | None:
    params = types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        options=types.FormattingOptions(tab_size=4, insert_spaces=True),
    )
    result = await client.text_document_formatting_async(params)
    return list(result) if result is not None else None


async def test_formatting_returns_ruff_formats_output(start: Start) -> None:
    require_tool("ruff")
    editor = await start("python")
    unformatted, formatted = "src/inventory/report.py", "src/inventory/models.py"
    text = editor.path(unformatted).read_text(encoding="utf-8")
    expected = ruff_format_by_hand(editor.root, unformatted)
    assert expected != text
    assert ruff_format_by_hand(editor.root, formatted) == editor.path(formatted).read_text(encoding="utf-8")

    edits = await format_request(editor.client, editor.open(unformatted))

    assert edits is not None
    [edit] = edits
    assert (edit.range.start.line, edit.range.start.character) == (0, 0)
    assert (edit.range.end.line, edit.range.end.character) == (len(text.splitlines()), 0)  # the whole document
    assert edit.new_text == expected
    assert not await format_request(editor.client, editor.open(formatted))


async def test_multi_root_folders_are_detected_and_linted_on_their_own(
    start: Start, baselines: Baselines, tmp_path: Path
) -> None:
    require_tool("ruff")
    require_tool("npx", "install Node.js 20+")
    require_path(Path(__file__).parents[1] / "workspaces" / "node" / "node_modules" / ".bin" / "eslint")
    editor = await start("python", "node")
    python_root, node_root = editor.roots

    for root, language in ((python_root, "python"), (node_root, "node")):
        detected = await editor.execute("lintel.detect", {"path": str(root)})
        assert [p["language"] for p in detected["projects"]] == [language]
        assert detected["root"] == str(root.resolve())

    python_uri = editor.open(PRICING, root=python_root)
    node_uri = editor.open("src/util.js", root=node_root)
    python_found = await editor.wait_for_diagnostics(python_uri, lambda ds: bool(ds))
    node_found = await editor.wait_for_diagnostics(node_uri, lambda ds: bool(ds))

    assert keys(python_found) == baselines.lint("python", PRICING)
    assert {d.source for d in python_found} == {"ruff"}
    assert keys(node_found) == baselines.lint("node", "src/util.js")
    assert {d.source for d in node_found} == {"eslint"}
