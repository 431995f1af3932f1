"""The one workspace `lintel mcp` serves (its `--root`), with its configuration kept current and the last test
run of each project, and whether it is trusted."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from lintel.engine.actions import Folder
from lintel.engine.checks import RunResult
from lintel.engine.config import LintelConfig, load_config
from lintel.engine.registry import registry_for
from lintel.languages import Registry

if TYPE_CHECKING:
    from lintel.engine.coverage import CoverageStore
    from lintel.engine.testdiscovery import TestIndex

log = logging.getLogger(__name__)

# The files config.read_file_config reads at a root.
CONFIG_FILES = ("pyproject.toml", "lintel.toml")

Stamp = tuple[tuple[int, int] | None, ...]


@dataclass
class Workspace:
    """lintel.engine.actions.Folder for MCP: the root, its configuration (re-read when a configuration file changes:
    an agent edits lintel.toml between calls) and the projects' last test runs."""

    root: Path
    config: LintelConfig = field(default_factory=LintelConfig)
    languages: Registry = field(default_factory=lambda: registry_for(LintelConfig()))
    last_tests: dict[tuple[Path, str], RunResult] = field(default_factory=dict)
    _stamp: Stamp | None = None

    def refresh(self) -> None:
        """Re-read the configuration if a configuration file appeared, changed or went since the last read;
        a bad value is logged (stderr) and its default used, as `lintel check` does."""
        stamp = self._config_stamp()
        if stamp == self._stamp:
            return
        self._stamp = stamp
        loaded = load_config(self.root)
        for problem in loaded.problems:
            log.warning("configuration: %s", problem)
        self.config = loaded.config
        self.languages = registry_for(self.config)

    def _config_stamp(self) -> Stamp:
        stamps: list[tuple[int, int] | None] = []
        for name in CONFIG_FILES:
            try:
                stat = (self.root / name).stat()
            except OSError:
                stamps.append(None)
            else:
                stamps.append((stat.st_mtime_ns, stat.st_size))
        return tuple(stamps)


class ServerDiagnostics(Protocol):
    """lintel.frontends.mcp.servers.AgentServers as the commands' front uses it."""

    async def server_diagnostics(self, folder: Folder, file: Path, text: str) -> RunResult | None: ...


def _coverage_store() -> CoverageStore:
    # Imported with the tools' host, not with the workspace: the post-edit hook uses the workspace alone.
    from lintel.engine.coverage import CoverageStore

    return CoverageStore()


def _test_index() -> TestIndex:
    from lintel.engine.testdiscovery import TestIndex

    return TestIndex()


@dataclass
class Host:
    """What the tools act on: the workspace folders (one: `--root`) and whether tools may run there."""

    folders: list[Workspace]
    trusted: bool = True
    # The last coverage index of each project, for tests_covering (kept on disk too: lintel.engine.coverage.store).
    coverage: CoverageStore = field(default_factory=_coverage_store)
    # The tests found so far, for list_tests (each file's by its stamp, each project's last collection).
    tests: TestIndex = field(default_factory=_test_index)
    # The child language servers (navigation, a proposed text's diagnostics); set by serve.build.
    servers: ServerDiagnostics | None = None

    def refresh(self) -> None:
        for folder in self.folders:
            folder.refresh()
