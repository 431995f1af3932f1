"""The files lintel's remembered answers depend on are watched: the editor is asked to (dynamic registration of
workspace/didChangeWatchedFiles), or, when it cannot be, they are compared on use; a change forgets exactly what
depends on it, and a configuration file or marker that changed has its folder read again."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.session import Folder
from lintel.frontends.lsp.watched import FileWatch, globs, refreshes
from lintel.frontends.lsp.wiring import create_server
from lsprotocol import types

from tests.helpers import MessageRecorder

WATCHING = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}


class Editor:
    """The server driven by raw messages, answering its requests to register capabilities."""

    def __init__(self, root: Path, capabilities: dict[str, Any]) -> None:
        self.root = root
        self.server: LintelServer = create_server()
        self.out = MessageRecorder()
        self.server.protocol.set_writer(self.out, include_headers=False)
        params = {"capabilities": capabilities, "rootUri": root.as_uri()}
        self.send({"id": 1, "method": types.INITIALIZE, "params": params})
        self.send({"method": types.INITIALIZED, "params": {}})
        self._answered: set[Any] = set()

    def send(self, message: dict[str, Any]) -> None:
        self.server._on_message(json.dumps({"jsonrpc": "2.0", **message}).encode())

    async def settle(self) -> None:
        """Every message handled, and the server's registration requests answered (by the editor: accepted)."""
        for _ in range(30):
            await asyncio.sleep(0)
            for message in self.registrations():
                if message["id"] not in self._answered:
                    self._answered.add(message["id"])
                    self.send({"id": message["id"], "result": None})

    def registrations(self) -> list[dict[str, Any]]:
        return [m for m in self.out.messages if m.get("method") == types.CLIENT_REGISTER_CAPABILITY]

    def watchers(self) -> list[str]:
        return [
            watcher["globPattern"]
            for message in self.registrations()
            for registration in message["params"]["registrations"]
            if registration["method"] == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
            for watcher in registration["registerOptions"]["watchers"]
        ]

    async def changed(self, *paths: Path, kind: types.FileChangeType = types.FileChangeType.Changed) -> None:
        changes = [{"uri": path.as_uri(), "type": int(kind)} for path in paths]
        self.send({"method": types.WORKSPACE_DID_CHANGE_WATCHED_FILES, "params": {"changes": changes}})
        await self.settle()

    async def opened(self, path: Path) -> None:
        document = {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": path.read_text()}
        self.send({"method": types.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": document}})
        await self.settle()


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path.resolve()
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    (root / "demo.py").write_text("x = 1\n", encoding="utf-8")
    return root


def lints_on_save(folder: Folder) -> bool:
    return folder.config.editor.lint_on_save


QUIET = "[editor]\nlint_on_open = false\nlint_on_save = false\nformat_check = false\n"


async def test_the_editor_is_asked_to_watch_configuration_markers_and_installed_tools(tmp_path: Path) -> None:
    editor = Editor(_workspace(tmp_path), WATCHING)
    await editor.settle()
    watched = editor.watchers()
    assert {"**/lintel.toml", "**/pyproject.toml", "**/package.json", "**/go.mod", "**/Cargo.toml"} <= set(watched)
    assert {"**/node_modules/.bin/*", "**/.venv/bin/*", "**/ruff.toml", "**/eslint.config.*"} <= set(watched)
    assert editor.server.session.watch.registered
    assert len(editor.registrations()) == 1  # asked once


async def test_an_editor_that_cannot_watch_is_not_asked(tmp_path: Path) -> None:
    editor = Editor(_workspace(tmp_path), {})
    await editor.settle()
    assert editor.watchers() == []
    assert not editor.server.session.watch.registered


async def test_a_changed_configuration_file_reloads_its_folder_once(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    editor = Editor(root, WATCHING)
    await editor.settle()
    [folder] = editor.server.session.folders
    assert lints_on_save(folder)
    (root / "lintel.toml").write_text(QUIET, encoding="utf-8")
    await editor.changed(root / "lintel.toml", kind=types.FileChangeType.Created)
    assert not lints_on_save(folder)
    read = folder.config
    await editor.changed(root / "lintel.toml")  # the same file again (a save, then its event): not read twice
    assert folder.config is read
    (root / "lintel.toml").unlink()
    await editor.changed(root / "lintel.toml", kind=types.FileChangeType.Deleted)
    assert lints_on_save(folder)


async def test_a_new_project_is_detected_when_its_marker_appears(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    editor = Editor(root, WATCHING)
    await editor.settle()
    [folder] = editor.server.session.folders
    assert [p.language for p in folder.projects] == ["python"]
    (root / "package.json").write_text('{"name": "web"}', encoding="utf-8")
    await editor.changed(root / "package.json", kind=types.FileChangeType.Created)
    assert [p.language for p in folder.projects] == ["node", "python"]
    # A nested project is found from its markers when its files are used: what was found before is forgotten.
    config, generation = folder.config, folder.generation
    (root / "api").mkdir()
    (root / "api" / "go.mod").write_text("module api\n", encoding="utf-8")
    await editor.changed(root / "api" / "go.mod", kind=types.FileChangeType.Created)
    assert (folder.config, folder.generation) == (config, generation + 1)


async def test_a_tool_change_forgets_the_tools_answers_and_keeps_the_configuration(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    editor = Editor(root, WATCHING)
    await editor.settle()
    [folder] = editor.server.session.folders
    config, generation = folder.config, folder.generation
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "ruff").write_text("", encoding="utf-8")
    await editor.changed(root / ".venv" / "bin" / "ruff", kind=types.FileChangeType.Created)
    assert folder.generation == generation + 1  # the documents' lint targets are found again
    assert folder.config is config  # nothing the configuration or detection reads changed
    await editor.changed(tmp_path.parent / "elsewhere" / "ruff.toml")  # outside every folder: nothing to forget
    assert folder.generation == generation + 1


async def test_without_watchers_a_change_is_found_when_a_document_opens(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    editor = Editor(root, {})
    await editor.settle()
    [folder] = editor.server.session.folders
    read, generation = folder.config, folder.generation
    await editor.opened(root / "demo.py")
    assert (folder.config, folder.generation) == (read, generation)  # nothing changed: nothing read again
    (root / "lintel.toml").write_text(QUIET, encoding="utf-8")
    await editor.opened(root / "demo.py")
    assert not lints_on_save(folder)
    assert folder.generation == generation + 1
    (root / "ruff.toml").write_text("line-length = 100\n", encoding="utf-8")
    read = folder.config
    await editor.opened(root / "demo.py")
    assert folder.config is read  # a tool's file: its answers are forgotten, the configuration stays
    assert folder.generation == generation + 2


def test_what_a_change_means_for_its_folder(tmp_path: Path) -> None:
    class Watched:
        root = tmp_path

        def project_roots(self) -> list[Path]:
            return [tmp_path / "web"]

        def markers(self) -> list[str]:
            return ["pyproject.toml", "*.csproj"]

    folder = Watched()
    assert refreshes(folder, tmp_path / "lintel.toml")
    assert not refreshes(folder, tmp_path / "sub" / "lintel.toml")  # configuration is read at the root only
    assert refreshes(folder, tmp_path / "pyproject.toml")  # a marker: a project there
    assert refreshes(folder, tmp_path / "App.csproj")  # a declared language's marker pattern
    assert refreshes(folder, tmp_path / "pnpm-lock.yaml")  # the package manager
    assert not refreshes(folder, tmp_path / "web" / "package.json")  # nested: found per file when used
    assert not refreshes(folder, tmp_path / "web" / "node_modules" / ".bin" / "eslint")
    assert not refreshes(folder, tmp_path / "ruff.toml")
    assert "**/*.csproj" in globs(folder.markers())

    watch = FileWatch()
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "eslint.config.js").write_text("export default []\n", encoding="utf-8")
    (tmp_path / "web" / "packages" / "ui" / "src").mkdir(parents=True)
    watch.remember(folder)
    assert watch.changed(folder) == []
    assert watch.known(tmp_path / "web" / "eslint.config.js")
    (tmp_path / "web" / "eslint.config.js").write_text("export default [{}]\n", encoding="utf-8")
    (tmp_path / "web" / "node_modules" / ".bin").mkdir(parents=True)
    (tmp_path / "notes.txt").write_text("not watched\n", encoding="utf-8")
    assert watch.changed(folder) == [tmp_path / "web" / "eslint.config.js", tmp_path / "web" / "node_modules/.bin"]
    assert not watch.known(tmp_path / "web" / "eslint.config.js")
    watch.remember(folder)
    assert watch.changed(folder) == []

    # A nested project's files are compared from the first time one of its documents is used.
    ui = tmp_path / "web" / "packages" / "ui"
    document = ui / "src" / "button.js"
    assert watch.changed(folder, document) == []
    (ui / "package.json").write_text('{"name": "ui"}', encoding="utf-8")
    assert watch.changed(folder, document) == [ui / "package.json"]
    watch.remember(folder)  # every directory looked at before
    assert watch.changed(folder, document) == []
