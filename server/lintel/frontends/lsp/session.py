"""The server's state, passed to every handler: workspace folders with their projects and configuration,
the diagnostics store, the run scheduler and what the user has been told."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lintel.core.positions import Unit
from lintel.frontends.lsp.scheduler import Scheduler
from lintel.frontends.lsp.store import DiagnosticsStore
from lintel.frontends.lsp.watched import FileWatch

if TYPE_CHECKING:
    from lintel.engine.checks import RunResult
    from lintel.engine.config import ConfigProblem, LintelConfig
    from lintel.engine.testdiscovery import TestIndex
    from lintel.languages import Project, Registry

log = logging.getLogger(__name__)

# initializationOptions keys that are not configuration.
_NOT_CONFIG = ("trusted",)

# How many of Session.folder_for's answers are kept.
FOLDER_ANSWERS = 512


# The session is made with the server, before `initialize` is answered; the engine (configuration models,
# languages, detection) is imported by the folders, made after that answer (docs/architecture.md, A fast start).


def _default_config() -> LintelConfig:
    from lintel.engine.config import LintelConfig

    return LintelConfig()


def _builtin_languages() -> Registry:
    from lintel.languages import LANGUAGES

    return LANGUAGES


@dataclass
class Folder:
    """One workspace folder: detected on its own (multi-root), with its own configuration."""

    root: Path
    uri: str
    config: LintelConfig = field(default_factory=_default_config)
    projects: list[Project] = field(default_factory=list)
    # The built-in languages and those its configuration declares.
    languages: Registry = field(default_factory=_builtin_languages)
    client_settings: Mapping[str, Any] | None = None  # from workspace/configuration, scoped to this folder
    # (project root, language) -> its last runTests result: each project of a monorepo keeps its own.
    last_tests: dict[tuple[Path, str], RunResult] = field(default_factory=dict)
    # Counts the changes of its watched files: what was worked out from them before (a document's lint target)
    # is worked out again.
    generation: int = 0

    def project_roots(self) -> Iterator[Path]:
        return (project.root for project in self.projects)

    def markers(self) -> Iterator[str]:
        return (marker for spec in self.languages for marker in spec.markers)

    def refresh(self, init_options: Mapping[str, Any] | None) -> list[ConfigProblem]:
        """Re-read markers and configuration (defaults < files < initializationOptions < client settings)."""
        from lintel.engine.config import load_config
        from lintel.engine.detect import detect
        from lintel.engine.registry import registry_for

        loaded = load_config(
            self.root,
            ("initializationOptions", init_options),
            ("workspace/configuration", self.client_settings),
        )
        self.config = loaded.config
        self.languages = registry_for(self.config)
        self.projects = detect(self.root, self.languages)
        return loaded.problems


def config_options(init_options: Any) -> dict[str, Any] | None:
    """The configuration part of initializationOptions (a `settings` key or the object itself)."""
    if not isinstance(init_options, Mapping):
        return None
    settings = init_options.get("settings", init_options)
    if not isinstance(settings, Mapping):
        return None
    return {k: v for k, v in settings.items() if k not in _NOT_CONFIG}


@dataclass
class Session:
    folders: list[Folder] = field(default_factory=list)
    trusted: bool = True
    init_options: dict[str, Any] | None = None
    encoding: Unit = "utf-16"
    pull: bool = False  # diagnostics are pulled by the client (textDocument/diagnostic) instead of pushed
    store: DiagnosticsStore = field(default_factory=DiagnosticsStore)
    scheduler: Scheduler = field(default_factory=Scheduler)
    watch: FileWatch = field(default_factory=FileWatch)
    _tests: TestIndex | None = field(default=None, init=False, repr=False)

    # path -> (the folders then, the answer): folder_for's answers since the path's document was opened.
    _folder_of: dict[Path, tuple[tuple[Folder, ...], Folder | None]] = field(
        default_factory=dict, init=False, repr=False
    )

    @property
    def tests(self) -> TestIndex:
        """The tests found in the folders (each file's by its stamp, each project's last collection): discoverTests
        and the test lenses answer from it. Made on first use: the engine loads after `initialize` is answered."""
        if self._tests is None:
            from lintel.engine.testdiscovery import TestIndex

            self._tests = TestIndex()
        return self._tests

    def folder_for(self, path: Path) -> Folder | None:
        """The innermost workspace folder that holds `path` (after symlinks). The answer stands while the folders
        stay the same, until the path's document is opened again or watched files change (`forget_paths`): a save
        asks it three times (its change, its save, its publish), each a realpath of the path."""
        folders = tuple(self.folders)
        known = self._folder_of.get(path)
        if known is not None and _same(known[0], folders):
            return known[1]
        from lintel.engine.detect import is_inside

        target = path.resolve()
        # Roots are resolved when a folder is added: the plain test first (one realpath instead of two a folder).
        holders = [f for f in folders if target.is_relative_to(f.root) or is_inside(target, f.root)]
        found = max(holders, key=lambda f: len(f.root.parts), default=None)
        if len(self._folder_of) >= FOLDER_ANSWERS:
            self._folder_of.clear()
        self._folder_of[path] = (folders, found)
        return found

    def forget_paths(self, *paths: Path) -> None:
        """folder_for works out the folder of `paths` (of every path, when none is named) again: a document opened
        anew, files changed on disk (a symlink may point elsewhere now)."""
        if not paths:
            self._folder_of.clear()
        for path in paths:
            self._folder_of.pop(path, None)


def _same(these: tuple[Folder, ...], those: tuple[Folder, ...]) -> bool:
    return len(these) == len(those) and all(a is b for a, b in zip(these, those, strict=True))
