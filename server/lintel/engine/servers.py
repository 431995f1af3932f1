"""Finding a language's server: its command line (binary resolved like the tools') and its project root
(by the language's own rule). Starting it is the manager's job."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lintel.core.fsstat import is_dir, is_file
from lintel.engine.detect import is_inside
from lintel.languages import LanguageSpec
from lintel.languages.binaries import not_found_message, resolve_binary

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Command:
    """A resolved server command line, or why there is none."""

    argv: tuple[str, ...] | None
    display: str  # the binary as the user knows it: `gopls`, `basedpyright-langserver`
    install_hint: str
    proxy_only: bool = False  # only a rustup proxy was there, with no component behind it

    @property
    def missing_message(self) -> str:
        return not_found_message("navigation", self.display, self.install_hint, proxy_only=self.proxy_only)


def resolve_command(
    language: LanguageSpec,
    *,
    project_root: Path,
    workspace_root: Path,
    override: Sequence[str] | None = None,
    binaries: Mapping[str, str] | None = None,
) -> Command:
    """The configured argv (`languages.<lang>.server`) or the first default whose binary is found, each
    binary resolved like the tools' (setting, project-local, PATH). The defaults are tried first in the project
    alone, then everywhere: a project whose venv ships pyright gets its own pyright, not the basedpyright that
    lintel's environment (PATH) holds."""
    spec = language.server
    hint = spec.install_hint if spec is not None else ""
    candidates = (tuple(override),) if override else (spec.candidates if spec is not None else ())
    proxy_only = False
    for local_only in (True, False):
        for argv in candidates:
            found = resolve_binary(
                argv[0],
                project_root=project_root,
                workspace_root=workspace_root,
                setting=(binaries or {}).get(argv[0]),
                install_dirs=language.install_dirs(),
                local_only=local_only,
            )
            log.debug("%s: %s -> %s (tried %s)", language.name, argv[0], found.path, ", ".join(found.tried))
            if found.path is not None:
                return Command((found.path, *argv[1:]), argv[0], hint)
            proxy_only = proxy_only or found.proxy_only
    names = " or ".join(argv[0] for argv in candidates) or f"no language server for {language.name}"
    return Command(None, names, hint, proxy_only=proxy_only)


def server_root(language: LanguageSpec, file: Path, workspace: Path) -> Path:
    """The directory the language server for `file` should be rooted at, as its ecosystem defines it:
    the nearest folder with one of its root markers, unless the language's own rule says otherwise (go.work
    above go.mod, the Cargo workspace root above the crate). Without a marker inside the workspace, the
    workspace folder itself."""
    workspace = workspace.resolve()
    start = file.resolve()
    directory = start if is_dir(start) else start.parent
    if not is_inside(directory, workspace):
        return workspace
    ancestors = [directory, *[p for p in directory.parents if is_inside(p, workspace)]]
    spec = language.server
    markers = spec.root_markers if spec is not None else language.markers
    nearest = next((d for d in ancestors if any(is_file(d / m) for m in markers)), None)
    chosen = spec.root_rule(ancestors, nearest) if spec is not None and spec.root_rule is not None else None
    return chosen or nearest or workspace
