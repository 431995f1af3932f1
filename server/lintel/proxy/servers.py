"""Which language server serves a language, where its project root is, and how to find its binary.

Data plus the root rules of each ecosystem; starting the server is the manager's job.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lintel.detect import Language, is_inside
from lintel.toolchains import install_dirs
from lintel.toolchains.base import not_found_message, read_toml, resolve_binary

log = logging.getLogger(__name__)

# What tells lintel that a child has loaded its workspace, for servers that answer cross-file requests
# (references, rename…) from whatever part of it they have read so far; the router holds those requests
# until then (router.py). "diagnostics": the child's first publishDiagnostics — pyright publishes only
# after an analysis pass, and it starts one only once it has enumerated the workspace's files.
LoadSignal = Literal["diagnostics"]


@dataclass(frozen=True)
class ServerSpec:
    language: Language
    # Default command lines, first found wins (basedpyright before pyright: it ships as a Python wheel).
    candidates: tuple[tuple[str, ...], ...]
    install_hint: str
    # Files that make a directory the server's project root, nearest first (go.work is looked up separately).
    root_markers: tuple[str, ...]
    initialization_options: Mapping[str, Any] | None = None
    load_signal: LoadSignal | None = None

    @property
    def name(self) -> str:
        return self.candidates[0][0]


SERVERS: Mapping[Language, ServerSpec] = {
    "go": ServerSpec("go", (("gopls",),), "go install golang.org/x/tools/gopls@latest", ("go.mod",)),
    "rust": ServerSpec("rust", (("rust-analyzer",),), "rustup component add rust-analyzer", ("Cargo.toml",)),
    "node": ServerSpec(
        "node",
        (("typescript-language-server", "--stdio"),),
        "npm install -g typescript-language-server typescript",
        ("tsconfig.json", "jsconfig.json", "package.json"),
        # tsserver would fetch @types packages from the registry for JavaScript files: lintel downloads nothing.
        {"disableAutomaticTypingAcquisition": True},
    ),
    "python": ServerSpec(
        "python",
        (("basedpyright-langserver", "--stdio"), ("pyright-langserver", "--stdio")),
        "pip install basedpyright (or: npm install -g pyright)",
        ("pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg"),
        # pyright lists the workspace's files on a timer that each document event pushes back 250 ms; until
        # then references and rename see only the open files and what they import.
        load_signal="diagnostics",
    ),
}


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
    spec: ServerSpec,
    *,
    project_root: Path,
    workspace_root: Path,
    override: Sequence[str] | None = None,
    binaries: Mapping[str, str] | None = None,
) -> Command:
    """The configured argv (`languages.<lang>.server`) or the first default whose binary is found, each
    binary resolved like the tools' (setting, project-local, PATH)."""
    candidates = (tuple(override),) if override else spec.candidates
    proxy_only = False
    for argv in candidates:
        found = resolve_binary(
            argv[0],
            project_root=project_root,
            workspace_root=workspace_root,
            setting=(binaries or {}).get(argv[0]),
            install_dirs=install_dirs(spec.language),
        )
        log.debug("%s: %s -> %s (tried %s)", spec.language, argv[0], found.path, ", ".join(found.tried))
        if found.path is not None:
            return Command((found.path, *argv[1:]), argv[0], spec.install_hint)
        proxy_only = proxy_only or found.proxy_only
    names = " or ".join(argv[0] for argv in candidates)
    return Command(None, names, spec.install_hint, proxy_only=proxy_only)


def server_root(language: Language, file: Path, workspace: Path) -> Path:
    """The directory the language server for `file` should be rooted at, as its ecosystem defines it:
    go.work above go.mod, the Cargo workspace root above the crate, the nearest tsconfig/package.json,
    the nearest pyproject.toml. Without a marker inside the workspace, the workspace folder itself."""
    workspace = workspace.resolve()
    start = file.resolve()
    directory = start if start.is_dir() else start.parent
    if not is_inside(directory, workspace):
        return workspace
    ancestors = [directory, *[p for p in directory.parents if is_inside(p, workspace)]]
    if language == "go":
        for candidate in ancestors:
            if (candidate / "go.work").is_file():
                return candidate
    markers = SERVERS[language].root_markers
    nearest = next((d for d in ancestors if any((d / m).is_file() for m in markers)), None)
    if nearest is None:
        return workspace
    if language == "rust":
        # Cargo: a crate's workspace root is the nearest Cargo.toml at or above it with a [workspace] table.
        for candidate in ancestors[ancestors.index(nearest) :]:
            manifest = read_toml(candidate / "Cargo.toml")
            if manifest is not None and "workspace" in manifest:
                return candidate
    return nearest
