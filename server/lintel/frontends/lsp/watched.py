"""The files lintel's remembered answers depend on — configuration, project markers and manifests, the tools' own
configuration, the project's installed tools — watched by the editor (workspace/didChangeWatchedFiles, registered
dynamically) or, for an editor that cannot, compared by a stat signature when a document is opened or saved."""

from __future__ import annotations

import fnmatch
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types

log = logging.getLogger(__name__)


class Registrar(Protocol):
    """What registering watchers needs of the server: narrow, so that this module need not import app.py, which
    imports it through the session."""

    @property
    def client_capabilities(self) -> types.ClientCapabilities: ...

    async def client_register_capability_async(self, params: types.RegistrationParams) -> Any: ...

    async def client_unregister_capability_async(self, params: types.UnregistrationParams) -> Any: ...


# Read at a folder's root by the configuration (engine.config.read_file_config).
CONFIG_FILES = ("lintel.toml", "pyproject.toml")
# Read by detection and the projects' inspection (package manager, workspaces): a change at a folder's root means
# detecting again.
MANIFESTS = (
    "package.json",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "yarn.lock",
    "bun.lockb",
    "bun.lock",
    "package-lock.json",
    "go.mod",
    "go.work",
    "Cargo.toml",
    "setup.py",
)
# Read when a tool is resolved or asked whether the project uses it: a change means resolving again.
TOOL_FILES = (
    "setup.cfg",
    "tox.ini",
    "noxfile.py",
    "Makefile",
    "justfile",
    ".pre-commit-config.yaml",
    "requirements*.txt",
    "mypy.ini",
    ".mypy.ini",
    "pyrightconfig.json",
    "ruff.toml",
    ".ruff.toml",
    "eslint.config.*",
    ".eslintrc*",
    ".prettierrc*",
    "prettier.config.*",
    "tsconfig*.json",
    ".golangci.*",
    "Cargo.lock",
    "rust-toolchain*",
    "clippy.toml",
    ".clippy.toml",
    "rustfmt.toml",
    ".rustfmt.toml",
)
# The projects' own tool installations (languages.binaries.LOCAL_BIN_DIRS): a tool installed or removed there.
BIN_DIRS = ("node_modules/.bin", ".venv/bin", "venv/bin")

# (mtime_ns, size, inode) of a watched file, zeros when it is missing; a bin directory's own stamp changes when
# entries are added to it or removed.
Stamp = tuple[int, int, int]
Signature = dict[Path, Stamp]  # a directory's watched files
# The paths that changed, handled by lifecycle.Lifecycle.files_changed.
OnChange = Callable[[Sequence[Path]], Awaitable[None]]


class Watched(Protocol):
    """What a folder is to the watch: its root, its projects' roots and the markers its languages detect by."""

    @property
    def root(self) -> Path: ...

    def project_roots(self) -> Iterable[Path]: ...

    def markers(self) -> Iterable[str]: ...


def names(markers: Iterable[str] = ()) -> tuple[str, ...]:
    """The file names (globs) watched in every folder of a workspace, `markers` (the declared languages') too."""
    return tuple(dict.fromkeys((*CONFIG_FILES, *MANIFESTS, *markers, *TOOL_FILES)))


def globs(markers: Iterable[str] = ()) -> list[str]:
    """The watchers' glob patterns, relative to every workspace folder."""
    return [f"**/{name}" for name in names(markers)] + [f"**/{folder}/*" for folder in BIN_DIRS]


def refreshes(folder: Watched, path: Path) -> bool:
    """Whether a change of `path` means the folder's configuration and projects must be read again: a configuration
    file, marker or manifest at its root (a nested project is found per file, from its markers, when used)."""
    if path.parent != folder.root:
        return False
    return any(fnmatch.fnmatchcase(path.name, name) for name in (*CONFIG_FILES, *MANIFESTS, *folder.markers()))


def listing(directory: Path, patterns: Sequence[str]) -> Signature:
    """The stamps of the watched files in `directory` (one listing) and of its bin directories: a file added,
    removed or rewritten there changes it."""
    found: Signature = {}
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if any(fnmatch.fnmatchcase(entry.name, pattern) for pattern in patterns):
                    found[Path(entry.path)] = _stamp(entry.path)
    except OSError:
        return found
    for bin_dir in BIN_DIRS:
        path = directory / bin_dir
        if (stamp := _stamp(path)) != (0, 0, 0):
            found[path] = stamp
    return found


def directories(folder: Watched, path: Path | None = None) -> list[Path]:
    """Where a folder's answers are read from: its root, its projects' roots, and the folders from `path` (a
    document) up to the root, where a nested project's markers and tools are."""
    found = [folder.root, *folder.project_roots()]
    if path is not None and path.is_relative_to(folder.root):
        found.extend(parent for parent in path.parents if parent.is_relative_to(folder.root))
    return list(dict.fromkeys(found))


def _stamp(path: str | Path) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return (0, 0, 0)
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def differences(before: Signature, after: Signature) -> list[Path]:
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


class FileWatch:
    """The editor's watchers as registered, and the watched files of each directory as last handled: for an editor
    that sends no events, `check` compares them on use; either way, one change read twice (the save of
    lintel.toml, then its event) is read once."""

    def __init__(self) -> None:
        self.registered = False  # the editor sends workspace/didChangeWatchedFiles for `globs`
        self.on_change: OnChange | None = None
        self._globs: list[str] = []
        self._generation = 0
        self._listings: dict[Path, Signature] = {}  # by directory

    def remember(self, folder: Watched) -> None:
        """The folder was just read, or its changes handled: its files as they are now (in every directory
        looked at before)."""
        patterns = names(folder.markers())
        seen = [d for d in self._listings if d.is_relative_to(folder.root)]
        for directory in dict.fromkeys((*directories(folder), *seen)):
            self._listings[directory] = listing(directory, patterns)

    def known(self, path: Path) -> bool:
        """Whether `path` is as it was when its directory was last remembered (its change was handled already)."""
        before = self._listings.get(path.parent, {})
        return path in before and before[path] == _stamp(path)

    def changed(self, folder: Watched, path: Path | None = None) -> list[Path]:
        """The watched files of the folder's directories (and those up from `path`) that differ from when they
        were last remembered; a directory not looked at before is remembered as it is."""
        patterns = names(folder.markers())
        changed: list[Path] = []
        for directory in directories(folder, path):
            now = listing(directory, patterns)
            before = self._listings.setdefault(directory, now)
            changed.extend(differences(before, now))
        return changed

    async def check(self, folder: Watched | None, path: Path | None = None) -> None:
        """For an editor that sends no events: the watched files of the folder and of the directories up from
        `path` (the document used) compared with the last time, a change handled as its event would be."""
        if self.registered or folder is None or self.on_change is None:
            return
        changed = self.changed(folder, path)
        if changed:
            await self.on_change(changed)

    async def register(self, server: Registrar, markers: Iterable[str]) -> None:
        """The editor asked to watch `globs(markers)`, when it registers watchers dynamically and they changed."""
        workspace = server.client_capabilities.workspace
        watched = getattr(workspace, "did_change_watched_files", None)
        if not getattr(watched, "dynamic_registration", False):
            return  # `check` on use instead
        patterns = globs(markers)
        if patterns == self._globs and self.registered:
            return
        old = f"lintel-watched-{self._generation}" if self.registered else None
        self._generation += 1
        self._globs = patterns
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in patterns]
        )
        registration = types.Registration(
            id=f"lintel-watched-{self._generation}",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        try:
            if old is not None:
                gone = types.Unregistration(id=old, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
                self.registered = False
                await server.client_unregister_capability_async(types.UnregistrationParams(unregisterations=[gone]))
            await server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
            self.registered = True
        except Exception as exc:  # an editor that refuses: the files are compared on use instead
            log.info("the editor did not register lintel's file watchers: %s", exc)
