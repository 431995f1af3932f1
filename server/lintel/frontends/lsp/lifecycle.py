"""Initialize (its answer is wiring.py's), configuration, workspace folders, watched files and shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types
from pygls.uris import to_fs_path

from lintel.engine.config import ConfigProblem
from lintel.frontends.lsp.advertised import wants_pull
from lintel.frontends.lsp.declared import DeclaredFiles
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.session import Folder, config_options
from lintel.frontends.lsp.shared import uri_path
from lintel.frontends.lsp.watched import refreshes

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer

log = logging.getLogger(__name__)


class Children(Protocol):
    """The child language servers (navigation.py)."""

    async def reconcile(self) -> None:
        """Brought in line with the configuration and workspace folders."""

    async def stop(self) -> None:
        """Every child shut down (shutdown + exit, then killed)."""

    def configuration_changed(self, settings: Any) -> None:
        """The settings the editor pushed, passed on to every child (and to each one that starts later)."""


def _folder(uri: str) -> Folder | None:
    path = to_fs_path(uri)
    if path is None:
        return None
    return Folder(root=Path(path).resolve(), uri=uri)


def _initial_folders(params: types.InitializeParams) -> list[Folder]:
    uris: list[str] = [f.uri for f in params.workspace_folders or ()]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    if not uris and params.root_path:
        uris = [Path(params.root_path).resolve().as_uri()]
    folders = [f for f in (_folder(uri) for uri in uris) if f is not None]
    return folders


def _encoding(server: LintelServer) -> str:
    negotiated = server.workspace.position_encoding
    if negotiated is None:
        return "utf-16"
    return str(getattr(negotiated, "value", negotiated))


def report_problems(server: LintelServer, folder: Folder, problems: Iterable[ConfigProblem]) -> None:
    """A bad value: shown with its path, the default used, the server keeps running."""
    listed = list(problems)
    if not listed:
        return
    text = "; ".join(str(p) for p in listed)
    server.notifier.once(f"config:{folder.root}:{text}", f"invalid configuration in {folder.root.name}: {text}")


def refresh_folder(server: LintelServer, folder: Folder) -> None:
    report_problems(server, folder, folder.refresh(config_options(server.session.init_options)))
    languages = ", ".join(p.language for p in folder.projects) or "none"
    server.notifier.log(f"{folder.root}: detected {languages}")


async def pull_client_settings(server: LintelServer) -> None:
    """workspace/configuration section `lintel`, one item per folder (highest precedence)."""
    session = server.session
    caps = server.client_capabilities.workspace
    if not session.folders or caps is None or not caps.configuration:
        return
    items = [types.ConfigurationItem(section="lintel", scope_uri=f.uri) for f in session.folders]
    try:
        values = await server.workspace_configuration_async(types.ConfigurationParams(items=items))
    except Exception as exc:  # a client that fails here still gets the other sources
        log.warning("workspace/configuration failed: %s", exc)
        return
    for folder, value in zip(session.folders, values or (), strict=False):
        folder.client_settings = value if isinstance(value, Mapping) else None


class Workers(Protocol):
    """The warm lint workers (lintel.engine.workers.pool)."""

    async def stop_all(self) -> None:
        """Every worker stopped (its process group killed); none started afterwards."""


def _holds(folder: Folder, path: Path) -> bool:
    """Whether `path` (as the editor names it: symlinks not resolved, maybe gone) is in the folder (resolved)."""
    if path.is_relative_to(folder.root):
        return True
    with contextlib.suppress(OSError):
        return path.parent.resolve().is_relative_to(folder.root)
    return False


class Lifecycle:
    """The server's life: initialize, configuration and folder changes (each a reload), shutdown."""

    def __init__(self, server: LintelServer, diagnostics: Diagnostics, children: Children, workers: Workers) -> None:
        self.server = server
        self.diagnostics = diagnostics
        self.children = children
        self.workers = workers
        self.declared = DeclaredFiles()
        self._trust_problem: str | None = None  # a `trusted` value that is not a boolean, told once
        server.session.watch.on_change = self.files_changed

    async def reload(self, *, pull: bool = True, only: Sequence[Folder] | None = None) -> None:
        """Configuration and projects read again: of every folder, or of `only` those (their files changed)."""
        server = self.server
        session = server.session
        if pull:
            await pull_client_settings(server)
        server.notifier.forget("config:")
        for folder in session.folders if only is None else only:
            refresh_folder(server, folder)
            session.watch.remember(folder)
            if not folder.config.editor.format_check:
                self.diagnostics.clear_channel("format", folder)
        # Not awaited: the editor answers the registration when it likes, and nothing here waits on it.
        server.spawn(self.declared.update(server))
        markers = {marker for folder in session.folders for marker in folder.markers()}
        server.spawn(session.watch.register(server, sorted(markers)))
        await self.children.reconcile()

    async def files_changed(self, paths: Sequence[Path]) -> None:
        """Watched files changed (the editor's event, or the signature compared on use): what was worked out from
        them is forgotten — the folders of paths, the documents' lint targets and the warm programs of the folders
        holding them — and a folder whose configuration file, marker or manifest changed is read again."""
        from lintel.engine.workers.pool import WorkerPool
        from lintel.engine.workers.warm import forget

        session = self.server.session
        watch = session.watch
        session.forget_paths()
        stale: list[Folder] = []
        for folder in session.folders:
            mine = [path for path in paths if _holds(folder, path)]
            if not mine:
                continue
            folder.generation += 1
            if isinstance(self.workers, WorkerPool):
                forget(self.workers, folder.root)
            # A file read already (lintel.toml saved: reloaded on its save, then its event comes) is not read twice.
            if any(refreshes(folder, path) and not watch.known(path) for path in mine):
                stale.append(folder)
            else:
                watch.remember(folder)
        if stale:
            await self.reload(pull=False, only=stale)

    async def stop_everything(self) -> None:
        """Cancel every run (which kills its process group) and wait until they are gone."""
        server = self.server
        await server.session.scheduler.shutdown()
        await self.workers.stop_all()
        await self.children.stop()
        tasks = list(server.background)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task

    # -- the editor's messages -------------------------------------------------------------------------

    def initialize(self, params: types.InitializeParams) -> None:
        """What `initialize` asked for, done once the features are loaded: after its answer (advertised.py
        declared their capabilities) and before any later message is handled (app.py)."""
        session = self.server.session
        options: Any = params.initialization_options
        session.init_options = dict(options) if isinstance(options, Mapping) else None
        session.trusted, self._trust_problem = _trusted(options)
        session.folders = _initial_folders(params)
        for folder in session.folders:
            folder.refresh(config_options(session.init_options))
        if wants_pull(params.capabilities):
            self.diagnostics.enable_pull()
        self.prestart_workers()

    def prestart_workers(self) -> None:
        """The lint worker of each folder's own project (the one at its root) started now, while the rest of
        the start goes on: the first open file's diagnostics wait for the tool to answer, not to load
        (docs/architecture.md, A fast start). Projects deeper in the folder start theirs on first use."""
        from lintel.engine.workers.pool import WorkerPool
        from lintel.engine.workers.warm import prestart

        server = self.server
        if not server.session.trusted or not isinstance(self.workers, WorkerPool):
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test driving the protocol by hand): the first lint starts it
            return
        for folder in server.session.folders:
            editor = folder.config.editor
            if not (editor.warm_workers and (editor.lint_on_open or editor.lint_on_save)):
                continue
            for project in folder.projects:
                if project.root == folder.root:
                    server.spawn(prestart(self.workers, project, workspace=folder.root, config=folder.config))

    async def initialized(self) -> None:
        server = self.server
        session = server.session
        session.encoding = _encoding(server)  # type: ignore[assignment]
        if self._trust_problem is not None:
            server.notifier.once("trusted-value", self._trust_problem, types.MessageType.Warning)
        if not session.trusted:
            server.notifier.once(
                "untrusted",
                "this workspace is not trusted: lintel runs no linter, test, validator or language server here",
                types.MessageType.Info,
            )
        await self.reload()

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        # The other sections are the child servers' (gopls, typescript, python…): each child reads its own.
        self.children.configuration_changed(settings)
        section = settings.get("lintel") if isinstance(settings, Mapping) else None
        if isinstance(section, Mapping):
            # Clients that push settings send them here; asking the client again would replace them.
            for folder in self.server.session.folders:
                folder.client_settings = section
        await self.reload(pull=not isinstance(section, Mapping))

    async def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        await self.files_changed([path for change in params.changes if (path := uri_path(change.uri)) is not None])

    async def did_change_folders(self, params: types.DidChangeWorkspaceFoldersParams) -> None:
        session = self.server.session
        removed = {f.uri for f in params.event.removed}
        session.folders = [f for f in session.folders if f.uri not in removed]
        for added in params.event.added:
            folder = _folder(added.uri)
            if folder is not None:
                session.folders.append(folder)
        await self.reload()


def setup(server: LintelServer, diagnostics: Diagnostics, children: Children, workers: Workers) -> Lifecycle:
    return Lifecycle(server, diagnostics, children, workers)


def handlers(lifecycle: Lifecycle, cancel_requests: Callable[[], None]) -> dict[str, Callable[..., Any]]:
    """The lifecycle routes (advertised.ROUTES). `shutdown` stops everything, then cancels the requests still in
    flight (`cancel_requests`: the dispatcher's), as pygls cancels its own once the handler is done."""

    async def initialized(params: types.InitializedParams) -> None:
        await lifecycle.initialized()

    async def shutdown(params: None) -> None:
        await lifecycle.stop_everything()
        cancel_requests()

    return {
        types.INITIALIZED: initialized,
        types.WORKSPACE_DID_CHANGE_CONFIGURATION: lifecycle.did_change_configuration,
        types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS: lifecycle.did_change_folders,
        types.WORKSPACE_DID_CHANGE_WATCHED_FILES: lifecycle.did_change_watched_files,
        types.SHUTDOWN: shutdown,
    }


def _trusted(options: Any) -> tuple[bool, str | None]:
    """Whether the editor grants trust, and what to tell the user about the value it sent. Trust is read where
    the configuration is (session.config_options): `trusted`, and `settings.trusted` as clients built on VS Code's
    python-tools template nest it. No `trusted` key in either: trusted (editors without workspace trust); `true`
    in every place that has one: trusted; anything else — `false`, and also `"false"`, `0`, `null` or an object —
    grants nothing, and a value that is not a boolean is said to be wrong."""
    places = [("initializationOptions.trusted", options)]
    if isinstance(options, Mapping):
        places.append(("initializationOptions.settings.trusted", options.get("settings")))
    values = [(name, where["trusted"]) for name, where in places if isinstance(where, Mapping) and "trusted" in where]
    wrong = next(((name, value) for name, value in values if not isinstance(value, bool)), None)
    if wrong is not None:
        name, value = wrong
        return (
            False,
            f"{name} must be true or false, not {json.dumps(value)[:80]}: the workspace is treated as not trusted",
        )
    return all(value is True for _, value in values), None
