"""A language the user declares in lintel.toml (tests/workspaces/shell: shellcheck and a TAP test script),
served by the real server to a real LSP client like a built-in one: diagnostics on open and save, a fix that
clears one, `lintel.runTests`, and the editor asked to sync the declared files."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from lsprotocol import types

from tests.e2e.conftest import Start
from tests.integration.test_declared_language import shellcheck

pytestmark = pytest.mark.tool("shellcheck")


async def until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Wait for an event seen from outside the server; the timeout only keeps a broken server from hanging."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.02)


def codes(diagnostics: list[types.Diagnostic]) -> list[tuple[int, str]]:
    return sorted((d.range.start.line + 1, str(d.code)) for d in diagnostics if d.source == "shellcheck")


async def test_a_declared_language_is_linted_on_open_and_save(start: Start, client_name: str) -> None:
    shellcheck()
    editor = await start("shell")
    uri = editor.open("bin/deploy.sh")
    found = await editor.wait_for_diagnostics(uri, lambda ds: len(codes(list(ds))) == 3)
    assert codes(found) == [(7, "SC2034"), (9, "SC2086"), (10, "SC2086")]
    # The column after non-ASCII text, in the negotiated encoding: `echo "déployé → café:" $release_dir`.
    [after_text] = [d for d in found if d.range.start.line == 9]
    line = editor.path("bin/deploy.sh").read_text(encoding="utf-8").splitlines()[9]
    start_char = line.index("$release_dir")
    before = line[:start_char]
    expected = {"utf-8": len(before.encode()), "utf-16": len(before.encode("utf-16-le")) // 2}.get(
        editor.encoding, len(before)
    )
    assert after_text.range.start.character == expected, (after_text.range, editor.encoding)
    # Quoting the variable and saving clears that finding, and only that one.
    text = (
        editor.path("bin/deploy.sh").read_text(encoding="utf-8").replace("cp -r $release_dir", 'cp -r "$release_dir"')
    )
    editor.save(uri, text)
    fixed = await editor.wait_for_diagnostics(uri, lambda ds: len(codes(list(ds))) == 2)
    assert codes(fixed) == [(7, "SC2034"), (10, "SC2086")]


async def test_run_tests_of_a_declared_language(start: Start) -> None:
    editor = await start("shell")
    result = await editor.execute("lintel.runTests", {"language": "shell"})
    assert (result["language"], result["check"], result["ok"]) == ("shell", "test", False)
    assert result["argv"] == ["bash", "tests/run.sh"]
    [failure] = result["failures"]
    assert "subtracts two numbers" in failure["name"]
    with pytest.raises(Exception, match=r"lintel.typecheck is not supported for shell projects yet"):
        await editor.execute("lintel.typecheck")


async def test_the_editor_is_asked_to_sync_the_declared_files(start: Start, client_name: str) -> None:
    editor = await start("shell")
    await editor.alive()

    def ours() -> list[types.Registration]:
        return [r for r in editor.client.registrations if r.id.startswith("lintel-declared")]

    # The reload that registers is the one after `initialized`: it has read the folder, and registered (not Neovim)...
    await until(lambda: any(": detected " in m.message for m in editor.client.log_messages), "the folder read")
    if client_name != "neovim":
        await until(lambda: bool(ours()), "the declared files registered")
    await editor.alive()  # ...and a later request is answered: nothing more arrives (Neovim: nothing at all)
    registered = {r.method: r.register_options for r in ours()}
    if client_name == "neovim":
        # Neovim's capabilities offer no dynamic registration of document sync: its plugin attaches the files.
        assert registered == {}
        return
    assert set(registered) == {
        types.TEXT_DOCUMENT_DID_OPEN,
        types.TEXT_DOCUMENT_DID_CHANGE,
        types.TEXT_DOCUMENT_DID_SAVE,
        types.TEXT_DOCUMENT_DID_CLOSE,
    }
    # pygls's client leaves registerOptions as the JSON it received.
    assert registered[types.TEXT_DOCUMENT_DID_OPEN] == {
        "documentSelector": [{"pattern": "**/*.{bash,sh}", "scheme": "file"}]
    }
    assert registered[types.TEXT_DOCUMENT_DID_SAVE] == {
        "documentSelector": [{"pattern": "**/*.{bash,sh}", "scheme": "file"}],
        "includeText": False,
    }
